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
//! bfloat16 types of the Rust ecosystem (what `candle`, `burn` and `cudarc` use). The device
//! buffers hold the kernels' storage types [`F16`] / [`Bf16`] (`u16` newtypes, the same bytes);
//! [`Backend::upload_half`] converts by bits, without rounding. [`HalfFloat::round`] does not use
//! the `half` crate's `from_f64`, which is not round-to-nearest for every `f64` (it rounds twice
//! through `f32` on CPUs with F16C, and its software path, like `bf16::from_f64`, drops the low
//! 32 bits of the significand first): this crate rounds the whole `f64` once (`halves/round.rs`,
//! tested at every tie of both formats).
//!
//! ## Stage-8 ops on halves, in `f32`
//!
//! Every stage-8 operator runs on halves too, in stage 8's wide kernels (`reduce_s8_half_*`,
//! [`crate::wide::PreparedWide::for_op`]): each 16-byte load brings 8 halves, each is widened
//! exactly to `f32`, and they are combined **in `f32`** — the answer is an `f32`:
//! [`Reducer::sum_half`], [`Reducer::prod_half`], [`Reducer::nansum_half`] (error bound
//! `depth · 2⁻²⁴ · Σ|x|`, as an `f32` sum's), [`Reducer::min_half`], [`Reducer::max_half`],
//! [`Reducer::nanmin_half`], [`Reducer::nanmax_half`] (exact: the result is one of the inputs,
//! widened; NaN rules as for `f32`), and [`Reducer::reduce_half_range`] for any of them over a
//! sub-slice. [`Reducer::count_half`] and [`Reducer::nanmean_half`] are one launch of the
//! transform kernels' NaN-ignoring sum and count ([`TransformKind::NanTotal`], in `f64`: the
//! count is exact to 2^53 elements, where an `f32` count stops at 2^24). Sums that overflow the
//! half range (65504 for `f16`) but not `f32`'s come back finite. [`HalfFloat::round`] gives a result in the input type on request (for
//! `min`/`max` that is the input element itself, bit for bit but a NaN's payload).
//!
//! The same-type API ([`Reducer::sum`] … of a `Buffer<F16>`, which would return an `F16`) stays a
//! typed error ([`ReduceError::HalfResultIsF32`]) naming these methods, never a wrong answer.

use crate::backend::Backend;
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::reducer::Reducer;
use crate::reference::{matches_reference, reference, Reference};
use crate::transform::TransformKind;
use crate::types::{Op, Scalar};
use crate::wide::PreparedWide;
pub use reduce_kernels::half::{Bf16, F16};

pub(crate) mod round;

/// A 2-byte float the kernels read ([`F16`], [`Bf16`]) and its [`half`] crate twin.
pub trait HalfFloat: Scalar + reduce_kernels::Element<Wide = f32> {
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

impl HalfFloat for F16 {
    type Std = half::f16;
    fn to_std(self) -> half::f16 {
        half::f16::from_bits(self.0)
    }
    fn from_std(h: half::f16) -> Self {
        F16(h.to_bits())
    }
    fn round(v: f64) -> half::f16 {
        half::f16::from_bits(round::f64_to_f16_bits(v))
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
        half::bf16::from_bits(round::f64_to_bf16_bits(v))
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

impl Reducer<'_> {
    /// `op` over `input[offset..offset + len]` of halves, combined in `f32` (stage 8's half
    /// kernels): `Sum`, `Min`, `Max`, `Prod`, `NanMin`, `NanMax`, `NanSum`, `Count` (exact up to
    /// 2^24 elements; [`Reducer::count_half`] counts any length). `None` for min/max (and
    /// `nanmin`/`nanmax`) of nothing; a sum or count of nothing is 0, a product 1.
    ///
    /// # Errors
    /// [`ReduceError::OutOfBounds`] for a range outside the buffer;
    /// [`ReduceError::InvalidArgument`] for a mean (use [`Reducer::nanmean_half`],
    /// [`Reducer::mean_half`]); [`ReduceError::ForeignBuffer`] for another backend's buffer.
    pub fn reduce_half_range<H: HalfFloat>(
        &mut self,
        op: Op,
        input: &Buffer<H>,
        offset: usize,
        len: usize,
    ) -> Result<Option<f32>> {
        if op.is_mean() {
            return Err(ReduceError::InvalidArgument(
                "a mean of halves is Reducer::mean_half or Reducer::nanmean_half (an f64)".into(),
            ));
        }
        input.check_owner(self.backend().id(), "the input buffer")?;
        input.check_range(offset, len)?;
        if len == 0 && op.is_extreme() {
            return Ok(None);
        }
        let backend = self.backend();
        let p = PreparedWide::<H>::for_op(backend, len, op, self.overrides())?;
        p.run(backend, input, offset).map(Some)
    }
    fn half_all<H: HalfFloat>(&mut self, op: Op, input: &Buffer<H>) -> Result<Option<f32>> {
        self.reduce_half_range(op, input, 0, input.len())
    }
    /// Σx in `f32` (`torch.sum` of an `f16` tensor, before its rounding to `f16`); 0 when empty.
    pub fn sum_half<H: HalfFloat>(&mut self, input: &Buffer<H>) -> Result<f32> {
        Ok(self.half_all(Op::Sum, input)?.unwrap_or(0.0))
    }
    /// Product in `f32`; 1 when empty.
    pub fn prod_half<H: HalfFloat>(&mut self, input: &Buffer<H>) -> Result<f32> {
        Ok(self.half_all(Op::Prod, input)?.unwrap_or(1.0))
    }
    /// Sum with every NaN element read as 0 (`np.nansum`), in `f32`; 0 when empty.
    pub fn nansum_half<H: HalfFloat>(&mut self, input: &Buffer<H>) -> Result<f32> {
        Ok(self.half_all(Op::NanSum, input)?.unwrap_or(0.0))
    }
    /// The smallest element (NaN if any is NaN), widened exactly to `f32`; `None` when empty.
    pub fn min_half<H: HalfFloat>(&mut self, input: &Buffer<H>) -> Result<Option<f32>> {
        self.half_all(Op::Min, input)
    }
    /// The largest element (NaN if any is NaN), widened exactly to `f32`; `None` when empty.
    pub fn max_half<H: HalfFloat>(&mut self, input: &Buffer<H>) -> Result<Option<f32>> {
        self.half_all(Op::Max, input)
    }
    /// The smallest element ignoring NaN (`np.nanmin`; NaN if every element is); `None` when
    /// empty.
    pub fn nanmin_half<H: HalfFloat>(&mut self, input: &Buffer<H>) -> Result<Option<f32>> {
        self.half_all(Op::NanMin, input)
    }
    /// The largest element ignoring NaN (`np.nanmax`; NaN if every element is); `None` when
    /// empty.
    pub fn nanmax_half<H: HalfFloat>(&mut self, input: &Buffer<H>) -> Result<Option<f32>> {
        self.half_all(Op::NanMax, input)
    }
    /// How many elements of `input[offset..offset + len]` are not NaN, exactly: one launch of
    /// the NaN-ignoring transform ([`TransformKind::NanTotal`], which counts in `f64`, exact up to
    /// 2^53 elements; stage 8's `f32` count is exact only up to 2^24).
    pub fn count_half_range<H: HalfFloat>(
        &mut self,
        input: &Buffer<H>,
        offset: usize,
        len: usize,
    ) -> Result<u64> {
        let [_, count, _] =
            self.transform_words(TransformKind::NanTotal, (input, offset), None, len)?;
        Ok(count as u64)
    }
    /// How many elements are not NaN.
    pub fn count_half<H: HalfFloat>(&mut self, input: &Buffer<H>) -> Result<u64> {
        self.count_half_range(input, 0, input.len())
    }
    /// The mean of the elements that are not NaN (`np.nanmean`): their sum and their count in
    /// one pass ([`TransformKind::NanTotal`]: every half widened exactly, summed and counted in
    /// `f64`), divided; NaN if every element is NaN.
    ///
    /// # Errors
    /// [`ReduceError::EmptyInput`] for an empty buffer.
    pub fn nanmean_half<H: HalfFloat>(&mut self, input: &Buffer<H>) -> Result<f64> {
        if input.is_empty() {
            input.check_owner(self.backend().id(), "the input buffer")?;
            return Err(ReduceError::EmptyInput { op: Op::NanMean });
        }
        let [sum, count, _] =
            self.transform_words(TransformKind::NanTotal, (input, 0), None, input.len())?;
        Ok(sum / count)
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
/// `depth` ([`PreparedWide::depth`])? Exact for min/max, `f32` rounding bounds for sums and
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
