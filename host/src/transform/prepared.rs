//! [`PreparedTransform`]: a transform plan with its workspace, the one place that launches the
//! transform kernels. Every address a launch gets is derived here from typed buffers of the same
//! backend and a plan made by [`super::plan_transform_on`] (plans are not taken from callers).

use super::plan::{plan_transform_looped_on, TransformLoop, TransformPlan};
use crate::backend::{self, Backend, KernelArgs, Launch, On};
use crate::buffer::{BackendId, Buffer};
use crate::error::{ReduceError, Result};
use crate::plan::LaunchOverrides;
use crate::plan::ResultIn;
use crate::types::Op;
use crate::types::Scalar;
use crate::view::View;
use reduce_kernels::transform::WORDS;
use std::marker::PhantomData;

/// A transform plan for `n` elements of `T` with its workspace: run it as often as you like.
pub struct PreparedTransform<T: Scalar> {
    plan: TransformPlan,
    owner: BackendId,
    /// `3 · grid` doubles: each block's partial.
    partials: Buffer<f64>,
    /// The ticket counter (kept at 0 between launches by the kernel itself).
    counter: Buffer<u32>,
    /// The three result words, in device memory (the emulator, or `mapped` absent).
    out: Buffer<f64>,
    /// On a GPU: the result words in mapped pinned host memory (no copy back).
    mapped: Option<backend::Mapped<f64>>,
    _elements: PhantomData<T>,
}

impl<T: Scalar> PreparedTransform<T> {
    /// Plan `op` over `n` elements of `T` with the default policy and allocate the workspace.
    pub fn new(backend: &Backend, op: Op, n: usize) -> Result<Self> {
        Self::with_overrides(backend, op, n, LaunchOverrides::default())
    }

    /// [`PreparedTransform::new`] with a forced block and/or grid size.
    pub fn with_overrides(
        backend: &Backend,
        op: Op,
        n: usize,
        overrides: LaunchOverrides,
    ) -> Result<Self> {
        Self::with_result_in(backend, op, n, overrides, ResultIn::MappedHost)
    }

    /// [`PreparedTransform::with_overrides`], choosing where the result lands: mapped pinned
    /// host memory (the default on a GPU: no copy back, but a pinned allocation per plan) or
    /// device memory (a 24-byte copy per read). The emulator always uses device memory.
    pub fn with_result_in(
        backend: &Backend,
        op: Op,
        n: usize,
        overrides: LaunchOverrides,
        result_in: ResultIn,
    ) -> Result<Self> {
        Self::with_loop(backend, op, n, overrides, result_in, None)
    }

    /// [`PreparedTransform::with_result_in`] with the kernel's loop forced (`None`: the plan's
    /// choice; see [`plan_transform_looped_on`]).
    pub fn with_loop(
        backend: &Backend,
        op: Op,
        n: usize,
        overrides: LaunchOverrides,
        result_in: ResultIn,
        looping: Option<TransformLoop>,
    ) -> Result<Self> {
        let plan = plan_transform_looped_on(backend, op, T::TYPE, n, overrides, looping)?;
        backend.resolve(plan.kernel)?;
        let mapped = match (backend, result_in) {
            (Backend::Gpu(_), ResultIn::MappedHost) => Some(backend::Mapped::new(WORDS)?),
            _ => None,
        };
        Ok(PreparedTransform {
            partials: backend.zeroed(WORDS * plan.grid)?,
            counter: backend.zeroed(1)?,
            out: backend.zeroed(WORDS)?,
            owner: backend.id(),
            mapped,
            plan,
            _elements: PhantomData,
        })
    }

    /// The plan.
    pub fn plan(&self) -> &TransformPlan {
        &self.plan
    }

    /// Queue one launch over `a[a_offset..a_offset + n]` (and, for the dot product,
    /// `b[b_offset..b_offset + n]`), `n` as planned.
    ///
    /// # Errors
    /// [`ReduceError::ForeignBuffer`] for a backend or buffer not this plan's;
    /// [`ReduceError::OutOfBounds`] for a range past a buffer's end;
    /// [`ReduceError::InvalidArgument`] for a missing second input for the dot product, or a
    /// second input for a one-input op.
    pub fn enqueue(
        &self,
        backend: &Backend,
        a: &Buffer<T>,
        a_offset: usize,
        b: Option<(&Buffer<T>, usize)>,
    ) -> Result<()> {
        self.check_backend(backend)?;
        let n = self.plan.n;
        a.check_owner(self.owner, "the input buffer")?;
        let a = a.window("a_offset", a_offset, n)?;
        let b = match b {
            Some((b, off)) => {
                b.check_owner(self.owner, "the second input buffer")?;
                Some(b.window("b_offset", off, n)?)
            }
            None => None,
        };
        self.enqueue_views(backend, a, b)
    }

    /// Queue one launch over `a` (and, for the dot product, `b`), views of exactly `n` elements
    /// (a buffer's range or borrowed device memory, [`crate::borrowed`]; borrowed ones are waited
    /// for).
    ///
    /// # Errors
    /// As [`PreparedTransform::enqueue`]; [`ReduceError::OutOfBounds`] naming `input` for a view
    /// of another length.
    pub fn enqueue_views(
        &self,
        backend: &Backend,
        a: View<'_, T>,
        b: Option<View<'_, T>>,
    ) -> Result<()> {
        // SAFETY: our own stream, and the call waits for borrowed inputs below.
        unsafe { self.queue_on(backend, a, b, On::Own)? };
        crate::borrowed::wait_if_borrowed(backend, &a)?;
        match b {
            Some(b) => crate::borrowed::wait_if_borrowed(backend, &b),
            None => Ok(()),
        }
    }

    /// Queue one launch over `a` (and `b`) on `on`'s stream, without waiting.
    ///
    /// # Safety
    /// A caller's stream is a live stream of the GPU's context (or null); the inputs stay
    /// allocated, and unwritten, until that stream has run the launch.
    pub(crate) unsafe fn queue_on(
        &self,
        backend: &Backend,
        a: View<'_, T>,
        b: Option<View<'_, T>>,
        on: On,
    ) -> Result<()> {
        self.check_backend(backend)?;
        let n = self.plan.n;
        let check = |v: &View<'_, T>, what: &str| -> Result<u64> {
            v.check_owner(self.owner, what)?;
            crate::borrowed::check_view_len(v, n)?;
            v.addr(0)
        };
        let a_addr = check(&a, "the input buffer")?;
        let b_addr = match (self.plan.op.inputs(), b) {
            (2, Some(b)) => check(&b, "the second input buffer")?,
            (2, None) => {
                return Err(ReduceError::InvalidArgument(
                    "the dot product needs a second input".into(),
                ))
            }
            (_, Some(_)) => {
                return Err(ReduceError::InvalidArgument(format!(
                    "{} reads one input, but a second was given",
                    self.plan.op.name()
                )))
            }
            (_, None) => 0,
        };
        let launch = Launch {
            kernel: self.plan.kernel,
            grid: self.plan.grid,
            block: self.plan.block,
            shared_bytes: self.plan.shared_bytes,
            args: KernelArgs::Transform {
                a: a_addr,
                b: b_addr,
                n,
                partials: self.partials.addr(0),
                counter: self.counter.addr(0),
                out: self
                    .mapped
                    .as_ref()
                    .map_or(self.out.addr(0), |m| m.device_addr()),
            },
        };
        // SAFETY: `a` (and `b` for the dot product, null otherwise) are live buffers of `backend`
        // (checked above; so is the workspace, allocated on it) of element type `T` holding `n`
        // elements from their offsets (checked above); `partials` holds `3 · grid` doubles,
        // `counter` is a `u32` the kernel keeps at 0, the result holds three doubles (device or
        // mapped). The kernel, block and shared memory are `plan_transform_on`'s for this op and
        // type, so the kernel takes exactly these arguments. The workspace lives as long as
        // `self`, and freeing device memory waits for the kernels using it; the stream and the
        // inputs' lifetimes are this function's contract.
        unsafe { backend.launch_on::<T>(&launch, on) }
    }

    /// The three result words of the last [`PreparedTransform::enqueue`] (waits for it): the
    /// sum in word 0, or (count, mean, M2) for moments.
    pub fn read(&self, backend: &Backend) -> Result<[f64; WORDS]> {
        self.check_backend(backend)?;
        match &self.mapped {
            Some(host) => {
                backend.synchronize()?;
                Ok([host.read(0), host.read(1), host.read(2)])
            }
            None => {
                let v = backend.download(&self.out, WORDS)?;
                Ok([v[0], v[1], v[2]])
            }
        }
    }

    /// Launch once and read the result words.
    pub fn run(
        &self,
        backend: &Backend,
        a: &Buffer<T>,
        a_offset: usize,
        b: Option<(&Buffer<T>, usize)>,
    ) -> Result<[f64; WORDS]> {
        self.enqueue(backend, a, a_offset, b)?;
        self.read(backend)
    }

    /// [`PreparedTransform::enqueue_views`] once and read the result words.
    pub fn run_views(
        &self,
        backend: &Backend,
        a: View<'_, T>,
        b: Option<View<'_, T>>,
    ) -> Result<[f64; WORDS]> {
        self.enqueue_views(backend, a, b)?;
        self.read(backend)
    }

    fn check_backend(&self, backend: &Backend) -> Result<()> {
        self.owner
            .check_same(backend.id(), "the prepared transform's workspace")
    }
}
