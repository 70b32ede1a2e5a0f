//! [`Reducer`]'s counts and means: `f64` results built from stage 8's sums (floats), exact
//! integer sums (integers), or the transform kernels' one-pass sum and count (`f16` / `bf16`).

use super::Reducer;
use crate::error::{ReduceError, Result};
use crate::halves::{Bf16, F16};
use crate::types::{ElemType, Op, Scalar};
use crate::view::View;

impl Reducer<'_> {
    /// How many elements of `x` are not NaN, exactly. Integers: the length. `f32` / `f64`: one
    /// device count per [`Reducer::COUNT_CHUNK`] elements (a count in `f32` is exact up to 2^24), added on
    /// the host. `f16` / `bf16`: one launch of the NaN-ignoring transform
    /// ([`Op::NanTotal`], which counts in `f64`, exact up to 2^53 elements).
    pub fn count<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<u64> {
        let x = x.into();
        x.check_owner(self.backend().id(), "the input buffer")?;
        if !T::TYPE.is_float() {
            return Ok(x.len() as u64);
        }
        if ElemType::HALVES.contains(&T::TYPE) {
            let [_, count, _] = self.transform_words(Op::NanTotal, x, None)?;
            return Ok(count as u64);
        }
        let (mut count, mut done) = (0u64, 0);
        while done < x.len() {
            let chunk = Self::COUNT_CHUNK.min(x.len() - done);
            let c = self.reduce(Op::Count, x.slice(done..done + chunk)?)?;
            count += c.unwrap_or_default().to_f64() as u64;
            done += chunk;
        }
        Ok(count)
    }

    /// Mean of the elements that are not NaN, as `f64` (`np.nanmean`); NaN if every element is
    /// NaN. `f32` / `f64`: the device's `nansum` divided by the exact count
    /// ([`Reducer::count`]). `f16` / `bf16`: their sum and count in one pass
    /// ([`Op::NanTotal`]: every half widened exactly, summed and counted in `f64`),
    /// divided. Integers have no NaN: [`Reducer::mean`].
    ///
    /// # Errors
    /// [`ReduceError::EmptyInput`] for no elements.
    pub fn nanmean<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<f64> {
        let x = x.into();
        x.check_owner(self.backend().id(), "the input buffer")?;
        if x.is_empty() {
            return Err(ReduceError::EmptyInput { op: Op::NanMean });
        }
        if !T::TYPE.is_float() {
            return self.mean(x);
        }
        if ElemType::HALVES.contains(&T::TYPE) {
            let [sum, count, _] = self.transform_words(Op::NanTotal, x, None)?;
            return Ok(sum / count);
        }
        let sum = self.reduce(Op::NanSum, x)?;
        let count = self.count(x)?;
        Ok(sum.unwrap_or_default().to_f64() / count as f64)
    }

    /// Mean as `f64`, as NumPy's `np.mean` gives it (to `f64` rounding).
    ///
    /// `f32` / `f64`: the device sum (in `T`) divided by the length. `f16` / `bf16`: the moments
    /// kernel's mean (every half widened exactly, accumulated in `f64`). Integers: the **exact**
    /// sum divided by the length. The device's integer sum wraps modulo 2^bits (dividing it, the
    /// mean of `[i64::MAX, i64::MAX]` came out as -1), so the exact sum is recovered in `i128`:
    ///
    /// * on the device, when it can be: three launches give the wrapped sum `w`, the minimum
    ///   `lo` and the maximum `hi`. The exact sum `S` lies in `[n·lo, n·hi]`; when that interval
    ///   is narrower than 2^bits, `S` is the one value in it congruent to `w`, i.e.
    ///   `n·lo + ((w − n·lo) mod 2^bits)` — the usual case for data of moderate range;
    /// * otherwise on the host: the input is copied back in chunks of [`Reducer::MEAN_CHUNK`] elements
    ///   and added in `i128`, which cannot overflow (fewer than 2^61 elements of at most 2^64
    ///   each).
    ///
    /// # Errors
    /// [`ReduceError::EmptyInput`] for no elements.
    pub fn mean<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<f64> {
        let x = x.into();
        x.check_owner(self.backend().id(), "the input buffer")?;
        let len = x.len();
        if len == 0 {
            return Err(ReduceError::EmptyInput { op: Op::Mean });
        }
        match T::TYPE {
            ElemType::F16 => return Ok(self.moments(x.cast::<F16>()?)?.mean),
            ElemType::BF16 => return Ok(self.moments(x.cast::<Bf16>()?)?.mean),
            ty if ty.is_float() => {
                let sum = self.reduce(Op::Sum, x)?;
                return Ok(sum.unwrap_or_default().to_f64() / len as f64);
            }
            _ => {}
        }
        let device = |r: &mut Self, op| -> Result<i128> {
            let v = r.reduce(op, x)?.unwrap_or_default();
            Ok(v.to_i128().expect("an integer type"))
        };
        let (wrapped, lo, hi) = (
            device(self, Op::Sum)?,
            device(self, Op::Min)?,
            device(self, Op::Max)?,
        );
        let modulus = 1i128 << (8 * T::TYPE.size());
        let n = len as i128;
        if n * (hi - lo) < modulus {
            let low = n * lo;
            let sum = low + (wrapped - low).rem_euclid(modulus);
            return Ok(sum as f64 / len as f64);
        }
        let mut sum: i128 = 0;
        let mut done = 0;
        while done < len {
            let chunk = Self::MEAN_CHUNK.min(len - done);
            let values = x.download_range(self.backend(), done, chunk)?;
            sum += values.iter().filter_map(|v| v.to_i128()).sum::<i128>();
            done += chunk;
        }
        Ok(sum as f64 / len as f64)
    }
}
