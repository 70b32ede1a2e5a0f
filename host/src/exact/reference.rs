//! The host's exact reference: a big fixed-point integer in units of `2^-1074` (the smallest
//! `f64` subnormal, a divisor of every finite `f32` and `f64`), kept fully carried in `u64` limbs
//! of two's complement, and one rounding at the end.
//!
//! It is deliberately a *different* implementation from the kernels' (`reduce_kernels::exact`):
//! one unit for both types instead of per-type units, 64-bit limbs with a ripple carry on every
//! addition instead of carry-save 32-bit digits, and a rounding that finds the last kept bit
//! (`max(top − precision + 1, subnormal quantum)`) and compares the remainder with half of it,
//! then scales an exact integer with a power of two. A bug would have to be made twice, in two
//! shapes, to go unnoticed; the GPU script cross-checks both with Python's `math.fsum` as well.

use crate::types::Scalar;

/// Limbs: 2^-1074 … 2^1024 is 2098 bits, plus 64 bits of headroom for up to 2^64 terms, plus
/// the sign: 36 × 64 = 2304 bits.
const LIMBS: usize = 36;

/// A float type the exact sums support (`f32`, `f64`).
pub trait ExactFloat: Scalar<Acc = Self, Sum = Self> {
    /// Significand bits with the hidden bit.
    const PRECISION: u32;
    /// The bit (in units of 2^-1074) of this type's smallest subnormal.
    const QUANTUM_BIT: u32;
    /// Widen exactly.
    fn widen(self) -> f64;
    /// Narrow an `f64` that is exactly representable (or ±inf/NaN).
    fn narrow(v: f64) -> Self;
    /// Narrow any `f64` with Rust's `as` (round to nearest); for making test data.
    fn narrow_round(v: f64) -> Self {
        Self::narrow(v)
    }
}

impl ExactFloat for f32 {
    const PRECISION: u32 = 24;
    const QUANTUM_BIT: u32 = 1074 - 149;
    fn widen(self) -> f64 {
        self as f64
    }
    fn narrow(v: f64) -> Self {
        v as f32
    }
}

impl ExactFloat for f64 {
    const PRECISION: u32 = 53;
    const QUANTUM_BIT: u32 = 0;
    fn widen(self) -> f64 {
        self
    }
    fn narrow(v: f64) -> Self {
        v
    }
}

/// An exact accumulator of floating-point values: [`ExactSum::add`] each, then
/// [`ExactSum::round`] once. Semantics as the kernels' (`docs/exact.md`).
#[derive(Clone, Debug)]
pub struct ExactSum {
    limbs: [u64; LIMBS],
    count: u64,
    nan: bool,
    pos_inf: bool,
    neg_inf: bool,
    all_neg_zero: bool,
}

impl Default for ExactSum {
    fn default() -> Self {
        ExactSum {
            limbs: [0; LIMBS],
            count: 0,
            nan: false,
            pos_inf: false,
            neg_inf: false,
            all_neg_zero: true,
        }
    }
}

impl ExactSum {
    /// The empty sum.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add `x` exactly.
    pub fn add(&mut self, x: f64) {
        self.count += 1;
        if x.to_bits() != (-0.0f64).to_bits() {
            self.all_neg_zero = false;
        }
        if x.is_nan() {
            self.nan = true;
            return;
        }
        if x.is_infinite() {
            if x > 0.0 {
                self.pos_inf = true;
            } else {
                self.neg_inf = true;
            }
            return;
        }
        if x == 0.0 {
            return;
        }
        let bits = x.to_bits();
        let field = (bits >> 52) & 0x7ff;
        let frac = bits & ((1 << 52) - 1);
        // x = m · 2^(pos − 1074)
        let (m, pos) = if field == 0 {
            (frac, 0)
        } else {
            (frac | 1 << 52, field as u32 - 1)
        };
        let (limb, off) = ((pos / 64) as usize, pos % 64);
        let wide = (m as u128) << off;
        let parts = [wide as u64, (wide >> 64) as u64];
        // A positive `x` is added from limb `limb` up, carrying; a negative one subtracted,
        // borrowing.
        let step: fn(u64, u64) -> (u64, bool) = if x > 0.0 {
            u64::overflowing_add
        } else {
            u64::overflowing_sub
        };
        let mut carry = 0u64;
        for (i, l) in self.limbs.iter_mut().enumerate().skip(limb) {
            let part = parts.get(i - limb).copied().unwrap_or(0);
            let (s1, c1) = step(*l, part);
            let (s2, c2) = step(s1, carry);
            *l = s2;
            carry = (c1 | c2) as u64;
            if carry == 0 && i > limb {
                break;
            }
        }
    }

    /// Add another accumulator (exactly).
    pub fn merge(&mut self, other: &ExactSum) {
        let mut carry = 0u64;
        for (l, &o) in self.limbs.iter_mut().zip(&other.limbs) {
            let (s1, c1) = l.overflowing_add(o);
            let (s2, c2) = s1.overflowing_add(carry);
            *l = s2;
            carry = (c1 | c2) as u64;
        }
        self.count += other.count;
        self.nan |= other.nan;
        self.pos_inf |= other.pos_inf;
        self.neg_inf |= other.neg_inf;
        self.all_neg_zero &= other.all_neg_zero;
    }

    /// Add every value of `data` (widened exactly).
    pub fn extend<T: ExactFloat>(&mut self, data: &[T]) {
        for &x in data {
            self.add(ExactFloat::widen(x));
        }
    }

    /// The exact sum rounded once to the nearest `T` (ties to even), with the IEEE special cases.
    pub fn round<T: ExactFloat>(&self) -> T {
        if self.nan || (self.pos_inf && self.neg_inf) {
            return T::narrow(f64::NAN);
        }
        if self.pos_inf {
            return T::narrow(f64::INFINITY);
        }
        if self.neg_inf {
            return T::narrow(f64::NEG_INFINITY);
        }
        let negative = self.limbs[LIMBS - 1] >> 63 != 0;
        let mut mag = self.limbs;
        if negative {
            let mut carry = 1u64;
            for l in &mut mag {
                let (s, c) = (!*l).overflowing_add(carry);
                *l = s;
                carry = c as u64;
            }
        }
        let Some(top_limb) = mag.iter().rposition(|&l| l != 0) else {
            let zero = if self.count > 0 && self.all_neg_zero {
                -0.0
            } else {
                0.0
            };
            return T::narrow(zero);
        };
        let top = top_limb as u32 * 64 + 63 - mag[top_limb].leading_zeros();
        let bit = |i: u32| (mag[(i / 64) as usize] >> (i % 64)) & 1;
        // The last bit kept: `PRECISION` bits below the top, but never below the type's quantum.
        let last = (top + 1).saturating_sub(T::PRECISION).max(T::QUANTUM_BIT);
        let mut q: u64 = 0;
        for i in (last..=top).rev() {
            q = q << 1 | bit(i);
        }
        if last > 0 {
            // Compare the remainder (bits below `last`) with half a unit of `last`.
            let half = bit(last - 1) == 1;
            let below = (0..last - 1).any(|i| bit(i) == 1);
            if half && (below || q & 1 == 1) {
                q += 1;
            }
        }
        // q ≤ 2^PRECISION and q · 2^(last − 1074) is representable in T (or overflows to inf).
        let scale = |v: f64, e: i32| {
            // Two steps keep each power of two a normal or subnormal f64 (e ≥ -1074).
            let h = e / 2;
            v * 2f64.powi(h) * 2f64.powi(e - h)
        };
        let v = scale(q as f64, last as i32 - 1074);
        let v = if negative { -v } else { v };
        T::narrow(v)
    }
}

/// The correctly rounded sum of `data`.
pub fn exact_sum<T: ExactFloat>(data: &[T]) -> T {
    let mut s = ExactSum::new();
    s.extend(data);
    s.round()
}

/// [`exact_sum`] on every core: chunks summed on their own threads, then merged (integer
/// addition, so the result does not depend on the chunking).
pub fn exact_sum_parallel<T: ExactFloat + Sync>(data: &[T]) -> T {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = data.len().div_ceil(threads).max(1 << 16);
    let parts: Vec<ExactSum> = std::thread::scope(|s| {
        let handles: Vec<_> = data
            .chunks(chunk)
            .map(|c| {
                s.spawn(move || {
                    let mut a = ExactSum::new();
                    a.extend(c);
                    a
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a reference thread panicked"))
            .collect()
    });
    let mut total = ExactSum::new();
    for p in &parts {
        total.merge(p);
    }
    total.round()
}

/// The mean the device computes ([`crate::Reducer::mean_exact`]): the correctly rounded sum (in
/// `T`), widened to `f64` and divided by the length (so one rounding of the sum, one of the
/// division: deterministic, not itself correctly rounded); `None` for no data.
pub fn exact_mean<T: ExactFloat>(data: &[T]) -> Option<f64> {
    if data.is_empty() {
        return None;
    }
    Some(ExactFloat::widen(exact_sum(data)) / data.len() as f64)
}
