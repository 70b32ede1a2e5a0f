//! Reductions over data sharded across the GPUs of one host ([`MultiReducer`]).
//!
//! Each rank (one GPU, with its own context, stream and the embedded kernels; or one emulator)
//! reduces its shard with the single-GPU stage-8 kernel, leaving its partial in device memory.
//! The partials are then combined **deterministically**: an all-gather ([`Collective`]: NCCL on
//! GPUs, [`InMemory`] for emulated ranks) puts all R partials, in rank order, on every rank, and
//! every rank reduces those R values with the same stage-8 kernel — a fixed tree over rank
//! order, so the result does not depend on which GPU finished first, and every rank holds the
//! same bits. Nothing waits on the host between the phases: the local kernel, the all-gather and
//! the combine are queued on each rank's stream, and the host waits once, with a timeout
//! (polling NCCL's asynchronous errors; aborting the communicators when it passes).
//!
//! [`MultiReducer::reduce_cols`] and [`MultiReducer::reduce_rows`] do the same for a matrix
//! whose rows are split across the ranks.
//!
//! Integer sums, min and max equal the single-GPU result over the concatenation bit for bit
//! (wrapping addition, min and max are associative). A float sum is added in another order
//! than one GPU would: it is within the bound of [`MultiResult::depth`] (the deepest shard's
//! plan plus the combine's) of the exact sum, as every float sum of this crate is.

mod any;
mod axis;
mod collective;
mod count;
mod exact;
mod mean;
mod nccl;
mod phases;
mod plain;
mod rank;

pub use any::{AnyShard, AnyValue};
pub use collective::{Collective, InMemory};
pub use nccl::{load as load_nccl, nccl_candidates, Nccl, NcclLibrary};

use crate::backend::{Backend, DeviceCaps};
use crate::buffer::Buffer;
use crate::emulator::Emulator;
use crate::error::{ReduceError, Result};
use crate::gpu::Gpu;
use crate::types::{ElemType, Op, Scalar};
use rank::Rank;
use std::any::Any;
use std::borrow::Borrow;
use std::collections::HashMap;
use std::ops::Range;
use std::time::{Duration, Instant};

/// How long [`MultiReducer`] waits for the devices by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Where the time of one multi-GPU reduction went.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MultiTiming {
    /// Per rank: its local reduction (GPU: between CUDA events on its stream; emulator: the
    /// host clock, ranks one after another).
    pub local_ms: Vec<f64>,
    /// Per rank: from the end of its local reduction to its combined value — the all-gather
    /// (which also waits for the slowest rank) and the combine kernel.
    pub combine_ms: Vec<f64>,
    /// The whole call on the host clock, from the first launch to the value read back.
    pub total_ms: f64,
}

impl MultiTiming {
    /// The slowest rank's local reduction.
    pub fn local_max_ms(&self) -> f64 {
        self.local_ms.iter().copied().fold(0.0, f64::max)
    }
    /// The cost of the combine step alone: the smallest per-rank combine time (the last rank
    /// to finish its shard waits for nobody, so its interval is the exchange and the combine
    /// kernel only).
    pub fn combine_min_ms(&self) -> f64 {
        self.combine_ms
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
    }
}

/// The result of one multi-GPU reduction.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MultiResult<T> {
    /// The reduction; `None` for the min/max of nothing.
    pub value: Option<T>,
    /// The combined value every rank computed (all equal: the same kernel on the same gathered
    /// partials); empty when `value` is `None`.
    pub per_rank: Vec<T>,
    /// The float error-bound depth ([`crate::matches_reference`]): the deepest shard plan's
    /// plus the combine plan's.
    pub depth: usize,
    /// The timing breakdown.
    pub timing: MultiTiming,
}

/// `n` elements split into `ranks` contiguous shards whose sizes differ by at most one, in rank
/// order (shard `r` is `r·n/R .. (r+1)·n/R`).
pub fn split_even(n: usize, ranks: usize) -> Vec<Range<usize>> {
    let at = |r: usize| ((r as u128 * n as u128) / ranks.max(1) as u128) as usize;
    (0..ranks).map(|r| at(r)..at(r + 1)).collect()
}

/// A reducer over R ranks (GPUs through NCCL, or emulated ranks) — see the [module
/// docs](self).
pub struct MultiReducer<C: Collective> {
    // Field order = drop order: the communicators go before the GPUs they use.
    collective: C,
    /// Per element type: each rank's receive buffer of R partials (`Vec<Buffer<T>>`).
    gather: HashMap<ElemType, Box<dyn Any>>,
    /// Per exact-sum type: each rank's receive buffer of R word vectors.
    exact_gather: HashMap<ElemType, Vec<Buffer<i64>>>,
    ranks: Vec<Rank>,
    timeout: Duration,
}

impl MultiReducer<Nccl> {
    /// One rank per GPU: GPUs `0..count`, or every GPU the driver reports when `count` is
    /// `None`; NCCL communicators over them. Errors: [`ReduceError::TooFewGpus`],
    /// [`ReduceError::NcclUnavailable`], or the driver's.
    pub fn gpus(count: Option<usize>) -> Result<Self> {
        let available = Gpu::count()?;
        let requested = count.unwrap_or(available);
        if requested == 0 {
            return Err(if available == 0 {
                ReduceError::NoDevice
            } else {
                ReduceError::InvalidArgument("a multi-GPU reduction needs at least 1 GPU".into())
            });
        }
        if requested > available {
            return Err(ReduceError::TooFewGpus {
                requested,
                available,
            });
        }
        // Load NCCL before opening contexts: a missing library is the likelier error.
        nccl::load()?;
        let mut ranks = Vec::with_capacity(requested);
        for ordinal in 0..requested {
            ranks.push(Rank::new(Backend::Gpu(Gpu::open_device(ordinal)?))?);
        }
        let backends: Vec<&Backend> = ranks.iter().map(|r| &r.backend).collect();
        let collective = Nccl::new(&backends)?;
        Ok(Self::from_ranks(ranks, collective))
    }
}

impl MultiReducer<InMemory> {
    /// `ranks` emulated ranks (CPU emulators) and the in-process all-gather: the same sharding
    /// and combine logic without GPUs, for tests.
    pub fn emulated(ranks: usize) -> Result<Self> {
        Self::emulated_with(ranks, InMemory::new())
    }
}

impl<C: Collective> MultiReducer<C> {
    /// Emulated ranks with any collective (e.g. one that tests failures and timeouts).
    pub fn emulated_with(ranks: usize, collective: C) -> Result<Self> {
        if ranks == 0 {
            return Err(ReduceError::InvalidArgument(
                "a multi-rank reduction needs at least 1 rank".into(),
            ));
        }
        let ranks = (0..ranks)
            .map(|_| Rank::new(Backend::Emulator(Emulator::default())))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self::from_ranks(ranks, collective))
    }

    fn from_ranks(ranks: Vec<Rank>, collective: C) -> Self {
        MultiReducer {
            collective,
            gather: HashMap::new(),
            exact_gather: HashMap::new(),
            ranks,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// Wait at most `timeout` for the devices (per reduction).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How many ranks.
    pub fn ranks(&self) -> usize {
        self.ranks.len()
    }

    /// The collective.
    pub fn collective(&self) -> &C {
        &self.collective
    }

    /// Rank `r`'s device (`None` past the last rank).
    pub fn caps(&self, r: usize) -> Option<&DeviceCaps> {
        self.ranks.get(r).map(|k| k.backend.caps())
    }

    /// Run `f` with rank `r`'s backend, its context current: the way to allocate a shard on a
    /// rank (`b.upload(..)`, `b.filled(..)`) or to use the single-GPU API there.
    pub fn with_rank<R>(&self, r: usize, f: impl FnOnce(&Backend) -> Result<R>) -> Result<R> {
        let rank = self.ranks.get(r).ok_or_else(|| {
            ReduceError::bounds("r", format!("there is no rank {r} of {}", self.ranks.len()))
        })?;
        rank.bind()?;
        f(&rank.backend)
    }

    /// Copy `data` to the ranks, split by [`split_even`]: one buffer per rank.
    pub fn scatter<T: Scalar>(&self, data: &[T]) -> Result<Vec<Buffer<T>>> {
        split_even(data.len(), self.ranks.len())
            .into_iter()
            .enumerate()
            .map(|(r, range)| self.with_rank(r, |b| b.upload(&data[range])))
            .collect()
    }

    /// `op` over `data` split evenly across the ranks ([`MultiReducer::scatter`] then
    /// [`MultiReducer::reduce`]).
    pub fn reduce_host<T: Scalar>(&mut self, op: Op, data: &[T]) -> Result<MultiResult<T>> {
        let shards = self.scatter(data)?;
        self.reduce(op, &shards)
    }

    /// The shards as plain references, checked: one per rank, shard `r` a buffer of rank `r`.
    fn check_shards<'s, T: Scalar, B: Borrow<Buffer<T>>>(
        &self,
        shards: &'s [B],
    ) -> Result<Vec<&'s Buffer<T>>> {
        let shards: Vec<&Buffer<T>> = shards.iter().map(|s| s.borrow()).collect();
        let nranks = self.ranks.len();
        if shards.len() != nranks {
            return Err(ReduceError::bounds(
                "shards",
                format!(
                    "{} shards for {nranks} ranks: pass one buffer per rank (an empty one is fine)",
                    shards.len()
                ),
            ));
        }
        for (r, (s, rank)) in shards.iter().zip(&self.ranks).enumerate() {
            s.check_owner(rank.backend.id(), &format!("shard {r}"))?;
        }
        Ok(shards)
    }

    /// Wait for every rank's stream, polling the collective, at most the timeout; past it the
    /// collective is aborted and the result is [`ReduceError::Timeout`].
    fn wait(&mut self, what: &str) -> Result<()> {
        let start = Instant::now();
        loop {
            let exchanged = match self.collective.progress() {
                Ok(done) => done,
                Err(e) => {
                    self.collective.abort();
                    return Err(e);
                }
            };
            let mut idle = exchanged;
            for rank in &self.ranks {
                rank.bind()?;
                idle &= rank.is_idle()?;
            }
            if idle {
                return Ok(());
            }
            if start.elapsed() >= self.timeout {
                self.collective.abort();
                return Err(ReduceError::Timeout {
                    what: what.into(),
                    ms: self.timeout.as_millis() as u64,
                });
            }
            std::thread::yield_now();
        }
    }
}
