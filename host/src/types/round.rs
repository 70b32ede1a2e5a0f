//! Correctly rounded conversions to `f16` and `bf16`: from `f64` and from `i128`, round to
//! nearest, ties to even, in one rounding.
//!
//! The [`half`] crate's `f16::from_f64` is not used: on CPUs with F16C it converts through `f32`
//! (two roundings, so a value just above a tie of `f16` can first round onto the tie in `f32`
//! and then to even, away from the nearest: `1 + 2⁻¹¹ + 2⁻⁴⁰` gave 1.0), and its software
//! fallback, like `bf16::from_f64`, drops the low 32 bits of the `f64` significand before it
//! rounds (so `Bf16` of `1 + 2⁻⁸ + 2⁻⁴⁰` gave 1.0, and `2643 − 2⁻¹⁴` became `f16` 2644). Here the
//! whole significand takes part: a value is `m · 2^e` with an integer `m`, and rounding keeps
//! the quotient of `m` by the quantum of the value's binade and compares the remainder with half
//! of it, exactly.

/// A binary interchange format narrower than `f64`: its stored significand and exponent bits.
#[derive(Clone, Copy)]
struct Format {
    /// Stored significand bits (the leading one is implicit): 10 for `f16`, 7 for `bf16`.
    mantissa: u32,
    /// Exponent bits: 5 for `f16`, 8 for `bf16`.
    exponent: u32,
}

const F16_FORMAT: Format = Format {
    mantissa: 10,
    exponent: 5,
};
const BF16_FORMAT: Format = Format {
    mantissa: 7,
    exponent: 8,
};

impl Format {
    /// The bits of +inf (all exponent bits set, significand 0).
    const fn inf(self) -> u16 {
        (((1u32 << self.exponent) - 1) << self.mantissa) as u16
    }
    /// The smallest exponent of a normal value (`1 − bias`).
    const fn emin(self) -> i32 {
        2 - (1 << (self.exponent - 1))
    }
    /// The largest exponent of a finite value (`bias`).
    const fn emax(self) -> i32 {
        (1 << (self.exponent - 1)) - 1
    }

    /// `±m · 2^e` (`m > 0`) rounded to nearest, ties to even; ±inf past the largest finite
    /// value (from the largest finite value plus half its ulp on, as IEEE 754 says).
    const fn round(self, negative: bool, m: u128, e: i32) -> u16 {
        let sign = if negative { 0x8000 } else { 0 };
        // The value lies in [2^top, 2^(top + 1)).
        let top = e + (127 - m.leading_zeros() as i32);
        if top > self.emax() + 1 {
            return sign | self.inf();
        }
        // The quantum (ulp) of that binade, or of the subnormals below `emin`.
        let top_or_min = if top > self.emin() { top } else { self.emin() };
        let quantum = top_or_min - self.mantissa as i32;
        let shift = quantum - e;
        let r = if shift <= 0 {
            // Exact: at most `mantissa + 1` significant bits.
            m << -shift
        } else if shift > 128 {
            // Below half the smallest subnormal: rounds to zero.
            0
        } else {
            let (kept, rest) = if shift == 128 {
                (0, m)
            } else {
                (m >> shift, m & ((1u128 << shift) - 1))
            };
            let half = 1u128 << (shift - 1);
            let up = rest > half || (rest == half && kept & 1 == 1);
            kept + up as u128
        };
        // `r` counts quanta, the leading one included: for a normal value it lies in
        // [2^mantissa, 2^(mantissa + 1)], and adding the binade's offset to it gives the biased
        // exponent field and the stored significand together (a carry out of the significand
        // steps the exponent, and past the largest finite value lands on inf's bits). Below
        // `emin` the offset is 0 and `r` is the subnormal's bits (2^mantissa: the smallest
        // normal).
        let offset = ((top_or_min - self.emin()) as u128) << self.mantissa;
        let bits = offset + r;
        if bits >= self.inf() as u128 {
            return sign | self.inf();
        }
        sign | bits as u16
    }

    /// `v` rounded (see [`Format::round`]); NaN stays NaN, quieted, with its sign and the top
    /// bits of its payload.
    const fn round_f64(self, v: f64) -> u16 {
        let bits = v.to_bits();
        let negative = bits >> 63 == 1;
        let sign = if negative { 0x8000 } else { 0 };
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let fraction = bits & ((1 << 52) - 1);
        if biased == 0x7ff {
            if fraction == 0 {
                return sign | self.inf();
            }
            let quiet = 1u16 << (self.mantissa - 1);
            let payload = (fraction >> (52 - self.mantissa)) as u16;
            return sign | self.inf() | quiet | payload;
        }
        if biased == 0 && fraction == 0 {
            return sign;
        }
        let (m, e) = if biased == 0 {
            (fraction, -1074)
        } else {
            (fraction | 1 << 52, biased - 1075)
        };
        self.round(negative, m as u128, e)
    }

    /// `v` rounded (see [`Format::round`]); 0 is +0.
    const fn round_i128(self, v: i128) -> u16 {
        if v == 0 {
            return 0;
        }
        self.round(v < 0, v.unsigned_abs(), 0)
    }
}

/// The bits of the `f16` nearest to `v` (ties to even; ±inf from 65520 on; NaN quieted).
pub(crate) const fn f64_to_f16_bits(v: f64) -> u16 {
    F16_FORMAT.round_f64(v)
}

/// The bits of the `bf16` nearest to `v` (ties to even; ±inf past the largest finite value; NaN
/// quieted).
pub(crate) const fn f64_to_bf16_bits(v: f64) -> u16 {
    BF16_FORMAT.round_f64(v)
}

/// The bits of the `f16` nearest to the integer `v` (ties to even; ±inf from 65520 on).
pub(crate) const fn i128_to_f16_bits(v: i128) -> u16 {
    F16_FORMAT.round_i128(v)
}

/// The bits of the `bf16` nearest to the integer `v` (ties to even).
pub(crate) const fn i128_to_bf16_bits(v: i128) -> u16 {
    BF16_FORMAT.round_i128(v)
}

#[cfg(test)]
mod tests;
