//! Dynamic shared memory under the name of rust-cuda's `cuda_std::shared` (0.2.2).
//!
//! `cuda_std` also has `shared_array!` for *static* shared memory; the stages size their shared
//! memory at launch (`extern __shared__ T sdata[]`), so only the dynamic form is here. The stages
//! use it through the bounds-checked view [`crate::gpu::Shared`], whose constructor
//! ([`crate::gpu::Shared::dynamic`]) calls [`dynamic_shared_mem`].

use crate::intrinsics::imp;

/// `extern __shared__ T sdata[];` — a pointer to the start of the block's dynamic shared memory,
/// the bytes the launch reserved (`sharedMemBytes`). The same pointer on every call, in every
/// thread of the block; the contents are uninitialized until the kernel writes them.
///
/// Same signature as `cuda_std::shared::dynamic_shared_mem` (a safe function: only reading or
/// writing through the pointer is `unsafe`, and how many bytes it may touch is the launch's
/// business). On `nvptx64` it is the address of the kernel's `.extern .shared` array, aligned for
/// `T`; in the emulator, the running block's shared buffer (16-byte aligned), and calling it
/// outside an emulated launch panics.
#[inline(always)]
pub fn dynamic_shared_mem<T>() -> *mut T {
    imp::dynamic_shared::<T>()
}
