//! The transform kernels' forced loops: `shifted` (the `f16`/`bf16` moments about one shift for
//! the whole grid, rolling loads) against its bound and against `plain` (Chan's merges).

use reduce_host::plan::ResultIn;
use reduce_host::transform::{plan_transform_on, TransformLoop};
use reduce_host::*;

/// The moments with the grid-wide shift (`shifted`, built for `f16`/`bf16`): other arithmetic
/// than the `plain` loop, so not its bits — but on grids of 1, 3, 7, 32 and the plan's blocks,
/// from offsets 0 and 3, the result meets the grid-shift bound against the reference, a rerun
/// gives the same bits, and it agrees with the `plain` loop's result to the two bounds. Then the cases the shift
/// is for or against: all the spread in the sample (the worst cancellation the bound allows for),
/// and non-finite values in and after the sample (NaN variance; the mean follows NumPy: ±inf for
/// infinities of one sign, NaN for both or for a NaN).
pub fn shifted_meets_its_bound<T: Scalar>(b: &Backend, h: &[T]) {
    use reduce_host::transform::reference::reference_transform;
    let op = Op::Moments;
    let d = b.upload(h).unwrap();
    let run = |d: &Buffer<T>, off: usize, n: usize, grid: Option<usize>, l: TransformLoop| {
        let o = LaunchOverrides {
            block: Some(256),
            grid,
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
