//! [`MultiReducer::count`] and [`MultiReducer::nanmean`]: ops whose result type is not the
//! element type. A count is a `u64` whatever `T` is (a count kept in `f32` stops being exact at
//! 2^24), so the partial each rank contributes, the all-gather and the combine are `u64`:
//! every rank counts its shard exactly (the single-GPU [`Reducer::count`]: one device
//! count per [`Reducer::COUNT_CHUNK`] elements), leaves that count in a one-element `u64` buffer
//! on its device, and the `u64` partials take the same deterministic path as any integer sum
//! ([`MultiReducer::reduce`]: all-gather, then the same stage-8 sum over rank order on every
//! rank). `nanmean` is the multi-rank `nansum` over that count.

use super::{Collective, MultiReducer, MultiResult};
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::reducer::Reducer;
use crate::types::{Op, Scalar};
use std::borrow::Borrow;

impl<C: Collective> MultiReducer<C> {
    /// How many elements of the concatenation of `shards` are not NaN (every element, for
    /// integers), exactly, as `u64` (`0` for no elements). The timing covers the `u64` combine;
    /// the shard counts run before it.
    pub fn count<T: Scalar, B: Borrow<Buffer<T>>>(
        &mut self,
        shards: &[B],
    ) -> Result<MultiResult<u64>> {
        let shards = self.check_shards(shards)?;
        let partials = shards
            .iter()
            .enumerate()
            .map(|(r, s)| {
                self.with_rank(r, |b| {
                    let c = Reducer::new(b).count(*s)?;
                    b.upload(&[c])
                })
            })
            .collect::<Result<Vec<_>>>()?;
        self.reduce(Op::Sum, &partials)
    }

    /// The mean of the elements that are not NaN, as `f64` (`np.nanmean`, as
    /// [`Reducer::nanmean`]): the multi-rank `nansum` over the multi-rank [`MultiReducer::count`];
    /// NaN when every element is NaN; an error for no elements. Integers have no NaN: their
    /// [`MultiReducer::mean`].
    pub fn nanmean<T: Scalar, B: Borrow<Buffer<T>>>(&mut self, shards: &[B]) -> Result<f64> {
        // The shards are checked (one per rank, each on its rank) before their length is used.
        let n: usize = self.check_shards(shards)?.iter().map(|s| s.len()).sum();
        if n == 0 {
            return Err(ReduceError::EmptyInput { op: Op::NanMean });
        }
        if !T::TYPE.is_float() {
            return self.mean(shards);
        }
        let sum = self.reduce(Op::NanSum, shards)?.value.unwrap_or_default();
        let count = self.count(shards)?.value.unwrap_or_default();
        Ok(sum.to_f64() / count as f64)
    }
}
