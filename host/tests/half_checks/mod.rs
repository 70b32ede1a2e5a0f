//! `f16` / `bf16` checks shared by the emulator suite (`tests/halves.rs`) and the GPU suite
//! (`tests/gpu.rs`): every transform op against the CPU reference (the `f64` values of the
//! halves, compensated) and its stated bound, at awkward sizes and every offset from a 16-byte
//! boundary; NaN, inf, subnormal and largest halves; typed errors for the ops not built for
//! halves. They panic on failure.
#![allow(dead_code)]

use crate::transform_checks::{check_one, signed};
use reduce_host::*;

pub mod stage8;

/// Σx accumulated in `f64`: one launch of [`Op::Total`] (its result in device memory,
/// as every `Reducer` transform method reads it).
pub fn total<T: Scalar>(b: &Backend, x: &Buffer<T>) -> Result<f64> {
    PreparedTransform::<T>::with_result_in(
        b,
        Op::Total,
        x.len(),
        LaunchOverrides::default(),
        plan::ResultIn::DeviceMemory,
    )?
    .run(b, x, 0, None)
    .map(|w| w[0])
}

/// Where a slice of `n` halves starts in a 16-byte vector: all eight places, or (above 100,000
/// halves, to keep the runs short) only those of `large`.
pub fn offsets(n: usize, large: &'static [usize]) -> &'static [usize] {
    if n > 100_000 {
        large
    } else {
        &[0, 1, 2, 3, 4, 5, 6, 7]
    }
}

/// Every op, whole buffers and the sub-slices `[off..off + len]` for `off` in `0..8` (all eight
/// positions of a half within a 16-byte vector), dot products at equal and unequal offsets.
pub fn every_op_and_offset<H: HalfFloat>(b: &Backend, sizes: &[usize]) {
    for &n in sizes {
        let (ha, hb) = (
            signed::<H>(n + 8, n as u64 + 1),
            signed::<H>(n + 8, n as u64 + 7),
        );
        let (da, db) = (b.upload(&ha).unwrap(), b.upload(&hb).unwrap());
        for &off in offsets(n, &[0, 3]) {
            for op in Op::TRANSFORM {
                if op == Op::Dot {
                    for off_b in [off, (off + 1) % 8, 7 - off] {
                        check_one(b, op, (&da, &ha, off), Some((&db, &hb, off_b)), n);
                    }
                } else {
                    check_one(b, op, (&da, &ha, off), None, n);
                }
            }
        }
    }
}

/// Sums of values where a half-precision accumulator fails, and special values.
pub fn special_values<H: HalfFloat>(b: &Backend) {
    let mut r = Reducer::new(b);
    let h = |v: f32| H::from_f64(v as f64);
    // 2^20 + 3 ones: an f16 accumulator stops at 2048, bf16 at 256.
    let n = (1 << 20) + 3;
    let ones = b.upload(&vec![h(1.0); n]).unwrap();
    assert_eq!(total(b, &ones).unwrap(), n as f64);
    assert_eq!(r.mean(&ones).unwrap(), 1.0);
    assert_eq!(r.sumsq(&ones).unwrap(), n as f64);
    assert_eq!(r.var(&ones, 1).unwrap(), 0.0);
    // The largest finite value, many times: its f64 sum and sum of squares are finite.
    let max = H::from_f64(f64::MAX); // rounds to inf: take the largest finite below it instead
    assert!(max.to_f64().is_infinite());
    let big = (0u16..=0xffff)
        .map(|bits| H::from_bits64(bits as u64))
        .filter(|x| x.to_f64().is_finite())
        .fold(H::from_f64(0.0), |m, x| {
            if x.to_f64() > m.to_f64() {
                x
            } else {
                m
            }
        });
    let bigs = b.upload(&[big; 1000]).unwrap();
    assert_eq!(total(b, &bigs).unwrap(), 1000.0 * big.to_f64());
    assert_eq!(
        r.sumsq(&bigs).unwrap(),
        1000.0 * big.to_f64() * big.to_f64()
    );
    // The smallest subnormal: exact sums (1000 · 2⁻²⁴ for f16, far below f32's normal range for
    // bf16).
    let tiny = H::from_bits64(1);
    assert!(tiny.to_f64() > 0.0);
    let tinies = b.upload(&[tiny; 1000]).unwrap();
    assert_eq!(total(b, &tinies).unwrap(), 1000.0 * tiny.to_f64());
    assert_eq!(r.l1(&tinies).unwrap(), 1000.0 * tiny.to_f64());
    // inf and NaN propagate (every position in a vector, and the tail).
    for at in [0, 5, 16, 18] {
        let mut x = vec![h(1.5); 19];
        x[at] = H::from_f64(f64::INFINITY);
        let d = b.upload(&x).unwrap();
        assert_eq!(total(b, &d).unwrap(), f64::INFINITY, "inf at {at}");
        assert!(r.var(&d, 0).unwrap().is_nan(), "inf at {at}");
        x[at] = H::from_f64(f64::NAN);
        let d = b.upload(&x).unwrap();
        assert!(total(b, &d).unwrap().is_nan(), "NaN at {at}");
        assert!(r.norm2(&d).unwrap().is_nan(), "NaN at {at}");
    }
    // Rounding the result back to the input type.
    let x: Vec<H> = (0..1000).map(|i| h(0.1 * (i % 7) as f32)).collect();
    let d = b.upload(&x).unwrap();
    let sum = total(b, &d).unwrap();
    let exact: f64 = x.iter().map(|v| v.to_f64()).sum();
    assert!((sum - exact).abs() <= 1e-12 * exact, "{sum} vs {exact}");
    assert_eq!(
        H::from_std(H::round(sum)).to_f64(),
        H::from_f64(exact).to_f64()
    );
    // Empty input: 0 for the sums, a typed error for the mean.
    let empty = b.upload::<H>(&[]).unwrap();
    assert_eq!(total(b, &empty).unwrap(), 0.0);
    assert!(matches!(
        r.mean(&empty),
        Err(ReduceError::EmptyInput { .. })
    ));
}

/// The same-type stage-8 API (`run_stage`, which would return a half) is a typed error, not a
/// panic or a wrong answer; `Reducer`'s methods return the `f32` / `f64` results ([`stage8`]).
pub fn unbuilt_ops_are_typed_errors<H: HalfFloat>(b: &Backend) {
    let mut r = Reducer::new(b);
    let d = b.upload(&[H::from_f64(1.0); 64]).unwrap();
    assert_eq!(r.sum(&d).unwrap(), 64.0);
    assert_eq!(r.min(&d).unwrap(), Some(1.0));
    assert_eq!(r.max(&d).unwrap(), Some(1.0));
    assert_eq!(r.prod(&d).unwrap(), 1.0);
    assert_eq!(r.nanmax(&d).unwrap(), Some(1.0));
    assert_eq!(r.mean(&d).unwrap(), 1.0);
    let o = LaunchOverrides::default();
    let errors = [Op::Sum, Op::Min, Op::Max, Op::Prod, Op::NanMax]
        .map(|op| (op, run_stage(b, Stage::S8, op, &d, 64, o).err()));
    for (op, e) in errors {
        let text = e
            .unwrap_or_else(|| panic!("{op} of {} should be an error", H::TYPE))
            .to_string();
        assert!(text.contains(H::TYPE.name()), "{op}: {text}");
    }
}

/// `upload_half` keeps the bits of the `half` crate's values.
pub fn upload_half_round_trips(b: &Backend) {
    let xs: Vec<half::f16> = (0..1000)
        .map(|i| half::f16::from_f32(i as f32 * 0.37 - 99.0))
        .collect();
    let d = b.upload_half::<F16>(&xs).unwrap();
    let back = b.download(&d, xs.len()).unwrap();
    assert!(back.iter().zip(&xs).all(|(a, x)| a.to_std() == *x));
    let ys: Vec<half::bf16> = xs
        .iter()
        .map(|x| half::bf16::from_f32(x.to_f32()))
        .collect();
    let d = b.upload_half::<Bf16>(&ys).unwrap();
    let want: f64 = ys.iter().map(|y| y.to_f64()).sum();
    assert!((total(b, &d).unwrap() - want).abs() <= 1e-12 * want.abs().max(1.0));
}
