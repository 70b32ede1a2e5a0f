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

pub use crate::memory::{Coherent, Counter, Global, GlobalMut, Shared};

/// 32 threads execute in lockstep groups called warps.
pub const WARP_SIZE: u32 = 32;

/// 16 bytes, loaded by one `ld.global.nc.v4.u32` (4 × `f32`/`i32`/`u32` or 2 × 64-bit values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(16))]
pub struct Vec4(pub [u32; 4]);

#[cfg(target_arch = "nvptx64")]
pub(crate) mod imp {
    use super::Vec4;
    use crate::Element;
    use core::arch::nvptx;

    unsafe extern "C" {
        #[link_name = "llvm.nvvm.shfl.sync.down.i32"]
        fn shfl_sync_down_i32(mask: u32, value: i32, delta: u32, clamp: u32) -> i32;
        #[link_name = "llvm.nvvm.shfl.sync.idx.i32"]
        fn shfl_sync_idx_i32(mask: u32, value: i32, lane: u32, clamp: u32) -> i32;
    }

    #[inline(always)]
    pub fn thread_idx() -> u32 {
        // SAFETY: reads a special register; no memory, no preconditions.
        unsafe { nvptx::_thread_idx_x() }
    }
    #[inline(always)]
    pub fn block_idx() -> u32 {
        // SAFETY: reads a special register; no memory, no preconditions.
        unsafe { nvptx::_block_idx_x() }
    }
    #[inline(always)]
    pub fn block_dim() -> u32 {
        // SAFETY: reads a special register; no memory, no preconditions.
        unsafe { nvptx::_block_dim_x() }
    }
    #[inline(always)]
    pub fn grid_dim() -> u32 {
        // SAFETY: reads a special register; no memory, no preconditions.
        unsafe { nvptx::_grid_dim_x() }
    }
    #[inline(always)]
    pub fn sync_threads() {
        // SAFETY: a barrier; the caller's contract (every thread of the block reaches it) is a
        // correctness rule of the kernel, and a violation hangs or faults, it corrupts nothing.
        unsafe { nvptx::_syncthreads() }
    }
    /// # Safety
    /// [`crate::warp::sync_warp`]'s contract.
    #[inline(always)]
    pub unsafe fn sync_warp(mask: u32) {
        if mask == u32::MAX {
            // The full mask as an immediate (what nvcc emits for `__syncwarp()`); the branch
            // folds away, `mask` being a constant wherever this is inlined.
            // SAFETY: the caller's contract; a warp barrier, it touches no memory.
            unsafe { core::arch::asm!("bar.warp.sync -1;") }
        } else {
            // SAFETY: as above.
            unsafe { core::arch::asm!("bar.warp.sync {m};", m = in(reg32) mask) }
        }
    }
    #[inline(always)]
    pub fn sync_threads_or(pred: bool) -> bool {
        let r: u32;
        // SAFETY: a block barrier with a vote, in registers; touches no memory.
        unsafe {
            core::arch::asm!(
                "{{ .reg .pred p; setp.ne.u32 p, {x}, 0; bar.red.or.pred p, 0, p; selp.u32 {r}, 1, 0, p; }}",
                x = in(reg32) pred as u32, r = out(reg32) r,
            )
        }
        r != 0
    }
    /// # Safety
    /// [`crate::warp::shfl_down_sync`]'s contract.
    #[inline(always)]
    pub unsafe fn shfl_down_u32(mask: u32, v: u32, delta: u32) -> u32 {
        // clamp = 0x1f: source lanes past 31 return the caller's own value.
        // SAFETY: the caller's contract; a register exchange among the lanes of `mask`, it
        // touches no memory.
        unsafe { shfl_sync_down_i32(mask, v as i32, delta, 0x1f) as u32 }
    }
    /// # Safety
    /// [`crate::warp::shfl_sync`]'s contract.
    #[inline(always)]
    pub unsafe fn shfl_idx_u32(mask: u32, v: u32, src: u32) -> u32 {
        // clamp = 0x1f: the source lane is `src % 32`.
        // SAFETY: the caller's contract; a register exchange among the lanes of `mask`, it
        // touches no memory.
        unsafe { shfl_sync_idx_i32(mask, v as i32, src, 0x1f) as u32 }
    }
    /// # Safety
    /// [`crate::warp::ballot_sync`]'s contract.
    #[inline(always)]
    pub unsafe fn ballot(mask: u32, pred: bool) -> u32 {
        let r: u32;
        // SAFETY: the caller's contract; a vote among the lanes of `mask`, in registers.
        unsafe {
            core::arch::asm!(
                "{{ .reg .pred p; setp.ne.u32 p, {x}, 0; vote.sync.ballot.b32 {r}, p, {m}; }}",
                x = in(reg32) pred as u32, m = in(reg32) mask, r = out(reg32) r,
            )
        }
        r
    }
    #[inline(always)]
    pub fn thread_fence() {
        // SAFETY: a fence has no operands and no effect but ordering.
        unsafe { core::arch::asm!("fence.sc.gpu;") }
    }
    #[inline(always)]
    pub fn global_timer_ns() -> u64 {
        let t: u64;
        // Not `pure`: every call reads the clock again.
        // SAFETY: reads a special register into `t`; touches no memory.
        unsafe {
            core::arch::asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nomem, nostack))
        }
        t
    }
    #[inline(always)]
    pub fn dynamic_shared<T>() -> *mut T {
        // Only the address of the block's dynamic shared memory; nothing is read or written.
        core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<T>()
    }
    #[inline(always)]
    pub unsafe fn load<T: Copy>(p: *const T) -> T {
        // SAFETY: the caller's contract (a live, aligned `T` nobody writes meanwhile).
        unsafe { p.read() }
    }
    #[inline(always)]
    pub unsafe fn store<T: Copy>(p: *mut T, v: T) {
        // SAFETY: the caller's contract (a live, aligned `T` nobody else accesses meanwhile).
        unsafe { p.write(v) }
    }
    #[inline(always)]
    pub unsafe fn load_vec4(p: *const Vec4) -> Vec4 {
        // Read-only (non-coherent) path, 16 bytes per thread: the widest load a thread can issue.
        let (a, b, c, d): (u32, u32, u32, u32);
        // SAFETY: the caller's contract (16 live, 16-byte aligned bytes of global memory that
        // nothing writes while the kernel runs: the read-only path may serve stale data).
        unsafe {
            core::arch::asm!(
                "{{ .reg .u64 g; cvta.to.global.u64 g, {p}; ld.global.nc.v4.u32 {{{a}, {b}, {c}, {d}}}, [g]; }}",
                a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
                p = in(reg64) p,
                options(pure, readonly, nostack)
            )
        };
        Vec4([a, b, c, d])
    }
    #[inline(always)]
    pub unsafe fn atomic_add_acq_rel_u32(p: *mut u32, v: u32) -> u32 {
        // Written out in PTX: LLVM's NVPTX backend drops the ordering of Rust atomics (it emits
        // a plain, relaxed `atom`), so the release/acquire semantics must be in the instruction.
        let old: u32;
        // SAFETY: the caller's contract (a live, 4-byte aligned u32 in global memory).
        unsafe {
            core::arch::asm!(
                "atom.acq_rel.gpu.add.u32 {old}, [{p}], {v};",
                old = out(reg32) old, p = in(reg64) p, v = in(reg32) v,
                options(nostack)
            );
        }
        old
    }
    #[inline(always)]
    pub unsafe fn atomic_add_u64(p: *mut u64, v: u64) {
        // Generic addressing: `p` may point into shared memory (the exact sums' long accumulator).
        // SAFETY: the caller's contract (a live, 8-byte aligned u64 only accessed atomically
        // meanwhile).
        unsafe {
            core::arch::asm!(
                "red.relaxed.gpu.add.u64 [{p}], {v};",
                p = in(reg64) p, v = in(reg64) v,
                options(nostack)
            );
        }
    }
    #[inline(always)]
    pub unsafe fn trap() -> ! {
        // SAFETY: `trap` ends the kernel with an error the host sees; it has no other effect.
        unsafe { nvptx::trap() }
    }
    #[inline(always)]
    pub unsafe fn load_coherent<T: Element>(p: *const T) -> T {
        // `ld.relaxed.sys`: a morally strong load that sees other blocks' (and the host's) stores
        // instead of a stale L1 line; what `volatile` means in CUDA C.
        // SAFETY: the caller's contract (a live, aligned `T` of 2, 4 or 8 bytes).
        unsafe {
            if core::mem::size_of::<T>() == 2 {
                let v: u16;
                core::arch::asm!("ld.relaxed.sys.u16 {v}, [{p}];", v = out(reg16) v, p = in(reg64) p, options(nostack, readonly));
                T::from_bits64(v as u64)
            } else if core::mem::size_of::<T>() == 4 {
                let v: u32;
                core::arch::asm!("ld.relaxed.sys.u32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p, options(nostack, readonly));
                T::from_bits64(v as u64)
            } else {
                let v: u64;
                core::arch::asm!("ld.relaxed.sys.u64 {v}, [{p}];", v = out(reg64) v, p = in(reg64) p, options(nostack, readonly));
                T::from_bits64(v)
            }
        }
    }
    #[inline(always)]
    pub unsafe fn store_coherent<T: Element>(p: *mut T, v: T) {
        let bits = v.to_bits64();
        // SAFETY: the caller's contract (a live, aligned `T` of 2, 4 or 8 bytes).
        unsafe {
            if core::mem::size_of::<T>() == 2 {
                core::arch::asm!("st.relaxed.sys.u16 [{p}], {v};", v = in(reg16) bits as u16, p = in(reg64) p, options(nostack));
            } else if core::mem::size_of::<T>() == 4 {
                core::arch::asm!("st.relaxed.sys.u32 [{p}], {v};", v = in(reg32) bits as u32, p = in(reg64) p, options(nostack));
            } else {
                core::arch::asm!("st.relaxed.sys.u64 [{p}], {v};", v = in(reg64) bits, p = in(reg64) p, options(nostack));
            }
        }
    }
}

#[cfg(not(target_arch = "nvptx64"))]
pub(crate) mod imp {
    use super::Vec4;
    use crate::emu;
    use crate::Element;

    pub fn thread_idx() -> u32 {
        emu::with_thread(|t| t.thread_idx as u32)
    }
    pub fn block_idx() -> u32 {
        emu::with_thread(|t| t.block_idx as u32)
    }
    pub fn block_dim() -> u32 {
        emu::with_thread(|t| t.block_dim as u32)
    }
    pub fn grid_dim() -> u32 {
        emu::with_thread(|t| t.grid_dim as u32)
    }
    pub fn sync_threads() {
        emu::sync_threads()
    }
    /// # Safety
    /// None in the emulator (a mask it cannot run panics); the signature is the GPU's.
    pub unsafe fn sync_warp(mask: u32) {
        emu::check_warp_mask(mask, "__syncwarp");
        emu::sync_warp()
    }
    pub fn sync_threads_or(pred: bool) -> bool {
        emu::sync_threads_or(pred)
    }
    /// # Safety
    /// None in the emulator (a mask it cannot run panics); the signature is the GPU's.
    pub unsafe fn shfl_down_u32(mask: u32, v: u32, delta: u32) -> u32 {
        emu::check_warp_mask(mask, "__shfl_down_sync");
        emu::shfl_down(v, delta)
    }
    /// # Safety
    /// None in the emulator (a mask it cannot run panics); the signature is the GPU's.
    pub unsafe fn shfl_idx_u32(mask: u32, v: u32, src: u32) -> u32 {
        emu::check_warp_mask(mask, "__shfl_sync");
        emu::shfl_idx(v, src)
    }
    /// # Safety
    /// None in the emulator (a mask it cannot run panics); the signature is the GPU's.
    pub unsafe fn ballot(mask: u32, pred: bool) -> u32 {
        emu::check_warp_mask(mask, "__ballot_sync");
        emu::ballot(pred)
    }
    pub fn thread_fence() {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst)
    }
    pub fn global_timer_ns() -> u64 {
        static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        EPOCH
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_nanos() as u64
    }
    pub fn dynamic_shared<T>() -> *mut T {
        emu::shared_base() as *mut T
    }
    pub unsafe fn load<T: Copy>(p: *const T) -> T {
        // SAFETY: the caller's contract (a live, aligned `T` nobody writes meanwhile).
        unsafe { p.read() }
    }
    pub unsafe fn store<T: Copy>(p: *mut T, v: T) {
        // SAFETY: the caller's contract (a live, aligned `T` nobody else accesses meanwhile).
        unsafe { p.write(v) }
    }
    pub unsafe fn load_vec4(p: *const Vec4) -> Vec4 {
        assert!(
            (p as usize).is_multiple_of(16),
            "misaligned 16-byte global load at {p:p}"
        );
        // SAFETY: the caller's contract (16 live bytes), aligned as just checked.
        unsafe { p.read() }
    }
    pub unsafe fn atomic_add_acq_rel_u32(p: *mut u32, v: u32) -> u32 {
        // SAFETY: the caller's contract (a live, aligned u32 only accessed atomically meanwhile).
        unsafe { std::sync::atomic::AtomicU32::from_ptr(p) }
            .fetch_add(v, std::sync::atomic::Ordering::AcqRel)
    }
    pub unsafe fn atomic_add_u64(p: *mut u64, v: u64) {
        assert!(
            (p as usize).is_multiple_of(8),
            "misaligned 64-bit atomic at {p:p}"
        );
        // SAFETY: the caller's contract (a live u64 only accessed atomically meanwhile), aligned
        // as just checked.
        unsafe { std::sync::atomic::AtomicU64::from_ptr(p) }
            .fetch_add(v, std::sync::atomic::Ordering::Relaxed);
    }
    pub unsafe fn load_coherent<T: Element>(p: *const T) -> T {
        use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering::Relaxed};
        // Atomic (relaxed) accesses: other emulated blocks run on other OS threads, and plain
        // accesses racing with them would be a data race in Rust's memory model.
        if core::mem::size_of::<T>() == 2 {
            // SAFETY: as below, 2 bytes (`f16` / `bf16`).
            T::from_bits64(unsafe { AtomicU16::from_ptr(p as *mut u16) }.load(Relaxed) as u64)
        } else if core::mem::size_of::<T>() == 4 {
            // SAFETY: the caller's contract (a live, aligned `T` of 4 bytes, only accessed
            // through these functions while the kernel runs).
            T::from_bits64(unsafe { AtomicU32::from_ptr(p as *mut u32) }.load(Relaxed) as u64)
        } else {
            // SAFETY: as above, 8 bytes.
            T::from_bits64(unsafe { AtomicU64::from_ptr(p as *mut u64) }.load(Relaxed))
        }
    }
    pub unsafe fn store_coherent<T: Element>(p: *mut T, v: T) {
        use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering::Relaxed};
        let bits = v.to_bits64();
        if core::mem::size_of::<T>() == 2 {
            // SAFETY: as in `load_coherent`, 2 bytes.
            unsafe { AtomicU16::from_ptr(p as *mut u16) }.store(bits as u16, Relaxed)
        } else if core::mem::size_of::<T>() == 4 {
            // SAFETY: as in `load_coherent`.
            unsafe { AtomicU32::from_ptr(p as *mut u32) }.store(bits as u32, Relaxed)
        } else {
            // SAFETY: as in `load_coherent`.
            unsafe { AtomicU64::from_ptr(p as *mut u64) }.store(bits, Relaxed)
        }
    }
}

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
