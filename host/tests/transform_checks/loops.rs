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

/// The moments with the grid-wide shift (`shifted`, built for `f16`/`bf16`): other arithmetic
/// than the other loops, so not their bits — but at every grid and offset `loops_keep_the_bits`
/// takes, the result meets the grid-shift bound against the reference, a rerun gives the same
/// bits, and it agrees with the `plain` loop's result to the two bounds. Then the cases the shift
/// is for or against: all the spread in the sample (the worst cancellation the bound allows for),
/// and non-finite values in and after the sample (NaN variance; the mean follows NumPy: ±inf for
/// infinities of one sign, NaN for both or for a NaN).
pub fn shifted_meets_its_bound<T: Scalar>(b: &Backend, h: &[T]) {
    use reduce_host::transform::reference::reference_transform;
    let op = TransformKind::Moments;
    let d = b.upload(h).unwrap();
    let run = |d: &Buffer<T>, off: usize, n: usize, grid: Option<usize>, l: TransformLoop| {
        let o = LaunchOverrides {
            block: Some(256),
            grid,
            ..LaunchOverrides::default()
        };
        let p = PreparedTransform::<T>::with_loop(b, op, n, o, ResultIn::DeviceMemory, Some(l))
            .unwrap();
        (p.run(b, d, off, None).unwrap(), p.plan().clone())
    };
    for off in [0, 3] {
        let n = h.len() - off;
        let reference = reference_transform(op, &h[off..], None).unwrap();
        let planned = plan_transform_on(b, op, T::TYPE, n, LaunchOverrides::default()).unwrap();
        assert!(
            planned.grid_shift,
            "{}: the plan's default is the grid shift",
            T::TYPE
        );
        for grid in [1, 3, 7, 32, planned.grid] {
            let (got, plan) = run(&d, off, n, Some(grid), TransformLoop::Shifted);
            assert!(plan.grid_shift);
            let bits = |w: [f64; 3]| w.map(f64::to_bits);
            let (again, _) = run(&d, off, n, Some(grid), TransformLoop::Shifted);
            assert_eq!(bits(got), bits(again), "{} grid {grid}: a rerun", T::TYPE);
            let (plain, plain_plan) = run(&d, off, n, Some(grid), TransformLoop::Plain);
            if plain[2].is_nan() {
                assert!(got[2].is_nan(), "{} grid {grid}: NaN M2 {got:?}", T::TYPE);
                continue;
            }
            assert!(
                reference.accepts(got, &plan),
                "{} grid {grid} offset {off}: {got:?} against {reference:?}",
                T::TYPE
            );
            assert!(reference.accepts(plain, &plain_plan));
        }
    }
    // All the spread in the sample: 256 values of 100, then 0.5 plus a little noise.
    let n = (1 << 18) + 5;
    let x: Vec<T> = (0..n)
        .map(|i| {
            T::from_f64(if i < 256 {
                100.0
            } else {
                0.5 + ((i * 7) % 13) as f64 / 1024.0
            })
        })
        .collect();
    let reference = reference_transform(op, &x, None).unwrap();
    let dx = b.upload(&x).unwrap();
    let (got, plan) = run(&dx, 0, n, None, TransformLoop::Shifted);
    assert!(plan.grid_shift);
    assert!(
        reference.accepts(got, &plan),
        "spread in the sample: {got:?} vs {reference:?}"
    );
    // Non-finite values, in the sample and after it.
    let ones = vec![T::from_f64(1.0); n];
    for (at, v, mean_is) in [
        (5, f64::INFINITY, "inf"),
        (100_000, f64::NEG_INFINITY, "-inf"),
        (100_000, f64::NAN, "NaN"),
    ] {
        let mut x = ones.clone();
        x[at] = T::from_f64(v);
        let dx = b.upload(&x).unwrap();
        let (got, _) = run(&dx, 0, n, None, TransformLoop::Shifted);
        assert!(got[2].is_nan(), "{v} at {at}: M2 {}", got[2]);
        assert_eq!(got[1].to_string(), mean_is, "{v} at {at}: the mean");
        x[at + 1] = T::from_f64(-v);
        let dx = b.upload(&x).unwrap();
        let (got, _) = run(&dx, 0, n, None, TransformLoop::Shifted);
        assert!(got[1].is_nan() && got[2].is_nan(), "±{v}: {got:?}");
    }
}

/// The interleaved loops (`tiles` for the sums, norms and the dot product, `shifted-tiles` for the
/// moments; built for `f16`/`bf16`): another grouping of the same tiles than the contiguous runs,
/// so not their bits — but at every grid and offset `loops_keep_the_bits` takes, the result meets
/// the op's bound against the reference, a rerun gives the same bits, and one block (where there
/// is nothing to interleave) gives the contiguous loop's bits.
pub fn tiles_meet_their_bound<T: Scalar>(b: &Backend, h: &[T]) {
    use reduce_host::transform::reference::reference_transform;
    let d = b.upload(h).unwrap();
    let run = |op, off: usize, n: usize, grid: usize, l: TransformLoop| {
        let o = LaunchOverrides {
            block: Some(256),
            grid: Some(grid),
            ..LaunchOverrides::default()
        };
        let p = PreparedTransform::<T>::with_loop(b, op, n, o, ResultIn::DeviceMemory, Some(l))
            .unwrap();
        let other = (op == TransformKind::Dot).then_some((&d, off));
        (p.run(b, &d, off, other).unwrap(), p.plan().clone())
    };
    let bits = |w: [f64; 3]| w.map(f64::to_bits);
    for op in TransformKind::ALL {
        let (tiles, runs) = if op == TransformKind::Moments {
            (TransformLoop::ShiftedTiles, TransformLoop::Shifted)
        } else {
            (TransformLoop::Tiles, TransformLoop::Plain)
        };
        for off in [0, 3] {
            let n = h.len() - off;
            let x = &h[off..];
            let reference = reference_transform(op, x, (op == TransformKind::Dot).then_some(x))
                .expect("a non-empty input");
            let planned = plan_transform_on(b, op, T::TYPE, n, LaunchOverrides::default()).unwrap();
            for grid in [1, 3, 7, 32, planned.grid] {
                let what = format!("{} {} grid {grid} offset {off}", op.name(), T::TYPE);
                let (got, plan) = run(op, off, n, grid, tiles);
                assert!(plan.kernel.contains("tiles"), "{what}: {}", plan.kernel);
                let (again, _) = run(op, off, n, grid, tiles);
                assert_eq!(bits(got), bits(again), "{what}: a rerun");
                if grid == 1 {
                    let (contiguous, _) = run(op, off, n, grid, runs);
                    assert_eq!(bits(got), bits(contiguous), "{what}: one block");
                }
                if got.iter().any(|w| w.is_nan()) {
                    let (contiguous, _) = run(op, off, n, grid, runs);
                    assert_eq!(
                        got.map(f64::is_nan),
                        contiguous.map(f64::is_nan),
                        "{what}: NaN words"
                    );
                    continue;
                }
                assert!(
                    reference.accepts(got, &plan),
                    "{what}: {got:?} against {reference:?}"
                );
            }
        }
    }
}
