//! The [`Reducer`] methods for transform-reduces: `sumsq`, `l1`, `norm2`, `dot`, `moments`,
//! `var`, `std`, each over a buffer or a view of one (`buf.slice(a..b)?`). Each call plans and
//! allocates a small workspace (three buffers); to run one op over the same length many times,
//! keep a [`PreparedTransform`] instead (it also runs [`Op::Total`], Σx in `f64`).
//! They use the default launch policy.

use super::moments::Moments;
use super::prepared::PreparedTransform;
use crate::error::{ReduceError, Result};
use crate::plan::LaunchOverrides;
use crate::plan::ResultIn;
use crate::reducer::Reducer;
use crate::types::{Op, Scalar};
use crate::view::View;
use reduce_kernels::transform::WORDS;

impl Reducer<'_> {
    /// One launch of `op` over `a` (and `b`, of the same length).
    pub(crate) fn transform_words<T: Scalar>(
        &self,
        op: Op,
        a: View<'_, T>,
        b: Option<View<'_, T>>,
    ) -> Result<[f64; WORDS]> {
        let backend = self.backend();
        a.check_owner(backend.id(), "the input buffer")?;
        let b = match b {
            Some(b) => {
                b.check_owner(backend.id(), "the second input buffer")?;
                if b.len() != a.len() {
                    return Err(ReduceError::LengthMismatch {
                        a: a.len(),
                        b: b.len(),
                    });
                }
                Some(b)
            }
            None => None,
        };
        let overrides = LaunchOverrides::default();
        PreparedTransform::<T>::with_result_in(
            backend,
            op,
            a.len(),
            overrides,
            ResultIn::DeviceMemory,
        )?
        .run_views(backend, a, b)
    }

    /// Σx², accumulated in `f64` (exact squares for `f32`, so no overflow); 0 when empty.
    pub fn sumsq<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<f64> {
        Ok(self.transform_words(Op::SumSq, x.into(), None)?[0])
    }
    /// The L1 norm Σ|x|; 0 when empty.
    pub fn l1<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<f64> {
        Ok(self.transform_words(Op::L1, x.into(), None)?[0])
    }
    /// The L2 norm √Σx² (`torch.linalg.vector_norm`), without overflow for any `f32` input;
    /// 0 when empty.
    pub fn norm2<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<f64> {
        self.sumsq(x).map(f64::sqrt)
    }
    /// The dot product Σaᵢbᵢ of two buffers or views of the same length and backend, in `f64`.
    ///
    /// # Errors
    /// [`ReduceError::LengthMismatch`] if the lengths differ; [`ReduceError::ForeignBuffer`] if
    /// either buffer belongs to another backend.
    pub fn dot<'a, 'b, T: Scalar>(
        &mut self,
        a: impl Into<View<'a, T>>,
        b: impl Into<View<'b, T>>,
    ) -> Result<f64> {
        Ok(self.transform_words(Op::Dot, a.into(), Some(b.into()))?[0])
    }
    /// Count, mean, M2, population and sample variance and standard deviation, in one pass
    /// (Welford per thread, Chan's combine: `docs/semantics.md` has the accuracy bound).
    ///
    /// # Errors
    /// [`ReduceError::EmptyInput`] (`op: mean`) for no elements.
    pub fn moments<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<Moments> {
        let x = x.into();
        x.check_owner(self.backend().id(), "the input buffer")?;
        if x.is_empty() {
            return Err(ReduceError::EmptyInput { op: Op::Mean });
        }
        let [count, mean, m2] = self.transform_words(Op::Moments, x, None)?;
        debug_assert_eq!(
            count,
            x.len() as f64,
            "the kernel counts every element once"
        );
        Ok(Moments::new(x.len() as u64, mean, m2))
    }
    /// The variance with `ddof` delta degrees of freedom (NumPy's `var(ddof=…)`: 0 population,
    /// 1 sample).
    ///
    /// # Errors
    /// [`ReduceError::TooFewElements`] when `len ≤ ddof` (NumPy: NaN and a warning), including
    /// an empty input.
    pub fn var<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>, ddof: u64) -> Result<f64> {
        let x = x.into();
        if x.len() as u64 <= ddof {
            x.check_owner(self.backend().id(), "the input buffer")?;
            return Err(ReduceError::TooFewElements {
                n: x.len() as u64,
                ddof,
            });
        }
        self.moments(x)?.var(ddof)
    }
    /// The standard deviation `√var(ddof)`.
    ///
    /// # Errors
    /// As [`Reducer::var`].
    pub fn std<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>, ddof: u64) -> Result<f64> {
        self.var(x, ddof).map(f64::sqrt)
    }
}
