//! Every GPU intrinsic the stages use, behind small documented wrappers, with the memory views
//! and thread indices they are used with: the kernels' one import for the device. The
//! intrinsics themselves are [`crate::intrinsics`], the only module that touches hardware. Each
//! function has two implementations: on `nvptx64` it is one or two PTX instructions; on the host
//! it calls the emulator ([`crate::emu`]), which runs the same kernel with one coroutine per GPU
//! thread.
//!
//! The kernels reach most of these through rust-cuda's names — [`crate::thread`],
//! [`crate::warp`], [`crate::shared`] — which wrap the implementations here;
//! [`crate::porting`] maps every one CUDA C ↔ `cuda_std` ↔ this crate.
//!
//! | CUDA C | here |
//! |---|---|
//! | `threadIdx.x`, `blockIdx.x`, `blockDim.x`, `gridDim.x` | [`crate::thread::thread_idx_x`] … (also as [`thread_idx`], [`block_idx`], [`block_dim`], [`grid_dim`]) |
//! | `__syncthreads()` | [`crate::thread::sync_threads`] (also [`sync_threads`]) |
//! | `__syncthreads_or(p)` | [`sync_threads_or`] |
//! | `__syncwarp(mask)` | [`crate::warp::sync_warp`]; [`sync_warp`] for the full mask |
//! | `extern __shared__ T sdata[]` | [`crate::shared::dynamic_shared_mem`], checked: [`Shared::dynamic`] |
//! | `__shfl_down_sync(mask, v, d)` | [`crate::warp::shfl_down_sync`]; full mask: [`crate::Element::shfl_down`], [`shfl_down_u32`] |
//! | `__shfl_sync(mask, v, src)` | [`crate::warp::shfl_sync`]; full mask: [`shfl_idx_u32`] |
//! | `__ballot_sync(mask, p)` | [`crate::warp::ballot_sync`]; full mask: [`ballot`] |
//! | `const T* __restrict__ in` | [`Global`] (`in[i]` is [`Global::get`], 16-byte loads are [`Global::get_vec4`]) |
//! | `T* out` | [`GlobalMut`] |
//! | `volatile T* flags` (written by other blocks or the host) | [`Coherent`] |
//! | `atomicAdd(&counter, 1)` + `__threadfence()` | [`Counter::take_ticket`] (release + acquire), [`thread_fence`] |
//! | `asm("mov.u64 %0, %%globaltimer;")` | [`global_timer_ns`] |
//! | `fmaxf`, `__hmax2`, … (one `min`/`max` instruction, NaN-propagating or not, `f32` and packed halves) | [`minmax`] |
//! | `fmaf(a, b, c)` / `__fmaf_rn` (Rust never fuses `a * b + c` itself) | [`arith::fma_f32`] |
//! | `__ddiv_rn(a, b)` where the division must stay inside its branch | [`arith::div_f64`] |
//!
//! Thread and block ids are `u32`, as in CUDA, so in-block arithmetic (loop counters, shared-memory
//! indices) stays 32-bit like nvcc's `unsigned int`; indices into global memory are `usize`, so every
//! kernel handles inputs of 2^32 elements and more.
//!
//! **Bounds.** [`Global`], [`GlobalMut`], [`Coherent`] and [`Shared`] are made from raw pointers
//! by `unsafe` constructors whose contract is the launch configuration (buffer lengths,
//! shared-memory elements). After that, their safe accessors (`get`, `set`, `get_vec4`) are
//! **checked on both targets**: an index past the length panics in the emulator (reported as
//! [`crate::emu::EmuError::Panic`] naming the index and the length) and executes `trap` on the
//! GPU (the host sees `CUDA_ERROR_LAUNCH_FAILED` / an illegal instruction), so no safe call can
//! read or write out of bounds. Where a kernel proves the bound itself, it calls the `unsafe`
//! `*_unchecked` twin with a `// SAFETY:` comment naming the proof; the emulator still checks
//! those (a wrong proof is a test failure, not memory corruption).
//!
//! **Read-only vs coherent.** [`Global`] is input that nothing writes while the kernel runs, so
//! its loads may take the non-coherent read-only path (`ld.global.nc`). Memory that other blocks
//! or the host write during the launch (stage 8's partials, the benchmarks' gate flag) is a
//! [`Coherent`]: its loads and stores are `ld.relaxed.sys` / `st.relaxed.sys` (morally strong in
//! the PTX memory model, never served from a stale L1 line), and ordering between blocks comes
//! from release/acquire operations ([`Counter::take_ticket`]).

pub use crate::coherent::{Coherent, Counter};
pub use crate::intrinsics::{
    arith, ballot, fail, global_timer_ns, minmax, shfl_down_u32, shfl_idx_u32, sync_threads_or,
    sync_warp, thread_fence, Vec4, WARP_SIZE,
};
pub use crate::memory::{Global, GlobalMut, Shared};

/// The names this module had before [`crate::thread`] existed (`thread_idx()` for
/// `thread::thread_idx_x()` …); the same functions.
pub use crate::thread::{
    block_dim_x as block_dim, block_idx_x as block_idx, grid_dim_x as grid_dim, sync_threads,
    thread_idx_x as thread_idx,
};

pub(crate) use crate::intrinsics::imp;
