//! The accumulators against direct formulas (the kernels themselves are tested through the host
//! library on the emulator: `host/tests/transform.rs`).

use super::moment_tiles::one_pass_f32;
use super::*;

use crate::test_rng::xorshift64 as xorshift;

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
    // (`L1` adds the absolute values the driver hands it: `ABS_INPUT`.)
    const { assert!(L1::ABS_INPUT) };
    assert_eq!(L1::chunk(&[3.0, 4.0], &[0.0, 0.0]), F64Sum(7.0));
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

/// `got`, a tile's triple computed from `x`, against the exact two-pass form in `f64` of the same
/// values: the count exact, the mean within `mean_bound`, M2 within `m2_coefficient · M2*`.
fn assert_tile(x: &[f32], got: Welford, mean_bound: f64, m2_coefficient: f64) -> Welford {
    let wide: std::vec::Vec<f64> = x.iter().map(|v| *v as f64).collect();
    let (mean, m2) = two_pass(&wide);
    let m2_bound = m2_coefficient * m2;
    assert_eq!(got.n, x.len() as f64);
    assert!(
        (got.mean - mean).abs() <= mean_bound,
        "{x:?}: mean {} vs {mean} (bound {mean_bound:e})",
        got.mean
    );
    assert!(
        (got.m2 - m2).abs() <= m2_bound,
        "{x:?}: m2 {} vs {m2} (bound {m2_bound:e})",
        got.m2
    );
    got
}

/// The `f32` tile of [`Moments::chunk_f32`] against the exact two-pass form in `f64` of the same
/// values, within the bound its docs state; and the tiles that must take the `f64` form.
#[test]
fn f32_tiles_meet_their_bound() {
    const U32: f64 = f32::EPSILON as f64 / 2.0;
    let check = |x: &[f32]| {
        let k = x.len() as f64;
        let max_abs = x.iter().fold(0.0f64, |m, v| m.max((*v as f64).abs()));
        let got = Moments::chunk_f32::<{ Widened::F32 }>(x);
        assert_tile(
            x,
            got,
            2.0 * (k + 2.0) * U32 * max_abs,
            ((k + 4.0) * (2.0 * k).sqrt() + k + 2.0) * U32,
        )
    };
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || (xorshift(&mut seed) >> 11) as f64 / (1u64 << 53) as f64;
    // Every length the trait allows (the driver passes 4, 8 and 16).
    for k in 1usize..=16 {
        for _ in 0..200 {
            // Large mean, small spread; an outlier first; many binades with both signs.
            let shifted: std::vec::Vec<f32> = (0..k).map(|_| (1e6 + next()) as f32).collect();
            check(&shifted);
            let mut outlier = shifted.clone();
            outlier[0] = -3e7;
            check(&outlier);
            let binades: std::vec::Vec<f32> = (0..k)
                .map(|_| ((next() - 0.5) * 2f64.powi((next() * 60.0) as i32 - 30)) as f32)
                .collect();
            check(&binades);
        }
        // Equal values: exact zero, no fallback needed.
        assert_eq!(check(&[7.5f32; 16][..k]).m2, 0.0);
        // Spreads outside [2^-50, 2^60] take the `f64` form (exact here), not an `f32` square
        // that underflows to 0 or overflows to inf.
        let mut tiny = [1e-30f32; 16];
        tiny[k.min(2) - 1] = 3e-30;
        assert!(k == 1 || check(&tiny[..k]).m2 > 0.0);
        let mut huge = [1e30f32; 16];
        huge[k.min(2) - 1] = -1e30;
        assert!(check(&huge[..k]).m2.is_finite());
        // ±inf and NaN give a NaN M2, as the `f64` form does.
        let mut inf = [1.0f32; 16];
        inf[k - 1] = f32::INFINITY;
        assert!(Moments::chunk_f32::<{ Widened::F32 }>(&inf[..k])
            .m2
            .is_nan());
        let mut nan = [1.0f32; 16];
        nan[k / 2] = f32::NAN;
        assert!(Moments::chunk_f32::<{ Widened::F32 }>(&nan[..k])
            .m2
            .is_nan());
    }
}

/// `f16` tiles need no per-element range test ([`one_pass_f32`]'s `f16`): over random `f16` bit
/// patterns — every binade, subnormals, ±65504, ±inf, NaN — the tile without the test gives the
/// same bits as the tile with it.
#[test]
fn f16_tiles_skip_the_range_test_with_the_same_result() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || xorshift(&mut seed);
    let same = |x: &[f32]| {
        let (with, without) = (one_pass_f32(x, false), one_pass_f32(x, true));
        for (a, b) in [
            (with.n, without.n),
            (with.mean, without.mean),
            (with.m2, without.m2),
        ] {
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{x:?}: {with:?} vs {without:?}"
            );
        }
    };
    let specials = [
        65504.0f32,
        -65504.0,
        2f32.powi(-24),
        -2f32.powi(-24),
        0.0,
        -0.0,
    ];
    for k in [4usize, 8, 16] {
        for round in 0..4000 {
            let mut x = [0.0f32; 16];
            for v in x.iter_mut().take(k) {
                let r = next();
                *v = match (round % 4, r % 8) {
                    // Every fourth round: any bit pattern (±inf and NaN included). Otherwise
                    // finite: a special value, or a pattern whose exponent can't be all ones.
                    (0, _) => half::f16::from_bits((r >> 16) as u16).to_f32(),
                    (_, 0) => specials[(r >> 8) as usize % specials.len()],
                    _ => {
                        let h =
                            half::f16::from_bits((r >> 16) as u16 & 0x7bff | (r as u16 & 0x8000));
                        h.to_f32()
                    }
                };
            }
            same(&x[..k]);
        }
        let mut inf = [1.0f32; 16];
        inf[0] = f32::NEG_INFINITY;
        same(&inf[..k]);
        inf[0] = 1.0;
        inf[k - 1] = f32::INFINITY;
        same(&inf[..k]);
    }
}

/// The halves' one-pass tile ([`one_pass_f32`], what `chunk_f32` runs for `f16` and `bf16`)
/// against the exact two-pass form in `f64` of the same values, within the bound the module docs
/// state ("Halves: one pass"): M2 within `(2√k + (3⌈log₂k⌉ + 1)·k + 1)·u₃₂·M2*`, the mean within
/// `(⌈log₂k⌉ + 1)·u₃₂·D` of the exact tile mean (plus its rounding to `f64`); a seeded bug (a
/// square dropped, or `S₁²/k` not subtracted) fails it.
#[test]
fn half_tiles_meet_their_bound() {
    const U32: f64 = f32::EPSILON as f64 / 2.0;
    let check = |x: &[f32], from: u8| {
        let got = match from {
            Widened::F16 => Moments::chunk_f32::<{ Widened::F16 }>(x),
            _ => Moments::chunk_f32::<{ Widened::BF16 }>(x),
        };
        let levels = x.len().next_power_of_two().trailing_zeros() as f64;
        let k = x.len() as f64;
        let spread = x
            .iter()
            .fold(0.0f64, |m, v| m.max((*v as f64 - x[0] as f64).abs()));
        let mean = x.iter().map(|v| *v as f64).sum::<f64>() / k;
        assert_tile(
            x,
            got,
            (levels + 1.0) * U32 * spread + 2.0 * f64::EPSILON * mean.abs(),
            (2.0 * k.sqrt() + (3.0 * levels + 1.0) * k + 1.0) * U32,
        )
    };
    let mut seed = 0x5851_f42d_4c95_7f2du64;
    let mut next = || (xorshift(&mut seed) >> 11) as f64 / (1u64 << 53) as f64;
    let f16 = |v: f64| half::f16::from_f64(v).to_f32();
    let bf16 = |v: f64| half::bf16::from_f64(v).to_f32();
    for k in 1usize..=16 {
        for _ in 0..300 {
            // Large mean, small spread (in each type's precision); an outlier first; binades.
            let shifted: std::vec::Vec<f32> = (0..k).map(|_| f16(1000.0 + 8.0 * next())).collect();
            check(&shifted, Widened::F16);
            let mut outlier = shifted.clone();
            outlier[0] = f16(-30000.0);
            check(&outlier, Widened::F16);
            let binades: std::vec::Vec<f32> = (0..k)
                .map(|_| f16((next() - 0.5) * 2f64.powi((next() * 36.0) as i32 - 20)))
                .collect();
            check(&binades, Widened::F16);
            let wide: std::vec::Vec<f32> = (0..k)
                .map(|_| bf16((next() - 0.5) * 2f64.powi((next() * 120.0) as i32 - 60)))
                .collect();
            check(&wide, Widened::BF16);
            let near: std::vec::Vec<f32> = (0..k).map(|_| bf16(3e20 * (1.0 + next()))).collect();
            check(&near, Widened::BF16);
        }
        // Equal values: exact zero.
        assert_eq!(check(&[f16(7.5); 16][..k], Widened::F16).m2, 0.0);
        // `bf16` spreads outside [2^-50, 2^60] take the `f64` form (exact here).
        let mut tiny = [bf16(1e-30); 16];
        tiny[k.min(2) - 1] = bf16(3e-30);
        assert!(k == 1 || check(&tiny[..k], Widened::BF16).m2 > 0.0);
        let mut huge = [bf16(1e30); 16];
        huge[k.min(2) - 1] = bf16(-1e30);
        assert!(check(&huge[..k], Widened::BF16).m2.is_finite());
        // ±inf and NaN give a NaN M2, for both types.
        let mut inf = [1.0f32; 16];
        inf[k - 1] = f32::INFINITY;
        assert!(Moments::chunk_f32::<{ Widened::F16 }>(&inf[..k])
            .m2
            .is_nan());
        assert!(Moments::chunk_f32::<{ Widened::BF16 }>(&inf[..k])
            .m2
            .is_nan());
        let mut nan = [1.0f32; 16];
        nan[k / 2] = f32::NAN;
        assert!(Moments::chunk_f32::<{ Widened::F16 }>(&nan[..k])
            .m2
            .is_nan());
        assert!(Moments::chunk_f32::<{ Widened::BF16 }>(&nan[..k])
            .m2
            .is_nan());
    }
}

/// The `bf16` tiles' one test of `S₂` ([`one_pass_f32`]): deviations too small for `f32` squares
/// (`S₂` rounds to 0, or below 2⁻¹⁰⁰) and too large for their sum (above 2¹²⁰) take the `f64`
/// form — the exact triple of those values — and a constant tile stays in `f32` with M2 = 0.
#[test]
fn bf16_tiles_test_their_sum_of_squares_once() {
    use super::moment_tiles::S2_LO;
    let wide = |x: &[f32]| {
        Moments::chunk(
            &x.iter().map(|v| *v as f64).collect::<std::vec::Vec<_>>(),
            &[],
        )
    };
    for (c, t) in [
        (1e-30f32, 2.0f32.powi(-90)),
        (0.0, 2.0f32.powi(-60)),
        (3.0, 2.0f32.powi(61)),
    ] {
        let mut x = [c; 16];
        x[7] = c + t;
        x[12] = c - t;
        let got = one_pass_f32(&x, false);
        assert_eq!(got, wide(&x), "c {c} t {t}: the f64 form");
        assert!(got.m2 > 0.0, "c {c} t {t}: {got:?}");
    }
    // Just inside the window: the f32 form, within its bound of the exact form.
    let t = 2.0f32.powi(-50);
    let mut x = [0.0f32; 16];
    x[3] = t;
    let got = one_pass_f32(&x, false);
    assert!(t * t >= S2_LO);
    let want = wide(&x);
    assert!(
        (got.m2 - want.m2).abs() <= 217.0 * (f32::EPSILON as f64) * want.m2,
        "{got:?} {want:?}"
    );
    for c in [0.0f32, -0.0, 1.5, -3e38] {
        let got = one_pass_f32(&[c; 16], false);
        assert_eq!(
            (got.n, got.mean, got.m2),
            (16.0, c as f64, 0.0),
            "constant {c}"
        );
    }
}
