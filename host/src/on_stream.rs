//! Reductions queued on the caller's stream, asynchronously. [`Prepared::enqueue_on`] (stage 8:
//! sum, min, max, the NaN-aware ops, products, counts) launches on a raw `CUstream` the caller
//! gives and returns at once, the result written into device memory the caller owns (a [`View`]
//! of one element: a buffer's, or borrowed memory, [`crate::borrowed`]). Every other family has
//! the same `enqueue_on` ([`families`]: halves and wide sums, argmin/argmax, norms, dot and
//! moments, exact sums, axis and segmented reductions, custom item kernels), its result in the
//! plan's own slot (or, for the axis plans, the caller's output), read after the caller's own
//! synchronization. Each plan's workspace is allocated once and its kernels are looked up when it
//! is made, so a call makes no allocation, copy, module load or synchronization: it can be
//! captured in a CUDA graph. With the `cudarc` feature each has a safe `enqueue_on_cudarc` on a
//! cudarc `CudaStream` with cudarc slices (`host/src/on_stream/cudarc.rs`).
//!
//! A plan's workspace (partials, ticket counter, result slot) serves one launch at a time: two
//! reductions that may run at once (on two streams) need two plans. One plan used on two
//! streams at once gives wrong results (every address stays inside the workspace).

#[cfg(feature = "cudarc")]
mod cudarc;
pub mod families;

use crate::backend::{Backend, On};
use crate::error::{ReduceError, Result};
use crate::plan::ResultIn;
use crate::plan::{plan, LaunchOverrides};
use crate::prepared::Prepared;
use crate::stage::Stage;
use crate::types::{Op, Scalar};
use crate::view::View;
use cust::sys as cu;

impl<T: Scalar> Prepared<T> {
    /// Stage 8's plan for `op` over `n` elements of `T` on `backend` (what [`crate::Reducer`]
    /// uses, with the default launch shape), its workspace allocated now, the result left in
    /// device memory: ready for [`Prepared::enqueue_on`].
    ///
    /// # Errors
    /// The plan's errors (e.g. `f16` / `bf16`, whose stage-8 kernels are
    /// [`crate::PreparedWide`]'s; [`Op::Mean`]); an allocation failure.
    pub fn for_stream(backend: &Backend, op: Op, n: usize) -> Result<Self> {
        Self::for_stream_in(backend, op, n, ResultIn::DeviceMemory)
    }

    /// [`Prepared::for_stream`] with the plan's own result slot where `result_in` says:
    /// [`ResultIn::MappedHost`] for [`Prepared::enqueue_on_slot`], whose result
    /// [`Prepared::read_result`] then reads with no copy.
    ///
    /// # Errors
    /// As [`Prepared::for_stream`].
    pub fn for_stream_in(backend: &Backend, op: Op, n: usize, result_in: ResultIn) -> Result<Self> {
        let p = plan(
            Stage::S8,
            T::TYPE,
            op,
            n,
            LaunchOverrides::default(),
            backend.caps(),
        )?;
        Prepared::with_result_in(backend, p, result_in)
    }

    /// Queue the reduction of `input` (exactly the planned length) on `stream` and return
    /// without waiting; the kernel writes the result into `out[0]`. Nothing is allocated, copied
    /// or synchronized, so this may be captured into a CUDA graph (and the graph replayed: the
    /// kernel leaves its ticket counter at 0). On the emulator the reduction runs at once and
    /// `stream` is not used.
    ///
    /// # Errors
    /// [`ReduceError::ForeignBuffer`] for views or a backend not this plan's;
    /// [`ReduceError::OutOfBounds`] naming `input` (another length) or `out` (empty);
    /// [`ReduceError::InvalidArgument`] for a plan of stages 1–7 (several launches, the result
    /// in the workspace); the launch's driver error. Nothing is launched on an error.
    ///
    /// # Safety
    /// * `stream` is a live stream of this GPU's context (the primary context: the CUDA
    ///   runtime's, cudarc's and PyTorch's streams of this device are), or null (the legacy
    ///   default stream);
    /// * `input` and `out` (and this `Prepared`) stay allocated until the stream has run the
    ///   kernel — for borrowed views, regardless of their lifetime; nothing writes `input`, and
    ///   nothing reads or writes `out[0]`, until then (order other streams after an event);
    /// * `out` does not overlap `input`;
    /// * no other launch using this `Prepared`'s workspace runs at the same time (another
    ///   stream): one `Prepared` per concurrent reduction.
    pub unsafe fn enqueue_on(
        &self,
        backend: &Backend,
        stream: cu::CUstream,
        input: View<'_, T>,
        out: View<'_, T>,
    ) -> Result<()> {
        out.check_owner(backend.id(), "the output")?;
        if out.is_empty() {
            return Err(ReduceError::bounds("out", "the output holds no element"));
        }
        let out_addr = out.addr(0)?;
        // SAFETY: this function's contract, `out[0]` checked above.
        unsafe { self.queue_on(backend, stream, input, Some(out_addr)) }
    }

    /// [`Prepared::enqueue_on`] with the result left in the plan's own slot instead of the
    /// caller's memory: for a plan made with [`ResultIn::MappedHost`] ([`Prepared::new`]'s
    /// default on a GPU), mapped pinned host memory the kernel's last block writes, so that
    /// once the caller has synchronized `stream`, [`Prepared::read_result`] reads it with no
    /// copy (a `for_stream` plan keeps it in device memory: one copy).
    ///
    /// # Errors
    /// As [`Prepared::enqueue_on`], without the output's.
    ///
    /// # Safety
    /// As [`Prepared::enqueue_on`], the plan's result slot in place of `out`: it is read only
    /// after the stream has run the kernel.
    pub unsafe fn enqueue_on_slot(
        &self,
        backend: &Backend,
        stream: cu::CUstream,
        input: View<'_, T>,
    ) -> Result<()> {
        // SAFETY: this function's contract.
        unsafe { self.queue_on(backend, stream, input, None) }
    }

    /// The one stage-8 launch on `stream`, the result at `out` or in the plan's slot.
    ///
    /// # Safety
    /// As [`Prepared::enqueue_on`]; `out`, when given, is the address of one `T` of this
    /// context, not overlapping `input`.
    unsafe fn queue_on(
        &self,
        backend: &Backend,
        stream: cu::CUstream,
        input: View<'_, T>,
        out: Option<u64>,
    ) -> Result<()> {
        if self.plan.stage != Stage::S8 {
            return Err(ReduceError::InvalidArgument(format!(
                "{} takes several launches: only stage 8's plans run on the caller's stream",
                self.plan.stage
            )));
        }
        self.launch_into(backend, input, out, |b, l| {
            // SAFETY: `launch_into`'s one stage-8 launch: its addresses are this backend's
            // workspace, the checked input view and `out` (one `T`) or the plan's slot;
            // the stream, lifetimes and exclusivity are this function's contract (the emulator
            // runs it at once).
            unsafe { b.launch_on::<T>(l, On::Caller(stream)) }
        })
    }
}
