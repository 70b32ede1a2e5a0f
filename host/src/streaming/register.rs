//! The caller's pageable memory, page-locked **in place** for one call (`cuMemHostRegister`):
//! the device then copies straight from it, as from a [`crate::PinnedBuffer`], and no CPU thread
//! copies it into staging buffers. What it costs instead: the driver pins every page of the
//! input (and unpins them after the call), which is work proportional to the size too — whether
//! that beats the staging copy is the policy's call ([`super::StreamPolicy::register_min_bytes`]),
//! measured by the H200 sweep in `benches/results/h200-2026-11-30-tune/`.

use std::marker::PhantomData;
use std::os::raw::c_void;

/// `data`'s pages, page-locked until this is dropped.
pub(crate) struct Registered<'a> {
    ptr: *mut c_void,
    _data: PhantomData<&'a [u8]>,
}

impl<'a> Registered<'a> {
    /// Page-lock `data` in place; `None` when the driver refuses (the range, or a page of it, is
    /// registered already; too much locked memory; no GPU context), so the caller stages instead.
    pub(crate) fn new<T>(data: &'a [T]) -> Option<Self> {
        let bytes = std::mem::size_of_val(data);
        if bytes == 0 {
            return None;
        }
        let ptr = data.as_ptr() as *mut c_void;
        // SAFETY: `ptr..ptr + bytes` is the live allocation behind `data`, borrowed for `'a`, so
        // it outlives the registration, which `drop` ends. Registering does not write the
        // memory, and the library only ever copies *from* it (`*mut` is the C signature's).
        let r = unsafe { cust::sys::cuMemHostRegister_v2(ptr, bytes, 0) };
        (r == cust::sys::CUresult::CUDA_SUCCESS).then_some(Registered {
            ptr,
            _data: PhantomData,
        })
    }
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        // SAFETY: `ptr` was registered by `new` and not unregistered since; the pipeline has
        // synchronized every copy that read it before the guard is dropped (`reduce_gpu`
        // synchronizes its streams before returning, on errors too). An error here (a context
        // torn down) leaves nothing to undo.
        unsafe {
            cust::sys::cuMemHostUnregister(self.ptr);
        }
    }
}
