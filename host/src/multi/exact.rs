//! [`MultiReducer::exact_sum`]: the correctly rounded sum across ranks, bit-identical to one
//! GPU's [`crate::Reducer::sum_exact`] for any number of ranks and any split.
//!
//! Each rank runs the exact sum's words-out kernel on its shard ([`PreparedExactWords`]: the
//! exact integer in units of the smallest subnormal, unrounded, with the NaN/inf/`-0.0` flags and
//! the element count); the collective all-gathers those `W + 5` words per rank (NCCL, as
//! `int64`); every rank adds the R vectors and rounds once on its device ([`ExactCombine`]).
//! Integer addition does not care about order, and the rounding is a function of the integer
//! alone: the same bits as one GPU on the concatenation.

use super::phases::RankSteps;
use super::rank::Rank;
use super::{Collective, MultiReducer, MultiResult};
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::exact::{words_len, ExactCombine, ExactFloat, PreparedExactWords, MAX_EXACT_RANKS};
use crate::types::Op;
use std::borrow::Borrow;

const LOCAL: &str = "exact words-out plan";
const COMBINE: &str = "exact combine";

impl<C: Collective> MultiReducer<C> {
    /// The **correctly rounded** sum of the concatenation of `shards` (one per rank, shard `r` a
    /// buffer of rank `r`; empty ones are fine): bit-identical to [`crate::Reducer::sum_exact`]
    /// of the whole input on one GPU, with its IEEE rules (NaN for any NaN or for +inf with
    /// -inf, `-0.0` only when every element is `-0.0`, `+0.0` for no elements). Every rank holds
    /// the same bits ([`MultiResult::per_rank`]); `depth` is 0. Errors: more than
    /// [`MAX_EXACT_RANKS`] ranks, shards of the wrong rank or count, the devices' and the
    /// collective's (a timeout aborts it).
    pub fn exact_sum<T: ExactFloat, B: Borrow<Buffer<T>>>(
        &mut self,
        shards: &[B],
    ) -> Result<MultiResult<T>> {
        let shards = self.check_shards(shards)?;
        let nranks = self.ranks.len();
        if nranks > MAX_EXACT_RANKS {
            return Err(ReduceError::InvalidArgument(format!(
                "an exact sum across ranks adds at most {MAX_EXACT_RANKS} ranks' words (their \
                 integer headroom), not {nranks}"
            )));
        }
        let len = words_len::<T>();
        for (rank, s) in self.ranks.iter_mut().zip(&shards) {
            rank.bind()?;
            rank.make_room(2);
            rank.ensure_extra((T::TYPE, s.len(), LOCAL), |b| {
                PreparedExactWords::<T>::new(b, s.len())
            })?;
            rank.ensure_extra((T::TYPE, 0, COMBINE), ExactCombine::<T>::new)?;
        }
        if !self.exact_gather.contains_key(&T::TYPE) {
            let bufs = (0..nranks)
                .map(|r| self.with_rank(r, |b| b.zeroed::<i64>(nranks * len)))
                .collect::<Result<Vec<_>>>()?;
            self.exact_gather.insert(T::TYPE, bufs);
        }
        // The receive buffers leave the map for the call (the phases borrow `self`) and return
        // to it whatever the outcome.
        let mut recv = self
            .exact_gather
            .remove(&T::TYPE)
            .expect("made above for this type");
        let steps = ExactSteps { shards: &shards };
        let done = self.run_phases(
            &steps,
            &mut recv,
            len,
            "the ranks' exact sums and the all-gather of their words",
        );
        self.exact_gather.insert(T::TYPE, recv);
        let (per_rank, timing) = done?;
        Ok(MultiResult {
            value: per_rank.first().copied(),
            per_rank,
            depth: 0,
            timing,
        })
    }

    /// The mean from the exact sum: [`MultiReducer::exact_sum`] as `f64` over the total length
    /// (as [`crate::Reducer::mean_exact`]); an error for no elements.
    pub fn exact_mean<T: ExactFloat, B: Borrow<Buffer<T>>>(&mut self, shards: &[B]) -> Result<f64> {
        // The shards are checked (one per rank, each on its rank) before their length is used.
        let n: usize = self.check_shards(shards)?.iter().map(|s| s.len()).sum();
        if n == 0 {
            return Err(ReduceError::EmptyInput { op: Op::Mean });
        }
        let sum = self.exact_sum(shards)?.value.unwrap_or_default();
        Ok(sum.to_f64() / n as f64)
    }
}

/// The exact sum's steps ([`MultiReducer::exact_sum`]): each rank's words out, the gathered
/// word vectors added and rounded once on every rank.
struct ExactSteps<'s, T: ExactFloat> {
    shards: &'s [&'s Buffer<T>],
}

impl<T: ExactFloat> RankSteps for ExactSteps<'_, T> {
    type Word = i64;
    type Value = T;

    fn local(&self, rank: &Rank, r: usize) -> Result<()> {
        let s = self.shards[r];
        rank.extra::<PreparedExactWords<T>>((T::TYPE, s.len(), LOCAL))?
            .enqueue(&rank.backend, s)
    }

    fn send<'a>(&self, rank: &'a Rank, r: usize) -> Result<&'a Buffer<i64>> {
        let s = self.shards[r];
        Ok(rank
            .extra::<PreparedExactWords<T>>((T::TYPE, s.len(), LOCAL))?
            .words())
    }

    fn combine(&self, rank: &Rank, recv: &Buffer<i64>) -> Result<()> {
        rank.extra::<ExactCombine<T>>((T::TYPE, 0, COMBINE))?
            .enqueue(&rank.backend, recv, self.shards.len())
    }

    fn read(&self, rank: &Rank) -> Result<T> {
        rank.extra::<ExactCombine<T>>((T::TYPE, 0, COMBINE))?
            .read_result(&rank.backend)
    }
}
