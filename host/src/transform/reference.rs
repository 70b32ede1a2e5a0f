//! CPU references for the transform ops, accurate to a few units of `f64` rounding (compensated
//! sums, a corrected two-pass variance), and the error bounds a device result must meet
//! (`docs/semantics.md`, "Norms, dot products, mean and variance"). The tests and
//! `reduce transform` check against these.

use super::plan::TransformPlan;
use crate::types::Op;
use crate::types::Scalar;
use reduce_kernels::transform::grid_shift::{sample_shift, SAMPLE};

/// `2⁻⁵³`: the unit roundoff of `f64`.
pub const U64: f64 = f64::EPSILON / 2.0;

/// `2⁻²⁴`: the unit roundoff of `f32`.
pub const U32: f64 = f32::EPSILON as f64 / 2.0;

/// How many values one of the moments kernel's `f32` tiles holds for inputs of `ty`
/// (`reduce_kernels::transform::one_pass::F32_TILE`: 16 for `f32`, `f16` and `bf16`); 0 for
/// inputs whose tiles stay in `f64`. See `reduce_kernels::transform::moments`, "Tiles in `f32`".
pub fn moments_f32_tile(ty: crate::ElemType) -> usize {
    use crate::ElemType;
    match ty {
        ElemType::F32 | ElemType::F16 | ElemType::BF16 => {
            reduce_kernels::transform::one_pass::F32_TILE
        }
        _ => 0,
    }
}

/// The coefficient `c` of the moments kernel's `f32` tiles' contribution `c·u₃₂·M2*` to the
/// bound on M2, for inputs of `ty` with tiles of `k` values (see
/// `reduce_kernels::transform::moments`): `(k + 4)·√(2k) + k + 2` for the two-pass tiles of
/// `f32` inputs, `(⌈log₂k⌉ + 2)·√(2k) + 2√k + (3⌈log₂k⌉ + 1)·k + 1` for the one-pass tiles of
/// `f16` and `bf16` inputs; 0 for `f64` tiles (`k` = 0).
pub fn moments_tile_m2_coefficient(ty: crate::ElemType, k: usize) -> f64 {
    use crate::ElemType;
    if k == 0 {
        return 0.0;
    }
    let kf = k as f64;
    let levels = k.next_power_of_two().trailing_zeros() as f64;
    match ty {
        ElemType::F16 | ElemType::BF16 => {
            (levels + 2.0) * (2.0 * kf).sqrt() + 2.0 * kf.sqrt() + (3.0 * levels + 1.0) * kf + 1.0
        }
        _ => (kf + 4.0) * (2.0 * kf).sqrt() + kf + 2.0,
    }
}

/// Neumaier's compensated sum: error ≈ 2u·|sum| + O(n·u²·Σ|x|), independent of `n` to first order;
/// a sum with an infinite term is that infinity, NaN with both signs
/// ([`crate::reference::neumaier_sum`], whose compensation of an infinite term is not NaN).
pub fn compensated_sum(values: impl IntoIterator<Item = f64>) -> f64 {
    crate::reference::neumaier_sum(values.into_iter())
}

/// What a device result is checked against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TransformReference {
    /// A sum (Σx², Σ|x|, Σab): its accurate value and Σ|term| (the bound's scale).
    Sum {
        /// The accurate sum.
        value: f64,
        /// Σ|term|.
        abs_sum: f64,
    },
    /// A NaN-ignoring sum and its count ([`Op::NanTotal`]): the accurate sum of the
    /// non-NaN terms, their Σ|term|, and how many there are.
    NanSum {
        /// The accurate sum of the non-NaN terms.
        value: f64,
        /// Σ|term| over them.
        abs_sum: f64,
        /// How many terms are not NaN.
        count: usize,
    },
    /// Moments: count, accurate mean and M2, max|x|, and the length of the kernel's `f32` tiles
    /// (0: `f64` tiles).
    Moments {
        /// Elements.
        n: usize,
        /// Mean.
        mean: f64,
        /// Σ(x − mean)².
        m2: f64,
        /// max|x|.
        max_abs: f64,
        /// [`moments_f32_tile`] of the input type.
        f32_tile: usize,
        /// [`moments_tile_m2_coefficient`] of the input type and `f32_tile`.
        tile_m2: f64,
        /// The shift `K` the grid-shift kernels fold about (the mean of the finite values among
        /// the first 256, computed as they compute it:
        /// `reduce_kernels::transform::grid_shift::sample_shift`).
        shift: f64,
    },
}

fn sum_reference(terms: impl Iterator<Item = f64> + Clone) -> TransformReference {
    TransformReference::Sum {
        value: compensated_sum(terms.clone()),
        abs_sum: terms.map(f64::abs).sum(),
    }
}

/// The reference of `op` over `a` (and `b` for the dot product: same length); `None` for
/// moments of nothing and for an op that is not one of [`Op::TRANSFORM`].
pub fn reference_transform<T: Scalar>(
    op: Op,
    a: &[T],
    b: Option<&[T]>,
) -> Option<TransformReference> {
    let x = || a.iter().map(|v| v.to_f64());
    match op {
        Op::SumSq => Some(sum_reference(x().map(|v| v * v))),
        Op::L1 => Some(sum_reference(x().map(f64::abs))),
        Op::Total => Some(sum_reference(x())),
        Op::NanTotal => {
            let kept = || x().filter(|v| !v.is_nan());
            Some(TransformReference::NanSum {
                value: compensated_sum(kept()),
                abs_sum: kept().map(f64::abs).sum(),
                count: kept().count(),
            })
        }
        Op::Dot => {
            let b = b.unwrap_or(&[]);
            Some(sum_reference(
                x().zip(b.iter()).map(|(p, q)| p * q.to_f64()),
            ))
        }
        Op::Moments => {
            if a.is_empty() {
                return None;
            }
            let n = a.len() as f64;
            let mean0 = compensated_sum(x()) / n;
            // One correction step: the mean of the residuals (a few u of the exact mean).
            let mean = mean0 + compensated_sum(x().map(|v| v - mean0)) / n;
            Some(TransformReference::Moments {
                n: a.len(),
                mean,
                m2: compensated_sum(x().map(|v| (v - mean) * (v - mean))),
                max_abs: x().map(f64::abs).fold(0.0, f64::max),
                f32_tile: moments_f32_tile(T::TYPE),
                tile_m2: moments_tile_m2_coefficient(T::TYPE, moments_f32_tile(T::TYPE)),
                shift: sample_shift(&x().take(SAMPLE).collect::<Vec<f64>>()),
            })
        }
        _ => None,
    }
}

/// A sum within `(L + 2)·u·Σ|term|` of `value`; a NaN or infinite `value` (a NaN or infinite
/// term) must be matched exactly (any NaN for NaN).
fn sum_within(got: f64, value: f64, abs_sum: f64, l: f64) -> bool {
    if !value.is_finite() {
        return got == value || (got.is_nan() && value.is_nan());
    }
    (got - value).abs() <= (l + 2.0) * U64 * abs_sum
}

impl TransformReference {
    /// Does the device's result `words` (sum in word 0, or count/mean/M2) meet the bound of
    /// `plan` (its depth is the `L` of `docs/semantics.md`)?
    ///
    /// * sums: `|got − value| ≤ (L + 2)·u·Σ|term|` (a NaN or infinite sum: the same value); the
    ///   NaN-ignoring sum the same, and its count (word 1) exact;
    /// * moments: count exact; `|mean − mean*| ≤ (L + 2)·u·max|x|`; `|M2 − M2*| ≤ (L + 4)·u·
    ///   √(M2*² + n·mean*²·M2*) + n·((L + 2)·u·max|x|)²` — that is `(L + 4)·κ·u·M2*` with
    ///   `κ = √(1 + mean²/var)`, plus the rounding of a mean that is not representable. With
    ///   `f32` tiles of `k` values, add `2(k + 2)·u₃₂·max|x|` to the mean's bound and
    ///   [`moments_tile_m2_coefficient`]`·u₃₂·M2*` to M2's (the kernel's docs derive both).
    ///   The grid-shift kernels ([`TransformPlan::grid_shift`]) have `(3L + 6)·u·(M2* + n·(mean*
    ///   − K)²)` in place of the `κ` term and `(2L + 4)·u·max|x|` for the mean
    ///   (`reduce_kernels::transform::grid_shift`).
    pub fn accepts(&self, words: [f64; 3], plan: &TransformPlan) -> bool {
        let l = plan.depth as f64;
        match *self {
            TransformReference::Sum { value, abs_sum } => sum_within(words[0], value, abs_sum, l),
            TransformReference::NanSum {
                value,
                abs_sum,
                count,
            } => words[1] == count as f64 && sum_within(words[0], value, abs_sum, l),
            TransformReference::Moments {
                n,
                mean,
                m2,
                max_abs,
                f32_tile,
                tile_m2,
                shift,
            } => {
                let (nf, k) = (n as f64, f32_tile as f64);
                let tile_mean_err = 2.0 * (k + 2.0) * U32 * max_abs * f64::from(f32_tile > 0);
                let tile_m2_err = tile_m2 * U32 * m2;
                let (mean_err, sums_err) = if plan.grid_shift {
                    let s2 = m2 + nf * (mean - shift) * (mean - shift);
                    ((2.0 * l + 4.0) * U64 * max_abs, (3.0 * l + 6.0) * U64 * s2)
                } else {
                    let kappa_m2 = (m2 * m2 + nf * mean * mean * m2).sqrt();
                    ((l + 2.0) * U64 * max_abs, (l + 4.0) * U64 * kappa_m2)
                };
                let m2_bound =
                    sums_err + nf * mean_err * mean_err + tile_m2_err * f64::from(f32_tile > 0);
                let mean_err = mean_err + tile_mean_err;
                words[0] == nf
                    && (words[1] - mean).abs() <= mean_err
                    && (words[2] - m2).abs() <= m2_bound
            }
        }
    }
}
