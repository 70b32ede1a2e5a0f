//! # Sum of squares, L2 norm, L1 norm (and the plain and the NaN-ignoring sums)
//!
//! `sumsq` = Σx², `l1` = Σ|x|; the L2 norm is `√sumsq`, taken on the host from the kernel's
//! `f64` sum (one square root per call, not per element). One pass at memory speed: the square or
//! absolute value costs one instruction between the load and the add.
//!
//! **No overflow for `f32`.** Squares of `f32` values are exact in `f64` and cannot overflow
//! (`f32::MAX² ≈ 1.16e77`) or underflow (`(1.4e-45)² ≈ 2e-90`), so the norm of `[3e38, 4e38]` is
//! `5e38` and the norm of `[3e-40, 4e-40]` is `5e-40`, where an `f32` accumulator gives `inf` and
//! `0`. (The alternative, LAPACK's running rescale, costs a division or a compare per element;
//! widening is free here because the loads bound the time.) Accuracy: the `f64` sum of `n` terms
//! in the driver's order has relative error ≤ `depth · 2⁻⁵³` (all terms are non-negative, so no
//! cancellation), with `depth` the longest chain of additions (see `docs/semantics.md`) — far
//! below `f32` resolution.

use super::accumulate::{F64Sum, F64SumCount, Merged, TransformOp};

/// Declares a one-input `Σ f(x)` op accumulated in `f64` ([`F64Sum`], runs merged by adding):
/// its type (with its doc), `f`, and whether the driver clears the sign bits as it loads
/// ([`TransformOp::ABS_INPUT`]).
macro_rules! f64_sum_op {
    ($($(#[$doc:meta])* $ty:ident, |$a:ident| $item:expr, abs_input: $abs:literal;)+) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $ty;

        impl TransformOp for $ty {
            type Acc = F64Sum;
            type Run = Merged<F64Sum>;
            const TWO_INPUTS: bool = false;
            const ABS_INPUT: bool = $abs;
            #[inline(always)]
            fn item($a: f64, _: f64) -> F64Sum {
                F64Sum($item)
            }
        }
    )+};
}

f64_sum_op! {
    /// Σx².
    SumSq, |a| a * a, abs_input: false;
    /// Σ|x|: the driver takes the absolute values as it loads them ([`TransformOp::ABS_INPUT`]:
    /// the sign bits of the loaded words cleared, before widening), so `item` only adds.
    L1, |a| a, abs_input: true;
    /// Σx: the identity transform, accumulated in `f64` — the sum of `f16` / `bf16` inputs (every
    /// half is exact in `f64`, and a sum of `n` of them has the `f64` sum's rounding only).
    Total, |a| a, abs_input: false;
}

/// Σx over the elements that are not NaN, and how many there are, accumulated in `f64`: the
/// NaN-ignoring mean (`np.nanmean`) in one pass — for `f16` / `bf16` inputs, whose stage-8 count
/// in `f32` is exact only up to 2^24 elements. The count is an `f64` sum of ones: exact up to
/// 2^53 elements.
///
/// **Tiles in `f32`.** The tiles of `f32`, `f16` and `bf16` inputs come as exact `f32` values
/// ([`TransformOp::chunk_f32`]): the NaN test and the select run in `f32` and the count in a
/// `u32` per chunk, so an element costs the `f64` pipe one conversion and **one** addition — the
/// same as [`Total`] — where widening first cost it a conversion, a NaN test and two additions (a
/// conversion to `f64` issues at a quarter of the `f64` add rate on the H200, so at HBM speed
/// that pipe was the kernel's limit). The `f64` sum adds the same values in the same order
/// within a chunk, so only how a tile of halves' two chunks are associated changes (and not the
/// bound: a chunk's sum is still a sequential `f64` sum).
#[derive(Clone, Copy, Debug, Default)]
pub struct NanTotal;

impl TransformOp for NanTotal {
    type Acc = F64SumCount;
    type Run = Merged<F64SumCount>;
    const TWO_INPUTS: bool = false;
    #[inline(always)]
    fn item(a: f64, _: f64) -> F64SumCount {
        let keep = !a.is_nan();
        F64SumCount {
            sum: if keep { a } else { 0.0 },
            count: if keep { 1.0 } else { 0.0 },
        }
    }
    const F32_TILES: bool = true;
    #[inline(always)]
    fn chunk_f32<const FROM: u8>(a: &[f32]) -> F64SumCount {
        let mut sum = 0.0f64;
        let mut kept = 0u32;
        for x in a {
            let keep = !x.is_nan();
            sum += if keep { *x } else { 0.0 } as f64;
            kept += keep as u32;
        }
        F64SumCount {
            sum,
            count: kept as f64,
        }
    }
}
