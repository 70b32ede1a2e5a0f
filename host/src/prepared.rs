//! A plan with its workspace: the safe way to launch kernels. Every address a launch gets is
//! derived here from typed buffers of the same backend and a plan checked against [`plan()`].

use crate::backend::{self, Backend, KernelArgs, Launch};
use crate::buffer::{BackendId, Buffer};
use crate::error::{ReduceError, Result};
use crate::plan::{plan, LaunchOverrides, Plan, ResultIn};
use crate::stage::Stage;
use crate::types::Scalar;
use crate::view::View;

/// Device buffers a plan needs besides its input, allocated once and reused by every run.
pub struct Workspace<T: Scalar> {
    /// Ping-pong partials for the multi-pass stages, or stage 8's per-block partials.
    partials: [Buffer<T>; 2],
    /// Stage 8's ticket counter (kept at 0 between launches by the kernel itself).
    counter: Buffer<u32>,
    /// Stage 8's result.
    out: Buffer<T>,
}

/// A plan with its workspace: launch it as often as you like.
pub struct Prepared<T: Scalar> {
    /// The plan (read it freely: a `Prepared` launches the copy it checked, which is private).
    pub plan: Plan,
    checked: Plan,
    owner: BackendId,
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
    ///
    /// `plan` must be what [`plan()`] gives on this backend for its stage, type, operator,
    /// length and launch shape; any other (hand-edited) plan is rejected, because its kernel
    /// name, block size, shared memory and pass lengths are what make the launches safe.
    pub fn with_result_in(backend: &Backend, plan: Plan, result_in: ResultIn) -> Result<Self> {
        if plan.ty != T::TYPE {
            return Err(ReduceError::InvalidArgument(format!(
                "a plan for {} used with {} data",
                plan.ty,
                T::TYPE
            )));
        }
        check_plan(backend, &plan)?;
        // Look the kernel up now (on the PTX path this loads its module), so that no launch of
        // this plan loads a module: one inside a stream capture would end the capture.
        backend.resolve(plan.kernel)?;
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
        Ok(Prepared {
            checked: plan.clone(),
            plan,
            owner: backend.id(),
            ws,
            mapped,
        })
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
        self.check_backend(backend)?;
        match &self.mapped {
            Some(host) => {
                // The kernel that writes it has finished once the stream is synchronized.
                backend.synchronize()?;
                Ok(host.read(0))
            }
            None => Ok(backend.download(self.result_buffer(), 1)?[0]),
        }
    }

    /// Queue every launch of the plan on `input[offset..offset + n]` (`n` as planned). `backend`
    /// and `input` must be the backend this was prepared on and one of its buffers.
    pub fn enqueue(&self, backend: &Backend, input: &Buffer<T>, offset: usize) -> Result<()> {
        self.check_backend(backend)?;
        input.check_owner(self.owner, "the input buffer")?;
        let n = self.checked.passes[0].n;
        self.enqueue_view(backend, input.window("offset", offset, n)?)
    }

    /// Queue every launch of the plan on `input`, a [`View`] of exactly the planned length, of
    /// the backend this was prepared on (a buffer's range, or borrowed device memory:
    /// [`crate::borrowed`]). For a borrowed view it waits for the launches, so that the
    /// memory's owner may free it once the borrow ends.
    ///
    /// # Errors
    /// [`ReduceError::ForeignBuffer`] for another backend's view or backend;
    /// [`ReduceError::OutOfBounds`] naming `input` for a view of another length.
    pub fn enqueue_view(&self, backend: &Backend, input: View<'_, T>) -> Result<()> {
        self.launch_into(backend, input, None, |b, l| {
            // SAFETY: `launch_into`'s launches on `backend`'s own stream: its addresses come
            // from `backend`'s buffers and a view of it (checked there).
            unsafe { b.launch::<T>(l) }
        })?;
        crate::borrowed::wait_if_borrowed(backend, &input)
    }

    /// Check `input` (and `out`, a device address for the result instead of the workspace's)
    /// and hand every launch of the plan to `launch`, in order.
    pub(crate) fn launch_into(
        &self,
        backend: &Backend,
        input: View<'_, T>,
        out: Option<u64>,
        mut launch: impl FnMut(&Backend, &Launch) -> Result<()>,
    ) -> Result<()> {
        self.check_backend(backend)?;
        input.check_owner(self.owner, "the input buffer")?;
        let plan = &self.checked;
        let n = plan.passes[0].n;
        if input.len() != n {
            return Err(ReduceError::bounds(
                "input",
                format!("a view of {} elements given to a plan for {n}", input.len()),
            ));
        }
        for (k, pass) in plan.passes.iter().enumerate() {
            let src = if k == 0 {
                input.addr(0)?
            } else {
                self.ws.partials[(k - 1) % 2].addr(0)
            };
            let args = if plan.stage == Stage::S8 {
                KernelArgs::SinglePass {
                    input: src,
                    n: pass.n,
                    partials: self.ws.partials[0].addr(0),
                    counter: self.ws.counter.addr(0),
                    out: out.unwrap_or_else(|| {
                        self.mapped
                            .as_ref()
                            .map_or(self.ws.out.addr(0), |m| m.device_addr())
                    }),
                }
            } else {
                KernelArgs::MultiPass {
                    input: src,
                    n: pass.n,
                    partials: self.ws.partials[k % 2].addr(0),
                }
            };
            // Every address is from a live buffer of `backend` (checked above; the workspace
            // was allocated on it) or the checked view, with element type `T` (the counter
            // `u32`, the result `T`): the input holds `n` elements (checked above), pass `k > 0`
            // reads the partials pass `k - 1` wrote, and each partials buffer holds the largest
            // grid of the passes that write it (`with_result_in`). The kernel, block size and
            // shared memory are `plan()`'s own for this stage and type (`check_plan`), so the
            // kernel takes exactly these arguments. The workspace lives as long as `self`, and
            // freeing device memory (`cuMemFree`) waits for the kernels using it.
            launch(
                backend,
                &Launch {
                    kernel: plan.kernel,
                    grid: pass.grid,
                    block: pass.block,
                    shared_bytes: pass.shared_bytes,
                    args,
                },
            )?;
        }
        Ok(())
    }

    fn check_backend(&self, backend: &Backend) -> Result<()> {
        self.owner
            .check_same(backend.id(), "the prepared plan's workspace")
    }

    /// The device buffer whose element 0 holds the result after [`Prepared::enqueue`] — only
    /// when [`Prepared::result_in`] is [`ResultIn::DeviceMemory`]; with
    /// [`ResultIn::MappedHost`] the kernel does not write it. [`Prepared::read_result`] reads the
    /// result wherever it is.
    pub fn result_buffer(&self) -> &Buffer<T> {
        if self.checked.stage == Stage::S8 {
            &self.ws.out
        } else {
            &self.ws.partials[(self.checked.passes.len() - 1) % 2]
        }
    }

    /// Run once and read the result back.
    pub fn run(&self, backend: &Backend, input: &Buffer<T>, offset: usize) -> Result<T> {
        self.enqueue(backend, input, offset)?;
        self.read_result(backend)
    }

    /// [`Prepared::enqueue_view`] once and read the result back. Reading waits for the stream,
    /// which is also the wait a borrowed input needs: one synchronization, not two.
    pub fn run_view(&self, backend: &Backend, input: View<'_, T>) -> Result<T> {
        let queued = self.launch_into(backend, input, None, |b, l| {
            // SAFETY: as in `enqueue_view`.
            unsafe { b.launch::<T>(l) }
        });
        if let Err(e) = queued {
            // Launches queued before the failure may still read a borrowed input.
            crate::borrowed::wait_if_borrowed(backend, &input)?;
            return Err(e);
        }
        self.read_result(backend)
    }
}

/// `plan` must be exactly what [`plan()`] makes for its own stage, type, operator, length and
/// launch shape on `backend`.
fn check_plan(backend: &Backend, p: &Plan) -> Result<()> {
    let first = p.passes.first().ok_or_else(|| {
        ReduceError::InvalidArgument("a plan with no passes (plans come from plan())".into())
    })?;
    let overrides = LaunchOverrides {
        block: Some(first.block),
        grid: matches!(p.stage, Stage::S7 | Stage::S8).then_some(first.grid),
    };
    let again = plan(p.stage, p.ty, p.op, first.n, overrides, backend.caps())?;
    if &again != p {
        return Err(ReduceError::InvalidArgument(format!(
            "this {} plan is not what plan() makes for {} {} of {} elements on {}: make plans with \
             plan() on the backend they run on",
            p.stage,
            p.ty,
            p.op,
            first.n,
            backend.caps().name
        )));
    }
    Ok(())
}
