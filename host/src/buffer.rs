//! Device memory and who owns it: a [`Buffer`] remembers the backend (GPU context or emulator)
//! that allocated it, and every function that hands a buffer to a kernel or a copy checks it, so
//! a buffer of one backend used with another is a typed error instead of a crash.

use crate::error::{ReduceError, Result};
use cust::memory::{DeviceBuffer, DeviceCopy};
use std::sync::atomic::{AtomicU64, Ordering};

/// Identity of one opened backend: each [`crate::Gpu`] (one CUDA context) and each
/// [`crate::Emulator`] gets a different one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BackendId(u64);

impl BackendId {
    /// A fresh identity, never handed out before in this process.
    pub(crate) fn fresh() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        BackendId(NEXT.fetch_add(1, Ordering::Relaxed))
    }

    /// `Ok` when `other` is this backend; otherwise [`ReduceError::ForeignBuffer`] naming `what`
    /// (the buffer, plan or workspace that belongs to this backend and not to `other`).
    pub(crate) fn check_same(self, other: BackendId, what: &str) -> Result<()> {
        if self == other {
            Ok(())
        } else {
            Err(ReduceError::ForeignBuffer {
                what: what.to_string(),
            })
        }
    }
}

/// `len` elements in host memory that the emulator's kernels read and write through raw pointers
/// while the host holds only `&Buffer`. It is never accessed through a Rust reference while a
/// kernel runs: the allocation is kept as a raw pointer from `Box::into_raw` and freed in `Drop`.
pub(crate) struct HostMem<T> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: `HostMem` owns its allocation like a `Box<[T]>` does; it is only read or written through
// `&self` while no emulated kernel runs (the emulator is synchronous), so sending it to another
// thread is as sound as sending a `Box<[T]>`.
unsafe impl<T: Send> Send for HostMem<T> {}

impl<T: Copy> HostMem<T> {
    pub(crate) fn from_vec(v: Vec<T>) -> Self {
        let len = v.len();
        let ptr = Box::into_raw(v.into_boxed_slice()) as *mut T;
        HostMem { ptr, len }
    }
    pub(crate) fn as_ptr(&self) -> *mut T {
        self.ptr
    }
    /// A copy of elements `offset..offset + len` (the caller checked the range).
    fn read(&self, offset: usize, len: usize) -> Vec<T> {
        assert!(offset.checked_add(len).is_some_and(|e| e <= self.len));
        // SAFETY: in bounds (asserted); no kernel runs while the host reads (the emulator is
        // synchronous), so nothing writes these elements meanwhile.
        unsafe { std::slice::from_raw_parts(self.ptr.add(offset), len) }.to_vec()
    }
    /// Overwrite the first `data.len()` elements (the caller checked the length).
    fn write(&self, data: &[T]) {
        assert!(data.len() <= self.len);
        // SAFETY: in bounds (asserted), `data` is a different allocation, and no kernel runs.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr, data.len()) }
    }
}

impl<T> Drop for HostMem<T> {
    fn drop(&mut self) {
        // SAFETY: `ptr` and `len` came from `Box::into_raw` of a `Box<[T]>` of this length, and
        // this is the only place that frees it.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.ptr, self.len)) })
    }
}

pub(crate) enum Mem<T: DeviceCopy> {
    Gpu(DeviceBuffer<T>),
    Host(HostMem<T>),
}

/// Device memory holding `T`s (host memory under the emulator), tagged with the backend that
/// allocated it. Made by [`crate::Backend::upload`], [`crate::Backend::zeroed`] and
/// [`crate::Backend::filled`].
pub struct Buffer<T: DeviceCopy> {
    owner: BackendId,
    pub(crate) mem: Mem<T>,
}

impl<T: DeviceCopy + Copy> Buffer<T> {
    pub(crate) fn new(owner: BackendId, mem: Mem<T>) -> Self {
        Buffer { owner, mem }
    }
    /// Elements.
    pub fn len(&self) -> usize {
        match &self.mem {
            Mem::Gpu(b) => b.len(),
            Mem::Host(h) => h.len,
        }
    }
    /// `len() == 0`.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The backend that allocated it.
    pub fn owner(&self) -> BackendId {
        self.owner
    }
    /// An error unless this buffer belongs to `backend`.
    pub(crate) fn check_owner(&self, backend: BackendId, what: &str) -> Result<()> {
        self.owner.check_same(backend, what)
    }
    /// `Ok` when elements `offset..offset + len` lie in the buffer; otherwise
    /// [`ReduceError::OutOfBounds`] naming the `range` (the check of an offset and length a
    /// caller passes).
    pub(crate) fn check_range(&self, offset: usize, len: usize) -> Result<()> {
        self.check_span("range", offset, len)
    }
    /// [`Buffer::check_range`] naming the argument `arg`.
    pub(crate) fn check_span(&self, arg: &'static str, offset: usize, len: usize) -> Result<()> {
        if offset.checked_add(len).is_none_or(|e| e > self.len()) {
            return Err(ReduceError::bounds(
                arg,
                format!(
                    "elements {offset}..{offset}+{len} are outside the {}-element buffer",
                    self.len()
                ),
            ));
        }
        Ok(())
    }
    /// Address of element `offset` as the kernels see it (a device address, or a host address
    /// under the emulator); `offset == len()` gives the one-past-the-end address. Computing it is
    /// safe; using it is what needs care (see [`crate::Backend::launch`]).
    ///
    /// # Errors
    /// [`ReduceError::OutOfBounds`] if `offset > len()`.
    pub fn try_addr(&self, offset: usize) -> Result<u64> {
        if offset > self.len() {
            return Err(ReduceError::bounds(
                "offset",
                format!(
                    "element {offset} is past the end of a {}-element buffer",
                    self.len()
                ),
            ));
        }
        let bytes = (offset * std::mem::size_of::<T>()) as u64;
        Ok(match &self.mem {
            Mem::Gpu(b) => b.as_device_ptr().as_raw() + bytes,
            // An integer, not a pointer offset: no provenance or in-bounds rules to break.
            Mem::Host(h) => h.as_ptr() as usize as u64 + bytes,
        })
    }
    /// [`Buffer::try_addr`] for offsets the caller knows are in range.
    ///
    /// # Panics
    /// If `offset > len()`.
    pub fn addr(&self, offset: usize) -> u64 {
        match self.try_addr(offset) {
            Ok(a) => a,
            Err(e) => panic!("{e}"),
        }
    }
    /// The underlying `cust` buffer, when this is GPU memory.
    pub fn device_buffer(&self) -> Option<&DeviceBuffer<T>> {
        match &self.mem {
            Mem::Gpu(b) => Some(b),
            Mem::Host(_) => None,
        }
    }
    pub(crate) fn read_host(&self, offset: usize, len: usize) -> Option<Vec<T>> {
        match &self.mem {
            Mem::Host(h) => Some(h.read(offset, len)),
            Mem::Gpu(_) => None,
        }
    }
    pub(crate) fn write_host(&self, data: &[T]) -> bool {
        match &self.mem {
            Mem::Host(h) => {
                h.write(data);
                true
            }
            Mem::Gpu(_) => false,
        }
    }
}
