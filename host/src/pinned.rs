//! Page-locked ("pinned") host memory: what the GPU's copy engines read at the full speed of the
//! PCIe/NVLink link, and what a kernel can read directly (zero-copy), because the driver knows
//! the pages never move. Pageable memory (an ordinary `Vec`) is first copied by the driver into
//! a pinned bounce buffer of its own, at a fraction of the link's speed.
//!
//! A [`PinnedBuffer`] is allocated by one backend, like a [`crate::Buffer`], and remembers it:
//! under the emulator it is plain host memory (there is no device to pin for).

use crate::backend::Backend;
use crate::buffer::BackendId;
use crate::error::{CudaContext, ReduceError, Result};
use crate::types::Scalar;
use cust::memory::LockedBuffer;

enum PinnedMem<T: Scalar> {
    /// `cuMemAllocHost`: pinned, and mapped into the device's address space (unified addressing).
    Locked(LockedBuffer<T>),
    /// Ordinary memory: the emulator's, and any empty buffer (the driver allocates no 0 bytes).
    Plain(Vec<T>),
}

/// `len` elements of `T` in pinned host memory of one backend. Read and write it like a slice
/// ([`PinnedBuffer::as_slice`], [`PinnedBuffer::as_mut_slice`]); hand it to
/// [`crate::HostReducer`] to reduce it at the link's speed.
pub struct PinnedBuffer<T: Scalar> {
    owner: BackendId,
    mem: PinnedMem<T>,
}

impl<T: Scalar> PinnedBuffer<T> {
    /// The address kernels read element 0 at: the device address of the mapped pages on a GPU
    /// (`cuMemHostGetDevicePointer`), the host address under the emulator (whose kernels run on
    /// the host). Computing it is safe; a kernel reading it is what needs care.
    ///
    /// # Errors
    /// The driver's error if the pages are not mapped into the device's address space.
    pub(crate) fn kernel_addr(&self) -> Result<u64> {
        match &self.mem {
            PinnedMem::Locked(b) => {
                let mut dev: cust::sys::CUdeviceptr = 0;
                // SAFETY: `b` is a live pinned allocation of the current context; the driver only
                // writes the out-pointer.
                let r = unsafe {
                    cust::sys::cuMemHostGetDevicePointer_v2(&mut dev, b.as_ptr() as *mut _, 0)
                };
                crate::gpu::driver_result(r, "mapping pinned memory into the device")?;
                Ok(dev)
            }
            // An integer, not a pointer offset: no provenance rules to break.
            PinnedMem::Plain(v) => Ok(v.as_ptr() as usize as u64),
        }
    }

    /// `len` zeroed elements, pinned by `backend`'s GPU context (plain memory on the emulator).
    ///
    /// # Errors
    /// [`ReduceError::TooLarge`] if the bytes overflow, or the driver's error if it cannot pin
    /// that much memory.
    pub fn zeroed(backend: &Backend, len: usize) -> Result<Self> {
        let bytes = (len as u64).saturating_mul(T::TYPE.size() as u64);
        let too_large = || ReduceError::TooLarge {
            n: len,
            ty: T::TYPE,
            bytes,
            free: backend.caps().total_mem,
        };
        if len.checked_mul(T::TYPE.size()).is_none() {
            return Err(too_large());
        }
        let mem = match backend {
            Backend::Gpu(_) if len > 0 => PinnedMem::Locked(
                LockedBuffer::new(&T::default(), len)
                    .during(format!("pinning {len} × {} of host memory", T::TYPE))?,
            ),
            _ => {
                let mut v = Vec::new();
                v.try_reserve_exact(len).map_err(|_| too_large())?;
                v.resize(len, T::default());
                PinnedMem::Plain(v)
            }
        };
        Ok(PinnedBuffer {
            owner: backend.id(),
            mem,
        })
    }

    /// A pinned copy of `data`.
    ///
    /// # Errors
    /// As [`PinnedBuffer::zeroed`].
    pub fn from_slice(backend: &Backend, data: &[T]) -> Result<Self> {
        let mut b = Self::zeroed(backend, data.len())?;
        b.as_mut_slice().copy_from_slice(data);
        Ok(b)
    }

    /// Elements.
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// `len() == 0`.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The backend that allocated it.
    pub fn owner(&self) -> BackendId {
        self.owner
    }

    /// Is it really page-locked (false on the emulator and for an empty buffer)?
    pub fn is_page_locked(&self) -> bool {
        matches!(self.mem, PinnedMem::Locked(_))
    }

    /// The elements.
    pub fn as_slice(&self) -> &[T] {
        match &self.mem {
            PinnedMem::Locked(b) => b.as_slice(),
            PinnedMem::Plain(v) => v,
        }
    }

    /// The elements, to fill. (No copy or kernel of this library reads the buffer after the call
    /// that was given it returns, so writing here never races with the device.)
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match &mut self.mem {
            PinnedMem::Locked(b) => b.as_mut_slice(),
            PinnedMem::Plain(v) => v,
        }
    }

    /// An error unless `backend` allocated this buffer.
    pub(crate) fn check_owner(&self, backend: BackendId) -> Result<()> {
        self.owner.check_same(backend, "the pinned host buffer")
    }
}
