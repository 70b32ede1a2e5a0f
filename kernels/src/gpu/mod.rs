//! Every GPU intrinsic the stages use, behind small documented wrappers.
//!
//! This is the only module that touches hardware. Each function has two implementations:
//! on `nvptx64` it is one or two PTX instructions; on the host it calls the emulator
//! ([`crate::emu`]), which runs the same kernel with one coroutine per GPU thread.
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
pub use crate::memory::{Global, GlobalMut, Shared};

/// 32 threads execute in lockstep groups called warps.
pub const WARP_SIZE: u32 = 32;

/// 16 bytes, loaded by one `ld.global.nc.v4.u32` (4 × `f32`/`i32`/`u32` or 2 × 64-bit values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(16))]
pub struct Vec4(pub [u32; 4]);

pub mod arith;
pub mod minmax;

#[cfg(target_arch = "nvptx64")]
#[path = "nvptx.rs"]
pub(crate) mod imp;

#[cfg(not(target_arch = "nvptx64"))]
#[path = "host.rs"]
pub(crate) mod imp;

/// The names this module had before [`crate::thread`] existed (`thread_idx()` for
/// `thread::thread_idx_x()` …); the same functions.
pub use crate::thread::{
    block_dim_x as block_dim, block_idx_x as block_idx, grid_dim_x as grid_dim, sync_threads,
    thread_idx_x as thread_idx,
};

/// `__syncthreads_or(pred)`: a block barrier that also tells every thread whether `pred` was true
/// in **any** thread of the block.
#[inline(always)]
pub fn sync_threads_or(pred: bool) -> bool {
    imp::sync_threads_or(pred)
}
/// `__syncwarp()`: [`crate::warp::sync_warp`] over the whole warp ([`crate::warp::FULL_MASK`]),
/// which needs no `unsafe`: the calling lane is always in the full mask, and that all 32 lanes
/// arrive is a correctness rule of the kernel like [`sync_threads`]'s (a warp where one never
/// arrives hangs).
#[inline(always)]
pub fn sync_warp() {
    // SAFETY: the full mask holds the calling lane; see the doc comment.
    unsafe { imp::sync_warp(crate::warp::FULL_MASK) }
}
/// `__shfl_down_sync(0xffffffff, v, delta)` on 32 bits: [`crate::warp::shfl_down_sync`] over
/// the whole warp, safe for the reason [`sync_warp`] is. All 32 lanes must call it together.
#[inline(always)]
pub fn shfl_down_u32(v: u32, delta: u32) -> u32 {
    // SAFETY: the full mask holds the calling lane; see `sync_warp`.
    unsafe { imp::shfl_down_u32(crate::warp::FULL_MASK, v, delta) }
}
/// `__shfl_sync(0xffffffff, v, src)` on 32 bits: [`crate::warp::shfl_sync`] over the whole warp,
/// safe for the reason [`sync_warp`] is. All 32 lanes must call it together.
#[inline(always)]
pub fn shfl_idx_u32(v: u32, src: u32) -> u32 {
    // SAFETY: the full mask holds the calling lane; see `sync_warp`.
    unsafe { imp::shfl_idx_u32(crate::warp::FULL_MASK, v, src) }
}
/// `__ballot_sync(0xffffffff, pred)`: [`crate::warp::ballot_sync`] over the whole warp, safe for
/// the reason [`sync_warp`] is. All 32 lanes must call it together.
#[inline(always)]
pub fn ballot(pred: bool) -> u32 {
    // SAFETY: the full mask holds the calling lane; see `sync_warp`.
    unsafe { imp::ballot(crate::warp::FULL_MASK, pred) }
}
/// `__threadfence()`: this thread's global-memory writes become visible to the whole GPU before
/// any of its later writes (used before signalling "my partial result is stored").
#[inline(always)]
pub fn thread_fence() {
    imp::thread_fence()
}

/// `%globaltimer`: nanoseconds on a GPU-wide clock (it advances in steps of about a
/// microsecond). Only for timeouts; time kernels with CUDA events.
#[inline(always)]
pub fn global_timer_ns() -> u64 {
    imp::global_timer_ns()
}

/// Stop the kernel because its launch broke the kernel's contract (`what` says how): `trap` on
/// the GPU, a panic with `what` in the emulator.
#[cold]
#[inline(always)]
#[track_caller]
pub fn fail(what: &str) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = what;
        // SAFETY: `trap` aborts the kernel; it has no other effect.
        unsafe { imp::trap() }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!("{what}")
}
