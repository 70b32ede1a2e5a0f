//! # Error-free addition: TwoSum and a two-component expansion in `f64` registers
//!
//! **What.** Each thread keeps its running sum as an *expansion* `hi + lo` of two `f64`s and adds
//! every element with Knuth's **TwoSum**: `s = a + b` and `e = (a - (s - bb)) + (b - bb)` with
//! `bb = s - a` give `s + e == a + b` **exactly** (six additions, no branches, valid for every
//! pair of finite doubles whose sum does not overflow; subnormals included, since the GPU's
//! `add.rn.f64` never flushes them). The first TwoSum folds the element into `hi`, the second folds
//! its rounding error into `lo`; the second's own error `e2` is what would be lost.
//!
//! **Why it is fast.** For ordinary data `e2` is zero: every input is an integer multiple of
//! `2^-149` (f32) or `2^-1074` (f64), and `lo` only collects rounding errors of `hi`, which stay
//! representable in 53 bits unless the data spans far more binades than a running sum's error can
//! carry. So the common path is 12 `add.f64` and one compare per element, all in registers.
//!
//! **Faster when one addition is exact.** [`Expansion::add_fast`] tries `hi + x` alone and keeps
//! it when two more additions prove it exact (three `add.f64`): the f32 fast path.
//!
//! **What it costs / the rare path.** When `e2 != 0` (or an input is ±inf/NaN, or a partial
//! sum of f64 data nears overflow) [`Expansion::add`] takes the slow path, which hands the residual
//! to a [`Spill`] — the block's long fixed-point accumulator in shared memory
//! ([`super::accumulator`]). Exactness never depends on the data: only speed does.
//!
//! IEEE edge cases ride along for free: `hi` starts at `-0.0`, the identity of IEEE addition, and
//! stays `-0.0` only while every value added is `-0.0` (that is how the kernel knows that a zero
//! sum of all-negative zeros is `-0.0`); a NaN or an infinity turns `hi` non-finite for good, and
//! `hi`'s final class (NaN, +inf, -inf) is exactly IEEE's verdict on the inputs' specials.

/// `2^1021`: an `f64` partial sum or input at least this large is moved to the long accumulator
/// before the next addition, so TwoSum never overflows (`|a|, |b| < 2^1021` ⇒ `|a + b| < 2^1022`).
pub const LIMIT: f64 = f64::from_bits((1021 + 1023) << 52);

/// Knuth's TwoSum: `(s, e)` with `s = fl(a + b)` and `s + e = a + b` exactly (finite `a`, `b`,
/// no overflow). Six floating-point additions.
#[inline(always)]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// Where residuals that do not fit in an [`Expansion`] go (exactly).
pub trait Spill {
    /// Add `v` (finite) exactly.
    fn spill(&self, v: f64);
}

/// `hi + lo`, an unevaluated sum of two doubles; the value is exact together with whatever the
/// [`Spill`] received.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Expansion {
    /// The running sum (or, once a NaN or infinity was added, that special value).
    pub hi: f64,
    /// The rounding errors of `hi` (finite; 0 once `hi` is special).
    pub lo: f64,
}

impl Default for Expansion {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Expansion {
    /// The empty sum: `hi = -0.0` (IEEE's additive identity), `lo = +0.0`.
    pub const EMPTY: Expansion = Expansion { hi: -0.0, lo: 0.0 };

    /// Add `x` exactly: two TwoSums in registers, the slow path when the second one's error is
    /// not zero (or NaN, which is how an infinity, a NaN or an overflow shows up).
    #[inline(always)]
    pub fn add<S: Spill>(&mut self, x: f64, spill: &S) {
        let (s, e1) = two_sum(self.hi, x);
        let (t, e2) = two_sum(self.lo, e1);
        if e2 != 0.0 {
            // Also taken when e2 is NaN (`NaN != 0.0`).
            *self = add_slow(*self, x, spill);
        } else {
            self.hi = s;
            self.lo = t;
        }
    }

    /// Add `x` exactly with **three** additions when one addition is exact (the f32 fast path):
    /// `t = hi + x` replaces `hi` when `t - hi == x` and `t - x == hi`; otherwise the rare path
    /// ([`add_slow`]: the two TwoSums, the spill) runs, out of line.
    ///
    /// **Why the test is exact (both directions).** Take round-to-nearest binary floating point
    /// and a finite `t = fl(hi + x)`. If `|hi| >= |x|`, then `t - hi` is representable (Dekker's
    /// lemma, the heart of FastTwoSum), so `fl(t - hi) = t - hi` and `fl(t - hi) == x` means
    /// `t == hi + x` exactly; if `|x| >= |hi|`, the same holds for `fl(t - x) == hi`. The test
    /// asks both, so whichever operand is larger vouches for exactness. Conversely, an exact `t`
    /// makes `t - hi = x` and `t - x = hi` representable, so both comparisons hold: the test
    /// accepts *exactly* the exact additions. An overflow (`t = ±inf`) gives `inf - hi = ±inf`,
    /// never a finite `x`; a NaN or infinity in `hi` or `x` fails a comparison: both take the
    /// rare path, which knows them. `-0.0 + -0.0 = -0.0` passes, and `-0.0 + 0.0 = +0.0` passes
    /// (`0.0 == -0.0`): IEEE's sign of zero, as [`Expansion::add`] keeps it.
    ///
    /// **Why it pays.** An `f32` widened to `f64` has 24 significant bits; a per-thread running
    /// sum up to `2^k` absorbs it exactly whenever the element's last bit weighs at least
    /// `2^(k - 52)` — nearly every element of ordinary data. Three `add.f64` instead of twelve
    /// brings the f32 sum from ~80% of the H200's FP64 rate at HBM speed to ~20%. For `f64` data
    /// with 53 significant bits the test mostly fails and this is slower (measure it: the host's
    /// `fast` policy key picks the kernel).
    #[inline(always)]
    pub fn add_fast<S: Spill>(&mut self, x: f64, spill: &S) {
        let t = self.hi + x;
        // `&`, not `&&`: both comparisons, one branch.
        if (t - self.hi == x) & (t - x == self.hi) {
            self.hi = t;
        } else {
            *self = add_slow(*self, x, spill);
        }
    }

    /// Add another expansion (exactly).
    #[inline(always)]
    pub fn merge<S: Spill>(&mut self, o: Expansion, spill: &S) {
        self.add(o.hi, spill);
        // Both `lo`s are finite (see the field docs), so this TwoSum is exact.
        let (t, e) = two_sum(self.lo, o.lo);
        if e != 0.0 {
            spill.spill(e);
        }
        self.lo = t;
    }
}

/// The rare path of [`Expansion::add`], correct for every input. It takes and returns the
/// expansion by value (not `&mut`): a pointer passed to an out-of-line function would force the
/// caller's expansions out of registers into local memory on the GPU. (The spill is passed by
/// reference for the same reason: an aggregate passed by value is copied to local memory before
/// every call site, which LLVM places on the fast path.)
#[cold]
#[inline(never)]
pub fn add_slow<S: Spill>(mut e: Expansion, x: f64, spill: &S) -> Expansion {
    if !x.is_finite() {
        // NaN, or an infinity: IEEE addition of the specials is the answer (+inf + -inf and
        // anything + NaN are NaN); finite values no longer matter.
        e.hi += x;
        e.lo = 0.0;
        return e;
    }
    if !e.hi.is_finite() {
        return e;
    }
    if e.hi.abs() >= LIMIT {
        spill.spill(e.hi);
        e.hi = 0.0;
    }
    if x.abs() >= LIMIT {
        spill.spill(x);
        return e;
    }
    let (s, e1) = two_sum(e.hi, x);
    let (t, e2) = two_sum(e.lo, e1);
    if e2 != 0.0 {
        spill.spill(e2);
    }
    Expansion { hi: s, lo: t }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::vec::Vec;

    struct Collect(RefCell<Vec<f64>>);
    impl Spill for Collect {
        fn spill(&self, v: f64) {
            self.0.borrow_mut().push(v);
        }
    }

    #[test]
    fn two_sum_is_exact_on_a_classic_case() {
        let (s, e) = two_sum(1e16, 1.0);
        assert_eq!(s, 1e16);
        assert_eq!(e, 1.0);
    }

    #[test]
    fn the_residual_goes_to_the_spill_and_specials_stick() {
        let c = Collect(RefCell::new(Vec::new()));
        let mut x = Expansion::EMPTY;
        for v in [2f64.powi(100), 1.0, 2f64.powi(-100)] {
            x.add(v, &c);
        }
        // 2^-100 cannot ride in `lo` next to 1.0 under 2^100: it is spilled.
        assert_eq!((x.hi, x.lo), (2f64.powi(100), 1.0));
        assert_eq!(*c.0.borrow(), [2f64.powi(-100)]);
        x.add(f64::INFINITY, &c);
        x.add(5.0, &c);
        assert_eq!((x.hi, x.lo), (f64::INFINITY, 0.0));
        x.add(f64::NEG_INFINITY, &c);
        assert!(x.hi.is_nan());
    }

    /// Is `a + b` exact in `f64`? (The oracle: TwoSum's error is zero.)
    fn exact_add(a: f64, b: f64) -> bool {
        let (s, e) = two_sum(a, b);
        s.is_finite() && e == 0.0
    }

    #[test]
    fn the_fast_test_accepts_exactly_the_exact_additions() {
        // Adversarial pairs: near ties, one ulp apart, subnormals, cancellation, huge and tiny,
        // overflow, specials; each in both orders and every sign.
        let ulp1 = f64::EPSILON;
        let base = [
            (1.0, ulp1 / 2.0),
            (1.0, ulp1),
            (1.0, ulp1 * 1.5),
            (1.0 + ulp1, ulp1 / 2.0),
            (2f64.powi(60), 1.0),
            (2f64.powi(52), 1.0),
            (2f64.powi(53), 1.0),
            (2f64.powi(53), 3.0),
            (0.1, 0.2),
            (0.5, 0.25),
            (f64::from_bits(1), f64::from_bits(3)),
            (f64::MIN_POSITIVE, -f64::from_bits(1)),
            (1e300, 1e-300),
            (f64::MAX, f64::MAX),
            (f64::MAX, 2f64.powi(970)),
            (f64::MAX, 2f64.powi(969)),
            (16777217.0, 0.5),
            (4096.0, f32::EPSILON as f64 / 1024.0),
            (1.0, -1.0 + ulp1 / 2.0),
        ];
        let mut seen = (0, 0);
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut random = std::vec::Vec::new();
        for _ in 0..20000 {
            crate::test_rng::xorshift64(&mut rng);
            // A running sum of a few thousand and an f32 element, or two doubles of nearby
            // binades (where inexact additions are common).
            let s = (rng >> 11) as f64 * 2f64.powi(-41);
            let x = f32::from_bits((rng as u32) & 0x3fff_ffff) as f64;
            random.push((s, x));
            let y = f64::from_bits((rng.rotate_left(17) & 0x3fff_ffff_ffff_ffff) | (1023 << 52));
            random.push((1.5 * y, y * 2f64.powi((rng % 60) as i32 - 30)));
        }
        for &(a, b) in base.iter().chain(random.iter()) {
            for (a, b) in [(a, b), (b, a), (-a, b), (a, -b), (-a, -b)] {
                let c = Collect(RefCell::new(std::vec::Vec::new()));
                let mut e = Expansion { hi: a, lo: 0.0 };
                e.add_fast(b, &c);
                let fast = c.0.borrow().is_empty() && e.hi == a + b && e.lo == 0.0;
                assert_eq!(fast, exact_add(a, b), "{a:e} + {b:e}");
                seen.0 += fast as usize;
                seen.1 += !fast as usize;
                // Either way the value is kept: `hi + lo` (+ the spill, empty here) is `a + b`.
                let spilled: f64 = c.0.borrow().iter().sum();
                let (s, err) = two_sum(e.hi, e.lo);
                if a.abs() < LIMIT && b.abs() < LIMIT && (a + b).is_finite() {
                    let (want_s, want_e) = two_sum(a, b);
                    assert_eq!((s, err + spilled), (want_s, want_e), "{a:e} + {b:e}");
                }
            }
        }
        assert!(
            seen.0 > 1000 && seen.1 > 1000,
            "both outcomes tested: {seen:?}"
        );
        // Specials take the rare path and stick.
        let c = Collect(RefCell::new(std::vec::Vec::new()));
        let mut e = Expansion::EMPTY;
        e.add_fast(-0.0, &c);
        assert_eq!(e.hi.to_bits(), (-0.0f64).to_bits());
        e.add_fast(f64::INFINITY, &c);
        e.add_fast(1.0, &c);
        assert_eq!(e.hi, f64::INFINITY);
        e.add_fast(f64::NEG_INFINITY, &c);
        assert!(e.hi.is_nan());
    }

    #[test]
    fn negative_zero_survives_only_negative_zeros() {
        let c = Collect(RefCell::new(Vec::new()));
        let mut x = Expansion::EMPTY;
        x.add(-0.0, &c);
        assert_eq!(x.hi.to_bits(), (-0.0f64).to_bits());
        x.add(0.0, &c);
        assert_eq!(x.hi.to_bits(), 0);
    }

    #[test]
    fn near_overflow_partial_sums_are_spilled_not_lost() {
        let c = Collect(RefCell::new(Vec::new()));
        let mut x = Expansion::EMPTY;
        for _ in 0..4 {
            x.add(f64::MAX, &c);
        }
        let spilled: f64 = c.0.borrow().iter().map(|v| v / 4.0).sum::<f64>() + x.hi / 4.0;
        assert_eq!(spilled, f64::MAX);
    }
}
