//! Device memory the library did not allocate — cudarc's, the CUDA runtime's, PyTorch's —
//! reduced where it lies, as a [`View`] every [`crate::Reducer`] method accepts.
//!
//! A [`crate::Gpu`] joins the device's **primary** context (the one those libraries use), so
//! their memory is this GPU's with no context switch. Two ways in:
//!
//! * [`Backend::borrow_raw`] (`unsafe`): a raw device address and an element count;
//! * with the `cudarc` feature, `Backend::borrow_cudarc` (safe): a `&CudaSlice<T>` or a
//!   `&CudaView<'_, T>`, the view borrowing it (`host/src/borrowed/cudarc.rs`).
//!
//! Both check what the driver can tell (`cuPointerGetAttributes`): the memory is device (or
//! managed) memory of this GPU's context (or, for stream-ordered and virtual-memory
//! allocations, which the driver reports without a context, of this GPU), every element lies
//! inside one allocation, the address is aligned for `T`. Each failure is
//! [`ReduceError::BadPointer`] with a [`PointerProblem`]; nothing is launched. An empty view
//! (`len == 0`) is allowed, whatever the address.
//!
//! A reduction of a borrowed view returns only after the kernels reading it have run, so the
//! memory may be freed once the borrow ends.

#[cfg(feature = "cudarc")]
mod cudarc;

use crate::backend::Backend;
use crate::error::{ReduceError, Result};
use crate::gpu::{driver_result, Gpu};
use crate::types::Scalar;
use crate::view::View;
use cust::memory::DeviceCopy;
use cust::sys as cu;
use std::ffi::c_void;

pub use crate::error::PointerProblem;

/// What `cuPointerGetAttributes` reports about an address (the driver's defaults, zeros, for an
/// address it does not know).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PointerAttributes {
    /// `CU_POINTER_ATTRIBUTE_CONTEXT` as an integer (0: none).
    pub context: usize,
    /// `CU_POINTER_ATTRIBUTE_MEMORY_TYPE` (`CUmemorytype`; 0: unknown).
    pub memory_type: u32,
    /// `CU_POINTER_ATTRIBUTE_IS_MANAGED`.
    pub is_managed: bool,
    /// `CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL`.
    pub device_ordinal: i32,
    /// `CU_POINTER_ATTRIBUTE_RANGE_START_ADDR`.
    pub range_start: u64,
    /// `CU_POINTER_ATTRIBUTE_RANGE_SIZE`.
    pub range_size: u64,
}

/// The GPU a borrowed address must belong to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Expected {
    /// Its context, as an integer.
    pub context: usize,
    /// Its ordinal.
    pub ordinal: usize,
}

/// The checks that need no driver: `Ok(Some(bytes))` when the driver must be asked about
/// `bytes` bytes from `ptr`, `Ok(None)` for an empty view.
pub(crate) fn check_shape(
    ptr: u64,
    len: usize,
    size: usize,
    align: usize,
) -> Result<Option<u64>, PointerProblem> {
    if len == 0 {
        return Ok(None);
    }
    if ptr == 0 {
        return Err(PointerProblem::Null);
    }
    let bytes = len
        .checked_mul(size)
        .and_then(|b| u64::try_from(b).ok())
        .filter(|&b| ptr.checked_add(b).is_some())
        .ok_or(PointerProblem::Overflow { ptr, len, size })?;
    if align > 1 && !ptr.is_multiple_of(align as u64) {
        return Err(PointerProblem::Misaligned { ptr, align });
    }
    Ok(Some(bytes))
}

/// Is `bytes` bytes from `ptr` memory this GPU may read, by what the driver reports (`a`)?
pub(crate) fn check_attributes(
    ptr: u64,
    bytes: u64,
    a: &PointerAttributes,
    expected: Expected,
) -> Result<(), PointerProblem> {
    const HOST: u32 = cu::CUmemorytype::CU_MEMORYTYPE_HOST as u32;
    const DEVICE: u32 = cu::CUmemorytype::CU_MEMORYTYPE_DEVICE as u32;
    const ARRAY: u32 = cu::CUmemorytype::CU_MEMORYTYPE_ARRAY as u32;
    const UNIFIED: u32 = cu::CUmemorytype::CU_MEMORYTYPE_UNIFIED as u32;
    match a.memory_type {
        0 => return Err(PointerProblem::Unknown { ptr }),
        DEVICE | UNIFIED => {}
        _ if a.is_managed => {}
        other => {
            let kind = match other {
                HOST => "host".to_string(),
                ARRAY => "array".to_string(),
                t => format!("type-{t}"),
            };
            return Err(PointerProblem::NotDeviceMemory { ptr, kind });
        }
    }
    if a.context != expected.context && a.context != 0 {
        return Err(PointerProblem::WrongContext { ptr });
    }
    if a.device_ordinal < 0 || a.device_ordinal as usize != expected.ordinal {
        return Err(PointerProblem::WrongDevice {
            ptr,
            found: a.device_ordinal.into(),
            expected: expected.ordinal,
        });
    }
    let end = ptr.saturating_add(bytes); // no overflow after `check_shape`
    let alloc_end = a.range_start.saturating_add(a.range_size);
    if ptr < a.range_start || end > alloc_end {
        return Err(PointerProblem::PastAllocation {
            ptr,
            end,
            start: a.range_start,
            alloc_end,
        });
    }
    Ok(())
}

/// Ask the driver about `ptr` (`cuPointerGetAttributes`, which reports zeros for an address it
/// does not know). The caller makes the GPU's context current.
fn query(ptr: u64) -> Result<PointerAttributes> {
    use cu::CUpointer_attribute as P;
    let mut attrs = [
        P::CU_POINTER_ATTRIBUTE_CONTEXT,
        P::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
        P::CU_POINTER_ATTRIBUTE_IS_MANAGED,
        P::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        P::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
        P::CU_POINTER_ATTRIBUTE_RANGE_SIZE,
    ];
    let mut context: cu::CUcontext = std::ptr::null_mut();
    let mut memory_type: u32 = 0;
    let mut is_managed: u32 = 0; // a C `bool` the driver writes as an `unsigned int`
    let mut ordinal: i32 = -1;
    let mut start: u64 = 0;
    let mut size: usize = 0;
    let mut data: [*mut c_void; 6] = [
        (&mut context as *mut cu::CUcontext).cast(),
        (&mut memory_type as *mut u32).cast(),
        (&mut is_managed as *mut u32).cast(),
        (&mut ordinal as *mut i32).cast(),
        (&mut start as *mut u64).cast(),
        (&mut size as *mut usize).cast(),
    ];
    // SAFETY: six attributes and six pointers to live locals of the types the driver writes for
    // them (a context handle, an unsigned int, a bool as unsigned int, an int, a device pointer,
    // a size_t); asking about any address is allowed (unknown ones report defaults).
    let r = unsafe { cu::cuPointerGetAttributes(6, attrs.as_mut_ptr(), data.as_mut_ptr(), ptr) };
    driver_result(r, "asking the driver about a borrowed device address")?;
    Ok(PointerAttributes {
        context: context as usize,
        memory_type,
        is_managed: is_managed != 0,
        device_ordinal: ordinal,
        range_start: start,
        range_size: size as u64,
    })
}

/// Check `len` elements of `T` from `ptr` for `gpu` (see the module docs), naming `arg`.
pub(crate) fn check_device_memory<T: DeviceCopy>(
    gpu: &Gpu,
    arg: &'static str,
    ptr: u64,
    len: usize,
) -> Result<()> {
    let bad = |problem| ReduceError::BadPointer { arg, problem };
    let size = std::mem::size_of::<T>();
    let Some(bytes) = check_shape(ptr, len, size, std::mem::align_of::<T>()).map_err(bad)? else {
        return Ok(());
    };
    gpu.make_current()?;
    let attributes = query(ptr)?;
    let expected = Expected {
        context: gpu.cu_context() as usize,
        ordinal: gpu.ordinal(),
    };
    check_attributes(ptr, bytes, &attributes, expected).map_err(bad)
}

impl Backend {
    /// `len` elements of `T` at device address `ptr` (a `CUdeviceptr`) as a [`View`] of this
    /// backend, for every [`crate::Reducer`] method: memory another library allocated in this
    /// GPU's (primary) context. Checked with the driver first (see [`crate::borrowed`]); a
    /// sub-range (`view.slice(a..b)?`) works as a buffer's does.
    ///
    /// # Errors
    /// [`ReduceError::BadPointer`] naming `ptr` (null, misaligned for `T`, not device memory of
    /// this GPU's context, or `ptr + len · size_of::<T>()` past the allocation) or `len`
    /// (the size overflows), and always on the emulator ([`PointerProblem::Emulator`]); a
    /// driver error if the driver cannot be asked. `len == 0` is an empty view.
    ///
    /// # Safety
    /// * `ptr` is a device address of this GPU's context (the checks catch most wrong ones, not
    ///   an allocation freed and reused since), aligned for `T`, and the `len` elements from it
    ///   hold valid `T`s;
    /// * the memory stays allocated for `'a` — and a reduction of the view waits for its
    ///   kernels, so once the last use of the view has returned the owner may free it;
    /// * nothing writes it while a reduction reads it (no kernel on another stream, no copy):
    ///   work the owner queued on another stream must be finished (or waited for) first.
    pub unsafe fn borrow_raw<'a, T: Scalar>(&self, ptr: u64, len: usize) -> Result<View<'a, T>> {
        let gpu = gpu_of(self, "ptr")?;
        check_device_memory::<T>(gpu, "ptr", ptr, len).map_err(|e| match e {
            ReduceError::BadPointer {
                problem: p @ PointerProblem::Overflow { .. },
                ..
            } => ReduceError::BadPointer {
                arg: "len",
                problem: p,
            },
            e => e,
        })?;
        // SAFETY: checked above (device memory of this GPU's context, aligned, `len` elements
        // inside one allocation, the size fits); the caller's contract covers the rest (alive
        // for `'a`, valid `T`s, not written meanwhile).
        Ok(unsafe { View::borrowed(self.id(), ptr, len) })
    }
}

/// `Ok` when `view` holds exactly `n` elements (what a plan was prepared for); otherwise
/// [`ReduceError::OutOfBounds`] naming `input`.
pub(crate) fn check_view_len<T: DeviceCopy + Copy>(view: &View<'_, T>, n: usize) -> Result<()> {
    if view.len() != n {
        return Err(ReduceError::bounds(
            "input",
            format!("a view of {} elements given to a plan for {n}", view.len()),
        ));
    }
    Ok(())
}

/// The GPU of `backend`; on the emulator [`PointerProblem::Emulator`] naming `arg` (device memory
/// the library did not allocate exists only on a GPU).
pub(crate) fn gpu_of<'b>(backend: &'b Backend, arg: &'static str) -> Result<&'b Gpu> {
    match backend {
        Backend::Gpu(g) => Ok(g),
        Backend::Emulator(_) => Err(ReduceError::BadPointer {
            arg,
            problem: PointerProblem::Emulator,
        }),
    }
}

/// After queueing kernels that read `view`: wait for them when it is borrowed memory, whose
/// owner may free it as soon as the borrow ends (a library buffer's free waits by itself).
pub(crate) fn wait_if_borrowed<T: DeviceCopy + Copy>(
    backend: &Backend,
    view: &View<'_, T>,
) -> Result<()> {
    if view.is_borrowed() {
        backend.synchronize()?;
    }
    Ok(())
}

impl<T: Scalar> View<'_, T> {
    /// Copy elements `start..start + len` of this view to the host (after the backend's queued
    /// work).
    ///
    /// # Errors
    /// [`ReduceError::OutOfBounds`] for a range outside the view; [`ReduceError::ForeignBuffer`]
    /// for another backend's view.
    pub(crate) fn download_range(
        &self,
        backend: &Backend,
        start: usize,
        len: usize,
    ) -> Result<Vec<T>> {
        self.check_owner(backend.id(), "the input buffer")?;
        let part = self.slice(start..start.saturating_add(len))?;
        if let Some(buffer) = part.buffer() {
            return backend.download_range(buffer, part.offset(), len);
        }
        backend.synchronize()?;
        let mut out = vec![T::default(); len];
        if len > 0 {
            let from = part.addr(0)?;
            // SAFETY: a borrowed view of this backend (checked above), so a GPU address of `len`
            // elements inside one live allocation (checked when it was made; `slice` keeps the
            // range inside); `out` holds `len` elements; the queued work is finished.
            let r = unsafe {
                cu::cuMemcpyDtoH_v2(
                    out.as_mut_ptr().cast(),
                    from,
                    len * std::mem::size_of::<T>(),
                )
            };
            driver_result(r, "copying borrowed device memory to the host")?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
