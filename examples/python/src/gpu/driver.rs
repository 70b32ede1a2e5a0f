//! The raw driver calls the library leaves to its caller: the caller's stream (its context,
//! capture state), the thread's capture mode and current context, driver statuses as errors.

use super::Request;
use cust::sys as cu;
use reduce_host::{Backend, Gpu, ReduceError};
use std::ffi::CStr;

/// A raw driver status as the library's error.
pub(super) fn driver(r: cu::CUresult, what: &str) -> Result<(), ReduceError> {
    if r == cu::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    let mut name: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: the driver writes a pointer to a static C string (or leaves it null).
    let known = unsafe { cu::cuGetErrorName(r, &mut name) } == cu::CUresult::CUDA_SUCCESS;
    let message = if known && !name.is_null() {
        // SAFETY: a non-null pointer from cuGetErrorName is a static NUL-terminated string.
        unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned()
    } else {
        format!("{r:?}")
    };
    Err(ReduceError::Driver {
        what: what.into(),
        message,
    })
}

/// `stream` must belong to this GPU's context (the special handles 0, 1, 2 name the current
/// context's, which `make_current` made this GPU's).
fn check_stream(gpu: &Gpu, stream: u64) -> Result<(), ReduceError> {
    let mut ctx: cu::CUcontext = std::ptr::null_mut();
    // SAFETY: `stream` is a special handle or one the caller names as a live stream (see
    // `run`); the driver writes one context handle into the local.
    let r = unsafe { cu::cuStreamGetCtx(stream as usize as cu::CUstream, &mut ctx) };
    driver(r, "asking the driver for the stream's context")?;
    if ctx != gpu.cu_context() {
        return Err(ReduceError::InvalidArgument(format!(
            "the stream {stream:#x} belongs to another CUDA context than GPU 0's primary context \
             (a stream of another GPU?): reduce runs on GPU 0"
        )));
    }
    Ok(())
}

/// Is `stream` capturing a CUDA graph?
fn capturing(stream: cu::CUstream) -> Result<bool, ReduceError> {
    let mut status: i32 = 0;
    // SAFETY: the driver writes one `CUstreamCaptureStatus` (a C enum: an int) into `status`,
    // an `i32`, read as an integer (never as the Rust enum, so any value is sound).
    let r = unsafe { cu::cuStreamIsCapturing(stream, (&mut status as *mut i32).cast()) };
    driver(r, "asking whether the stream is capturing")?;
    Ok(status != cu::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE as i32)
}

/// Run `f` with this thread's stream-capture mode relaxed, then restore it.
pub(super) fn relaxed_capture_mode<R>(
    f: impl FnOnce() -> Result<R, ReduceError>,
) -> Result<R, ReduceError> {
    let mut mode = cu::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED as i32;
    // SAFETY: the driver reads and writes one `CUstreamCaptureMode` (a C int) through the
    // pointer to `mode`, an `i32` only ever read as an integer.
    let r = unsafe { cu::cuThreadExchangeStreamCaptureMode((&mut mode as *mut i32).cast()) };
    driver(r, "relaxing the thread's stream-capture mode")?;
    let out = f();
    // SAFETY: as above; `mode` now holds the thread's previous mode, which this restores.
    let r = unsafe { cu::cuThreadExchangeStreamCaptureMode((&mut mode as *mut i32).cast()) };
    let restored = driver(r, "restoring the thread's stream-capture mode");
    let out = out?;
    restored.map(|()| out)
}

/// The calling thread's current context when made, made current again on drop: the library makes
/// GPU 0's primary context current, and torch reads its current device from the current context.
pub(super) struct SavedContext(cu::CUcontext);

impl SavedContext {
    pub(super) fn save() -> Self {
        let mut ctx: cu::CUcontext = std::ptr::null_mut();
        // SAFETY: the driver writes one context handle (or null) into the local.
        let r = unsafe { cu::cuCtxGetCurrent(&mut ctx) };
        // Without a driver there is no context to restore; `Backend::open` reports why.
        SavedContext(if r == cu::CUresult::CUDA_SUCCESS {
            ctx
        } else {
            std::ptr::null_mut()
        })
    }
}

impl Drop for SavedContext {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: a context that was current on this thread when the call began; nothing in
            // the call destroys a context (the backend only retains and releases GPU 0's
            // primary context, which a current user holds too).
            let _ = unsafe { cu::cuCtxSetCurrent(self.0) };
        }
    }
}

/// This thread's GPU made current, and the request's stream checked to be one of its context.
pub(super) fn start(backend: &Backend, req: &Request) -> Result<cu::CUstream, ReduceError> {
    let gpu = backend
        .gpu()
        .ok_or_else(|| ReduceError::InvalidArgument("the backend is not a GPU".into()))?;
    gpu.make_current()?;
    check_stream(gpu, req.stream)?;
    Ok(req.stream as usize as cu::CUstream)
}

/// A call that waits for its result cannot run on a stream that is capturing a graph.
pub(super) fn refuse_capture(stream: cu::CUstream) -> Result<(), ReduceError> {
    if capturing(stream)? {
        return Err(ReduceError::InvalidArgument(
            "the stream is capturing a CUDA graph, and a call without out= waits for its result, \
             which a capture cannot do: pass out="
                .into(),
        ));
    }
    Ok(())
}
