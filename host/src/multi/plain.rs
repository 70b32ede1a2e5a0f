//! [`MultiReducer::reduce`]: stage 8's operators over the concatenation of the ranks' shards —
//! each rank's partial by the single-GPU kernel, the partials all-gathered and combined by the
//! same kernel in rank order on every rank ([`super::phases`]).

use super::phases::RankSteps;
use super::rank::{Rank, Role};
use super::{Collective, MultiReducer, MultiResult, MultiTiming};
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::types::{Op, Scalar};
use std::borrow::Borrow;

impl<C: Collective> MultiReducer<C> {
    /// `op` (sum, min or max) over the concatenation of `shards` in rank order; shard `r` must
    /// be a buffer of rank `r` (see [`MultiReducer::with_rank`]). [`Op::Mean`] is an error
    /// here: use [`MultiReducer::mean`].
    pub fn reduce<T: Scalar, B: Borrow<Buffer<T>>>(
        &mut self,
        op: Op,
        shards: &[B],
    ) -> Result<MultiResult<T>> {
        if op == Op::Mean {
            return Err(ReduceError::InvalidArgument(
                "a mean is an f64, not a value of the element type: use MultiReducer::mean".into(),
            ));
        }
        if matches!(op, Op::NanMean | Op::Count) {
            return Err(ReduceError::InvalidArgument(format!(
                "{op} is not a value of the element type: use MultiReducer::{op} (a u64 count, \
                 an f64 mean)"
            )));
        }
        // The partials of `nansum` are plain numbers: they combine with a plain sum.
        let cop = op.combine_op();
        let shards = self.check_shards(shards)?;
        let nranks = self.ranks.len();
        let total: usize = shards.iter().map(|s| s.len()).sum();
        if total == 0 && op.is_extreme() {
            return Ok(MultiResult {
                value: None,
                per_rank: Vec::new(),
                depth: 0,
                timing: MultiTiming {
                    local_ms: vec![0.0; nranks],
                    combine_ms: vec![0.0; nranks],
                    total_ms: 0.0,
                },
            });
        }
        // Plans, identities and receive buffers (allocated once, reused).
        let mut depth = 0;
        for (rank, s) in self.ranks.iter_mut().zip(&shards) {
            rank.bind()?;
            rank.make_room(2);
            if s.is_empty() {
                rank.ensure_identity::<T>(op)?;
            } else {
                rank.ensure_plan::<T>(op, s.len(), Role::Local)?;
                depth = depth.max(rank.plan::<T>(op, s.len(), Role::Local)?.plan.depth);
            }
            rank.ensure_plan::<T>(cop, nranks, Role::Combine)?;
        }
        depth += self.ranks[0]
            .plan::<T>(cop, nranks, Role::Combine)?
            .plan
            .depth;
        if !self.gather.contains_key(&T::TYPE) {
            let bufs = (0..nranks)
                .map(|r| self.with_rank(r, |b| b.zeroed::<T>(nranks)))
                .collect::<Result<Vec<_>>>()?;
            self.gather.insert(T::TYPE, Box::new(bufs));
        }
        // The receive buffers leave the map for the call (the phases borrow `self`) and return
        // to it whatever the outcome.
        let mut recv = self
            .gather
            .remove(&T::TYPE)
            .and_then(|g| g.downcast::<Vec<Buffer<T>>>().ok())
            .expect("made above for this type");
        let steps = PlainSteps {
            op,
            cop,
            shards: &shards,
        };
        let done = self.run_phases(
            &steps,
            &mut recv,
            1,
            "the ranks' reductions and the all-gather",
        );
        self.gather.insert(T::TYPE, recv);
        let (per_rank, timing) = done?;
        Ok(MultiResult {
            value: per_rank.first().copied(),
            per_rank,
            depth,
            timing,
        })
    }
}

/// The stage-8 reduction's steps ([`MultiReducer::reduce`]): `op` over each rank's shard (an
/// empty shard sends `op`'s identity), `cop` over the gathered partials.
struct PlainSteps<'s, T: Scalar> {
    op: Op,
    cop: Op,
    shards: &'s [&'s Buffer<T>],
}

impl<T: Scalar> RankSteps for PlainSteps<'_, T> {
    type Word = T;
    type Value = T;

    fn local(&self, rank: &Rank, r: usize) -> Result<()> {
        let s = self.shards[r];
        if s.is_empty() {
            return Ok(());
        }
        rank.plan::<T>(self.op, s.len(), Role::Local)?
            .enqueue(&rank.backend, s, 0)
    }

    fn send<'a>(&self, rank: &'a Rank, r: usize) -> Result<&'a Buffer<T>> {
        let s = self.shards[r];
        if s.is_empty() {
            rank.identity::<T>(self.op)
        } else {
            Ok(rank
                .plan::<T>(self.op, s.len(), Role::Local)?
                .result_buffer())
        }
    }

    fn combine(&self, rank: &Rank, recv: &Buffer<T>) -> Result<()> {
        rank.plan::<T>(self.cop, self.shards.len(), Role::Combine)?
            .enqueue(&rank.backend, recv, 0)
    }

    fn read(&self, rank: &Rank) -> Result<T> {
        rank.plan::<T>(self.cop, self.shards.len(), Role::Combine)?
            .read_result(&rank.backend)
    }
}
