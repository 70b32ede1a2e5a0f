//! cudarc's device memory (`CudaSlice<T>`, `CudaView<'_, T>`, `CudaViewMut<'_, T>`) as a
//! [`View`], safely: the view borrows the slice, so it cannot outlive the memory, and nothing
//! can write the slice through cudarc's safe API while the view lives (that needs `&mut`).

use crate::backend::Backend;
use crate::error::{ReduceError, Result};
use crate::types::Scalar;
use crate::view::View;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};

use super::check_device_memory;

impl Backend {
    /// `memory` (a `&CudaSlice<T>`, `&CudaView<'_, T>` or `&CudaViewMut<'_, T>`) as a [`View`]
    /// of this GPU, for every [`crate::Reducer`] method, checked as
    /// [`Backend::borrow_raw`] checks an address (the memory must be of this GPU's primary
    /// context — cudarc's `CudaContext::new(ordinal)` is that context).
    ///
    /// `stream` is the cudarc stream that wrote the memory (for a `CudaSlice`,
    /// [`Backend::borrow_cudarc_slice`] uses the slice's own): with cudarc's event tracking on
    /// (its default) the stream first waits for the slice's last write on any stream; then it is
    /// synchronized, so everything queued on it has run before a reduction reads the view.
    ///
    /// # Errors
    /// [`ReduceError::BadPointer`] naming `memory` ([`crate::PointerProblem`]: another
    /// context or GPU, misaligned, …); on the emulator always ([`crate::PointerProblem::Emulator`]);
    /// a driver error from the synchronization.
    pub fn borrow_cudarc<'a, T: Scalar, M: DevicePtr<T>>(
        &self,
        memory: &'a M,
        stream: &CudaStream,
    ) -> Result<View<'a, T>> {
        let gpu = super::gpu_of(self, "memory")?;
        let len = memory.len();
        let (ptr, read) = memory.device_ptr(stream);
        stream.synchronize().map_err(|e| ReduceError::Driver {
            what: "waiting for the cudarc stream that wrote the borrowed memory".into(),
            message: format!("{e:?}"),
        })?;
        drop(read);
        check_device_memory::<T>(gpu, "memory", ptr, len)?;
        // SAFETY: checked above (device memory of this GPU's context, aligned, `len` elements
        // inside one allocation); `memory` is borrowed for `'a`, so cudarc cannot free it (its
        // `Drop` needs ownership) nor write it through its safe API (that needs `&mut`) while
        // the view lives; the writes queued before were waited for above; cudarc slices hold
        // valid `T`s (`CudaSlice<T>` is made from `T`s or zeros of a `ValidAsZeroBits` `T`).
        Ok(unsafe { View::borrowed(self.id(), ptr, len) })
    }

    /// [`Backend::borrow_cudarc`] of a whole `CudaSlice`, waiting for the slice's own stream.
    ///
    /// # Errors
    /// As [`Backend::borrow_cudarc`].
    pub fn borrow_cudarc_slice<'a, T: Scalar>(
        &self,
        slice: &'a CudaSlice<T>,
    ) -> Result<View<'a, T>> {
        self.borrow_cudarc(slice, slice.stream())
    }
}
