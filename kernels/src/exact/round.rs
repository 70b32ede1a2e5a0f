//! # The one rounding: a long fixed-point integer to the nearest `f32`/`f64`, ties to even
//!
//! **What.** The exact sum ends as an integer `S = Σ words[k] · 2^(32k)` in units of
//! `2^-unit_exp` ([`super::accumulator`]); [`round`] turns it into the bits of the nearest
//! value of the result type: full carry propagation into 32-bit digits, the sign, the highest
//! set bit, the top 24 or 53 bits, the guard bit and the sticky bits below it, ties to even,
//! subnormals (no hidden bit; exactly representable when the value has fewer bits than the
//! precision) and overflow to ±inf.
//!
//! **Why it is cheap enough.** It runs once per launch, on one thread of the last block.
//!
//! **What it costs.** A sequential pass over the `W` words (68 for f64): the one part of the
//! exact sum whose time does not shrink with `N` (see the fixed cost in `benches/exact-on-gpu.sh`).

use super::accumulator::{Format, MAX_SLOTS};

/// Round the integer `Σ words[k] · 2^(32k)` (units of `2^-unit_exp`; each `|words[k]| < 2^62`) once
/// to the nearest value of `f`'s type, ties to even: the result's bits (±0 → `+0.0`; an exact sum
/// beyond the largest finite value → ±inf).
pub fn round(words: &[i64], f: Format) -> u64 {
    let w = f.words;
    // Full carry propagation into 32-bit digits of a two's-complement number.
    let mut d = [0u32; MAX_SLOTS];
    let mut carry: i64 = 0;
    for k in 0..w {
        let t = words[k] + carry;
        d[k] = t as u32;
        carry = t >> 32;
    }
    // The value fits in 32·W - 1 bits, so the final carry is the sign extension (0 or -1).
    let negative = (d[w - 1] as i32) < 0 || carry < 0;
    if negative {
        let mut c = 1u64;
        for x in d.iter_mut().take(w) {
            let t = (!*x) as u64 + c;
            *x = t as u32;
            c = t >> 32;
        }
    }
    let mut top = w;
    while top > 0 && d[top - 1] == 0 {
        top -= 1;
    }
    if top == 0 {
        return 0;
    }
    let p = (top - 1) * 32 + (31 - d[top - 1].leading_zeros() as usize); // highest set bit
    let prec = f.precision as usize;
    let bits_at = |pos: usize| -> u64 {
        // 64 bits of the magnitude starting at bit `pos`.
        let (k, off) = (pos / 32, pos % 32);
        let mut v: u128 = 0;
        for j in 0..4 {
            if k + j < w {
                v |= (d[k + j] as u128) << (32 * j);
            }
        }
        (v >> off) as u64
    };
    let (q, shift) = if p < prec {
        // Exactly representable (a subnormal, or a normal with no bits below the unit).
        (bits_at(0) & ((1 << prec) - 1), 0)
    } else {
        let shift = p + 1 - prec;
        let mut q = bits_at(shift) & ((1 << prec) - 1);
        let guard = bits_at(shift - 1) & 1 != 0;
        let below = shift - 1; // bits [0, below) are the sticky bits
        let mut sticky = d[..below / 32].iter().any(|&x| x != 0);
        if !below.is_multiple_of(32) {
            sticky |= d[below / 32] & ((1u32 << (below % 32)) - 1) != 0;
        }
        if guard && (sticky || q & 1 != 0) {
            q += 1; // may carry into 2^prec: the exponent below absorbs it
        }
        (q, shift)
    };
    // q·2^(shift - unit_exp) with q < 2^prec (or = 2^prec after a carry): adding q to the shifted
    // exponent field puts its hidden bit into the exponent (normal) or leaves a subnormal.
    let mut r = ((shift as u64) << (prec - 1)) + q;
    if r >= f.inf_bits() {
        r = f.inf_bits();
    }
    if negative {
        r |= f.sign_bit();
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::accumulator::place;

    fn words_of(values: &[f64], f: Format) -> std::vec::Vec<i64> {
        let mut w = std::vec![0i64; f.words];
        for &v in values {
            if let Some((k, d)) = place(v, f.unit_exp) {
                for j in 0..3 {
                    w[k + j] += d[j];
                }
            }
        }
        w
    }

    #[test]
    fn single_values_round_trip() {
        for v in [
            1.0f64,
            -1.5,
            f64::MAX,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1e300,
            std::f64::consts::PI,
        ] {
            assert_eq!(
                round(&words_of(&[v], Format::F64), Format::F64),
                v.to_bits()
            );
        }
        for v in [
            1.0f32,
            -3.25,
            f32::MAX,
            1e-45,
            -1e-45,
            f32::MIN_POSITIVE,
            0.1,
        ] {
            let w = words_of(&[v as f64], Format::F32);
            assert_eq!(round(&w, Format::F32), v.to_bits() as u64);
        }
    }

    #[test]
    fn ties_go_to_even_and_overflow_to_infinity() {
        let f = Format::F64;
        // 1 + 2^-53 is halfway between 1 and its successor: ties to even gives 1.
        let w = words_of(&[1.0, 2f64.powi(-53)], f);
        assert_eq!(round(&w, f), 1.0f64.to_bits());
        // 1 + 2^-52 + 2^-53: halfway, odd below: rounds up.
        let w = words_of(&[1.0 + 2f64.powi(-52), 2f64.powi(-53)], f);
        assert_eq!(round(&w, f), (1.0 + 2.0 * 2f64.powi(-52)).to_bits());
        // Just above halfway: sticky.
        let w = words_of(&[1.0, 2f64.powi(-53), 2f64.powi(-1000)], f);
        assert_eq!(round(&w, f), (1.0 + 2f64.powi(-52)).to_bits());
        let w = words_of(&[f64::MAX, f64::MAX], f);
        assert_eq!(round(&w, f), f64::INFINITY.to_bits());
        let w = words_of(&[-f64::MAX, -f64::MAX], f);
        assert_eq!(round(&w, f), f64::NEG_INFINITY.to_bits());
        let w = words_of(&[1e30, 1.0, -1e30], f);
        assert_eq!(round(&w, f), 1.0f64.to_bits());
        assert_eq!(round(&words_of(&[2.0, -2.0], f), f), 0);
    }
}
