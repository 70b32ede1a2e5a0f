//! Transform-reduce checks shared by the emulator suite (`tests/transform.rs`) and the GPU suite
//! (`tests/gpu.rs`): every op against the CPU reference and its stated error bound
//! (`reduce_host::transform::reference`), at awkward sizes and offsets; overflow-free norms;
//! adversarial variance; determinism; typed errors. They panic on failure.
#![allow(dead_code)]

pub mod loops;

use reduce_host::reference::XorShift64;
use reduce_host::transform::plan_transform_on;
use reduce_host::transform::reference::TransformReference;
use reduce_host::transform::reference::{compensated_sum, reference_transform, U64};
use reduce_host::*;

/// Data with both signs: `data()`'s values shifted by −1.25 (no exact zeros either way).
pub fn signed<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    XorShift64::new(seed)
        .take(n)
        .map(|x| T::from_f64(((x >> 11) % 2000) as f64 / 997.0 - 1.003))
        .collect()
}

/// Run `op` over `a[a_off..][..n]` (and `b[b_off..][..n]`) with a fresh plan and check it
/// against the reference; returns the result words.
pub fn check_one<T: Scalar>(
    b: &Backend,
    op: Op,
    a: (&Buffer<T>, &[T], usize),
    other: Option<(&Buffer<T>, &[T], usize)>,
    n: usize,
) -> [f64; 3] {
    let p = PreparedTransform::<T>::new(b, op, n).unwrap();
    let words = p
        .run(b, a.0, a.2, other.map(|(buf, _, off)| (buf, off)))
        .unwrap();
    let host_b = other.map(|(_, h, off)| &h[off..off + n]);
    match reference_transform(op, &a.1[a.2..a.2 + n], host_b) {
        Some(r) => assert!(
            r.accepts(words, p.plan()),
            "{} {} n={n} offsets {}/{:?}: got {words:?}, reference {r:?} (depth {})",
            op.name(),
            T::TYPE,
            a.2,
            other.map(|o| o.2),
            p.plan().depth
        ),
        None => assert_eq!(words[0], 0.0, "moments of nothing count nothing"),
    }
    words
}

/// Every op at every size in `sizes`, whole buffers.
pub fn every_op_at_sizes<T: Scalar>(b: &Backend, sizes: &[usize]) {
    for &n in sizes {
        let (ha, hb) = (signed::<T>(n, n as u64 + 1), signed::<T>(n, n as u64 + 7));
        let (da, db) = (b.upload(&ha).unwrap(), b.upload(&hb).unwrap());
        for op in Op::TRANSFORM {
            let other = (op == Op::Dot).then_some((&db, &hb[..], 0));
            check_one(b, op, (&da, &ha, 0), other, n);
        }
    }
}

/// Sub-slices at every offset from a 16-byte boundary, for one-input ops, and dot products of
/// slices at equal (vector path) and unequal (element path) offsets.
pub fn misaligned_ranges<T: Scalar>(b: &Backend, n: usize) {
    let (ha, hb) = (signed::<T>(n + 8, 3), signed::<T>(n + 8, 4));
    let (da, db) = (b.upload(&ha).unwrap(), b.upload(&hb).unwrap());
    for off in 0..4 {
        for len in [n - 3, n] {
            for op in [Op::SumSq, Op::L1, Op::Moments] {
                check_one(b, op, (&da, &ha, off), None, len);
            }
            for off_b in [off, (off + 1) % 4, 3 - off] {
                check_one(b, Op::Dot, (&da, &ha, off), Some((&db, &hb, off_b)), len);
            }
        }
    }
    // The Reducer's range methods agree with the prepared plans.
    let mut r = Reducer::new(b);
    let want = compensated_sum(ha[1..n].iter().map(|x| x.to_f64() * x.to_f64()));
    let got = da
        .slice(1..1 + n - 1)
        .and_then(|view| r.norm2(view))
        .unwrap();
    assert!(
        (got - want.sqrt()).abs() <= 1e-12 * want.sqrt(),
        "{got} vs {}",
        want.sqrt()
    );
    let d = r
        .dot(da.slice(1..n - 1).unwrap(), db.slice(2..n).unwrap())
        .unwrap();
    let want = compensated_sum(
        ha[1..n - 1]
            .iter()
            .zip(&hb[2..n])
            .map(|(p, q)| p.to_f64() * q.to_f64()),
    );
    let scale: f64 = ha
        .iter()
        .zip(&hb)
        .map(|(p, q)| (p.to_f64() * q.to_f64()).abs())
        .sum();
    assert!((d - want).abs() <= 1e-12 * scale, "{d} vs {want}");
}

/// `f32` norms near both ends of the range, where an `f32` accumulator overflows or underflows.
pub fn norms_without_overflow(b: &Backend) {
    let mut r = Reducer::new(b);
    let rel = |got: f64, want: f64| (got - want).abs() <= 4.0 * U64 * want;
    let big = b.upload(&[2e38f32, -3e38]).unwrap();
    let want = ((2e38f32 as f64).powi(2) + (3e38f32 as f64).powi(2)).sqrt();
    assert!(
        rel(r.norm2(&big).unwrap(), want),
        "{}",
        r.norm2(&big).unwrap()
    );
    let n = (1 << 16) + 5;
    let maxes = b.upload(&vec![f32::MAX; n]).unwrap();
    let want = f32::MAX as f64 * (n as f64).sqrt();
    let got = r.norm2(&maxes).unwrap();
    assert!(
        got.is_finite() && (got - want).abs() <= 1e-12 * want,
        "{got} vs {want}"
    );
    assert!(r.sumsq(&maxes).unwrap().is_finite());
    let tiny = b.upload(&[3e-40f32, 4e-40]).unwrap(); // subnormal f32
    let want = ((3e-40f32 as f64).powi(2) + (4e-40f32 as f64).powi(2)).sqrt();
    assert!(
        rel(r.norm2(&tiny).unwrap(), want),
        "{}",
        r.norm2(&tiny).unwrap()
    );
    let least = f32::from_bits(1); // 1.4e-45, the smallest subnormal
    let many = b.upload(&vec![least; 1000]).unwrap();
    let want = least as f64 * 1000f64.sqrt();
    assert!(
        rel(r.norm2(&many).unwrap(), want),
        "{}",
        r.norm2(&many).unwrap()
    );
    assert_eq!(r.l1(&many).unwrap(), least as f64 * 1000.0);
    // inf and NaN propagate as in NumPy.
    let inf = b.upload(&[1.0f32, f32::INFINITY, 2.0]).unwrap();
    assert_eq!(r.norm2(&inf).unwrap(), f64::INFINITY);
    assert!(r.var(&inf, 0).unwrap().is_nan());
    let nan = b.upload(&[1.0f32, f32::NAN, 2.0]).unwrap();
    assert!(r.sumsq(&nan).unwrap().is_nan());
    assert!(r.var(&nan, 1).unwrap().is_nan());
}

/// Large mean, small variance: `offset + U(0, 1)` at `n` elements. The one-pass result must meet
/// the stated bound, which the textbook `Σx² − (Σx)²/n` in `f64` misses by orders of magnitude
/// (checked too, so the bound is known to be tight enough to catch it).
pub fn adversarial_variance<T: Scalar>(b: &Backend, n: usize, offset: f64) {
    let noise = signed::<f64>(n, 99);
    let h: Vec<T> = noise
        .iter()
        .map(|u| T::from_f64(offset + (u + 1.003) / 2.0))
        .collect();
    let d = b.upload(&h).unwrap();
    let words = check_one(b, Op::Moments, (&d, &h, 0), None, n);
    let Some(reference_transform_result) = reference_transform(Op::Moments, &h, None) else {
        unreachable!()
    };
    let p = plan_transform_on(b, Op::Moments, T::TYPE, n, LaunchOverrides::default()).unwrap();
    let (s, s2) = h.iter().fold((0.0f64, 0.0f64), |(s, s2), x| {
        (s + x.to_f64(), s2 + x.to_f64() * x.to_f64())
    });
    let naive = [n as f64, s / n as f64, s2 - s * s / n as f64];
    assert!(
        !reference_transform_result.accepts(naive, &p),
        "the textbook formula ({naive:?}) passes the bound too: the test would not catch it"
    );
    let m = Reducer::new(b).moments(&d).unwrap();
    assert_eq!((m.count, m.mean, m.m2), (n as u64, words[1], words[2]));
    let want_var = match reference_transform_result {
        TransformReference::Moments { m2, .. } => m2 / n as f64,
        _ => unreachable!(),
    };
    println!(
        "{} {n} × ({offset} + U(0,1)): var_pop {:.12e} vs reference {want_var:.12e} (rel {:.2e}); \
         textbook formula rel {:.2e}",
        T::TYPE,
        m.var_pop,
        (m.var_pop - want_var).abs() / want_var,
        (naive[2] / n as f64 - want_var).abs() / want_var
    );
}

/// Two runs of every op give the same bits (moments and dot at `n`).
pub fn bit_identical<T: Scalar>(b: &Backend, n: usize) {
    let (ha, hb) = (signed::<T>(n, 5), signed::<T>(n, 6));
    let (da, db) = (b.upload(&ha).unwrap(), b.upload(&hb).unwrap());
    for op in Op::TRANSFORM {
        let p = PreparedTransform::<T>::new(b, op, n).unwrap();
        let other = (op == Op::Dot).then_some((&db, 0));
        let first = p.run(b, &da, 0, other).unwrap().map(f64::to_bits);
        for _ in 0..3 {
            assert_eq!(
                p.run(b, &da, 0, other).unwrap().map(f64::to_bits),
                first,
                "{}",
                op.name()
            );
        }
    }
}

/// ddof semantics and every typed error.
pub fn semantics_and_errors(b: &Backend) {
    let mut r = Reducer::new(b);
    let x = b
        .upload(&[2.0f64, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])
        .unwrap();
    let m = r.moments(&x).unwrap();
    assert_eq!((m.count, m.mean, m.m2), (8, 5.0, 32.0));
    assert_eq!((m.var_pop, m.std_pop), (4.0, 2.0));
    assert_eq!(m.var_sample, Some(32.0 / 7.0));
    assert_eq!(r.var(&x, 0).unwrap(), 4.0);
    assert_eq!(r.var(&x, 1).unwrap(), 32.0 / 7.0);
    assert_eq!(r.std(&x, 0).unwrap(), 2.0);
    assert_eq!(r.dot(&x, &x).unwrap(), 232.0);
    assert_eq!(r.l1(&x).unwrap(), 40.0);
    let one = b.upload(&[3.5f32]).unwrap();
    let m = r.moments(&one).unwrap();
    assert_eq!(
        (m.mean, m.var_pop, m.var_sample, m.std_sample),
        (3.5, 0.0, None, None)
    );
    assert!(matches!(
        r.var(&one, 1),
        Err(ReduceError::TooFewElements { n: 1, ddof: 1 })
    ));
    let empty = b.zeroed::<f32>(0).unwrap();
    assert_eq!(r.sumsq(&empty).unwrap(), 0.0);
    assert_eq!(r.norm2(&empty).unwrap(), 0.0);
    assert_eq!(r.dot(&empty, &empty).unwrap(), 0.0);
    assert!(matches!(
        r.moments(&empty),
        Err(ReduceError::EmptyInput { .. })
    ));
    assert!(matches!(
        r.var(&empty, 0),
        Err(ReduceError::TooFewElements { n: 0, ddof: 0 })
    ));
    let y = b.upload(&[1.0f64; 7]).unwrap();
    assert!(matches!(
        r.dot(&x, &y),
        Err(ReduceError::LengthMismatch { a: 8, b: 7 })
    ));
    assert!(matches!(
        x.slice(5..5 + 4).and_then(|view| r.sumsq(view)),
        Err(ReduceError::OutOfBounds { arg: "range", .. })
    ));
    assert!(matches!(
        y.slice(1..8),
        Err(ReduceError::OutOfBounds { arg: "range", .. })
    ));
    assert!(matches!(
        r.dot(x.slice(0..7).unwrap(), y.slice(1..7).unwrap()),
        Err(ReduceError::LengthMismatch { a: 7, b: 6 })
    ));
    let ints = b.upload(&[1i32, 2, 3]).unwrap();
    let e = r.sumsq(&ints).unwrap_err();
    assert!(e.to_string().contains("f32 and f64"), "{e}");
    // Buffers of another backend, and a plan's workspace on another backend.
    let other = Backend::open(BackendChoice::Emu).unwrap();
    let foreign = other.upload(&[1.0f64; 8]).unwrap();
    assert!(matches!(
        r.dot(&x, &foreign),
        Err(ReduceError::ForeignBuffer { .. })
    ));
    assert!(matches!(
        r.moments(&foreign),
        Err(ReduceError::ForeignBuffer { .. })
    ));
    let p = PreparedTransform::<f64>::new(b, Op::Dot, 8).unwrap();
    assert!(matches!(
        p.run(&other, &foreign, 0, Some((&foreign, 0))),
        Err(ReduceError::ForeignBuffer { .. })
    ));
    assert!(matches!(
        p.run(b, &x, 0, None),
        Err(ReduceError::InvalidArgument(_))
    ));
    assert!(matches!(
        p.run(b, &x, 1, Some((&x, 0))),
        Err(ReduceError::OutOfBounds {
            arg: "a_offset",
            ..
        })
    ));
    let p = PreparedTransform::<f64>::new(b, Op::SumSq, 8).unwrap();
    assert!(matches!(
        p.run(b, &x, 0, Some((&x, 0))),
        Err(ReduceError::InvalidArgument(_))
    ));
    let bad = LaunchOverrides {
        block: Some(128),
        grid: None,
    };
    assert!(PreparedTransform::<f32>::with_overrides(b, Op::L1, 10, bad).is_err());
    let bad = LaunchOverrides {
        block: None,
        grid: Some(0),
    };
    assert!(matches!(
        PreparedTransform::<f32>::with_overrides(b, Op::L1, 10, bad),
        Err(ReduceError::InvalidGridSize { .. })
    ));
}

/// Forced grids and blocks (several blocks even for small inputs: the last-block combine at
/// every shape) give results within the bound.
pub fn forced_shapes<T: Scalar>(b: &Backend, n: usize) {
    let (ha, hb) = (signed::<T>(n, 11), signed::<T>(n, 12));
    let (da, db) = (b.upload(&ha).unwrap(), b.upload(&hb).unwrap());
    for block in [256, 512, 1024] {
        for grid in [1, 3, 17] {
            let o = LaunchOverrides {
                block: Some(block),
                grid: Some(grid),
            };
            for op in Op::TRANSFORM {
                let p = PreparedTransform::<T>::with_overrides(b, op, n, o).unwrap();
                let other = (op == Op::Dot).then_some((&db, 0));
                let words = p.run(b, &da, 0, other).unwrap();
                let r = reference_transform(op, &ha, Some(&hb)).unwrap();
                assert!(
                    r.accepts(words, p.plan()),
                    "{} block {block} grid {grid}",
                    op.name()
                );
            }
        }
    }
}
