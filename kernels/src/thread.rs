//! Threads, blocks and the grid, under the names of rust-cuda's `cuda_std::thread` (0.2.2), with
//! the same signatures: a kernel written against `cuda_std` compiles against this module by
//! changing the `use` line (see [`crate::porting`]).
//!
//! Only the `x` dimension exists here: every kernel of this crate is launched as a 1-D grid of
//! 1-D blocks. Each function wraps one intrinsic of [`crate::gpu`] (a PTX special register or
//! `bar.sync` on the GPU, the emulated grid on the host).

use crate::intrinsics::imp;

/// `threadIdx.x`: this thread's index in its block, `0..block_dim_x()`.
#[inline(always)]
pub fn thread_idx_x() -> u32 {
    imp::thread_idx()
}

/// `blockIdx.x`: this block's index in the grid, `0..grid_dim_x()`.
#[inline(always)]
pub fn block_idx_x() -> u32 {
    imp::block_idx()
}

/// `blockDim.x`: threads per block.
#[inline(always)]
pub fn block_dim_x() -> u32 {
    imp::block_dim()
}

/// `gridDim.x`: blocks in the grid.
#[inline(always)]
pub fn grid_dim_x() -> u32 {
    imp::grid_dim()
}

/// `__syncthreads()`: waits until every thread of the block has arrived, and makes their
/// shared-memory writes visible to each other. Every thread of the block must call it (a block
/// where some thread never arrives hangs: a correctness rule of the kernel, not a memory-safety
/// one, which is why this is safe, as in `cuda_std`).
#[inline(always)]
pub fn sync_threads() {
    imp::sync_threads()
}

/// `__threadfence()`: this thread's global-memory writes become visible to the whole GPU before
/// any of its later writes. The same function as [`crate::gpu::thread_fence`].
#[inline(always)]
pub fn device_fence() {
    crate::intrinsics::thread_fence()
}

/// `blockIdx.x * blockDim.x + threadIdx.x`: this thread's index in a 1-D grid, as a `u32` like
/// `cuda_std::thread::index_1d`.
///
/// A grid of more than 2^32 threads has indices a `u32` cannot hold: there this stops the kernel
/// (`trap` on the GPU, a panic in the emulator) instead of wrapping around to a wrong index. The
/// stages compute their global index as a `usize` instead, so that they handle inputs of 2^32
/// elements and more.
#[inline(always)]
pub fn index_1d() -> u32 {
    match block_idx_x()
        .checked_mul(block_dim_x())
        .and_then(|b| b.checked_add(thread_idx_x()))
    {
        Some(i) => i,
        None => crate::intrinsics::fail("thread::index_1d: more than 2^32 threads in the grid"),
    }
}
