//! [`MultiReducer::exact_sum`]: the correctly rounded sum across ranks, bit-identical to one
//! GPU's [`crate::Reducer::sum_exact`] for any number of ranks and any split.
//!
//! Each rank runs the exact sum's words-out kernel on its shard ([`PreparedExactWords`]: the
//! exact integer in units of the smallest subnormal, unrounded, with the NaN/inf/`-0.0` flags and
//! the element count); the collective all-gathers those `W + 5` words per rank (NCCL, as
//! `int64`); every rank adds the R vectors and rounds once on its device ([`ExactCombine`]).
//! Integer addition does not care about order, and the rounding is a function of the integer
//! alone: the same bits as one GPU on the concatenation.

use super::{Collective, MultiReducer, MultiResult, MultiTiming};
use crate::backend::Backend;
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::exact::{words_len, ExactCombine, ExactFloat, PreparedExactWords, MAX_EXACT_RANKS};
use crate::types::Op;
use std::borrow::Borrow;
use std::time::Instant;

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
        let launched = Instant::now();
        // Phase 1: every rank's words, queued on its own stream.
        for (rank, s) in self.ranks.iter_mut().zip(&shards) {
            rank.bind()?;
            rank.mark(0)?;
            rank.extra::<PreparedExactWords<T>>((T::TYPE, s.len(), LOCAL))?
                .enqueue(&rank.backend, s)?;
            rank.mark(1)?;
        }
        // Phase 2: the all-gather of the word vectors, then the combine on every rank.
        let Self {
            collective,
            exact_gather,
            ranks,
            ..
        } = self;
        let recv = exact_gather
            .get_mut(&T::TYPE)
            .expect("made above for this type");
        let sends = ranks
            .iter()
            .zip(&shards)
            .map(|(rank, s)| {
                Ok(rank
                    .extra::<PreparedExactWords<T>>((T::TYPE, s.len(), LOCAL))?
                    .words())
            })
            .collect::<Result<Vec<_>>>()?;
        let backends: Vec<&Backend> = ranks.iter().map(|r| &r.backend).collect();
        collective.all_gather(&backends, &sends, recv, len)?;
        drop(sends);
        for (rank, rb) in ranks.iter_mut().zip(recv.iter()) {
            rank.bind()?;
            rank.extra::<ExactCombine<T>>((T::TYPE, 0, COMBINE))?
                .enqueue(&rank.backend, rb, nranks)?;
            rank.mark(2)?;
        }
        self.wait("the ranks' exact sums and the all-gather of their words")?;
        let mut per_rank = Vec::with_capacity(nranks);
        let (mut local_ms, mut combine_ms) = (Vec::new(), Vec::new());
        for rank in &self.ranks {
            rank.bind()?;
            per_rank.push(
                rank.extra::<ExactCombine<T>>((T::TYPE, 0, COMBINE))?
                    .read_result(&rank.backend)?,
            );
            local_ms.push(rank.elapsed_ms(0, 1)?);
            combine_ms.push(rank.elapsed_ms(1, 2)?);
        }
        Ok(MultiResult {
            value: per_rank.first().copied(),
            per_rank,
            depth: 0,
            timing: MultiTiming {
                local_ms,
                combine_ms,
                total_ms: launched.elapsed().as_secs_f64() * 1e3,
            },
        })
    }

    /// The mean from the exact sum: [`MultiReducer::exact_sum`] as `f64` over the total length
    /// (as [`crate::Reducer::mean_exact`]); an error for no elements.
    pub fn exact_mean<T: ExactFloat, B: Borrow<Buffer<T>>>(&mut self, shards: &[B]) -> Result<f64> {
        let n: usize = shards.iter().map(|s| s.borrow().len()).sum();
        if n == 0 {
            return Err(ReduceError::EmptyInput { op: Op::Mean });
        }
        let sum = self.exact_sum(shards)?.value.unwrap_or_default();
        Ok(sum.to_f64() / n as f64)
    }
}
