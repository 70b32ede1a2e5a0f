//! More than one CUDA stream, and the events that order work between them: what overlapping a
//! host→device copy with a kernel takes. A stream runs its commands in order; two streams run
//! concurrently, except where one waits for an event the other recorded. The raw driver calls
//! live here because `cust` 0.3's `Stream::wait_event` consumes (destroys) the event, and its
//! events' handles are private.

use crate::buffer::Buffer;
use crate::error::driver_result;
use crate::error::{CudaContext, ReduceError, Result};
use crate::types::Scalar;
use cust::stream::{Stream, StreamFlags};
use cust::sys as cu;

/// A new stream that does not synchronize with the legacy default stream (needs the GPU's
/// context to be current, as it is on the thread that opened the [`crate::Gpu`]).
pub(crate) fn new_stream() -> Result<Stream> {
    Stream::new(StreamFlags::NON_BLOCKING, None).during("creating a stream")
}

/// A CUDA event: a marker in a stream that the host or another stream can wait for, and (when
/// made with timing) a GPU timestamp.
pub(crate) struct GpuEvent(cu::CUevent);

impl GpuEvent {
    /// A new event; `timing` events can be measured, the others are cheaper to record.
    pub(crate) fn new(timing: bool) -> Result<Self> {
        let flags = if timing {
            cu::CUevent_flags::CU_EVENT_DEFAULT
        } else {
            cu::CUevent_flags::CU_EVENT_DISABLE_TIMING
        };
        let mut e: cu::CUevent = std::ptr::null_mut();
        // SAFETY: `e` is a valid out-pointer; the current context owns the new event.
        let r = unsafe { cu::cuEventCreate(&mut e, flags as u32) };
        driver_result(r, "creating an event")?;
        Ok(GpuEvent(e))
    }

    /// Mark the point after everything queued on `stream` so far.
    pub(crate) fn record(&self, stream: &Stream) -> Result<()> {
        // SAFETY: both handles are live (owned by `self` and `stream`).
        let r = unsafe { cu::cuEventRecord(self.0, stream.as_inner()) };
        driver_result(r, "recording an event")
    }

    /// Make `stream`'s later commands wait until this event's point has been reached (a no-op
    /// for an event never recorded).
    pub(crate) fn make_wait(&self, stream: &Stream) -> Result<()> {
        // SAFETY: both handles are live.
        let r = unsafe { cu::cuStreamWaitEvent(stream.as_inner(), self.0, 0) };
        driver_result(r, "making a stream wait for an event")
    }

    /// Block the host until the event's point has been reached.
    pub(crate) fn synchronize(&self) -> Result<()> {
        // SAFETY: the handle is live.
        let r = unsafe { cu::cuEventSynchronize(self.0) };
        driver_result(r, "waiting for an event")
    }

    /// Milliseconds from `start` to this event (both recorded with timing, both reached).
    pub(crate) fn ms_since(&self, start: &GpuEvent) -> Result<f32> {
        let mut ms = 0f32;
        // SAFETY: both handles are live; `ms` is a valid out-pointer.
        let r = unsafe { cu::cuEventElapsedTime(&mut ms, start.0, self.0) };
        driver_result(r, "reading an event's time")?;
        Ok(ms)
    }
}

impl Drop for GpuEvent {
    fn drop(&mut self) {
        // SAFETY: the handle is live and destroyed only here (the driver defers the destruction
        // until the event has been reached if it is still pending).
        unsafe { cu::cuEventDestroy_v2(self.0) };
    }
}

/// Queue on `stream` a copy of `len` elements from host memory at `src` into `dst[..len]`.
///
/// # Errors
/// If `dst` is not GPU memory or holds fewer than `len` elements.
///
/// # Safety
/// `src` must point to `len` readable `T`s that neither the host nor anyone else writes, and that
/// stay allocated, until the stream has finished the copy; `dst` must stay allocated until then
/// too. (From pinned memory the copy is asynchronous and runs at the link's speed.)
pub(crate) unsafe fn copy_to_device_async<T: Scalar>(
    stream: &Stream,
    dst: &Buffer<T>,
    src: *const T,
    len: usize,
) -> Result<()> {
    if dst.device_buffer().is_none() || len > dst.len() {
        return Err(ReduceError::InvalidArgument(format!(
            "cannot copy {len} elements into a {}-element {} buffer",
            dst.len(),
            if dst.device_buffer().is_some() {
                "GPU"
            } else {
                "emulator"
            }
        )));
    }
    if len == 0 {
        return Ok(());
    }
    // SAFETY: `dst` holds at least `len` elements of GPU memory (checked above); the source is
    // valid for the copy by this function's contract.
    let r = unsafe {
        cu::cuMemcpyHtoDAsync_v2(
            dst.addr(0),
            src.cast(),
            len * std::mem::size_of::<T>(),
            stream.as_inner(),
        )
    };
    driver_result(r, "copying host memory to the device")
}
