//! An exact-sum plan with its workspace: the one place that launches the exact kernels.

use super::plan::{exact_plan, ExactPlan, ExactPolicy};
use super::reference::ExactFloat;
use crate::backend::{Backend, KernelArgs, On};
use crate::buffer::{BackendId, Buffer};
use crate::error::Result;
use crate::plan::LaunchOverrides;
use crate::view::View;

/// A checked [`ExactPlan`] and its device workspace (the grid's words, ticket counter, result),
/// reusable for any number of runs.
pub struct PreparedExact<T: ExactFloat> {
    /// The plan (a copy; the checked one is private).
    pub plan: ExactPlan,
    checked: ExactPlan,
    owner: BackendId,
    words: Buffer<i64>,
    counter: Buffer<u32>,
    out: Buffer<T>,
}

impl<T: ExactFloat> PreparedExact<T> {
    /// Plan an exact sum of `n` elements on `backend` (with `overrides`) and allocate its
    /// workspace.
    pub fn new(backend: &Backend, n: usize, overrides: LaunchOverrides) -> Result<Self> {
        Self::with_policy(backend, n, overrides, ExactPolicy::default())
    }

    /// [`PreparedExact::new`] under `policy` (kernel variant, block, grid shape).
    pub fn with_policy(
        backend: &Backend,
        n: usize,
        overrides: LaunchOverrides,
        policy: ExactPolicy,
    ) -> Result<Self> {
        let plan = exact_plan(T::TYPE, n, overrides, backend.caps(), policy)?;
        backend.resolve(plan.kernel)?;
        Ok(PreparedExact {
            words: backend.zeroed(plan.slots)?,
            counter: backend.zeroed(1)?,
            out: backend.zeroed(1)?,
            owner: backend.id(),
            checked: plan.clone(),
            plan,
        })
    }

    /// Queue the launch on `input[offset..offset + n]`.
    pub fn enqueue(&self, backend: &Backend, input: &Buffer<T>, offset: usize) -> Result<()> {
        self.owner
            .check_same(backend.id(), "the exact sum's workspace")?;
        input.check_owner(self.owner, "the input buffer")?;
        self.enqueue_view(backend, input.window("offset", offset, self.checked.n)?)
    }

    /// Queue the launch on `input`, a view of exactly `n` elements (a buffer's range or borrowed
    /// device memory, [`crate::borrowed`]; a borrowed one is waited for).
    pub fn enqueue_view(&self, backend: &Backend, input: View<'_, T>) -> Result<()> {
        // SAFETY: our own stream, and the call waits for a borrowed input below.
        unsafe { self.queue_on(backend, input, On::Own)? };
        crate::borrowed::wait_if_borrowed(backend, &input)
    }

    /// Queue the launch on `input` on `on`'s stream, without waiting.
    ///
    /// # Safety
    /// A caller's stream is a live stream of the GPU's context (or null); `input` stays
    /// allocated, and unwritten, until that stream has run the launch.
    pub(crate) unsafe fn queue_on(
        &self,
        backend: &Backend,
        input: View<'_, T>,
        on: On,
    ) -> Result<()> {
        self.owner
            .check_same(backend.id(), "the exact sum's workspace")?;
        input.check_owner(self.owner, "the input buffer")?;
        let p = &self.checked;
        crate::borrowed::check_view_len(&input, p.n)?;
        // The exact kernels take stage 8's five arguments, with 64-bit words for partials.
        let launch = p.launch(KernelArgs::SinglePass {
            input: input.addr(0)?,
            n: p.n,
            partials: self.words.addr(0),
            counter: self.counter.addr(0),
            out: self.out.addr(0),
        });
        // SAFETY: every address is from a live buffer of `backend` (checked above; the workspace
        // was allocated on it): `n` input elements of the checked view, `slots` words and a
        // counter, zeroed at allocation and left zeroed by every launch, one result.
        // Kernel, block and shared memory are `exact_plan`'s own (the private `checked` copy),
        // so the kernel takes exactly these arguments; the workspace lives as long as `self`,
        // and freeing device memory waits for the kernels using it; the stream and the input's
        // lifetime are this function's contract.
        unsafe { backend.launch_on::<T>(&launch, on) }
    }

    /// Read the result of the last [`PreparedExact::enqueue`] (waits for it).
    pub fn read_result(&self, backend: &Backend) -> Result<T> {
        Ok(backend.download(&self.out, 1)?[0])
    }

    /// Run once and read the result.
    pub fn run(&self, backend: &Backend, input: &Buffer<T>, offset: usize) -> Result<T> {
        self.enqueue(backend, input, offset)?;
        self.read_result(backend)
    }

    /// [`PreparedExact::enqueue_view`] once and read the result.
    pub fn run_view(&self, backend: &Backend, input: View<'_, T>) -> Result<T> {
        self.enqueue_view(backend, input)?;
        self.read_result(backend)
    }
}
