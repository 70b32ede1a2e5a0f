//! [`Moments`]: what one `moments` launch returns, and the variance and standard deviation that
//! follow from it.

use crate::error::{ReduceError, Result};

/// Count, mean and M2 = Σ(x − mean)² of an input, from one pass (Welford per thread, Chan's
/// combine across threads: see `reduce_kernels::transform::moments`), with the derived
/// statistics. Never built for an empty input.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Moments {
    /// Elements (≥ 1).
    pub count: u64,
    /// Their mean.
    pub mean: f64,
    /// Σ(x − mean)².
    pub m2: f64,
    /// Population variance, `m2 / count` (NumPy's `var(ddof=0)`, PyTorch's `var(correction=0)`).
    pub var_pop: f64,
    /// Sample variance, `m2 / (count − 1)` (`ddof=1`, PyTorch's default); `None` for one element.
    pub var_sample: Option<f64>,
    /// `√var_pop`.
    pub std_pop: f64,
    /// `√var_sample`; `None` for one element.
    pub std_sample: Option<f64>,
}

impl Moments {
    /// The statistics of `count ≥ 1` elements with this mean and M2.
    pub fn new(count: u64, mean: f64, m2: f64) -> Self {
        let var_pop = m2 / count as f64;
        let var_sample = (count > 1).then(|| m2 / (count - 1) as f64);
        Moments {
            count,
            mean,
            m2,
            var_pop,
            var_sample,
            std_pop: var_pop.sqrt(),
            std_sample: var_sample.map(f64::sqrt),
        }
    }

    /// `m2 / (count − ddof)`: NumPy's `var(ddof=…)`.
    ///
    /// # Errors
    /// [`ReduceError::TooFewElements`] when `count ≤ ddof` (NumPy returns NaN with a warning).
    pub fn var(&self, ddof: u64) -> Result<f64> {
        if self.count <= ddof {
            return Err(ReduceError::TooFewElements {
                n: self.count,
                ddof,
            });
        }
        Ok(self.m2 / (self.count - ddof) as f64)
    }

    /// `√var(ddof)`.
    ///
    /// # Errors
    /// As [`Moments::var`].
    pub fn std(&self, ddof: u64) -> Result<f64> {
        self.var(ddof).map(f64::sqrt)
    }
}
