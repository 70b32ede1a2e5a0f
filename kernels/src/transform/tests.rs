//! The accumulators against direct formulas (the kernels themselves are tested through the host
//! library on the emulator: `host/tests/transform.rs`).

use super::*;

fn two_pass(x: &[f64]) -> (f64, f64) {
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    (mean, x.iter().map(|v| (v - mean) * (v - mean)).sum())
}

#[test]
fn chan_merge_of_chunks_matches_two_pass() {
    let x: std::vec::Vec<f64> = (0..1000)
        .map(|i| 1e6 + ((i * 7919) % 1000) as f64 / 1000.0)
        .collect();
    let mut acc = Welford::empty();
    for c in x.chunks(16) {
        acc = acc.merge(Moments::chunk(c, c));
    }
    let (mean, m2) = two_pass(&x);
    assert_eq!(acc.n, 1000.0);
    assert!((acc.mean - mean).abs() <= 1e-9, "{} vs {mean}", acc.mean);
    assert!((acc.m2 - m2).abs() <= 1e-9 * m2, "{} vs {m2}", acc.m2);
}

#[test]
fn merge_with_empty_is_identity_and_items_fold() {
    let w = Moments::item(3.0, 0.0);
    assert_eq!(w.merge(Welford::empty()), w);
    assert_eq!(Welford::empty().merge(w), w);
    let both = Moments::item(1.0, 0.0).merge(Moments::item(3.0, 0.0));
    assert_eq!((both.n, both.mean, both.m2), (2.0, 2.0, 2.0));
    assert_eq!(SumSq::chunk(&[3.0, 4.0], &[0.0, 0.0]), F64Sum(25.0));
    assert_eq!(L1::chunk(&[-3.0, 4.0], &[0.0, 0.0]), F64Sum(7.0));
    assert_eq!(Dot::chunk(&[2.0, 3.0], &[5.0, -1.0]), F64Sum(7.0));
    assert_eq!(Welford::from_words([w.word(0), w.word(1), w.word(2)]), w);
}

#[test]
fn widening_is_exact_for_every_kind() {
    assert_eq!(to_f64(f32::MAX), f32::MAX as f64);
    assert_eq!(to_f64(-1.5f64), -1.5);
    assert_eq!(to_f64(-7i32), -7.0);
    assert_eq!(to_f64(u32::MAX), u32::MAX as f64);
    assert_eq!(to_f64(i64::MIN), i64::MIN as f64);
    assert_eq!(to_f64(u64::MAX), u64::MAX as f64);
}
