//! The yardstick of [`crate::HostReducer`]: how fast the link moves pinned host memory to the
//! device, measured the same way the streamed path copies.

use crate::backend::Backend;
use crate::error::{CudaContext, ReduceError, Result};
use crate::pinned::PinnedBuffer;
use crate::streams::{copy_to_device_async, new_stream};
use std::time::Instant;

/// Wall-clock seconds of each of `runs` host→device copies of `bytes` bytes (rounded down to
/// whole 4-byte words) from pinned memory (`cuMemcpyHtoDAsync`, then wait), after one warm-up.
///
/// # Errors
/// [`ReduceError::InvalidArgument`] on the emulator (it has no link) or for fewer than 4 bytes;
/// the driver's error if the memory cannot be had.
pub fn link_seconds(backend: &Backend, bytes: usize, runs: usize) -> Result<Vec<f64>> {
    if backend.gpu().is_none() || bytes < 4 {
        return Err(ReduceError::InvalidArgument(
            "the link bandwidth is measured on a GPU, with at least 4 bytes".into(),
        ));
    }
    let words = bytes / 4;
    let host = PinnedBuffer::<u32>::zeroed(backend, words)?;
    let dev = backend.zeroed::<u32>(words)?;
    let stream = new_stream()?;
    let mut out = Vec::with_capacity(runs);
    for run in 0..=runs {
        let t = Instant::now();
        // SAFETY: `host` and `dev` hold `words` elements, nobody writes `host` meanwhile, and the
        // stream is synchronized before either is used again or dropped.
        unsafe { copy_to_device_async(&stream, &dev, host.as_slice().as_ptr(), words)? };
        stream.synchronize().during("waiting for the copy")?;
        if run > 0 {
            out.push(t.elapsed().as_secs_f64());
        }
    }
    Ok(out)
}
