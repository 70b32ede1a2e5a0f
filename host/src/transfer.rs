//! Asynchronous copies queued on a GPU's stream, bounds-checked: the raw `cust::sys` calls that
//! the timing engine ([`crate::measure`]) and the benchmarks need. They are `unsafe` only for the
//! one thing a bounds check cannot see: the memory must outlive the queued copy.

use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::gpu::{driver_result, Gpu};
use crate::types::Scalar;
use cust::memory::{DeviceBuffer, LockedBuffer};

/// The device memory of `buf`, if `buf` belongs to `gpu` (a buffer of another backend or GPU
/// context is an error, not a copy from an address that means nothing here).
fn device<'a, T: Scalar>(gpu: &Gpu, buf: &'a Buffer<T>, what: &str) -> Result<&'a DeviceBuffer<T>> {
    buf.check_owner(gpu.id, what)?;
    buf.device_buffer().ok_or_else(|| {
        ReduceError::InvalidArgument(format!("{what} is an emulator buffer, not GPU memory"))
    })
}

fn check_range(what: &'static str, offset: usize, len: usize, buf_len: usize) -> Result<()> {
    if offset.checked_add(len).is_none_or(|end| end > buf_len) {
        return Err(ReduceError::bounds(
            what,
            format!("elements {offset}..{offset}+{len} are outside the {buf_len}-element buffer"),
        ));
    }
    Ok(())
}

/// Queue, on `gpu`'s stream, a copy of `src[index]` into `dst[0]` (pinned host memory).
///
/// # Safety
/// `src` and `dst` must stay allocated, and `dst` must not be read or written by the host, until
/// the stream has finished the copy (synchronize the stream, or an event recorded after it).
pub unsafe fn copy_element_to_pinned_async<T: Scalar>(
    gpu: &Gpu,
    src: &Buffer<T>,
    index: usize,
    dst: &mut LockedBuffer<T>,
) -> Result<()> {
    let from = device(gpu, src, "the copy's source")?;
    check_range("index", index, 1, from.len())?;
    check_range("dst", 0, 1, dst.len())?;
    // SAFETY: both ranges are in bounds (checked above); the caller keeps both allocations
    // alive until the stream has run the copy.
    let r = unsafe {
        cust::sys::cuMemcpyDtoHAsync_v2(
            dst.as_mut_ptr().cast(),
            src.addr(index),
            std::mem::size_of::<T>(),
            gpu.stream().as_inner(),
        )
    };
    driver_result(r, "copying the result")
}

/// Queue, on `gpu`'s stream, a copy of `src[src_offset..][..len]` into `dst[dst_offset..][..len]`
/// (both in GPU memory; the ranges may be the same buffer but must not overlap).
///
/// # Safety
/// Both buffers must stay allocated until the stream has finished the copy.
pub unsafe fn copy_device_to_device_async<T: Scalar>(
    gpu: &Gpu,
    dst: &Buffer<T>,
    dst_offset: usize,
    src: &Buffer<T>,
    src_offset: usize,
    len: usize,
) -> Result<()> {
    check_range(
        "dst_offset",
        dst_offset,
        len,
        device(gpu, dst, "the copy's destination")?.len(),
    )?;
    check_range(
        "src_offset",
        src_offset,
        len,
        device(gpu, src, "the copy's source")?.len(),
    )?;
    if dst.addr(0) == src.addr(0) && dst_offset < src_offset + len && src_offset < dst_offset + len
    {
        return Err(ReduceError::InvalidArgument(format!(
            "device copy of {len} elements from {src_offset} to {dst_offset} overlaps itself"
        )));
    }
    // SAFETY: both ranges are in bounds and do not overlap (checked above); the caller keeps
    // both buffers alive until the stream has run the copy.
    let r = unsafe {
        cust::sys::cuMemcpyDtoDAsync_v2(
            dst.addr(dst_offset),
            src.addr(src_offset),
            len * std::mem::size_of::<T>(),
            gpu.stream().as_inner(),
        )
    };
    driver_result(r, "copying device memory")
}
