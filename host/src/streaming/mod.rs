//! Data that starts on the host: [`HostReducer`] streams a `&[T]` (or a [`PinnedBuffer`])
//! through the GPU instead of uploading it whole and then reducing it.
//!
//! For data in host memory the reduction is a rounding error next to the copy (2^22 `f32`: the
//! kernel takes 12 µs, a pageable upload 1.3 ms), so the copy is what to make fast:
//!
//! * the input is cut into chunks ([`StreamPolicy::chunk_elems`]);
//! * each chunk is copied from **pinned** memory, at the link's speed: straight from a
//!   [`PinnedBuffer`], or, for pageable memory, from pinned staging buffers that several CPU
//!   threads fill (allocated once per `HostReducer` and reused by every call);
//! * the copy of chunk `i` (copy stream) overlaps the reduction of chunk `i − 1` (compute stream)
//!   and the staging of chunk `i + 1` (host), ordered by CUDA events;
//! * one partial per chunk goes into a device buffer, and one last stage-8 launch combines them.
//!
//! **Determinism contract:** the partials are combined in chunk order by the same kernels, so a
//! given input and [`StreamPolicy`] give the same bits on every call, whatever the thread count
//! or slots. Different chunk lengths may round floats differently (integers never differ). An
//! input of at most one chunk is reduced exactly as [`crate::Reducer`] reduces it on the device.
//!
//! Under the emulator the same chunking runs with plain copies, so CI tests the arithmetic.

pub mod link;
mod pipeline;
pub mod policy;
mod register;
mod settings;
pub mod timeline;
mod zero_copy;

use crate::backend::Backend;
use crate::error::{ReduceError, Result};
use crate::pinned::PinnedBuffer;
use crate::types::{ElemType, Op, Scalar};
use pipeline::{GpuStaging, Lanes, Source};
use policy::StreamPolicy;
use std::any::Any;
use std::collections::HashMap;
use std::time::Instant;
use timeline::{Recorder, Timeline};

/// Host data to reduce: an ordinary (pageable) slice, or a [`PinnedBuffer`].
#[derive(Clone, Copy)]
pub enum HostInput<'a, T: Scalar> {
    /// Ordinary memory (a `Vec`, a slice of one): staged through pinned buffers.
    Pageable(&'a [T]),
    /// Pinned memory of the reducer's backend: copied by the device straight from it (or read
    /// by the kernel where it lies, when the policy picks the zero-copy route for its size).
    Pinned(&'a PinnedBuffer<T>),
    /// Pinned memory, always by the zero-copy route: one stage-8 kernel reads the mapped host
    /// memory directly (no chunks; the same bits as [`crate::Reducer`] on device memory).
    ZeroCopy(&'a PinnedBuffer<T>),
}

impl<'a, T: Scalar> From<&'a [T]> for HostInput<'a, T> {
    fn from(d: &'a [T]) -> Self {
        HostInput::Pageable(d)
    }
}
impl<'a, T: Scalar> From<&'a Vec<T>> for HostInput<'a, T> {
    fn from(d: &'a Vec<T>) -> Self {
        HostInput::Pageable(d)
    }
}
impl<'a, T: Scalar> From<&'a PinnedBuffer<T>> for HostInput<'a, T> {
    fn from(d: &'a PinnedBuffer<T>) -> Self {
        HostInput::Pinned(d)
    }
}

impl<T: Scalar> HostInput<'_, T> {
    /// The elements.
    pub fn as_slice(&self) -> &[T] {
        match self {
            HostInput::Pageable(d) => d,
            HostInput::Pinned(p) | HostInput::ZeroCopy(p) => p.as_slice(),
        }
    }
}

/// How a [`HostReducer`] call moved the data ([`HostReducer::last_route`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Route {
    /// Pageable memory, staged into pinned buffers by CPU threads, then copied in chunks.
    Staged,
    /// Pageable memory page-locked in place for the call, then copied in chunks from it.
    Registered,
    /// Pinned memory, copied in chunks straight from it.
    Pinned,
    /// Pinned memory read by one kernel where it lies (no copy).
    ZeroCopy,
    /// The emulator: plain copies into the chunk buffers.
    Emulated,
}

/// Reductions of host data, streamed through the device (see the [module docs](self)).
///
/// ```no_run
/// use reduce_host::{Backend, BackendChoice, HostReducer, PinnedBuffer};
/// let backend = Backend::open(BackendChoice::Auto)?;
/// let mut r = HostReducer::new(&backend);
/// let data: Vec<f32> = vec![1.0; 1 << 26];
/// let sum: f32 = r.sum_host(&data)?;               // pageable: staged by CPU threads
/// let pinned = PinnedBuffer::from_slice(&backend, &data)?;
/// let max: Option<f32> = r.max_host(&pinned)?;     // pinned: copied at the link's speed
/// # Ok::<(), reduce_host::ReduceError>(())
/// ```
pub struct HostReducer<'b> {
    backend: &'b Backend,
    policy: StreamPolicy,
    lanes: HashMap<ElemType, Box<dyn Any>>,
    staging: Option<GpuStaging>,
    last_route: Option<Route>,
}

impl<'b> HostReducer<'b> {
    /// A streaming reducer on `backend` with the default [`StreamPolicy`]. Buffers are allocated
    /// by the first call (pinned staging: `slots × max_chunk_bytes`; device: as much per type).
    pub fn new(backend: &'b Backend) -> Self {
        HostReducer {
            backend,
            policy: StreamPolicy::default(),
            lanes: HashMap::new(),
            staging: None,
            last_route: None,
        }
    }

    /// How the last call that had data moved it (`None` before any such call).
    pub fn last_route(&self) -> Option<Route> {
        self.last_route
    }

    /// Use `policy` instead (drops the buffers made for the old one).
    ///
    /// # Errors
    /// [`ReduceError::InvalidArgument`] if a chunk could not hold one element of every type
    /// (`max_chunk_bytes < 8`) or `copy_threads` is 0.
    pub fn with_policy(mut self, policy: StreamPolicy) -> Result<Self> {
        if policy.max_chunk_bytes < 8 || policy.copy_threads == 0 {
            return Err(ReduceError::InvalidArgument(format!(
                "stream policy: max_chunk_bytes must be at least 8 (is {}) and copy_threads at \
                 least 1 (is {})",
                policy.max_chunk_bytes, policy.copy_threads
            )));
        }
        self.policy = policy;
        self.lanes.clear();
        self.staging = None;
        Ok(self)
    }

    /// The policy in use.
    pub fn policy(&self) -> &StreamPolicy {
        &self.policy
    }

    /// The backend.
    pub fn backend(&self) -> &'b Backend {
        self.backend
    }

    /// `op` over host data: `None` for min/max of nothing, 0 for a sum of nothing.
    /// [`Op::Mean`] is an error (a mean is not a `T`): use [`HostReducer::mean_host`].
    ///
    /// # Errors
    /// [`ReduceError::WrongOp`] for an arg or transform op (empty input or not); a
    /// [`PinnedBuffer`] of another backend, or a device error.
    pub fn reduce_host<'a, T: Scalar>(
        &mut self,
        op: Op,
        input: impl Into<HostInput<'a, T>>,
    ) -> Result<Option<T>> {
        self.run(op, input.into(), None)
    }

    /// [`HostReducer::reduce_host`], also returning the [`Timeline`] of the call (CUDA timing
    /// events around every copy and kernel: a little slower; no intervals on the emulator).
    pub fn reduce_host_timeline<'a, T: Scalar>(
        &mut self,
        op: Op,
        input: impl Into<HostInput<'a, T>>,
    ) -> Result<(Option<T>, Timeline)> {
        let input = input.into();
        let n = input.as_slice().len();
        let mut timeline = Timeline {
            ty: T::TYPE.name().to_string(),
            n,
            input: match input {
                HostInput::Pageable(_) => "pageable",
                HostInput::Pinned(_) => "pinned",
                HostInput::ZeroCopy(_) => "zero-copy",
            }
            .to_string(),
            chunk_elems: self.policy.chunk_elems(n, T::TYPE),
            chunks: n.div_ceil(self.policy.chunk_elems(n, T::TYPE)),
            total_ms: 0.0,
            spans: Vec::new(),
        };
        let t = Instant::now();
        let v = self.run(op, input, Some(&mut timeline.spans))?;
        timeline.total_ms = t.elapsed().as_secs_f64() * 1e3;
        Ok((v, timeline))
    }

    /// Sum (wrapping for integers); 0 for no elements.
    pub fn sum_host<'a, T: Scalar>(&mut self, input: impl Into<HostInput<'a, T>>) -> Result<T> {
        Ok(self.reduce_host(Op::Sum, input)?.unwrap_or_default())
    }

    /// Minimum; `None` for no elements.
    pub fn min_host<'a, T: Scalar>(
        &mut self,
        input: impl Into<HostInput<'a, T>>,
    ) -> Result<Option<T>> {
        self.reduce_host(Op::Min, input)
    }

    /// Maximum; `None` for no elements.
    pub fn max_host<'a, T: Scalar>(
        &mut self,
        input: impl Into<HostInput<'a, T>>,
    ) -> Result<Option<T>> {
        self.reduce_host(Op::Max, input)
    }

    /// Mean as `f64`, as [`crate::Reducer::mean`] defines it: floats, the streamed sum over the
    /// length; integers, the **exact** sum over the length — recovered from the wrapped sum, the
    /// minimum and the maximum (three streamed passes) when `n·(max − min) < 2^bits`, otherwise
    /// added on the host in `i128` (the data is there already).
    ///
    /// # Errors
    /// [`ReduceError::EmptyInput`] for no elements; as [`HostReducer::reduce_host`].
    pub fn mean_host<'a, T: Scalar>(&mut self, input: impl Into<HostInput<'a, T>>) -> Result<f64> {
        let input = input.into();
        let data = input.as_slice();
        let n = data.len();
        if n == 0 {
            return Err(ReduceError::EmptyInput { op: Op::Mean });
        }
        if T::TYPE.is_float() {
            return Ok(self.sum_host(input)?.to_f64() / n as f64);
        }
        let mut device = |op| -> Result<i128> {
            let v = self.reduce_host(op, input)?.unwrap_or_default();
            Ok(v.to_i128().expect("an integer type"))
        };
        let (wrapped, lo, hi) = (device(Op::Sum)?, device(Op::Min)?, device(Op::Max)?);
        let modulus = 1i128 << (8 * T::TYPE.size());
        let len = n as i128;
        let sum = if len * (hi - lo) < modulus {
            len * lo + (wrapped - len * lo).rem_euclid(modulus)
        } else {
            data.iter().filter_map(|x| x.to_i128()).sum::<i128>()
        };
        Ok(sum as f64 / n as f64)
    }

    fn run<T: Scalar>(
        &mut self,
        op: Op,
        input: HostInput<'_, T>,
        spans: Option<&mut Vec<timeline::Span>>,
    ) -> Result<Option<T>> {
        // Before any shortcut (an empty input): an arg or transform op is a typed error.
        ReduceError::check_op(op, &Op::REDUCE, "a reduce op")?;
        if op.is_mean() {
            return Err(ReduceError::InvalidArgument(
                "a mean is an f64, not a value of the element type: use HostReducer::mean_host"
                    .into(),
            ));
        }
        let zero_copy = match input {
            HostInput::Pageable(_) => None,
            HostInput::Pinned(p) => {
                let bytes = std::mem::size_of_val(p.as_slice());
                self.policy.zero_copy(bytes).then_some(p)
            }
            HostInput::ZeroCopy(p) => Some(p),
        };
        let src = match input {
            HostInput::Pageable(d) => Source::Pageable(d),
            HostInput::Pinned(p) | HostInput::ZeroCopy(p) => {
                p.check_owner(self.backend.id())?;
                if p.is_page_locked() {
                    Source::Pinned(p.as_slice())
                } else {
                    Source::Pageable(p.as_slice())
                }
            }
        };
        if src.data().is_empty() {
            return Ok(match op {
                _ if op.is_extreme() => None,
                Op::Prod => Some(T::ONE),
                _ => Some(T::default()),
            });
        }
        let backend = self.backend;
        let policy = &self.policy;
        let lanes = match self.lanes.entry(T::TYPE) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(Box::new(Lanes::<T>::new(backend, policy)?))
            }
        }
        .downcast_mut::<Lanes<T>>()
        .expect("keyed by the element type");
        if let Some(p) = zero_copy {
            let n = p.len();
            if lanes.zero_copy.len() > 16 {
                lanes.zero_copy.clear();
            }
            let plan = match lanes.zero_copy.entry((op, n)) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(zero_copy::ZeroCopyPlan::new(backend, op, n)?)
                }
            };
            self.last_route = Some(Route::ZeroCopy);
            return plan.run(backend, p).map(Some);
        }
        let Some(gpu) = backend.gpu() else {
            self.last_route = Some(Route::Emulated);
            return pipeline::reduce_emulated(backend, lanes, policy, op, src.data()).map(Some);
        };
        if self.staging.is_none() {
            self.staging = Some(GpuStaging::new(policy)?);
        }
        let staging = self.staging.as_mut().expect("allocated above");
        // Pageable memory large enough is page-locked in place (and copied like pinned memory)
        // when the policy says so and the driver agrees; the guard unlocks it after the call.
        let _registered;
        let (src, route) = match src {
            Source::Pageable(d) if policy.register(std::mem::size_of_val(d)) => {
                match register::Registered::new(d) {
                    Some(r) => {
                        _registered = r;
                        (Source::Pinned(d), Route::Registered)
                    }
                    None => (src, Route::Staged),
                }
            }
            Source::Pageable(_) => (src, Route::Staged),
            Source::Pinned(_) => (src, Route::Pinned),
        };
        self.last_route = Some(route);
        let mut rec = match spans {
            Some(_) => Some(Recorder::new(gpu.stream())?),
            None => None,
        };
        let v = pipeline::reduce_gpu(backend, staging, lanes, policy, op, src, &mut rec)?;
        if let (Some(spans), Some(rec)) = (spans, rec) {
            *spans = rec.finish()?;
        }
        Ok(Some(v))
    }
}
