//! Every family's `enqueue_on` on a cudarc `CudaStream`, with cudarc memory in (and out):
//! safe, because cudarc's own bookkeeping orders everything else after the launch (with its
//! event tracking on, its default): the stream first waits for the slices' last writes, and the
//! launch is followed by a read event on each input and a write event on each output, which
//! cudarc waits for before it frees, reads or writes them on another stream.
//!
//! What stays with the caller is only *when to read*: a plan's result is read with its usual
//! reader after the stream has run the launch (e.g. `stream.synchronize()`); reading earlier
//! gives a stale value, never undefined behaviour. A plan's workspace serves one launch at a
//! time: two launches of one plan on two streams at once leave a wrong value (every address
//! stays inside the workspace), so use one plan per stream.

use crate::axis::{PreparedAxis, Segments};
use crate::backend::Backend;
use crate::borrowed::{check_device_memory, gpu_of};
use crate::error::{ReduceError, Result};
use crate::exact::{ExactFloat, PreparedExact};
use crate::prepared::Prepared;
use crate::types::Scalar;
use crate::view::View;
use crate::{PreparedArg, PreparedTransform, PreparedWide, Wide};
use cudarc::driver::{CudaStream, DevicePtr, DevicePtrMut, SyncOnDrop};
use cust::sys as cu;

/// `stream`'s handle, if it is a stream of `backend`'s GPU context.
fn our_stream(backend: &Backend, stream: &CudaStream) -> Result<cu::CUstream> {
    let gpu = gpu_of(backend, "stream")?;
    let (theirs, ours) = (stream.context().cu_ctx(), gpu.cu_context());
    if !std::ptr::eq(
        theirs.cast::<std::ffi::c_void>(),
        ours.cast::<std::ffi::c_void>(),
    ) {
        return Err(ReduceError::ForeignBuffer {
            what: "the cudarc stream (of another context)".into(),
        });
    }
    Ok(stream.cu_stream() as cu::CUstream)
}

/// `memory` as an input view for a launch on `stream`, checked as
/// [`Backend::borrow_cudarc`] checks memory; the guard records cudarc's read event on `stream`
/// when dropped: drop it after the launch.
fn input_view<'a, T: Scalar, M: DevicePtr<T>>(
    backend: &Backend,
    stream: &'a CudaStream,
    memory: &'a M,
    what: &'static str,
) -> Result<(View<'a, T>, SyncOnDrop<'a>)> {
    let gpu = gpu_of(backend, what)?;
    let len = memory.len();
    let (ptr, read) = memory.device_ptr(stream);
    check_device_memory::<T>(gpu, what, ptr, len)?;
    // SAFETY: checked above (device memory of this GPU's context, aligned, inside one
    // allocation); `memory` is borrowed for `'a`, so cudarc can neither free it nor write it
    // through its safe API meanwhile, and `read` orders cudarc's later frees and writes after
    // the launch queued before it is dropped; cudarc slices hold valid `T`s.
    Ok((unsafe { View::borrowed(backend.id(), ptr, len) }, read))
}

/// [`input_view`] for an output (`&mut`): the guard records cudarc's write event.
fn output_view<'a, T: Scalar, M: DevicePtrMut<T>>(
    backend: &Backend,
    stream: &'a CudaStream,
    memory: &'a mut M,
    what: &'static str,
) -> Result<(View<'a, T>, SyncOnDrop<'a>)> {
    let gpu = gpu_of(backend, what)?;
    let len = memory.len();
    let (ptr, write) = memory.device_ptr_mut(stream);
    check_device_memory::<T>(gpu, what, ptr, len)?;
    // SAFETY: as in `input_view`; `memory` is borrowed mutably, so no other cudarc view of it
    // exists (an input given with it cannot overlap it), and `write` orders every later use.
    Ok((unsafe { View::borrowed(backend.id(), ptr, len) }, write))
}

/// A belt to the borrow checker's braces: `out` must not overlap `input`.
fn check_disjoint<T: Scalar>(input: &View<'_, T>, out: &View<'_, T>) -> Result<()> {
    let span = |v: &View<'_, T>| -> Result<(u64, u64)> {
        let start = if v.is_empty() { 0 } else { v.addr(0)? };
        Ok((
            start,
            start.saturating_add((v.len() * size_of::<T>()) as u64),
        ))
    };
    let ((a0, a1), (b0, b1)) = (span(input)?, span(out)?);
    if a0 < b1 && b0 < a1 {
        return Err(ReduceError::bounds("out", "the output overlaps the input"));
    }
    Ok(())
}

// SAFETY (every `unsafe` call below): the stream is a live stream of this GPU's context
// (`our_stream`; cudarc keeps it alive while borrowed); the memory is checked and ordered by
// cudarc's events (`input_view`, `output_view`: the guards live until after the launch); an
// output borrowed `&mut` cannot overlap an input borrowed `&`. The one condition left, one
// launch at a time per plan, only affects the value the plan leaves (module docs).

impl<T: Scalar> Prepared<T> {
    /// Queue the reduction of `input` (a `CudaSlice<T>` or view of one, exactly the planned
    /// length) on the cudarc `stream`, the result written into `out[0]` (a `CudaSlice<T>` or
    /// mutable view of at least one element), and return without waiting. Read the result with
    /// cudarc after the stream (e.g. `stream.clone_dtoh(&out)`).
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
        let raw = our_stream(backend, stream)?;
        let (input, _read) = input_view(backend, stream, input, "input")?;
        let (out, _write) = output_view(backend, stream, out, "out")?;
        check_disjoint(&input, &out)?;
        // SAFETY: see above.
        unsafe { self.enqueue_on(backend, raw, input, out) }
    }
}

impl<T: Scalar> PreparedWide<T>
where
    Wide<T>: Scalar,
{
    /// [`PreparedWide::enqueue_on`] with cudarc memory on a cudarc stream (checked as
    /// [`Prepared::enqueue_on_cudarc`] checks them); read with [`PreparedWide::read`] after it.
    ///
    /// # Errors
    /// As [`Prepared::enqueue_on_cudarc`].
    pub fn enqueue_on_cudarc<I: DevicePtr<T>>(
        &self,
        backend: &Backend,
        stream: &CudaStream,
        input: &I,
    ) -> Result<()> {
        let raw = our_stream(backend, stream)?;
        let (input, _read) = input_view(backend, stream, input, "input")?;
        // SAFETY: see above.
        unsafe { self.enqueue_on(backend, raw, input) }
    }
}

impl<T: Scalar> PreparedArg<T> {
    /// [`PreparedArg::enqueue_on`] with cudarc memory on a cudarc stream; read with
    /// [`PreparedArg::read`] after it.
    ///
    /// # Errors
    /// As [`Prepared::enqueue_on_cudarc`].
    pub fn enqueue_on_cudarc<I: DevicePtr<T>>(
        &self,
        backend: &Backend,
        stream: &CudaStream,
        input: &I,
    ) -> Result<()> {
        let raw = our_stream(backend, stream)?;
        let (input, _read) = input_view(backend, stream, input, "input")?;
        // SAFETY: see above.
        unsafe { self.enqueue_on(backend, raw, input) }
    }
}

impl<T: Scalar> PreparedTransform<T> {
    /// [`PreparedTransform::enqueue_on`] with cudarc memory (`b` for the dot product) on a
    /// cudarc stream; read with [`PreparedTransform::read`] after it.
    ///
    /// # Errors
    /// As [`Prepared::enqueue_on_cudarc`].
    pub fn enqueue_on_cudarc<I: DevicePtr<T>>(
        &self,
        backend: &Backend,
        stream: &CudaStream,
        a: &I,
        b: Option<&I>,
    ) -> Result<()> {
        let raw = our_stream(backend, stream)?;
        let (a, _read_a) = input_view(backend, stream, a, "a")?;
        let (b, _read_b) = match b {
            Some(b) => {
                let (v, g) = input_view(backend, stream, b, "b")?;
                (Some(v), Some(g))
            }
            None => (None, None),
        };
        // SAFETY: see above.
        unsafe { self.enqueue_on(backend, raw, a, b) }
    }
}

impl<T: ExactFloat> PreparedExact<T> {
    /// [`PreparedExact::enqueue_on`] with cudarc memory on a cudarc stream; read with
    /// [`PreparedExact::read_result`] after it.
    ///
    /// # Errors
    /// As [`Prepared::enqueue_on_cudarc`].
    pub fn enqueue_on_cudarc<I: DevicePtr<T>>(
        &self,
        backend: &Backend,
        stream: &CudaStream,
        input: &I,
    ) -> Result<()> {
        let raw = our_stream(backend, stream)?;
        let (input, _read) = input_view(backend, stream, input, "input")?;
        // SAFETY: see above.
        unsafe { self.enqueue_on(backend, raw, input) }
    }
}

impl<T: Scalar> PreparedAxis<T> {
    /// [`PreparedAxis::enqueue_on`] with cudarc memory in and out on a cudarc stream: the
    /// results land in `out[..results()]`, read with cudarc after the stream.
    ///
    /// # Errors
    /// As [`Prepared::enqueue_on_cudarc`]; the plan's errors (output too short, segments of
    /// another shape).
    pub fn enqueue_on_cudarc<I: DevicePtr<T>, O: DevicePtrMut<T>>(
        &self,
        backend: &Backend,
        stream: &CudaStream,
        input: &I,
        segments: Option<&Segments>,
        out: &mut O,
    ) -> Result<()> {
        let raw = our_stream(backend, stream)?;
        let (input, _read) = input_view(backend, stream, input, "input")?;
        let (out, _write) = output_view(backend, stream, out, "out")?;
        check_disjoint(&input, &out)?;
        // SAFETY: see above; the segments are this library's buffers (uploaded synchronously,
        // freed only by dropping them, which waits for the kernels using them), never cudarc
        // memory, so `out` cannot overlap them.
        unsafe { self.enqueue_on(backend, raw, input, segments, out) }
    }
}
