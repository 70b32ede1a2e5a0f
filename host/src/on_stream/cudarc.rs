//! [`Prepared::enqueue_on`] on a cudarc `CudaStream`, with cudarc memory in and out: safe,
//! because cudarc's own bookkeeping orders everything else after the launch (with its event
//! tracking on, its default): the stream first waits for the slices' last writes, and the
//! launch is followed by a read event on `input` and a write event on `out`, which cudarc waits
//! for before it frees, reads or writes them on another stream.

use crate::backend::Backend;
use crate::borrowed::{check_device_memory, gpu_of};
use crate::error::{ReduceError, Result};
use crate::prepared::Prepared;
use crate::types::Scalar;
use crate::view::View;
use cudarc::driver::{CudaStream, DevicePtr, DevicePtrMut};

impl<T: Scalar> Prepared<T> {
    /// Queue the reduction of `input` (a `CudaSlice<T>` or view of one, exactly the planned
    /// length) on the cudarc `stream`, the result written into `out[0]` (a `CudaSlice<T>` or
    /// mutable view of at least one element), and return without waiting. Read the result with
    /// cudarc after the stream (e.g. `stream.clone_dtoh(&out)`). Both are checked as
    /// [`crate::Backend::borrow_cudarc`] checks memory, the stream must be of this GPU's context.
    ///
    /// One `Prepared` serves one reduction at a time: for reductions that may run at once on
    /// two streams, use two (see [`crate::on_stream`]).
    ///
    /// # Errors
    /// [`ReduceError::BadPointer`] naming `input` or `out`; [`ReduceError::ForeignBuffer`] for a
    /// stream of another context or a plan of another backend; as [`Prepared::enqueue_on`].
    pub fn enqueue_on_cudarc<I: DevicePtr<T>, O: DevicePtrMut<T>>(
        &self,
        backend: &Backend,
        stream: &CudaStream,
        input: &I,
        out: &mut O,
    ) -> Result<()> {
        let gpu = gpu_of(backend, "input")?;
        let (theirs, ours) = (stream.context().cu_ctx(), gpu.cu_context());
        if !std::ptr::eq(
            theirs.cast::<std::ffi::c_void>(),
            ours.cast::<std::ffi::c_void>(),
        ) {
            return Err(ReduceError::ForeignBuffer {
                what: "the cudarc stream (of another context)".into(),
            });
        }
        let (n, outs) = (input.len(), out.len());
        let (input_ptr, _read) = input.device_ptr(stream);
        let (out_ptr, _write) = out.device_ptr_mut(stream);
        check_device_memory::<T>(gpu, "input", input_ptr, n)?;
        check_device_memory::<T>(gpu, "out", out_ptr, outs)?;
        // SAFETY: both checked above (device memory of this GPU's context, aligned, inside one
        // allocation each); `input` is borrowed and `out` mutably borrowed for this call, and
        // `_read` / `_write` record their events on `stream` after the launch when dropped, so
        // cudarc frees, reads or writes them elsewhere only after the kernel.
        let (input, out) = unsafe {
            (
                View::borrowed(backend.id(), input_ptr, n),
                View::borrowed(backend.id(), out_ptr, outs),
            )
        };
        if out_ptr < input_ptr.saturating_add((n * size_of::<T>()) as u64)
            && input_ptr < out_ptr.saturating_add(size_of::<T>() as u64)
        {
            return Err(ReduceError::bounds("out", "the output overlaps the input"));
        }
        // SAFETY: `stream` is a live stream of this GPU's context (checked above; cudarc keeps
        // it alive); the memory outlives the kernel and is not touched meanwhile through cudarc
        // (the events above); `out` and `input` do not overlap (checked above; a `&mut` and a
        // `&` of cudarc memory could only overlap through two views of one slice, which cudarc's
        // borrows forbid). The one condition left, one launch at a time per `Prepared`, only
        // affects the value written (every address stays inside the workspace).
        unsafe { self.enqueue_on(backend, stream.cu_stream() as _, input, out) }
    }
}
