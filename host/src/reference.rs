//! The CPU reference every device result is checked against, and the check itself.
//!
//! It is written independently of the kernels' fold: it uses none of the kernels' operators or
//! identities (an oracle that starts from the same identity as the kernel cannot catch a wrong
//! identity), only Rust's integer arithmetic in `i128`/`u128`, `f64` and explicit NaN rules.

pub use crate::seeded::XorShift64;
use crate::types::{ElemType, Op, Scalar};
mod verify;
pub use verify::{verify, Expected};

/// The exact answer, computed on the CPU, that a device result is checked against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reference<T> {
    /// The value in the element type: exact for integers (wrapping sum and product, min, max,
    /// count) and for float min/max; for float sums, counts and products, the `f64` value rounded
    /// to `T`.
    pub value: T,
    /// For float sums (`sum`, `nansum`, `count`): the sum computed in `f64`. For float products:
    /// the product computed in `f64` (±0, ±inf or NaN where the exact product is one).
    pub sum_f64: f64,
    /// For float sums: `Σ|x|` in `f64`, which scales the error bound.
    pub sum_abs: f64,
    /// For integers: the exact (not wrapped) sum (for `count`: the count). 0 for floats.
    pub sum_exact: i128,
    /// For float products: the relative error bound of a product of `n` elements multiplied in
    /// any order, `γ(n−1) = (n−1)·u / (1 − (n−1)·u)` (Higham §3.1), plus the reference's own.
    /// 0 otherwise.
    pub rel_bound: f64,
    /// For float products: some order of multiplication can leave the type's normal range (the
    /// product of the elements of magnitude ≥ 1 may overflow, or that of those < 1 may
    /// underflow), so the IEEE result depends on the order — as NumPy's and PyTorch's do — and
    /// [`matches_reference`] accepts any value. `false` otherwise.
    pub order_dependent: bool,
}

/// CPU reference for `op` over `data` (`Mean` gives the reference of the sum, `NanMean` that of
/// the NaN-ignoring sum; see [`reference_mean`] and [`reference_nanmean`] for the means
/// themselves). `None` for min/max (and their NaN-ignoring forms) of nothing, and for an op
/// that is not one of [`Op::REDUCE`].
pub fn reference<T: Scalar>(op: Op, data: &[T]) -> Option<Reference<T>> {
    let is_float = T::TYPE.is_float();
    let op = op.device_op();
    let not_nan = |x: &&T| !x.to_f64().is_nan();
    let mut r = Reference {
        value: T::default(),
        sum_f64: 0.0,
        sum_abs: 0.0,
        sum_exact: 0,
        rel_bound: 0.0,
        order_dependent: false,
    };
    match op {
        Op::Sum | Op::NanSum => {
            let skip_nan = op == Op::NanSum;
            let kept = || data.iter().filter(move |x| !skip_nan || not_nan(x));
            if is_float {
                r.sum_f64 = neumaier_sum(kept().map(|x| x.to_f64()));
                r.sum_abs = kept().map(|x| x.to_f64().abs()).sum();
                r.value = T::from_f64(r.sum_f64);
            } else {
                // Exact: |x| < 2^64 and a slice holds fewer than 2^61 elements.
                r.sum_exact = kept().filter_map(|x| x.to_i128()).sum();
                r.value = T::wrap_i128(r.sum_exact);
            }
        }
        Op::Count => {
            let count = data.iter().filter(not_nan).count();
            r.sum_f64 = count as f64;
            r.sum_abs = count as f64;
            r.sum_exact = count as i128;
            r.value = if is_float {
                T::from_f64(count as f64)
            } else {
                T::wrap_i128(count as i128)
            };
        }
        Op::Prod if is_float => product_reference(data, &mut r),
        Op::Prod => {
            // Modulo 2^128 then truncated: the same as modulo 2^bits.
            let p = data
                .iter()
                .filter_map(|x| x.to_i128())
                .fold(1u128, |p, x| p.wrapping_mul(x as u128));
            r.value = T::wrap_i128(p as i128);
        }
        Op::Min | Op::Max => r.value = extreme(op == Op::Max, false, data)?,
        Op::NanMin | Op::NanMax => r.value = extreme(op == Op::NanMax, true, data)?,
        // The means are mapped to sums above; the arg and transform ops have their own
        // references (`argreduce::reference_arg`, `transform::reference_transform`).
        _ => return None,
    }
    Some(r)
}

/// The smallest (or largest) element. `skip_nan`: IEEE `minNum`/`maxNum` (`nanmin`), NaNs are
/// skipped and only an input of nothing but NaNs gives NaN; otherwise (`min`) any NaN gives NaN.
/// `None` for an empty input.
fn extreme<T: Scalar>(largest: bool, skip_nan: bool, data: &[T]) -> Option<T> {
    let mut best: Option<T> = None;
    for &x in data {
        if x.to_f64().is_nan() {
            if skip_nan {
                continue;
            }
            return Some(x);
        }
        best = Some(match best {
            Some(b) if (largest && b >= x) || (!largest && b <= x) => b,
            _ => x,
        });
    }
    // Not empty and no number in it: every element is NaN.
    best.or_else(|| data.first().copied())
}

/// A positive number as `m · 2^e` with `m` in `[1, 2)`: products of many of them neither
/// overflow nor underflow.
#[derive(Clone, Copy)]
struct Scaled {
    m: f64,
    e: i64,
}

impl Scaled {
    const ONE: Scaled = Scaled { m: 1.0, e: 0 };
    /// `|x|` for a finite, nonzero `x`.
    fn of(x: f64) -> Scaled {
        let (x, bias) = if x.abs() < f64::MIN_POSITIVE {
            (x.abs() * 2f64.powi(64), -64) // a subnormal: scale it into the normal range
        } else {
            (x.abs(), 0)
        };
        let bits = x.to_bits();
        let e = ((bits >> 52) & 0x7ff) as i64 - 1023;
        let m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
        Scaled { m, e: e + bias }
    }
    fn times(self, o: Scaled) -> Scaled {
        let (mut m, mut e) = (self.m * o.m, self.e + o.e);
        if m >= 2.0 {
            m /= 2.0;
            e += 1;
        }
        Scaled { m, e }
    }
    fn to_f64(self) -> f64 {
        // `powi` of an exponent outside f64's range gives 0 or inf, which is the right answer.
        let half = self.e / 2;
        self.m * 2f64.powi(half as i32) * 2f64.powi((self.e - half) as i32)
    }
}

/// The float product's reference (see the fields of [`Reference`]).
fn product_reference<T: Scalar>(data: &[T], r: &mut Reference<T>) {
    let (max_exp, min_exp, u) = if T::TYPE == ElemType::F32 {
        (127i64, -126i64, f32::EPSILON as f64 / 2.0)
    } else {
        (1023, -1022, f64::EPSILON / 2.0)
    };
    let (mut nan, mut zeros, mut infs, mut negative) = (false, 0usize, 0usize, false);
    let (mut big, mut small, mut all) = (Scaled::ONE, Scaled::ONE, Scaled::ONE);
    for x in data.iter().map(|x| x.to_f64()) {
        negative ^= x.is_sign_negative() && !x.is_nan();
        if x.is_nan() {
            nan = true;
        } else if x == 0.0 {
            zeros += 1;
        } else if x.is_infinite() {
            infs += 1;
        } else {
            let s = Scaled::of(x);
            all = all.times(s);
            if s.e >= 0 {
                big = big.times(s);
            } else {
                small = small.times(s);
            }
        }
    }
    // Every sub-product lies between `small` and `big`, so when both are safely normal no order
    // of multiplication over- or underflows (one exponent of margin for the roundings).
    let big_safe = big.e < max_exp - 1;
    let small_safe = small.e > min_exp + 1;
    let sign = if negative { -1.0 } else { 1.0 };
    let (exact, order_dependent) = if nan || (zeros > 0 && infs > 0) {
        (f64::NAN, false)
    } else if infs > 0 {
        (sign * f64::INFINITY, !small_safe)
    } else if zeros > 0 {
        (sign * 0.0, !big_safe)
    } else {
        (sign * all.to_f64(), !(big_safe && small_safe))
    };
    let k = data.len().saturating_sub(1) as f64;
    let gamma = |u: f64| {
        if k * u < 0.5 {
            k * u / (1.0 - k * u)
        } else {
            f64::INFINITY
        }
    };
    // The reference's own rounding: one f64 rounding per multiplication.
    r.rel_bound = gamma(u) + gamma(f64::EPSILON / 2.0) + u;
    r.order_dependent = order_dependent;
    r.sum_f64 = exact;
    r.value = T::from_f64(exact);
}

/// The mean of `data` as NumPy's `np.mean` computes it, to `f64` rounding: the exact sum (integers
/// in `i128`, floats compensated in `f64`) divided by the length. `None` for an empty input.
pub fn reference_mean<T: Scalar>(data: &[T]) -> Option<f64> {
    if data.is_empty() {
        return None;
    }
    let r = reference(Op::Sum, data)?;
    let sum = if T::TYPE.is_float() {
        r.sum_f64
    } else {
        r.sum_exact as f64
    };
    Some(sum / data.len() as f64)
}

/// The mean of the elements that are not NaN, as NumPy's `np.nanmean` computes it (NaN when
/// every element is NaN). `None` for an empty input.
pub fn reference_nanmean<T: Scalar>(data: &[T]) -> Option<f64> {
    if data.is_empty() {
        return None;
    }
    if !T::TYPE.is_float() {
        return reference_mean(data);
    }
    let kept: Vec<f64> = data
        .iter()
        .map(|x| x.to_f64())
        .filter(|x| !x.is_nan())
        .collect();
    Some(neumaier_sum(kept.iter().copied()) / kept.len() as f64)
}

/// Compensated (Neumaier) summation: the sum of `f64` values with an error of about one rounding,
/// independent of the length, so the reference for `f64` data is not itself the least accurate
/// party in the comparison. A sum with an infinite term is that infinity (NaN with both signs).
pub fn neumaier_sum(values: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut c) = (0.0f64, 0.0f64);
    for x in values {
        let t = sum + x;
        if sum.abs() >= x.abs() {
            c += (sum - t) + x;
        } else {
            c += (x - t) + sum;
        }
        sum = t;
    }
    // Once the plain sum is ±inf or NaN it is the answer (the compensation of an infinite term
    // is `inf - inf`, NaN, and must not turn `[inf]` into NaN).
    if sum.is_finite() {
        sum + c
    } else {
        sum
    }
}

/// Does `got` match `reference` for `op`?
///
/// Integers and min/max must match exactly. A float sum (`sum`, `nansum`, and `count`, a sum of
/// ones) computed in any order by additions in precision `u` (2^-24 for f32, 2^-53 for f64) where
/// no element passes through more than `depth` additions is within `depth · u · Σ|x|` of the
/// exact sum (Higham, *Accuracy and Stability of Numerical Algorithms*, §4.2); the check allows
/// that plus one rounding of the result. `depth` comes from the launch plan ([`crate::plan()`]).
/// A float product must be within [`Reference::rel_bound`] of the exact product (exactly ±0,
/// ±inf or NaN where that is the exact answer), unless [`Reference::order_dependent`].
pub fn matches_reference<T: Scalar>(op: Op, got: T, r: &Reference<T>, depth: usize) -> bool {
    let g = got.to_f64();
    let op = op.device_op();
    if T::TYPE.is_float() && op == Op::Prod {
        let want = r.sum_f64;
        return r.order_dependent
            || (want.is_nan() && g.is_nan())
            || ((want.is_infinite() || want == 0.0) && g == want)
            || (g - want).abs() <= r.rel_bound * want.abs();
    }
    if !matches!(op, Op::Sum | Op::NanSum | Op::Count) || !T::TYPE.is_float() {
        return got == r.value || (g.is_nan() && r.value.to_f64().is_nan());
    }
    let u = if T::TYPE == ElemType::F32 {
        f32::EPSILON as f64 / 2.0
    } else {
        f64::EPSILON / 2.0
    };
    let bound = depth as f64 * u * r.sum_abs + 2.0 * u * r.sum_f64.abs();
    if g.is_nan() || r.sum_f64.is_nan() {
        return g.is_nan() && r.sum_f64.is_nan();
    }
    if r.sum_f64.is_infinite() {
        return g == r.sum_f64; // an infinite term: the sum is that infinity
    }
    if g.is_infinite() && g == r.value.to_f64() {
        return true; // the exact sum is past the accumulator type's range: it overflows there
    }
    (g - r.sum_f64).abs() <= bound
}
