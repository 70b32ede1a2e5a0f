//! # `f16` and `bf16` inputs: upload, reduce wide, round back on request
//!
//! Every [`Reducer`](crate::Reducer) method takes a `Buffer<F16>` / `Buffer<Bf16>` as it takes
//! one of `f32`; the element type picks the kernels ([`Scalar::Acc`], [`Scalar::Sum`]):
//!
//! * stage 8's operators (`sum`, `min`, `max`, `prod`, the nan-ops, `reduce`) run in stage 8's
//!   half kernels (`reduce_s8_half_*`, [`crate::PreparedWide::for_op`]): each 16-byte load
//!   brings 8 halves, each is widened exactly to `f32`, and they are combined **in `f32`** — the
//!   answer is an `f32` (error bound `depth · 2⁻²⁴ · Σ|x|` for sums and products, as an `f32`
//!   sum's; min/max exact: the result is one of the inputs, widened; NaN rules as for `f32`).
//!   Sums that overflow the half range (65504 for `f16`) but not `f32`'s come back finite;
//! * `count` and `nanmean` are one launch of the transform kernels' NaN-ignoring sum and count
//!   ([`Op::NanTotal`], in `f64`: the count is exact to
//!   2^53 elements, where an `f32` count stops at 2^24); `mean` is the moments kernel's mean;
//! * the transform-reduces (`sumsq`, `l1`, `norm2`, `dot`, `moments`, `var`, `std`, and
//!   [`Op::Total`], Σx, through a
//!   [`PreparedTransform`](crate::PreparedTransform)) accumulate in `f64`.
//!
//! [`HalfFloat::round`] rounds a result to the input type (round to nearest, ties to even —
//! `torch.sum` of an `f16` tensor returns an `f16`, this is how to get the same type; for
//! `min`/`max` that is the input element itself, bit for bit but a NaN's payload).
//!
//! The host side uses the [`half`] crate's `f16` / `bf16`: the standard IEEE binary16 and
//! bfloat16 types of the Rust ecosystem (what `candle`, `burn` and `cudarc` use). The device
//! buffers hold the kernels' storage types [`F16`] / [`Bf16`] (`u16` newtypes, the same bytes);
//! [`Backend::upload_half`] converts by bits, without rounding. [`HalfFloat::round`] does not use
//! the `half` crate's `from_f64`, which is not round-to-nearest for every `f64` (it rounds twice
//! through `f32` on CPUs with F16C, and its software path, like `bf16::from_f64`, drops the low
//! 32 bits of the significand first): this crate rounds the whole `f64` once (`types/round.rs`,
//! tested at every tie of both formats).
//!
//! [`run_stage`](crate::run_stage) of a half type, whose result would be a half, stays a typed
//! error ([`ReduceError::HalfResultIsF32`](crate::ReduceError::HalfResultIsF32)).

use crate::backend::Backend;
use crate::buffer::Buffer;
use crate::error::Result;
use crate::reference::{matches_reference, reference, Reference};
use crate::types::{Op, Scalar};
pub use reduce_kernels::half::{Bf16, F16};

use crate::types::round;

/// A 2-byte float the kernels read ([`F16`], [`Bf16`]) and its [`half`] crate twin.
pub trait HalfFloat: Scalar<Acc = f32, Sum = f32> + reduce_kernels::Element<Wide = f32> {
    /// The [`half`] crate's type with the same bits (`half::f16`, `half::bf16`).
    type Std: Copy + PartialEq + std::fmt::Debug;
    /// The same bits as the [`half`] type.
    fn to_std(self) -> Self::Std;
    /// The same bits as the kernels' storage type.
    fn from_std(h: Self::Std) -> Self;
    /// `v` rounded to the nearest value of this type (ties to even; ±inf from the largest finite
    /// value plus half an ulp on; NaN stays NaN, quieted, sign kept): how to return a
    /// reduction's result in the input's type. One rounding of the whole `f64` (not the `half`
    /// crate's `from_f64`: see the [module docs](self)).
    fn round(v: f64) -> Self::Std;
}

/// Implements [`HalfFloat`] for the kernels' `$half`, whose bits are those of the [`half`]
/// crate's `$std`, rounding an `f64` with `$round` (one of [`round`]'s).
macro_rules! half_float {
    ($half:ident, $std:ty, $round:path) => {
        impl HalfFloat for $half {
            type Std = $std;
            fn to_std(self) -> $std {
                <$std>::from_bits(self.0)
            }
            fn from_std(h: $std) -> Self {
                $half(h.to_bits())
            }
            fn round(v: f64) -> $std {
                <$std>::from_bits($round(v))
            }
        }
    };
}

half_float!(F16, half::f16, round::f64_to_f16_bits);
half_float!(Bf16, half::bf16, round::f64_to_bf16_bits);

impl Backend {
    /// Upload [`half`] values (`&[half::f16]` or `&[half::bf16]`) as a device buffer of the
    /// kernels' storage type, bit for bit.
    pub fn upload_half<H: HalfFloat>(&self, data: &[H::Std]) -> Result<Buffer<H>> {
        let bits: Vec<H> = data.iter().map(|h| H::from_std(*h)).collect();
        self.upload(&bits)
    }
}

/// The CPU reference of a stage-8 `op` over halves accumulated in `f32`: the reference of the
/// same values widened (exactly) to `f32`, whose bounds are those of `f32` arithmetic — what the
/// half kernels do. `None` for min/max of nothing.
pub fn reference_half<H: HalfFloat>(op: Op, data: &[H]) -> Option<Reference<f32>> {
    let wide: Vec<f32> = data.iter().map(|h| h.to_f64() as f32).collect();
    reference(op, &wide)
}

/// Does `got` (an `f32` from a half kernel) match [`reference_half`]'s `r`, with the plan's
/// `depth` ([`crate::PreparedWide::depth`])? Exact for min/max, `f32` rounding bounds for sums and
/// products.
pub fn matches_half_reference(op: Op, got: f32, r: &Reference<f32>, depth: usize) -> bool {
    matches_reference(op, got, r, depth)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_is_ties_to_even_and_saturates_to_inf() {
        // 2049 lies halfway between the f16 values 2048 and 2050: ties to even gives 2048.
        assert_eq!(F16::round(2049.0).to_f64(), 2048.0);
        assert_eq!(F16::round(2051.0).to_f64(), 2052.0);
        assert!(F16::round(1e6).is_infinite());
        assert!(Bf16::round(f64::NAN).is_nan());
        assert_eq!(Bf16::round(1.0 + 1.0 / 256.0).to_f64(), 1.0);
        let h = half::f16::from_f32(-0.333);
        assert_eq!(F16::from_std(h).to_std(), h);
        assert_eq!(F16::from_std(h).to_f32(), h.to_f32());
    }
}
