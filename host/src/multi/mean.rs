//! [`MultiReducer::mean`]: the multi-GPU sum over the length for floats, exact for integers.

use super::{Collective, MultiReducer, MultiResult};
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::reducer::Reducer;
use crate::types::{Op, Scalar};
use std::borrow::Borrow;

impl<C: Collective> MultiReducer<C> {
    /// The mean of the concatenation of `shards`, as [`crate::Reducer::mean`] computes it: a
    /// float mean is the multi-GPU sum over the length; an integer mean is exact (from the
    /// wrapped sum, min and max when the range allows, else summed in `i128` on the host).
    pub fn mean<T: Scalar, B: Borrow<Buffer<T>>>(&mut self, shards: &[B]) -> Result<f64> {
        // The shards are checked (one per rank, each on its rank) before their length is used.
        let n: usize = self.check_shards(shards)?.iter().map(|s| s.len()).sum();
        if n == 0 {
            return Err(ReduceError::EmptyInput { op: Op::Mean });
        }
        let value = |r: MultiResult<T>| r.value.unwrap_or_default();
        if T::TYPE.is_float() {
            return Ok(value(self.reduce(Op::Sum, shards)?).to_f64() / n as f64);
        }
        let int = |v: T| v.to_i128().expect("an integer type");
        let wrapped = int(value(self.reduce(Op::Sum, shards)?));
        let lo = int(value(self.reduce(Op::Min, shards)?));
        let hi = int(value(self.reduce(Op::Max, shards)?));
        let modulus = 1i128 << (8 * T::TYPE.size());
        let len = n as i128;
        if len * (hi - lo) < modulus {
            let low = len * lo;
            return Ok((low + (wrapped - low).rem_euclid(modulus)) as f64 / n as f64);
        }
        let mut sum: i128 = 0;
        for (r, s) in shards.iter().enumerate() {
            let s = s.borrow();
            let mut done = 0;
            while done < s.len() {
                let chunk = Reducer::MEAN_CHUNK.min(s.len() - done);
                let part = self.with_rank(r, |b| b.download_range(s, done, chunk))?;
                sum += part.iter().filter_map(|x| x.to_i128()).sum::<i128>();
                done += chunk;
            }
        }
        Ok(sum as f64 / n as f64)
    }
}
