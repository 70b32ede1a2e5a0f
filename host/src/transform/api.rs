//! The [`Reducer`] methods for transform-reduces: `sumsq`, `l1`, `norm2`, `dot`, `moments`,
//! `var`, `std`, each with a `_range` form over a sub-slice. Each call plans and allocates a
//! small workspace (three buffers); to run one op over the same length many times, keep a
//! [`PreparedTransform`] instead. They use the default launch policy.

use super::moments::Moments;
use super::plan::TransformKind;
use super::prepared::PreparedTransform;
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::plan::LaunchOverrides;
use crate::prepared::ResultIn;
use crate::reducer::Reducer;
use crate::types::{Op, Scalar};
use reduce_kernels::transform::WORDS;

impl Reducer<'_> {
    /// One launch of `op` over `a[a_offset..][..len]` (and `b[b_offset..][..len]`).
    pub(crate) fn transform_words<T: Scalar>(
        &self,
        op: TransformKind,
        a: (&Buffer<T>, usize),
        b: Option<(&Buffer<T>, usize)>,
        len: usize,
    ) -> Result<[f64; WORDS]> {
        let backend = self.backend();
        a.0.check_owner(backend.id(), "the input buffer")?;
        a.0.check_range(a.1, len)?;
        if let Some((b, off)) = b {
            b.check_owner(backend.id(), "the second input buffer")?;
            b.check_span("b_offset", off, len)?;
        }
        let overrides = LaunchOverrides::default();
        PreparedTransform::<T>::with_result_in(backend, op, len, overrides, ResultIn::DeviceMemory)?
            .run(backend, a.0, a.1, b)
    }

    /// Σx² over `input[offset..offset + len]`, accumulated in `f64`; 0 for no elements.
    pub fn sumsq_range<T: Scalar>(
        &mut self,
        input: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<f64> {
        Ok(self.transform_words(TransformKind::SumSq, (input, offset), None, len)?[0])
    }
    /// Σx², accumulated in `f64` (exact squares for `f32`, so no overflow); 0 when empty.
    pub fn sumsq<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<f64> {
        self.sumsq_range(input, 0, input.len())
    }
    /// Σ|x| over `input[offset..offset + len]`; 0 for no elements.
    pub fn l1_range<T: Scalar>(
        &mut self,
        input: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<f64> {
        Ok(self.transform_words(TransformKind::L1, (input, offset), None, len)?[0])
    }
    /// The L1 norm Σ|x|; 0 when empty.
    pub fn l1<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<f64> {
        self.l1_range(input, 0, input.len())
    }
    /// √Σx² over `input[offset..offset + len]`; 0 for no elements.
    pub fn norm2_range<T: Scalar>(
        &mut self,
        input: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<f64> {
        self.sumsq_range(input, offset, len).map(f64::sqrt)
    }
    /// The L2 norm √Σx² (`torch.linalg.vector_norm`), without overflow for any `f32` input;
    /// 0 when empty.
    pub fn norm2<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<f64> {
        self.norm2_range(input, 0, input.len())
    }
    /// Σ a[a_offset + i] · b[b_offset + i] for `i < len`.
    pub fn dot_range<T: Scalar>(
        &mut self,
        a: &Buffer<T>,
        a_offset: usize,
        b: &Buffer<T>,
        b_offset: usize,
        len: usize,
    ) -> Result<f64> {
        let words =
            self.transform_words(TransformKind::Dot, (a, a_offset), Some((b, b_offset)), len)?;
        Ok(words[0])
    }
    /// The dot product Σaᵢbᵢ of two buffers of the same length and backend, in `f64`.
    ///
    /// # Errors
    /// [`ReduceError::LengthMismatch`] if the lengths differ; [`ReduceError::ForeignBuffer`] if
    /// either buffer belongs to another backend.
    pub fn dot<T: Scalar>(&mut self, a: &Buffer<T>, b: &Buffer<T>) -> Result<f64> {
        if a.len() != b.len() {
            return Err(ReduceError::LengthMismatch {
                a: a.len(),
                b: b.len(),
            });
        }
        self.dot_range(a, 0, b, 0, a.len())
    }
    /// Count, mean and variance of `input[offset..offset + len]` in one pass.
    ///
    /// # Errors
    /// [`ReduceError::EmptyInput`] (`op: mean`) for no elements.
    pub fn moments_range<T: Scalar>(
        &mut self,
        input: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<Moments> {
        input.check_owner(self.backend().id(), "the input buffer")?;
        input.check_range(offset, len)?;
        if len == 0 {
            return Err(ReduceError::EmptyInput { op: Op::Mean });
        }
        let [count, mean, m2] =
            self.transform_words(TransformKind::Moments, (input, offset), None, len)?;
        debug_assert_eq!(count, len as f64, "the kernel counts every element once");
        Ok(Moments::new(len as u64, mean, m2))
    }
    /// Count, mean, M2, population and sample variance and standard deviation, in one pass
    /// (Welford per thread, Chan's combine: `docs/semantics.md` has the accuracy bound).
    ///
    /// # Errors
    /// [`ReduceError::EmptyInput`] for an empty buffer.
    pub fn moments<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<Moments> {
        self.moments_range(input, 0, input.len())
    }
    /// The variance with `ddof` delta degrees of freedom (NumPy's `var(ddof=…)`: 0 population,
    /// 1 sample).
    ///
    /// # Errors
    /// [`ReduceError::TooFewElements`] when `len ≤ ddof` (NumPy: NaN and a warning), including
    /// an empty buffer.
    pub fn var<T: Scalar>(&mut self, input: &Buffer<T>, ddof: u64) -> Result<f64> {
        if input.len() as u64 <= ddof {
            input.check_owner(self.backend().id(), "the input buffer")?;
            return Err(ReduceError::TooFewElements {
                n: input.len() as u64,
                ddof,
            });
        }
        self.moments(input)?.var(ddof)
    }
    /// The standard deviation `√var(ddof)`.
    ///
    /// # Errors
    /// As [`Reducer::var`].
    pub fn std<T: Scalar>(&mut self, input: &Buffer<T>, ddof: u64) -> Result<f64> {
        self.var(input, ddof).map(f64::sqrt)
    }
}
