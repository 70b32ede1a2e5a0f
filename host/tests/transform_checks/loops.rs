//! The transform kernels' loops (`plain`, `rolling`, `async`: how a thread keeps its loads in
//! flight) merge the same tiles in the same order, so at one launch shape they must give the
//! same bits — over grids that give a block one tile, several, and a partial last one, and over
//! sub-slices whose first elements come before a 16-byte boundary. The `async` loop's copy ring
//! is checked on the emulator too: a read before its copy was waited for panics there.

use reduce_host::*;

/// The result words (as bits) of `op` over `d[off..off + n]` with `looping` in 256-thread blocks
/// on `grid` blocks; `None` when that loop is not built for this op and type.
fn words<T: Scalar>(
    b: &Backend,
    op: TransformKind,
    d: &Buffer<T>,
    off: usize,
    n: usize,
    grid: usize,
    looping: TransformLoop,
) -> Option<[u64; 3]> {
    let o = LaunchOverrides {
        block: Some(256),
        grid: Some(grid),
        ..LaunchOverrides::default()
    };
    match PreparedTransform::<T>::with_loop(b, op, n, o, ResultIn::DeviceMemory, Some(looping)) {
        Ok(p) => {
            let w = p.run(b, d, off, None).unwrap();
            Some([w[0].to_bits(), w[1].to_bits(), w[2].to_bits()])
        }
        Err(ReduceError::InvalidArgument(why)) => {
            assert!(why.contains("loop is built for"), "{why}");
            None
        }
        Err(e) => panic!("{op:?} {looping:?}: {e}"),
    }
}

/// Every loop built for `T` gives the `plain` loop's bits, for the moments, `total` and
/// `nantotal` (`h` should hold a NaN or two for the last); `async` is built for all three when
/// `T` is `f16` (a measured candidate: README, "Half-precision inputs").
pub fn loops_keep_the_bits<T: Scalar>(b: &Backend, h: &[T]) {
    let d = b.upload(h).unwrap();
    for op in [
        TransformKind::Moments,
        TransformKind::Total,
        TransformKind::NanTotal,
    ] {
        for off in [0, 3] {
            let n = h.len() - off;
            let planned = plan_transform_on(b, op, T::TYPE, n, LaunchOverrides::default()).unwrap();
            for grid in [1, 3, 7, 32, planned.grid] {
                let at = |l| words(b, op, &d, off, n, grid, l);
                let plain = at(TransformLoop::Plain).expect("the plain loop is built for all");
                let asynchronous = at(TransformLoop::Async);
                if T::TYPE == ElemType::F16 {
                    assert!(asynchronous.is_some(), "{op:?} f16: async is built");
                }
                for (name, got) in [
                    ("rolling", at(TransformLoop::Rolling)),
                    ("async", asynchronous),
                ] {
                    if let Some(got) = got {
                        assert_eq!(
                            got,
                            plain,
                            "{op:?} {} {name} grid {grid} offset {off}",
                            T::TYPE
                        );
                    }
                }
            }
        }
    }
}
