//! The conversions against an independent reference: the sorted list of every finite value of
//! the format (each exact in `f64`), a binary search, and comparisons with the exact midpoints
//! (`(a + b) / 2` of two neighbours is exact in `f64` too: it needs one bit more than the
//! format has). Checked at every tie of both formats, one `f64` ulp either side of it, at every
//! value and its `f64` neighbours, and on random `f64` bit patterns.

use super::*;

/// One format under test: its conversion and the exact value of a bit pattern.
struct Case {
    name: &'static str,
    convert: fn(f64) -> u16,
    value: fn(u16) -> f64,
    format: Format,
}

fn cases() -> [Case; 2] {
    [
        Case {
            name: "f16",
            convert: f64_to_f16_bits,
            value: |b| half::f16::from_bits(b).to_f64(),
            format: F16_FORMAT,
        },
        Case {
            name: "bf16",
            convert: f64_to_bf16_bits,
            value: |b| half::bf16::from_bits(b).to_f64(),
            format: BF16_FORMAT,
        },
    ]
}

/// The non-negative finite values, ascending, with their bits; then the first value past the
/// largest (`2^(emax + 1)`), standing for +inf: the overflow threshold is its midpoint with the
/// largest finite value, and inf's bits are even.
fn ladder(c: &Case) -> Vec<(f64, u16)> {
    let inf = c.format.inf();
    let mut v: Vec<(f64, u16)> = (0..inf).map(|b| ((c.value)(b), b)).collect();
    assert!(
        v.windows(2).all(|w| w[0].0 < w[1].0),
        "{}: not ascending",
        c.name
    );
    v.push((2f64.powi(c.format.emax() + 1), inf));
    v
}

/// The bits nearest to `x` by the ladder: exact comparisons only.
fn reference(ladder: &[(f64, u16)], x: f64) -> u16 {
    if x.is_nan() {
        unreachable!("NaN is checked apart");
    }
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    let top = ladder.len() - 1;
    if a >= ladder[top].0 {
        return sign | ladder[top].1;
    }
    // The last value ≤ a.
    let i = ladder.partition_point(|&(v, _)| v <= a) - 1;
    let (lo, hi) = (ladder[i], ladder[i + 1]);
    let mid = (lo.0 + hi.0) / 2.0;
    assert!(
        mid > lo.0 && mid < hi.0 && mid * 2.0 == lo.0 + hi.0,
        "midpoint inexact"
    );
    let pick = if a < mid {
        lo.1
    } else if a > mid {
        hi.1
    } else if lo.1 & 1 == 0 {
        lo.1
    } else {
        hi.1
    };
    sign | pick
}

fn up(x: f64) -> f64 {
    f64::from_bits(x.to_bits() + 1)
}
fn down(x: f64) -> f64 {
    f64::from_bits(x.to_bits() - 1)
}

#[test]
fn every_tie_and_its_neighbours_in_both_formats() {
    for c in cases() {
        let ladder = ladder(&c);
        let mut checked = 0usize;
        for w in ladder.windows(2) {
            let (a, b) = (w[0].0, w[1].0);
            let mid = (a + b) / 2.0;
            let mut points = vec![a, up(a), mid, up(mid), down(mid), down(b)];
            if a > 0.0 {
                points.push(down(a));
            }
            for x in points {
                for x in [x, -x] {
                    let (got, want) = ((c.convert)(x), reference(&ladder, x));
                    assert_eq!(got, want, "{} of {x:e} ({:#x})", c.name, x.to_bits());
                    checked += 1;
                }
            }
        }
        assert!(checked > 14 * (ladder.len() - 2), "{}: {checked}", c.name);
    }
}

#[test]
fn random_f64_bit_patterns() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for c in cases() {
        let ladder = ladder(&c);
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Mostly within the format's exponent range, sometimes anywhere.
            let v = if x & 7 == 0 {
                f64::from_bits(x)
            } else {
                let e = (x >> 52) as i32 % 300 - 150;
                f64::from_bits(x & !(0x7ff << 52) | (((1023 + e) as u64) << 52))
            };
            if v.is_nan() {
                continue;
            }
            assert_eq!((c.convert)(v), reference(&ladder, v), "{} of {v:e}", c.name);
        }
    }
}

#[test]
fn the_reported_cases() {
    let f16 = |v: f64| half::f16::from_bits(f64_to_f16_bits(v)).to_f64();
    let bf16 = |v: f64| half::bf16::from_bits(f64_to_bf16_bits(v)).to_f64();
    // Just above a tie: up, not to even.
    assert_eq!(f16(1.0 + 2f64.powi(-11) + 2f64.powi(-40)), 1.0009765625);
    // Just below 2643 (a tie of 2642 and 2644): down.
    assert_eq!(f16(2643.0 - 2f64.powi(-14)), 2642.0);
    assert_eq!(bf16(1.0 + 2f64.powi(-8) + 2f64.powi(-40)), 1.0078125);
    // Ties to even.
    assert_eq!(f16(2049.0), 2048.0);
    assert_eq!(f16(2051.0), 2052.0);
}

#[test]
fn specials() {
    for c in cases() {
        let inf = c.format.inf();
        assert_eq!((c.convert)(f64::INFINITY), inf);
        assert_eq!((c.convert)(f64::NEG_INFINITY), 0x8000 | inf);
        assert_eq!((c.convert)(0.0), 0);
        assert_eq!((c.convert)(-0.0), 0x8000);
        assert_eq!((c.convert)(f64::MIN_POSITIVE / 4.0), 0, "{}", c.name);
        assert_eq!((c.convert)(-f64::from_bits(1)), 0x8000, "{}", c.name);
        assert_eq!((c.convert)(f64::MAX), inf);
        for nan in [f64::NAN, -f64::NAN, f64::from_bits(0x7ff0_0000_0000_0001)] {
            let h = (c.convert)(nan);
            let quiet = 1 << (c.format.mantissa - 1);
            assert_eq!(h & 0x7fff & inf, inf, "{}: {h:#x} is not a NaN", c.name);
            assert_ne!(h & quiet, 0, "{}: {h:#x} is not quiet", c.name);
            assert_eq!(h & 0x8000 != 0, nan.is_sign_negative(), "{}: sign", c.name);
        }
    }
    // f16's overflow threshold 65520 rounds to inf (the tie goes to inf's even bits), just below
    // it to 65504.
    assert_eq!(f64_to_f16_bits(65520.0), 0x7c00);
    assert_eq!(f64_to_f16_bits(down(65520.0)), 0x7bff);
}

#[test]
fn integers_round_once() {
    for c in cases() {
        let ladder = ladder(&c);
        let from_i128 = if c.name == "f16" {
            i128_to_f16_bits
        } else {
            i128_to_bf16_bits
        };
        // Exact in f64 below 2^53: the f64 conversion is the reference.
        for v in (-70_000i128..70_000).chain([1 << 40, -(1 << 52) - 3]) {
            assert_eq!(
                from_i128(v),
                reference(&ladder, v as f64),
                "{} of {v}",
                c.name
            );
        }
    }
    // Above 2^53 the f64 would round first: 2^60 + 2^52 + 1 is just above the bf16 tie between
    // 2^60 and 2^60 + 2^53, but its f64 is the tie itself, which goes to even (2^60).
    let v: i128 = (1 << 60) + (1 << 52) + 1;
    let bf16 = |b| half::bf16::from_bits(b).to_f64();
    assert_eq!(bf16(i128_to_bf16_bits(v)), 2f64.powi(60) + 2f64.powi(53));
    assert_eq!(bf16(f64_to_bf16_bits(v as f64)), 2f64.powi(60));
    assert_eq!(i128_to_f16_bits(i128::MIN), 0xfc00);
    assert_eq!(bf16(i128_to_bf16_bits(i128::MAX)), 2f64.powi(127));
}
