//! The [`crate::Reducer`] methods for exact sums.

use super::prepared::PreparedExact;
use super::reference::ExactFloat;
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::reducer::Reducer;
use crate::types::Op;

impl Reducer<'_> {
    /// The **correctly rounded** sum of `input`: the exact real sum of its elements rounded once
    /// to the nearest `T` (ties to even) — bit-identical on every GPU, grid, block size and on the
    /// emulator. IEEE edge cases: ±inf past the largest finite value; NaN for any NaN or for
    /// +inf with -inf; `-0.0` only when every element is `-0.0`; `+0.0` for an empty buffer.
    /// The block and grid overrides of [`Reducer::with_overrides`] apply.
    pub fn sum_exact<T: ExactFloat>(&mut self, input: &Buffer<T>) -> Result<T> {
        self.sum_exact_range(input, 0, input.len())
    }

    /// [`Reducer::sum_exact`] of `input[offset..offset + len]`.
    pub fn sum_exact_range<T: ExactFloat>(
        &mut self,
        input: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<T> {
        let backend = self.backend();
        input.check_owner(backend.id(), "the input buffer")?;
        input.check_range(offset, len)?;
        let overrides = self.overrides();
        let prepared =
            self.exact_cached::<T, _>(len, || PreparedExact::<T>::new(backend, len, overrides))?;
        prepared.run(backend, input, offset)
    }

    /// The mean from the exact sum: [`Reducer::sum_exact`] as `f64` divided by the length
    /// (deterministic like the sum; an error for an empty buffer).
    pub fn mean_exact<T: ExactFloat>(&mut self, input: &Buffer<T>) -> Result<f64> {
        if input.is_empty() {
            return Err(ReduceError::EmptyInput { op: Op::Mean });
        }
        Ok(self.sum_exact(input)?.to_f64() / input.len() as f64)
    }
}
