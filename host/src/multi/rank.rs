//! One rank of a [`super::MultiReducer`]: a backend (one GPU and its context, or an emulator),
//! its prepared plans, and the markers that time its phases.

use super::collective::bind;
use crate::backend::Backend;
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::plan::ResultIn;
use crate::plan::{plan, LaunchOverrides};
use crate::prepared::Prepared;
use crate::stage::Stage;
use crate::streams::GpuEvent;
use crate::types::{ElemType, Op, Scalar};
use std::any::Any;
use std::collections::HashMap;
use std::time::Instant;

/// How many prepared plans a rank keeps before it starts over (as [`crate::Reducer::MAX_CACHED_PLANS`]).
const MAX_PLANS: usize = 32;

/// Which plan: a shard's local reduction (result left in device memory, where the all-gather
/// reads it) or the combine of the gathered partials.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Role {
    Local,
    Combine,
}

pub(crate) struct Rank {
    pub(crate) backend: Backend,
    plans: HashMap<(ElemType, Op, usize, Role), Box<dyn Any>>,
    identities: HashMap<(ElemType, Op), Box<dyn Any>>,
    /// Other per-rank state by (type, length, what): the exact sum's words-out plans and combine.
    extras: HashMap<(ElemType, usize, &'static str), Box<dyn Any>>,
    /// GPU: events before the local reduction, after it, after the combine.
    events: Option<[GpuEvent; 3]>,
    /// Emulator: the same three points on the host clock.
    stamps: [Option<Instant>; 3],
}

impl Rank {
    pub(crate) fn new(backend: Backend) -> Result<Self> {
        bind(&backend)?;
        let events = match backend {
            Backend::Gpu(_) => Some([
                GpuEvent::new(true)?,
                GpuEvent::new(true)?,
                GpuEvent::new(true)?,
            ]),
            Backend::Emulator(_) => None,
        };
        Ok(Rank {
            backend,
            plans: HashMap::new(),
            identities: HashMap::new(),
            extras: HashMap::new(),
            events,
            stamps: [None; 3],
        })
    }

    /// Make this rank's context current.
    pub(crate) fn bind(&self) -> Result<()> {
        bind(&self.backend)
    }

    /// Keep the plan cache bounded: forget every plan if `k` more would pass [`MAX_PLANS`]. Called
    /// before a reduction prepares its plans, so that none of them is forgotten while it runs.
    pub(crate) fn make_room(&mut self, k: usize) {
        if self.plans.len() + k > MAX_PLANS {
            self.plans.clear();
        }
        if self.extras.len() + k > MAX_PLANS {
            self.extras.clear();
        }
    }

    /// Make (once) the state `P` under `key` with `make`. Call with the context bound.
    pub(crate) fn ensure_extra<P: Any>(
        &mut self,
        key: (ElemType, usize, &'static str),
        make: impl FnOnce(&Backend) -> Result<P>,
    ) -> Result<()> {
        if !self.extras.contains_key(&key) {
            let p = make(&self.backend)?;
            self.extras.insert(key, Box::new(p));
        }
        Ok(())
    }

    /// The state [`Rank::ensure_extra`] made under `key`.
    pub(crate) fn extra<P: Any>(&self, key: (ElemType, usize, &'static str)) -> Result<&P> {
        self.extras
            .get(&key)
            .and_then(|p| p.downcast_ref::<P>())
            .ok_or_else(|| {
                ReduceError::InvalidArgument(format!(
                    "no prepared {} for {} elements",
                    key.2, key.1
                ))
            })
    }

    /// Prepare (once) the stage-8 plan for `n` elements in `role`. Call with the context bound.
    pub(crate) fn ensure_plan<T: Scalar>(&mut self, op: Op, n: usize, role: Role) -> Result<()> {
        let key = (T::TYPE, op, n, role);
        if self.plans.contains_key(&key) {
            return Ok(());
        }
        let p = plan(
            Stage::S8,
            T::TYPE,
            op,
            n,
            LaunchOverrides::default(),
            self.backend.caps(),
        )?;
        let result_in = match role {
            // The all-gather reads the partial from device memory.
            Role::Local => ResultIn::DeviceMemory,
            // The host reads the combined value without a copy.
            Role::Combine => ResultIn::MappedHost,
        };
        let prepared = Prepared::<T>::with_result_in(&self.backend, p, result_in)?;
        self.plans.insert(key, Box::new(prepared));
        Ok(())
    }

    /// The plan [`Rank::ensure_plan`] made.
    pub(crate) fn plan<T: Scalar>(&self, op: Op, n: usize, role: Role) -> Result<&Prepared<T>> {
        self.plans
            .get(&(T::TYPE, op, n, role))
            .and_then(|p| p.downcast_ref::<Prepared<T>>())
            .ok_or_else(|| {
                ReduceError::InvalidArgument(format!("no prepared {role:?} plan for {n} elements"))
            })
    }

    /// A one-element buffer holding the identity of `op` (what an empty shard contributes:
    /// 0 for sums and counts, 1 for products, +inf/-inf for float min/max and their NaN-ignoring
    /// forms, and the extreme value for integers). Context bound.
    pub(crate) fn ensure_identity<T: Scalar>(&mut self, op: Op) -> Result<()> {
        if self.identities.contains_key(&(T::TYPE, op)) {
            return Ok(());
        }
        let v = match op {
            Op::Min => T::MIN_IDENTITY,
            Op::Max => T::MAX_IDENTITY,
            Op::NanMin => T::NAN_MIN_IDENTITY,
            Op::NanMax => T::NAN_MAX_IDENTITY,
            Op::Prod => T::ONE,
            Op::Sum | Op::Mean | Op::NanSum | Op::NanMean | Op::Count => T::ZERO,
            op => {
                return Err(ReduceError::WrongOp {
                    op,
                    what: "a reduce op",
                    expected: &Op::REDUCE,
                })
            }
        };
        let buf = self.backend.upload(&[v])?;
        self.identities.insert((T::TYPE, op), Box::new(buf));
        Ok(())
    }

    pub(crate) fn identity<T: Scalar>(&self, op: Op) -> Result<&Buffer<T>> {
        self.identities
            .get(&(T::TYPE, op))
            .and_then(|b| b.downcast_ref::<Buffer<T>>())
            .ok_or_else(|| ReduceError::InvalidArgument(format!("no identity buffer for {op}")))
    }

    /// Mark point `i` (0: before the local reduction, 1: after it, 2: after the combine) on
    /// this rank's stream (GPU) or clock (emulator). Context bound.
    pub(crate) fn mark(&mut self, i: usize) -> Result<()> {
        match (&self.events, &self.backend) {
            (Some(ev), Backend::Gpu(g)) => ev[i].record(g.stream()),
            _ => {
                self.stamps[i] = Some(Instant::now());
                Ok(())
            }
        }
    }

    /// Milliseconds from mark `i` to mark `j` (both reached). Context bound.
    pub(crate) fn elapsed_ms(&self, i: usize, j: usize) -> Result<f64> {
        match &self.events {
            Some(ev) => Ok(ev[j].ms_since(&ev[i])? as f64),
            None => match (self.stamps[i], self.stamps[j]) {
                (Some(a), Some(b)) => Ok(b.saturating_duration_since(a).as_secs_f64() * 1e3),
                _ => Err(ReduceError::InvalidArgument(
                    "a phase was not marked".into(),
                )),
            },
        }
    }

    /// Has everything queued on this rank finished? (`cuStreamQuery`; the emulator runs
    /// launches to completion when they are queued.) A kernel fault is an error.
    pub(crate) fn is_idle(&self) -> Result<bool> {
        match &self.backend {
            Backend::Gpu(g) => {
                use cust::sys as cu;
                // SAFETY: the stream handle is live (owned by `g`).
                let r = unsafe { cu::cuStreamQuery(g.stream().as_inner()) };
                if r == cu::CUresult::CUDA_ERROR_NOT_READY {
                    return Ok(false);
                }
                crate::backend::driver_result(r, "waiting for a GPU's stream")?;
                Ok(true)
            }
            Backend::Emulator(_) => Ok(true),
        }
    }
}

impl Drop for Rank {
    fn drop(&mut self) {
        // Everything this rank allocated is freed in its own context.
        let _ = self.bind();
        self.plans.clear();
        self.identities.clear();
        self.extras.clear();
        self.events = None;
    }
}
