//! # Porting kernels: CUDA C ↔ rust-cuda (`cuda_std` 0.2.2) ↔ this crate
//!
//! The kernel-side vocabulary of this crate uses the names of rust-cuda's `cuda_std` 0.2.2 where
//! that crate has them — [`crate::thread`], [`crate::warp`], [`crate::shared`], with the same
//! signatures — and CUDA C's names where it does not (the shuffle). A kernel written against
//! `cuda_std` ports by changing `use cuda_std::{thread, warp, shared}` to
//! `use reduce_kernels::{thread, warp, shared}`; a CUDA C kernel ports row by row:
//!
//! | CUDA C | `cuda_std` 0.2.2 | this crate | PTX (from `target/ptx/reduce_kernels.ptx`, as `cargo xtask build-ptx` writes it) |
//! |---|---|---|---|
//! | `threadIdx.x` | `thread::thread_idx_x()` | [`thread::thread_idx_x()`](crate::thread::thread_idx_x) | `mov.u32 %r, %tid.x` |
//! | `blockIdx.x` | `thread::block_idx_x()` | [`thread::block_idx_x()`](crate::thread::block_idx_x) | `mov.u32 %r, %ctaid.x` |
//! | `blockDim.x` | `thread::block_dim_x()` | [`thread::block_dim_x()`](crate::thread::block_dim_x) | `mov.u32 %r, %ntid.x` |
//! | `gridDim.x` | `thread::grid_dim_x()` | [`thread::grid_dim_x()`](crate::thread::grid_dim_x) | `mov.u32 %r, %nctaid.x` |
//! | `blockIdx.x * blockDim.x + threadIdx.x` | `thread::index_1d()` | [`thread::index_1d()`](crate::thread::index_1d) (traps past 2^32; the stages use a `usize` index) | (not used by the stages) |
//! | `__syncthreads()` | `thread::sync_threads()` | [`thread::sync_threads()`](crate::thread::sync_threads) | `bar.sync 0` |
//! | `__syncthreads_or(p)` | `thread::sync_threads_or(p: u32) -> u32` | [`gpu::sync_threads_or(p: bool) -> bool`](crate::gpu::sync_threads_or) | `bar.red.or.pred` |
//! | `__threadfence()` | `thread::device_fence()` | [`thread::device_fence()`](crate::thread::device_fence) | `fence.sc.gpu` (not used by the stages) |
//! | `__syncwarp(mask)` | `unsafe warp::sync_warp(mask)` | [`unsafe warp::sync_warp(mask)`](crate::warp::sync_warp); [`gpu::sync_warp()`](crate::gpu::sync_warp) for the full mask | `bar.warp.sync -1` |
//! | `threadIdx.x % 32` (lane) | `warp::lane_id()` (`%laneid`) | [`warp::lane_id()`](crate::warp::lane_id) (`threadIdx.x % 32`: the same in a 1-D block) | `and.b32 %r, %r, 31` |
//! | `0xffffffff` (all lanes) | — | [`warp::FULL_MASK`](crate::warp::FULL_MASK) | `-1` |
//! | `__shfl_down_sync(mask, v, d)` | — (0.2.2 has no shuffles) | [`unsafe warp::shfl_down_sync(mask, v, d)`](crate::warp::shfl_down_sync) | `shfl.sync.down.b32 %r, %r, d, 31, -1` |
//! | `__shfl_sync(mask, v, src)` | — | [`unsafe warp::shfl_sync(mask, v, src)`](crate::warp::shfl_sync); [`gpu::shfl_idx_u32`](crate::gpu::shfl_idx_u32) for the full mask | `shfl.sync.idx.b32 %r, %r, src, 31, -1` |
//! | `__ballot_sync(mask, p)` | — | [`unsafe warp::ballot_sync(mask, p)`](crate::warp::ballot_sync); [`gpu::ballot`](crate::gpu::ballot) for the full mask | `vote.sync.ballot.b32` |
//! | `extern __shared__ T s[];` | `shared::dynamic_shared_mem::<T>()` | [`shared::dynamic_shared_mem::<T>()`](crate::shared::dynamic_shared_mem); checked view [`gpu::Shared::dynamic(len)`](crate::gpu::Shared::dynamic) | `.extern .shared` array, `ld.shared`/`st.shared` |
//! | `__shared__ T s[N];` | `shared_array![T; N]` | — (every stage sizes shared memory at launch) | |
//! | `const T* __restrict__ in`, `in[i]` | `&[T]`, `in[i]` | [`gpu::Global`](crate::gpu::Global), [`Global::get(i)`](crate::gpu::Global::get) (checked) | `ld.global.b32` |
//! | `__ldg` on a `float4` / `ld.global.nc.v4` | — | [`Global::get_vec4`](crate::gpu::Global::get_vec4) | `ld.global.nc.v4.u32` |
//! | `T* out`, `out[i] = v` | `&mut [T]` / `*mut T` | [`gpu::GlobalMut::set`](crate::gpu::GlobalMut::set) (checked) | `st.global.b32` |
//! | `volatile T*` (other blocks write it) | — | [`gpu::Coherent`](crate::gpu::Coherent) | `ld.relaxed.sys` / `st.relaxed.sys` |
//! | `atomicAdd(&c, 1)` + `__threadfence()` | — | [`gpu::Counter::take_ticket`](crate::gpu::Counter::take_ticket) (acquire-release) | `atom.acq_rel.gpu.add.u32` |
//! | `__trap()` | — | [`gpu::fail`](crate::gpu::fail) | `trap` |
//!
//! "—" means the `thread`, `warp` and `shared` modules of `cuda_std` 0.2.2 have no such name
//! (its kernels index slices and use Rust's atomics through its own code generator). `unsafe`
//! in the middle column is `cuda_std`'s own; in the right column it is this crate's, and both mark
//! the same PTX rule (the calling lane must be in `mask`, see [`crate::warp`]). The old names of
//! [`crate::gpu`] (`thread_idx()`, `block_idx()`, …) remain, as re-exports of the same functions.
//!
//! ## Why not depend on `cuda_std` itself
//!
//! rust-cuda compiles kernels with its own rustc back end, and its crates are built for it:
//!
//! * `cuda_builder` 0.3.0 always builds `rustc_codegen_nvvm`, which links against **LLVM 7**
//!   (NVVM IR is LLVM 7 bitcode) — no package registry reachable from this project's machines
//!   provides LLVM 7 — and is written against the rustc internals of a 2021 nightly, which the
//!   pinned toolchain no longer has.
//! * `cuda_std` 0.2.2 does not compile with rustc's stock `nvptx64-nvidia-cuda` target: it uses
//!   the removed `register_attr` feature and `#[nvvm_internal]` attributes that only
//!   `rustc_codegen_nvvm` understands, calls `__nvvm_*` functions that only that back end's
//!   `libintrinsics` defines, and its `shared_array!` relies on that back end to place a `static`
//!   in the shared address space — under the stock target it would land in global memory, one
//!   array for the whole grid instead of one per block.
//!
//! So this crate uses the stock target (LLVM's NVPTX back end, shipped with rustc) and offers
//! `cuda_std`'s *names* on top of `core::arch::nvptx`, inline PTX and one LLVM intrinsic
//! (see [`crate::gpu`]); the same functions run on the CPU in the emulator ([`crate::emu`]).
//!
//! ## Example: a block sum in the `cuda_std` vocabulary, run on the emulator
//!
//! ```
//! use reduce_kernels::emu::{launch, LaunchConfig};
//! use reduce_kernels::{shared, thread, warp};
//! use std::sync::Mutex;
//!
//! let input: Vec<f32> = (0..300).map(|i| i as f32).collect();
//! let sums = Mutex::new(vec![0.0f32; 2]);
//! let kernel = || {
//!     // As in cuda_std: a 1-D index, a shuffle tree per warp, one slot per warp in dynamic
//!     // shared memory, a block barrier, then warp 0 adds the slots.
//!     let i = thread::index_1d() as usize;
//!     let mut v = if i < input.len() { input[i] } else { 0.0 };
//!     for offset in [16, 8, 4, 2, 1] {
//!         // SAFETY: every lane of every (whole) warp runs this with the full mask.
//!         v += unsafe { warp::shfl_down_sync(warp::FULL_MASK, v, offset) };
//!     }
//!     let slots = shared::dynamic_shared_mem::<f32>();
//!     let warp_id = thread::thread_idx_x() / 32;
//!     if warp::lane_id() == 0 {
//!         // SAFETY: the launch reserves one f32 per warp; each warp writes its own slot.
//!         unsafe { *slots.add(warp_id as usize) = v };
//!     }
//!     thread::sync_threads();
//!     if thread::thread_idx_x() == 0 {
//!         let warps = thread::block_dim_x() / 32;
//!         // SAFETY: `warps` slots were written before the barrier.
//!         let total: f32 = (0..warps).map(|w| unsafe { *slots.add(w as usize) }).sum();
//!         sums.lock().unwrap()[thread::block_idx_x() as usize] = total;
//!     }
//! };
//! launch(LaunchConfig { grid_dim: 2, block_dim: 256, shared_bytes: 8 * 4 }, &kernel).unwrap();
//! let sums = sums.into_inner().unwrap();
//! assert_eq!(sums[0], (0..256).sum::<i32>() as f32);
//! assert_eq!(sums[1], (256..300).sum::<i32>() as f32);
//! ```
//!
//! (Raw-pointer accesses like these bypass the emulator's shared-memory race and bounds checks;
//! the stages go through the checked [`crate::gpu::Shared`] view instead.)

#[cfg(test)]
mod tests;
