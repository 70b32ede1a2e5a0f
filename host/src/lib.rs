//! # reduce-host: run the reduction ladder on a GPU (or the CPU emulator)
//!
//! A library first: typed errors, no printing. The `reduce` binary and the benchmarks are thin
//! layers on top.
//!
//! ```no_run
//! use reduce_host::{Backend, BackendChoice, Reducer};
//! let backend = Backend::open(BackendChoice::Auto)?;
//! let mut reducer = Reducer::new(&backend);
//! let data: Vec<f32> = (0..1 << 22).map(|i| (i % 7) as f32).collect();
//! let input = backend.upload(&data)?;
//! let sum: f32 = reducer.sum(&input)?;
//! let max: Option<f32> = reducer.max(&input)?;
//! # Ok::<(), reduce_host::ReduceError>(())
//! ```
//!
//! * [`Reducer`] — the main API: stage 8 (one launch, tuned per device), any op and type.
//! * [`run_stage`] — any stage of the ladder, multi-pass on the device, with launch overrides.
//! * [`measure`] — CUDA-event timing, the blog's benchmark and profile tables.

pub mod backend;
pub mod error;
pub mod kernel_image;
pub mod measure;
pub mod plan;
pub mod stage;
pub mod types;

pub use backend::{Backend, BackendChoice, Buffer, DeviceCaps, Emulator, Gpu, KernelArgs, Launch};
pub use error::{ReduceError, Result};
pub use plan::{plan, LaunchOverrides, Plan};
pub use stage::Stage;
pub use types::{matches_reference, reference, ElemType, Op, Reference, Scalar};

/// Run `$body` with the type alias `$T` bound to the Rust type of an [`ElemType`] value: the one
/// place where a run-time element type becomes a compile-time one.
///
/// ```
/// use reduce_host::{with_elem_type, ElemType};
/// let size = with_elem_type!(ElemType::F64, T => std::mem::size_of::<T>());
/// assert_eq!(size, 8);
/// ```
#[macro_export]
macro_rules! with_elem_type {
    ($ty:expr, $T:ident => $body:expr) => {
        match $ty {
            $crate::ElemType::F32 => {
                type $T = f32;
                $body
            }
            $crate::ElemType::F64 => {
                type $T = f64;
                $body
            }
            $crate::ElemType::I32 => {
                type $T = i32;
                $body
            }
            $crate::ElemType::U32 => {
                type $T = u32;
                $body
            }
            $crate::ElemType::I64 => {
                type $T = i64;
                $body
            }
            $crate::ElemType::U64 => {
                type $T = u64;
                $body
            }
        }
    };
}

/// Device buffers a plan needs besides its input, allocated once and reused by every run.
pub struct Workspace<T: Scalar> {
    /// Ping-pong partials for ladder passes, or stage 8's per-block partials.
    partials: [Buffer<T>; 2],
    /// Stage 8's ticket counter (kept at 0 between launches by the kernel itself).
    counter: Buffer<u32>,
    /// Stage 8's result.
    out: Buffer<T>,
}

/// Where stage 8 leaves its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum ResultIn {
    /// In device memory; reading it costs a device-to-host copy after the kernel.
    DeviceMemory,
    /// In pinned host memory mapped into the device's address space: the kernel's last block
    /// stores the result straight into host RAM, so the caller reads it as soon as the kernel
    /// is done, with no copy command. The default for stage 8 on a GPU.
    MappedHost,
}

/// A plan with its workspace: launch it as often as you like.
pub struct Prepared<T: Scalar> {
    /// The plan.
    pub plan: Plan,
    ws: Workspace<T>,
    /// Stage 8's result in mapped pinned memory, and its device address.
    mapped: Option<backend::Mapped<T>>,
}

impl<T: Scalar> Prepared<T> {
    /// Allocate the workspace of `plan` on `backend`.
    pub fn new(backend: &Backend, plan: Plan) -> Result<Self> {
        Self::with_result_in(backend, plan, ResultIn::MappedHost)
    }

    /// Like [`Prepared::new`], choosing where stage 8 leaves its result (other stages and the
    /// emulator always use device memory).
    pub fn with_result_in(backend: &Backend, plan: Plan, result_in: ResultIn) -> Result<Self> {
        if plan.ty != T::TYPE {
            return Err(ReduceError::InvalidArgument(format!(
                "a plan for {} used with {} data",
                plan.ty,
                T::TYPE
            )));
        }
        let a = plan
            .passes
            .iter()
            .step_by(2)
            .map(|p| p.grid)
            .max()
            .unwrap_or(1);
        let b = plan
            .passes
            .iter()
            .skip(1)
            .step_by(2)
            .map(|p| p.grid)
            .max()
            .unwrap_or(1);
        let ws = Workspace {
            partials: [backend.zeroed(a)?, backend.zeroed(b)?],
            counter: backend.zeroed(1)?,
            out: backend.zeroed(1)?,
        };
        let mapped = match (backend, plan.stage, result_in) {
            (Backend::Gpu(_), Stage::S8, ResultIn::MappedHost) => Some(backend::Mapped::new(1)?),
            _ => None,
        };
        Ok(Prepared { plan, ws, mapped })
    }

    /// Where this plan leaves its result.
    pub fn result_in(&self) -> ResultIn {
        if self.mapped.is_some() {
            ResultIn::MappedHost
        } else {
            ResultIn::DeviceMemory
        }
    }

    /// Read the result of the last [`Prepared::enqueue`] (waits for it).
    pub fn read_result(&self, backend: &Backend) -> Result<T> {
        match &self.mapped {
            Some(host) => {
                // The kernel that writes it has finished once the stream is synchronized.
                backend.synchronize()?;
                Ok(host.read(0))
            }
            None => Ok(backend.download(self.result_buffer(), 1)?[0]),
        }
    }

    /// Queue every launch of the plan on `input[offset..offset + n]` (`n` as planned).
    pub fn enqueue(&self, backend: &Backend, input: &Buffer<T>, offset: usize) -> Result<()> {
        let n = self.plan.passes[0].n;
        if n > 0 && offset.checked_add(n).is_none_or(|end| end > input.len()) {
            return Err(ReduceError::InvalidArgument(format!(
                "the plan reads {n} elements from offset {offset} but the buffer holds {}",
                input.len()
            )));
        }
        for (k, pass) in self.plan.passes.iter().enumerate() {
            let src = if k == 0 {
                input.addr(offset)
            } else {
                self.ws.partials[(k - 1) % 2].addr(0)
            };
            let args = if self.plan.stage == Stage::S8 {
                KernelArgs::SinglePass {
                    input: src,
                    n: pass.n,
                    partials: self.ws.partials[0].addr(0),
                    counter: self.ws.counter.addr(0),
                    out: self
                        .mapped
                        .as_ref()
                        .map_or(self.ws.out.addr(0), |m| m.device_addr()),
                }
            } else {
                KernelArgs::Ladder {
                    input: src,
                    n: pass.n,
                    partials: self.ws.partials[k % 2].addr(0),
                }
            };
            backend.launch::<T>(&Launch {
                kernel: &self.plan.kernel,
                grid: pass.grid,
                block: pass.block,
                shared_bytes: pass.shared_bytes,
                args,
            })?;
        }
        Ok(())
    }

    /// The device buffer whose element 0 holds the result after [`Prepared::enqueue`] — only
    /// when [`Prepared::result_in`] is [`ResultIn::DeviceMemory`]; with
    /// [`ResultIn::MappedHost`] the kernel does not write it. [`Prepared::read_result`] reads the
    /// result wherever it is.
    pub fn result_buffer(&self) -> &Buffer<T> {
        if self.plan.stage == Stage::S8 {
            &self.ws.out
        } else {
            &self.ws.partials[(self.plan.passes.len() - 1) % 2]
        }
    }

    /// Run once and read the result back.
    pub fn run(&self, backend: &Backend, input: &Buffer<T>, offset: usize) -> Result<T> {
        self.enqueue(backend, input, offset)?;
        self.read_result(backend)
    }
}

/// Run any stage on the first `n` elements of `input` and return the single result (every pass on
/// the device). `mean` returns the sum; use [`Reducer::mean`] for the mean.
pub fn run_stage<T: Scalar>(
    backend: &Backend,
    stage: Stage,
    op: Op,
    input: &Buffer<T>,
    n: usize,
    overrides: LaunchOverrides,
) -> Result<T> {
    if n > input.len() {
        return Err(ReduceError::InvalidArgument(format!(
            "n = {n} but the buffer holds {} elements",
            input.len()
        )));
    }
    if n == 0 && matches!(op, Op::Min | Op::Max | Op::Mean) {
        return Err(ReduceError::EmptyInput { op });
    }
    let p = plan(stage, T::TYPE, op, n, overrides, backend.caps())?;
    Prepared::<T>::new(backend, p)?.run(backend, input, 0)
}

/// How many prepared plans (and workspaces) a [`Reducer`] keeps.
pub const MAX_CACHED_PLANS: usize = 32;

/// The library's main API: reductions with stage 8, configured by [`plan::SinglePassPolicy`] for
/// the device, workspaces cached per (type, op, n).
pub struct Reducer<'b> {
    backend: &'b Backend,
    overrides: LaunchOverrides,
    cache: std::collections::HashMap<(ElemType, Op, usize), Box<dyn std::any::Any>>,
}

impl<'b> Reducer<'b> {
    /// A reducer on `backend` with the tuned policy.
    pub fn new(backend: &'b Backend) -> Self {
        Reducer {
            backend,
            overrides: LaunchOverrides::default(),
            cache: Default::default(),
        }
    }

    /// Force a block size and/or grid size instead of the policy's.
    pub fn with_overrides(mut self, overrides: LaunchOverrides) -> Self {
        self.overrides = overrides;
        self
    }

    /// The backend.
    pub fn backend(&self) -> &'b Backend {
        self.backend
    }

    /// How many prepared plans are cached (at most [`MAX_CACHED_PLANS`]).
    pub fn cached_plans(&self) -> usize {
        self.cache.len()
    }

    /// The prepared stage-8 plan for `n` elements of `T` with `op` (cached).
    pub fn prepared<T: Scalar>(&mut self, op: Op, n: usize) -> Result<&Prepared<T>> {
        let key = (T::TYPE, op.device_op(), n);
        if !self.cache.contains_key(&key) {
            // Workspaces are small, but a caller cycling through many lengths must not grow
            // device memory without bound.
            if self.cache.len() >= MAX_CACHED_PLANS {
                self.cache.clear();
            }
            let p = plan(
                Stage::S8,
                T::TYPE,
                op,
                n,
                self.overrides,
                self.backend.caps(),
            )?;
            self.cache
                .insert(key, Box::new(Prepared::<T>::new(self.backend, p)?));
        }
        Ok(self.cache[&key]
            .downcast_ref::<Prepared<T>>()
            .expect("cache key includes the type"))
    }

    /// `op` over `input[offset..offset + len]`. `None` for min/max of nothing; a sum of nothing
    /// is 0.
    pub fn reduce_range<T: Scalar>(
        &mut self,
        op: Op,
        input: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<Option<T>> {
        if offset.checked_add(len).is_none_or(|e| e > input.len()) {
            return Err(ReduceError::InvalidArgument(format!(
                "range {offset}..{offset}+{len} is outside the {}-element buffer",
                input.len()
            )));
        }
        if len == 0 && op != Op::Sum {
            return Ok(None);
        }
        let backend = self.backend;
        let p = self.prepared::<T>(op, len)?;
        p.run(backend, input, offset).map(Some)
    }

    /// Sum (wrapping for integers); 0 for an empty buffer.
    pub fn sum<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<T> {
        Ok(self
            .reduce_range(Op::Sum, input, 0, input.len())?
            .unwrap_or_default())
    }
    /// Minimum; `None` for an empty buffer.
    pub fn min<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<Option<T>> {
        self.reduce_range(Op::Min, input, 0, input.len())
    }
    /// Maximum; `None` for an empty buffer.
    pub fn max<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<Option<T>> {
        self.reduce_range(Op::Max, input, 0, input.len())
    }
    /// Mean as `f64`: the device sum (in `T`, so integer sums wrap first) divided by the length;
    /// an error for an empty buffer.
    pub fn mean<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<f64> {
        if input.is_empty() {
            return Err(ReduceError::EmptyInput { op: Op::Mean });
        }
        Ok(self.sum(input)?.to_f64() / input.len() as f64)
    }
}
