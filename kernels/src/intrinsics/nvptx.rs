//! The intrinsics on the GPU: one or two PTX instructions each (see [`super`]).

use super::Vec4;
use super::Word;
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
/// One 16-byte store (`st.global.v4.u32`): a thread's four neighbouring results in one
/// transaction instead of four scalar stores 4 bytes apart.
///
/// # Safety
/// `p` points to 16 live, 16-byte aligned bytes of global memory that nobody else accesses
/// while the kernel runs.
#[inline(always)]
pub unsafe fn store_vec4(p: *mut Vec4, v: Vec4) {
    let [a, b, c, d] = v.0;
    // SAFETY: the caller's contract.
    unsafe {
        core::arch::asm!(
            "{{ .reg .u64 g; cvta.to.global.u64 g, {p}; st.global.v4.u32 [g], {{{a}, {b}, {c}, {d}}}; }}",
            a = in(reg32) a, b = in(reg32) b, c = in(reg32) c, d = in(reg32) d,
            p = in(reg64) p,
            options(nostack)
        )
    };
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
pub unsafe fn load_coherent<T: Word>(p: *const T) -> T {
    // `ld.relaxed.sys`: a morally strong load that sees other blocks' (and the host's) stores
    // instead of a stale L1 line; what `volatile` means in CUDA C.
    // SAFETY: the caller's contract (a live, aligned `T` of 2, 4 or 8 bytes).
    unsafe {
        if core::mem::size_of::<T>() == 2 {
            let v: u16;
            core::arch::asm!("ld.relaxed.sys.u16 {v}, [{p}];", v = out(reg16) v, p = in(reg64) p, options(nostack, readonly));
            T::from_word(v as u64)
        } else if core::mem::size_of::<T>() == 4 {
            let v: u32;
            core::arch::asm!("ld.relaxed.sys.u32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p, options(nostack, readonly));
            T::from_word(v as u64)
        } else {
            let v: u64;
            core::arch::asm!("ld.relaxed.sys.u64 {v}, [{p}];", v = out(reg64) v, p = in(reg64) p, options(nostack, readonly));
            T::from_word(v)
        }
    }
}
/// 16 bytes with one morally strong load (`ld.relaxed.sys.v4.u32`): four relaxed 4-byte
/// accesses issued as one instruction, as [`load_coherent`] sees other blocks' stores.
#[inline(always)]
pub unsafe fn load_vec4_coherent<T: Word>(p: *const T) -> Vec4 {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: the caller's contract (16 live, 16-byte aligned bytes).
    unsafe {
        core::arch::asm!(
            "ld.relaxed.sys.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
            a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            p = in(reg64) p,
            options(nostack, readonly)
        )
    };
    Vec4([a, b, c, d])
}
#[inline(always)]
pub unsafe fn store_coherent<T: Word>(p: *mut T, v: T) {
    let bits = v.to_word();
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
