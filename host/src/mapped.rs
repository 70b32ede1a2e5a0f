//! Pinned host memory mapped into the device's address space (stage 8's and the transforms'
//! results land there: the host reads them without a copy).

use crate::error::driver_result;
use crate::error::{CudaContext, Result};
use cust::memory::DeviceCopy;
use cust::sys as cu;

/// Pinned host memory mapped into the device's address space: kernels read and write it through
/// [`Mapped::device_addr`], the host through volatile reads and writes.
pub(crate) struct Mapped<T: DeviceCopy> {
    host: cust::memory::LockedBuffer<T>,
    dev: u64,
}

impl<T: DeviceCopy + Default> Mapped<T> {
    /// `len` elements, each `T::default()`. Needs a current context (a [`Gpu`]).
    pub(crate) fn new(len: usize) -> Result<Self> {
        let mut host = cust::memory::LockedBuffer::new(&T::default(), len)
            .during("allocating pinned memory")?;
        let mut dev: cu::CUdeviceptr = 0;
        // SAFETY: `host` is a live pinned allocation of the current context.
        let r = unsafe { cu::cuMemHostGetDevicePointer_v2(&mut dev, host.as_mut_ptr().cast(), 0) };
        driver_result(r, "mapping pinned memory into the device")?;
        Ok(Mapped { host, dev })
    }

    /// The device address of element 0.
    pub(crate) fn device_addr(&self) -> u64 {
        self.dev
    }

    /// Element `i`, read from host RAM now (not a cached copy). Panics if `i` is out of range.
    pub(crate) fn read(&self, i: usize) -> T {
        assert!(
            i < self.host.len(),
            "mapped element {i} of {}",
            self.host.len()
        );
        // SAFETY: in bounds of the live allocation; through a raw pointer (no reference to memory
        // the device may be writing), and the types used here (integers, floats) have no
        // invalid bit patterns.
        unsafe { std::ptr::read_volatile(self.host.as_ptr().add(i)) }
    }

    /// Store `v` in element `i` now. Panics if `i` is out of range.
    pub(crate) fn write(&mut self, i: usize, v: T) {
        assert!(
            i < self.host.len(),
            "mapped element {i} of {}",
            self.host.len()
        );
        // SAFETY: in bounds of the live allocation, through a raw pointer.
        unsafe { std::ptr::write_volatile(self.host.as_mut_ptr().add(i), v) }
    }
}
