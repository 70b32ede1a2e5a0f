//! The zero-copy route: one stage-8 launch whose input address is the caller's pinned host
//! memory, mapped into the device's address space. The kernel's loads cross the link
//! themselves, so there is no copy command, no staging and no second stream: for small inputs
//! that saves the fixed cost of a copy; for large ones the copy engines are usually faster than
//! the SMs' scattered reads over PCIe. [`super::StreamPolicy::zero_copy_max_bytes`] decides.

use crate::backend::{Backend, KernelArgs, Launch};
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::pinned::PinnedBuffer;
use crate::plan::{plan, LaunchOverrides, Plan};
use crate::stage::Stage;
use crate::types::{Op, Scalar};

/// A stage-8 plan for one length with its workspace (per-block partials, the ticket counter the
/// kernel keeps at 0 between launches, the result).
pub(crate) struct ZeroCopyPlan<T: Scalar> {
    plan: Plan,
    partials: Buffer<T>,
    counter: Buffer<u32>,
    out: Buffer<T>,
}

impl<T: Scalar> ZeroCopyPlan<T> {
    pub(crate) fn new(backend: &Backend, op: Op, n: usize) -> Result<Self> {
        let plan = plan(
            Stage::S8,
            T::TYPE,
            op,
            n,
            LaunchOverrides::default(),
            backend.caps(),
        )?;
        let [pass] = plan.passes.as_slice() else {
            return Err(ReduceError::InvalidArgument(format!(
                "stage 8 planned {} passes for {n} elements; the zero-copy route needs one",
                plan.passes.len()
            )));
        };
        let grid = pass.grid;
        Ok(ZeroCopyPlan {
            partials: backend.zeroed(grid)?,
            counter: backend.zeroed(1)?,
            out: backend.zeroed(1)?,
            plan,
        })
    }

    /// `op` over all of `input`, read by the kernel where it lies.
    pub(crate) fn run(&self, backend: &Backend, input: &PinnedBuffer<T>) -> Result<T> {
        input.check_owner(backend.id())?;
        let pass = &self.plan.passes[0];
        if input.len() != pass.n || (backend.gpu().is_some() && !input.is_page_locked()) {
            return Err(ReduceError::InvalidArgument(format!(
                "the zero-copy route needs page-locked memory of {} elements (got {}{})",
                pass.n,
                input.len(),
                if input.is_page_locked() {
                    ""
                } else {
                    ", not page-locked"
                }
            )));
        }
        let launch = Launch {
            kernel: self.plan.kernel,
            grid: pass.grid,
            block: pass.block,
            shared_bytes: pass.shared_bytes,
            args: KernelArgs::SinglePass {
                input: input.kernel_addr()?,
                n: pass.n,
                partials: self.partials.addr(0),
                counter: self.counter.addr(0),
                out: self.out.addr(0),
            },
        };
        // SAFETY: the kernel, block size and shared memory are `plan()`'s own for stage 8, this
        // type, op and length, so it takes exactly these arguments; `partials` holds the grid's
        // partials, `counter` is the zeroed `u32` ticket counter and `out` one `T`, all live
        // buffers of `backend` (allocated by `new` on it, and `self` outlives the launch). The
        // input address is the kernel-visible address (device mapping on a GPU, host address
        // on the emulator) of `input`'s `pass.n` elements (checked above), page-locked on a GPU;
        // the caller lends `input` for this call, and `download` below waits for the kernel
        // before the call returns, so nothing frees or writes it meanwhile.
        let launched = unsafe { backend.launch::<T>(&launch) };
        let value = backend.download(&self.out, 1);
        launched?;
        Ok(value?[0])
    }
}
