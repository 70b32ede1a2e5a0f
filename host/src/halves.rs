//! # `f16` and `bf16` inputs: upload, reduce wide, round back on request
//!
//! Half-precision data is reduced by the transform kernels ([`crate::transform`]): each 16-byte
//! load brings 8 halves, each is widened exactly, and everything accumulates in `f64`. So every
//! transform op works on a `Buffer<F16>` / `Buffer<Bf16>` as on `f32`: [`Reducer::total`] (Σx),
//! [`Reducer::mean_half`], `sumsq`, `l1`, `norm2`, `dot`, `moments`, `var`, `std`. Results come
//! back as `f64` (every half, and every sum of them up to rounding, is representable there);
//! [`HalfFloat::round`] rounds a result to the input type (round to nearest, ties to even —
//! `torch.sum` of an `f16` tensor returns an `f16`, this is how to get the same type).
//!
//! The host side uses the [`half`] crate's `f16` / `bf16`: the standard IEEE binary16 and
//! bfloat16 types of the Rust ecosystem (what `candle`, `burn` and `cudarc` use), with correct
//! round-to-nearest-even conversions from `f32` and `f64`. The device buffers hold the kernels'
//! storage types [`F16`] / [`Bf16`] (`u16` newtypes, the same bytes); [`Backend::upload_half`]
//! converts by bits, without rounding.
//!
//! Stage-8 ops (`sum`, `min`, `max`, …) are not built for halves: [`Reducer::sum`] of a
//! `Buffer<F16>` is a typed error naming the missing kernel, never a wrong answer.

use crate::backend::Backend;
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::reducer::Reducer;
use crate::transform::TransformKind;
use crate::types::{Op, Scalar};
pub use reduce_kernels::half::{Bf16, F16};

/// A 2-byte float the kernels read ([`F16`], [`Bf16`]) and its [`half`] crate twin.
pub trait HalfFloat: Scalar {
    /// The [`half`] crate's type with the same bits (`half::f16`, `half::bf16`).
    type Std: Copy + PartialEq + std::fmt::Debug;
    /// The same bits as the [`half`] type.
    fn to_std(self) -> Self::Std;
    /// The same bits as the kernels' storage type.
    fn from_std(h: Self::Std) -> Self;
    /// `v` rounded to the nearest value of this type (ties to even; ±inf past the largest
    /// finite value, NaN stays NaN): how to return a reduction's result in the input's type.
    fn round(v: f64) -> Self::Std;
}

impl HalfFloat for F16 {
    type Std = half::f16;
    fn to_std(self) -> half::f16 {
        half::f16::from_bits(self.0)
    }
    fn from_std(h: half::f16) -> Self {
        F16(h.to_bits())
    }
    fn round(v: f64) -> half::f16 {
        half::f16::from_f64(v)
    }
}

impl HalfFloat for Bf16 {
    type Std = half::bf16;
    fn to_std(self) -> half::bf16 {
        half::bf16::from_bits(self.0)
    }
    fn from_std(h: half::bf16) -> Self {
        Bf16(h.to_bits())
    }
    fn round(v: f64) -> half::bf16 {
        half::bf16::from_f64(v)
    }
}

impl Backend {
    /// Upload [`half`] values (`&[half::f16]` or `&[half::bf16]`) as a device buffer of the
    /// kernels' storage type, bit for bit.
    pub fn upload_half<H: HalfFloat>(&self, data: &[H::Std]) -> Result<Buffer<H>> {
        let bits: Vec<H> = data.iter().map(|h| H::from_std(*h)).collect();
        self.upload(&bits)
    }
}

impl Reducer<'_> {
    /// Σx over `input[offset..offset + len]`, accumulated in `f64`; 0 for no elements.
    pub fn total_range<T: Scalar>(
        &mut self,
        input: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<f64> {
        Ok(self.transform_words(TransformKind::Total, (input, offset), None, len)?[0])
    }
    /// Σx accumulated in `f64` (one transform launch): the sum of `f16` / `bf16` data, whose
    /// terms are all exact in `f64`; also for `f32` / `f64`. 0 when empty.
    pub fn total<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<f64> {
        self.total_range(input, 0, input.len())
    }
    /// The mean of half-precision data, in `f64` (the moments kernel's mean).
    ///
    /// # Errors
    /// [`ReduceError::EmptyInput`] for an empty buffer.
    pub fn mean_half<H: HalfFloat>(&mut self, input: &Buffer<H>) -> Result<f64> {
        if input.is_empty() {
            input.check_owner(self.backend().id(), "the input buffer")?;
            return Err(ReduceError::EmptyInput { op: Op::Mean });
        }
        Ok(self.moments(input)?.mean)
    }
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
