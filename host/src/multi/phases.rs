//! The three phases every scalar multi-rank reduction runs ([`MultiReducer::run_phases`]):
//! each rank's local part queued on its stream, the all-gather of what each rank sends, the
//! combine queued on every rank; then one wait (with the timeout) and every rank's value read
//! back with its timing. What differs between reductions — which kernel runs locally, which
//! buffer is sent, how the gathered words combine, how the value is read — is a [`RankSteps`].

use super::rank::Rank;
use super::{Collective, MultiReducer, MultiTiming};
use crate::backend::Backend;
use crate::buffer::Buffer;
use crate::error::Result;
use crate::types::Scalar;
use std::time::Instant;

/// One reduction's work on each rank, for [`MultiReducer::run_phases`]. Every method is
/// called with the rank's context bound.
pub(super) trait RankSteps {
    /// The element type of the all-gathered words.
    type Word: Scalar;
    /// What each rank reads back.
    type Value;
    /// Queue rank `r`'s local part on its stream.
    fn local(&self, rank: &Rank, r: usize) -> Result<()>;
    /// The buffer rank `r` sends to the all-gather (its words, written by [`Self::local`]).
    fn send<'a>(&self, rank: &'a Rank, r: usize) -> Result<&'a Buffer<Self::Word>>;
    /// Queue the combine of the gathered words `recv` (every rank's, in rank order) on `rank`.
    fn combine(&self, rank: &Rank, recv: &Buffer<Self::Word>) -> Result<()>;
    /// Read back `rank`'s combined value (after the wait).
    fn read(&self, rank: &Rank) -> Result<Self::Value>;
}

impl<C: Collective> MultiReducer<C> {
    /// Run `steps` on every rank: local parts, the all-gather of `count` words per rank into
    /// `recv` (one buffer of `ranks · count` words per rank), the combines, one wait (`what`
    /// names it in a timeout error). Returns every rank's value, in rank order, and the timing.
    pub(super) fn run_phases<S: RankSteps>(
        &mut self,
        steps: &S,
        recv: &mut [Buffer<S::Word>],
        count: usize,
        what: &str,
    ) -> Result<(Vec<S::Value>, MultiTiming)> {
        let launched = Instant::now();
        // Phase 1: every rank's local part, queued on its own stream.
        for (r, rank) in self.ranks.iter_mut().enumerate() {
            rank.bind()?;
            rank.mark(0)?;
            steps.local(rank, r)?;
            rank.mark(1)?;
        }
        // Phase 2: the all-gather, then the same fixed-order combine on every rank.
        let sends = self
            .ranks
            .iter()
            .enumerate()
            .map(|(r, rank)| steps.send(rank, r))
            .collect::<Result<Vec<_>>>()?;
        let backends: Vec<&Backend> = self.ranks.iter().map(|r| &r.backend).collect();
        self.collective.all_gather(&backends, &sends, recv, count)?;
        drop(sends);
        for (rank, rb) in self.ranks.iter_mut().zip(recv.iter()) {
            rank.bind()?;
            steps.combine(rank, rb)?;
            rank.mark(2)?;
        }
        self.wait(what)?;
        let mut values = Vec::with_capacity(self.ranks.len());
        let (mut local_ms, mut combine_ms) = (Vec::new(), Vec::new());
        for rank in &self.ranks {
            rank.bind()?;
            values.push(steps.read(rank)?);
            local_ms.push(rank.elapsed_ms(0, 1)?);
            combine_ms.push(rank.elapsed_ms(1, 2)?);
        }
        let timing = MultiTiming {
            local_ms,
            combine_ms,
            total_ms: launched.elapsed().as_secs_f64() * 1e3,
        };
        Ok((values, timing))
    }
}
