//! The grid-shift fold against direct formulas, and the sample rule.
use super::*;
use crate::transform::Widened;

/// The fold about `k` of `x` in tiles of 16, and the exact (n, mean, M2) in `f64`.
fn fold(x: &[f32], k: f64) -> ([f64; WORDS], f64, f64) {
    let mut run = GridShifted {
        k,
        sums: ShiftSums::empty(),
    };
    let half = x.len() / 2;
    // Two threads' folds, added as the trees add them.
    let mut a = run;
    for c in x[..half].chunks(16) {
        a.add(Moments::chunk_f32::<{ Widened::F16 }>(c));
    }
    for c in x[half..].chunks(16) {
        run.add(Moments::chunk_f32::<{ Widened::F16 }>(c));
    }
    let words = run.result(a.finish().merge(run.finish()));
    let n = x.len() as f64;
    let mean = x.iter().map(|v| *v as f64).sum::<f64>() / n;
    let m2 = x.iter().map(|v| (*v as f64 - mean).powi(2)).sum::<f64>();
    (words, mean, m2)
}

#[test]
fn the_fold_about_any_shift_gives_the_moments() {
    let x: std::vec::Vec<f32> = (0..4096)
        .map(|i| 100.0 + ((i * 37) % 101) as f32 / 8.0)
        .collect();
    let k = sample_shift(&x.iter().map(|v| *v as f64).collect::<std::vec::Vec<_>>());
    for shift in [k, 0.0, -1e4] {
        let (w, mean, m2) = fold(&x, shift);
        assert_eq!(w[0], 4096.0);
        assert!(
            (w[1] - mean).abs() <= 1e-9 * mean,
            "{shift}: {} vs {mean}",
            w[1]
        );
        assert!((w[2] - m2).abs() <= 1e-4 * m2, "{shift}: {} vs {m2}", w[2]);
    }
}

/// The worst case the bound is written for: all the spread in the sample (256 values of 1000,
/// then 0.5 + small noise). The cancellation `S₂/M2` is ~n/256, and M2 still meets
/// `(3L + 6)·u·S₂` plus the tiles' term.
#[test]
fn spread_in_the_sample_stays_inside_the_bound() {
    let n = 1 << 16;
    let x: std::vec::Vec<f32> = (0..n)
        .map(|i| {
            if i < SAMPLE {
                1000.0
            } else {
                0.5 + ((i * 7) % 13) as f32 / 1024.0
            }
        })
        .collect();
    let k = sample_shift(&x.iter().map(|v| *v as f64).collect::<std::vec::Vec<_>>());
    assert_eq!(k, 1000.0);
    let (w, mean, m2) = fold(&x, k);
    let s2 = m2 + n as f64 * (mean - k) * (mean - k);
    assert!(s2 > 200.0 * m2, "the case cancels: S2/M2 = {}", s2 / m2);
    let l = (n / 2 / 16 + 2) as f64;
    let u = f64::EPSILON / 2.0;
    let bound = (3.0 * l + 6.0) * u * s2 + 251.0 * (f32::EPSILON as f64 / 2.0) * m2;
    assert!(
        (w[2] - m2).abs() <= bound,
        "{} vs {m2} (bound {bound})",
        w[2]
    );
}

#[test]
fn the_sample_is_the_first_256_finite_values_in_lane_order() {
    let mut x = std::vec![2.0f64; 300];
    x[299] = 1e9; // past the sample
    assert_eq!(sample_shift(&x), 2.0);
    x[5] = f64::INFINITY;
    x[6] = f64::NAN;
    assert_eq!(sample_shift(&x), 2.0);
    assert_eq!(sample_shift(&[f64::NAN, f64::INFINITY]), 0.0);
    assert_eq!(sample_shift(&[]), 0.0);
    assert_eq!(sample_shift(&[1.0, 2.0, 6.0]), 3.0);
    // An overflowing sum gives no shift rather than an infinite one.
    assert_eq!(sample_shift(&[f64::MAX, f64::MAX]), 0.0);
}

#[test]
fn sums_add_and_nothing_is_nothing() {
    let a = ShiftSums {
        n: 2.0,
        s1: 1.0,
        s2: 5.0,
    };
    let b = ShiftSums {
        n: 3.0,
        s1: -2.0,
        s2: 1.0,
    };
    assert_eq!(
        a.merge(b),
        ShiftSums {
            n: 5.0,
            s1: -1.0,
            s2: 6.0
        }
    );
    assert_eq!(ShiftSums::from_words([a.word(0), a.word(1), a.word(2)]), a);
    let run = GridShifted {
        k: 3.0,
        sums: ShiftSums::empty(),
    };
    assert_eq!(run.result(ShiftSums::empty()), [0.0; WORDS]);
    // One element 3 + 1 about k = 3: mean 4, M2 0.
    assert_eq!(
        run.result(ShiftSums {
            n: 1.0,
            s1: 1.0,
            s2: 1.0
        }),
        [1.0, 4.0, 0.0]
    );
}
