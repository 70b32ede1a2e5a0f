//! The [`crate::Reducer`] methods for exact sums.

use super::prepared::PreparedExact;
use super::reference::ExactFloat;
use crate::error::{ReduceError, Result};
use crate::reducer::Reducer;
use crate::types::Op;
use crate::view::View;

impl Reducer<'_> {
    /// The **correctly rounded** sum of `x` (a buffer or a view of one): the exact real sum of
    /// its elements rounded once to the nearest `T` (ties to even) — bit-identical on every GPU,
    /// grid, block size and on the emulator. IEEE edge cases: ±inf past the largest finite
    /// value; NaN for any NaN or for +inf with -inf; `-0.0` only when every element is `-0.0`;
    /// `+0.0` for no elements. The block and grid overrides of [`Reducer::with_overrides`]
    /// apply.
    pub fn sum_exact<'a, T: ExactFloat>(&mut self, x: impl Into<View<'a, T>>) -> Result<T> {
        let x = x.into();
        let backend = self.backend();
        x.check_owner(backend.id(), "the input buffer")?;
        let (len, overrides) = (x.len(), self.overrides());
        let prepared =
            self.exact_cached::<T, _>(len, || PreparedExact::<T>::new(backend, len, overrides))?;
        prepared.run_view(backend, x)
    }

    /// The mean from the exact sum: [`Reducer::sum_exact`] as `f64` divided by the length
    /// (deterministic like the sum).
    ///
    /// # Errors
    /// [`ReduceError::EmptyInput`] for no elements.
    pub fn mean_exact<'a, T: ExactFloat>(&mut self, x: impl Into<View<'a, T>>) -> Result<f64> {
        let x = x.into();
        if x.is_empty() {
            return Err(ReduceError::EmptyInput { op: Op::Mean });
        }
        Ok(self.sum_exact(x)?.to_f64() / x.len() as f64)
    }
}
