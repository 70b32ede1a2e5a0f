//! Stage 8's operators on `f16` / `bf16` (combined in `f32`, `f32` results): every op at awkward
//! sizes and every offset from a 16-byte boundary, against [`reference_half`] and its `f32`
//! bounds; NaN, ±inf, -0.0, subnormals, the largest finite half, sums past the half range; the
//! empty input; results rounded back to the input type.

use crate::transform_checks::signed;
use reduce_host::halves::{matches_half_reference, reference_half};
use reduce_host::*;

/// The stage-8 operators built for halves.
pub const OPS: [Op; 8] = [
    Op::Sum,
    Op::Min,
    Op::Max,
    Op::Prod,
    Op::NanMin,
    Op::NanMax,
    Op::NanSum,
    Op::Count,
];

/// `op` over `d[off..off + n]` (host copy `h`) checked against the reference with the plan's
/// depth; returns the result.
pub fn check_op<H: HalfFloat>(
    b: &Backend,
    op: Op,
    (d, h): (&Buffer<H>, &[H]),
    off: usize,
    n: usize,
) -> Option<f32> {
    let mut r = Reducer::new(b);
    let got = d
        .slice(off..off.saturating_add(n))
        .and_then(|view| r.reduce(op, view))
        .unwrap();
    let want = reference_half(op, &h[off..off + n]);
    let (got_v, want) = match (got, want) {
        (None, None) => return None,
        (Some(g), Some(w)) => (g, w),
        (g, w) => panic!("{op} of {n} {} at {off}: got {g:?}, want {w:?}", H::TYPE),
    };
    let depth = PreparedWide::<H>::for_op(b, n, op, LaunchOverrides::default())
        .unwrap()
        .depth();
    assert!(
        matches_half_reference(op, got_v, &want, depth),
        "{op} of {n} {} at offset {off}: got {got_v}, reference {want:?} (depth {depth})",
        H::TYPE
    );
    got
}

/// Every op, whole buffers and the sub-slices at each of the 8 positions in a 16-byte vector.
/// Products run over values near 1 (a product of values in [-1, 1] underflows to 0 fast).
pub fn every_op_size_and_offset<H: HalfFloat>(b: &Backend, sizes: &[usize]) {
    for &n in sizes {
        let h = signed::<H>(n + 8, n as u64 + 3);
        let near_one: Vec<H> = signed::<H>(n + 8, n as u64 + 5)
            .iter()
            .map(|x| H::from_f64(1.0 + x.to_f64() / 64.0))
            .collect();
        let (d, d1) = (b.upload(&h).unwrap(), b.upload(&near_one).unwrap());
        for &off in super::offsets(n, &[0, 5]) {
            for op in OPS {
                check_op(b, op, (&d, &h), off, n);
            }
            check_op(b, Op::Prod, (&d1, &near_one), off, n);
        }
    }
}

/// NaN, ±inf, -0.0, subnormals, the largest finite half, half-range overflow, empty input,
/// rounding back to the input type, typed errors for the means.
pub fn special_values<H: HalfFloat>(b: &Backend) {
    let h = |v: f64| H::from_f64(v);
    let mut r = Reducer::new(b);
    let check_all = |x: &[H]| {
        let d = b.upload(x).unwrap();
        for op in OPS {
            check_op(b, op, (&d, x), 0, x.len());
        }
    };
    // NaN first, in the middle, last (in a vector, in the head/tail), everywhere; ±inf.
    for n in [1usize, 7, 19, 100, 4099] {
        for at in [0, n / 2, n - 1] {
            for special in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                let mut x = signed::<H>(n, at as u64 + 11);
                x[at] = h(special);
                check_all(&x);
            }
        }
        check_all(&vec![h(f64::NAN); n]);
        let mut both = vec![h(1.0); n];
        both[0] = h(f64::INFINITY);
        both[n - 1] = h(f64::NEG_INFINITY);
        check_all(&both); // inf + -inf = NaN, min -inf, max +inf
    }
    // The explicit NaN rules.
    let mut x = vec![h(2.0); 37];
    x[20] = h(f64::NAN);
    let d = b.upload(&x).unwrap();
    assert!(r.min(&d).unwrap().unwrap().is_nan());
    assert!(r.max(&d).unwrap().unwrap().is_nan());
    assert_eq!(r.nanmin(&d).unwrap(), Some(2.0));
    assert_eq!(r.nanmax(&d).unwrap(), Some(2.0));
    assert_eq!(r.nansum(&d).unwrap(), 72.0);
    assert_eq!(r.count(&d).unwrap(), 36);
    assert_eq!(r.nanmean(&d).unwrap(), 2.0);
    assert!(r.sum(&d).unwrap().is_nan());
    let nans = b.upload(&[h(f64::NAN); 9]).unwrap();
    assert!(r.nanmax(&nans).unwrap().unwrap().is_nan());
    assert!(r.nanmean(&nans).unwrap().is_nan());
    assert_eq!(r.nansum(&nans).unwrap(), 0.0);
    // -0.0 and subnormals.
    check_all(&[h(-0.0); 33]);
    let tiny = H::from_bits64(1);
    let tinies: Vec<H> = (0..1000)
        .map(|i| {
            if i % 3 == 0 {
                H::from_bits64(0x8001)
            } else {
                tiny
            }
        })
        .collect();
    check_all(&tinies);
    let d = b.upload(&[tiny; 1000]).unwrap();
    assert_eq!(r.sum(&d).unwrap() as f64, 1000.0 * tiny.to_f64());
    assert_eq!(r.min(&d).unwrap().unwrap() as f64, tiny.to_f64());
    // The largest finite half, 1000 times: for f16 far past the half range and finite in f32
    // (65504 · 1000); for bf16 (f32's exponent range) past f32's too: +inf, as any f32
    // accumulator gives.
    let big = (0u16..=0x7fff)
        .map(|bits| H::from_bits64(bits as u64))
        .filter(|x| x.to_f64().is_finite())
        .fold(h(0.0), |m, x| if x.to_f64() > m.to_f64() { x } else { m });
    let bigs = vec![big; 1000];
    check_all(&bigs);
    let d = b.upload(&bigs).unwrap();
    let sum = r.sum(&d).unwrap();
    if H::TYPE == ElemType::F16 {
        assert!((sum as f64 - 1000.0 * big.to_f64()).abs() <= 1e-6 * sum as f64);
        assert!(H::from_std(H::round(sum as f64)).to_f64().is_infinite()); // in f16: inf
    } else {
        assert_eq!(sum, f32::INFINITY);
    }
    assert_eq!(r.max(&d).unwrap().unwrap() as f64, big.to_f64());
    if H::TYPE == ElemType::F16 {
        // Partial sums of ±65504 in any order stay far inside f32's range (for bf16 an order
        // could overflow and give NaN: order-dependent, as in every f32 accumulator).
        let mixed: Vec<H> = (0..999)
            .map(|i| {
                if i % 2 == 0 {
                    big
                } else {
                    H::from_f64(-big.to_f64())
                }
            })
            .collect();
        check_all(&mixed);
    }
    // 2^20 + 3 ones: a half accumulator stops at 2048 (f16) or 256 (bf16); f32 counts them all.
    let n = (1 << 20) + 3;
    let ones = b.upload(&vec![h(1.0); n]).unwrap();
    assert_eq!(r.sum(&ones).unwrap(), n as f32);
    assert_eq!(r.count(&ones).unwrap(), n as u64);
    assert_eq!(r.prod(&ones).unwrap(), 1.0);
    assert_eq!(r.nanmean(&ones).unwrap(), 1.0);
    // Rounding a result back to the input type (min/max: the input element itself).
    let x: Vec<H> = (0..1000).map(|i| h(0.1 * (i % 7) as f64 - 0.2)).collect();
    let d = b.upload(&x).unwrap();
    let lo = r.min(&d).unwrap().unwrap();
    assert_eq!(H::from_std(H::round(lo as f64)), x[0]);
    let sum = r.sum(&d).unwrap();
    let exact: f64 = x.iter().map(|v| v.to_f64()).sum();
    assert_eq!(
        H::from_std(H::round(sum as f64)).to_f64(),
        H::from_f64(exact).to_f64()
    );
    // Empty input: identities, None for the extremes, typed errors for the means.
    let empty = b.upload::<H>(&[]).unwrap();
    assert_eq!(r.sum(&empty).unwrap(), 0.0);
    assert_eq!(r.prod(&empty).unwrap(), 1.0);
    assert_eq!(r.count(&empty).unwrap(), 0);
    assert_eq!(r.min(&empty).unwrap(), None);
    assert_eq!(r.nanmax(&empty).unwrap(), None);
    assert!(matches!(
        r.nanmean(&empty),
        Err(ReduceError::EmptyInput { .. })
    ));
    assert!(matches!(
        d.slice(..10).and_then(|view| r.reduce(Op::Mean, view)),
        Err(ReduceError::InvalidArgument(_))
    ));
    assert!(matches!(
        d.slice(990..990 + 11)
            .and_then(|view| r.reduce(Op::Sum, view)),
        Err(ReduceError::OutOfBounds { arg: "range", .. })
    ));
    // `sum` of halves is the half kernels' f32 sum; a same-type (half) result is a typed error
    // naming the f32 API.
    assert_eq!(
        r.sum(&d).unwrap().to_bits(),
        r.reduce(Op::Sum, &d).unwrap().unwrap().to_bits()
    );
    let e = run_stage(
        b,
        Stage::S8,
        Op::Sum,
        &d,
        d.len(),
        LaunchOverrides::default(),
    )
    .unwrap_err();
    assert!(matches!(e, ReduceError::HalfResultIsF32 { .. }), "{e}");
    assert!(e.to_string().contains("return f32"), "{e}");
}

/// The same input gives the same bits, run after run.
pub fn bit_identical<H: HalfFloat>(b: &Backend, n: usize) {
    let h = signed::<H>(n, 99);
    let d = b.upload(&h).unwrap();
    let mut r = Reducer::new(b);
    for op in [Op::Sum, Op::Prod, Op::NanSum] {
        let first = d
            .slice(1..1 + n - 1)
            .and_then(|view| r.reduce(op, view))
            .unwrap()
            .unwrap();
        for _ in 0..3 {
            let again = d
                .slice(1..1 + n - 1)
                .and_then(|view| r.reduce(op, view))
                .unwrap()
                .unwrap();
            assert_eq!(first.to_bits(), again.to_bits(), "{op} of {n} {}", H::TYPE);
        }
    }
}
