//! Every GPU intrinsic the stages use, behind small documented wrappers.
//!
//! This is the only module that touches hardware. Each function has two implementations:
//! on `nvptx64` it is one or two PTX instructions; on the host it calls the emulator
//! ([`crate::emu`]), which runs the same kernel with one coroutine per GPU thread.
//!
//! | CUDA C | here |
//! |---|---|
//! | `threadIdx.x`, `blockIdx.x`, `blockDim.x`, `gridDim.x` | [`thread_idx`], [`block_idx`], [`block_dim`], [`grid_dim`] |
//! | `__syncthreads()` | [`sync_threads`] |
//! | `__syncthreads_or(p)` | [`sync_threads_or`] |
//! | `__syncwarp()` | [`sync_warp`] |
//! | `extern __shared__ T sdata[]` | [`Shared::dynamic`] |
//! | `__shfl_down_sync(0xffffffff, v, d)` | [`crate::Element::shfl_down`] (built on [`shfl_down_u32`]) |
//! | `const T* __restrict__ in` | [`Global`] (`in[i]` is [`Global::get`], 16-byte loads are [`Global::get_vec4`]) |
//! | `T* out` | [`GlobalMut`] |
//! | `atomicAdd(&counter, 1)`, `__threadfence()` | [`Counter::increment`], [`thread_fence`] |
//! | `asm("mov.u64 %0, %%globaltimer;")` | [`global_timer_ns`] |
//!
//! Thread and block ids are `u32`, as in CUDA, so in-block arithmetic (loop counters, shared-memory
//! indices) stays 32-bit like nvcc's `unsigned int`; indices into global memory are `usize`, so every
//! kernel handles inputs of 2^32 elements and more.
//!
//! **Bounds.** [`Global`], [`GlobalMut`] and [`Shared`] are made from raw pointers by `unsafe`
//! constructors whose contract is the launch configuration (buffer lengths, shared-memory bytes).
//! The emulator checks every access against those lengths and reports a violation as an error;
//! on the GPU, as in CUDA C, the kernel's own `if i < n` guards are the only check.

use crate::Element;

/// 32 threads execute in lockstep groups called warps.
pub const WARP_SIZE: u32 = 32;

/// 16 bytes, loaded by one `ld.global.nc.v4.u32` (4 × `f32`/`i32`/`u32` or 2 × 64-bit values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(16))]
pub struct Vec4(pub [u32; 4]);

#[cfg(target_arch = "nvptx64")]
mod imp {
    use super::Vec4;
    use core::arch::nvptx;

    unsafe extern "C" {
        #[link_name = "llvm.nvvm.shfl.sync.down.i32"]
        fn shfl_sync_down_i32(mask: u32, value: i32, delta: u32, clamp: u32) -> i32;
    }

    #[inline(always)]
    pub fn thread_idx() -> u32 {
        unsafe { nvptx::_thread_idx_x() }
    }
    #[inline(always)]
    pub fn block_idx() -> u32 {
        unsafe { nvptx::_block_idx_x() }
    }
    #[inline(always)]
    pub fn block_dim() -> u32 {
        unsafe { nvptx::_block_dim_x() }
    }
    #[inline(always)]
    pub fn grid_dim() -> u32 {
        unsafe { nvptx::_grid_dim_x() }
    }
    #[inline(always)]
    pub fn sync_threads() {
        unsafe { nvptx::_syncthreads() }
    }
    #[inline(always)]
    pub fn sync_warp() {
        unsafe { core::arch::asm!("bar.warp.sync -1;") }
    }
    #[inline(always)]
    pub fn sync_threads_or(pred: bool) -> bool {
        let r: u32;
        unsafe {
            core::arch::asm!(
                "{{ .reg .pred p; setp.ne.u32 p, {x}, 0; bar.red.or.pred p, 0, p; selp.u32 {r}, 1, 0, p; }}",
                x = in(reg32) pred as u32, r = out(reg32) r,
            )
        }
        r != 0
    }
    #[inline(always)]
    pub fn shfl_down_u32(v: u32, delta: u32) -> u32 {
        // clamp = 0x1f: source lanes past 31 return the caller's own value.
        unsafe { shfl_sync_down_i32(u32::MAX, v as i32, delta, 0x1f) as u32 }
    }
    #[inline(always)]
    pub fn thread_fence() {
        unsafe { core::arch::asm!("membar.gl;") }
    }
    #[inline(always)]
    pub fn global_timer_ns() -> u64 {
        let t: u64;
        // Not `pure`: every call reads the clock again.
        unsafe {
            core::arch::asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nomem, nostack))
        }
        t
    }
    #[inline(always)]
    pub unsafe fn dynamic_shared<T>() -> *mut T {
        core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<T>()
    }
    #[inline(always)]
    pub unsafe fn shared_len_bytes() -> usize {
        usize::MAX
    }
    #[inline(always)]
    pub unsafe fn load<T: Copy>(p: *const T) -> T {
        p.read()
    }
    #[inline(always)]
    pub unsafe fn load_volatile<T: Copy>(p: *const T) -> T {
        p.read_volatile()
    }
    #[inline(always)]
    pub unsafe fn store<T: Copy>(p: *mut T, v: T) {
        p.write(v)
    }
    #[inline(always)]
    pub unsafe fn load_vec4(p: *const Vec4) -> Vec4 {
        // Read-only (non-coherent) path, 16 bytes per thread: the widest load a thread can issue.
        let (a, b, c, d): (u32, u32, u32, u32);
        core::arch::asm!(
            "{{ .reg .u64 g; cvta.to.global.u64 g, {p}; ld.global.nc.v4.u32 {{{a}, {b}, {c}, {d}}}, [g]; }}",
            a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            p = in(reg64) p,
            options(pure, readonly, nostack)
        );
        Vec4([a, b, c, d])
    }
    #[inline(always)]
    pub unsafe fn atomic_add_u32(p: *mut u32, v: u32) -> u32 {
        // Relaxed: the ordering comes from `thread_fence()` before it. (LLVM's NVPTX backend
        // drops the ordering of Rust atomics anyway — it emits a plain `atom` — so ordering must
        // never be left to an `Ordering` argument here.)
        core::sync::atomic::AtomicU32::from_ptr(p)
            .fetch_add(v, core::sync::atomic::Ordering::Relaxed)
    }
}

#[cfg(not(target_arch = "nvptx64"))]
mod imp {
    use super::Vec4;
    use crate::emu;

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
    pub fn sync_warp() {
        emu::sync_warp()
    }
    pub fn sync_threads_or(pred: bool) -> bool {
        emu::sync_threads_or(pred)
    }
    pub fn shfl_down_u32(v: u32, delta: u32) -> u32 {
        emu::shfl_down(v, delta)
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
    pub unsafe fn dynamic_shared<T>() -> *mut T {
        emu::shared_base() as *mut T
    }
    pub unsafe fn shared_len_bytes() -> usize {
        emu::shared_len_bytes()
    }
    pub unsafe fn load<T: Copy>(p: *const T) -> T {
        p.read()
    }
    pub unsafe fn load_volatile<T: Copy>(p: *const T) -> T {
        p.read_volatile()
    }
    pub unsafe fn store<T: Copy>(p: *mut T, v: T) {
        p.write(v)
    }
    pub unsafe fn load_vec4(p: *const Vec4) -> Vec4 {
        assert!(
            (p as usize).is_multiple_of(16),
            "misaligned 16-byte global load at {p:p}"
        );
        p.read()
    }
    pub unsafe fn atomic_add_u32(p: *mut u32, v: u32) -> u32 {
        std::sync::atomic::AtomicU32::from_ptr(p).fetch_add(v, std::sync::atomic::Ordering::SeqCst)
    }
}

/// `threadIdx.x`: this thread's index in its block, `0..block_dim()`.
#[inline(always)]
pub fn thread_idx() -> u32 {
    imp::thread_idx()
}
/// `blockIdx.x`: this block's index in the grid, `0..grid_dim()`.
#[inline(always)]
pub fn block_idx() -> u32 {
    imp::block_idx()
}
/// `blockDim.x`: threads per block.
#[inline(always)]
pub fn block_dim() -> u32 {
    imp::block_dim()
}
/// `gridDim.x`: blocks in the grid.
#[inline(always)]
pub fn grid_dim() -> u32 {
    imp::grid_dim()
}
/// `__syncthreads()`: waits until every thread of the block has arrived, and makes their
/// shared-memory writes visible to each other. Every thread of the block must call it.
#[inline(always)]
pub fn sync_threads() {
    imp::sync_threads()
}
/// `__syncthreads_or(pred)`: a block barrier that also tells every thread whether `pred` was true
/// in **any** thread of the block.
#[inline(always)]
pub fn sync_threads_or(pred: bool) -> bool {
    imp::sync_threads_or(pred)
}
/// `__syncwarp()`: the same barrier for the 32 threads of this warp. Since Volta, threads of a
/// warp are scheduled independently; this is what makes warp-level shared-memory code correct.
#[inline(always)]
pub fn sync_warp() {
    imp::sync_warp()
}
/// `__shfl_down_sync(0xffffffff, v, delta)` on 32 bits: read a register of lane `lane + delta`
/// without going through shared memory. All 32 lanes must call it together.
#[inline(always)]
pub fn shfl_down_u32(v: u32, delta: u32) -> u32 {
    imp::shfl_down_u32(v, delta)
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

/// Per-block shared memory sized at launch (`extern __shared__ T sdata[]`).
#[derive(Clone, Copy)]
pub struct Shared<T> {
    ptr: *mut T,
}

impl<T: Element> Shared<T> {
    /// The block's dynamic shared memory viewed as an array of `T`.
    ///
    /// # Safety
    /// The launch must reserve enough dynamic shared memory for every index the kernel passes to
    /// [`Shared::get`] / [`Shared::set`] (the emulator checks this; the GPU does not).
    #[inline(always)]
    pub unsafe fn dynamic() -> Self {
        Shared {
            ptr: imp::dynamic_shared::<T>(),
        }
    }
    /// `sdata[i]`.
    #[inline(always)]
    pub fn get(&self, i: u32) -> T {
        #[cfg(not(target_arch = "nvptx64"))]
        crate::emu::shared_access(
            i as usize * core::mem::size_of::<T>(),
            core::mem::size_of::<T>(),
            false,
        );
        unsafe { imp::load(self.ptr.add(i as usize)) }
    }
    /// `sdata[i] = v`.
    #[inline(always)]
    pub fn set(&self, i: u32, v: T) {
        #[cfg(not(target_arch = "nvptx64"))]
        crate::emu::shared_access(
            i as usize * core::mem::size_of::<T>(),
            core::mem::size_of::<T>(),
            true,
        );
        unsafe { imp::store(self.ptr.add(i as usize), v) }
    }
    /// Bytes of dynamic shared memory this launch reserved (known to the emulator only; on the
    /// GPU it returns `usize::MAX`).
    pub fn len_bytes(&self) -> usize {
        unsafe { imp::shared_len_bytes() }
    }
}

/// A read-only array in device memory: the kernel's input (`const T* __restrict__`).
#[derive(Clone, Copy)]
pub struct Global<T> {
    ptr: *const T,
    len: usize,
}

impl<T: Element> Global<T> {
    /// # Safety
    /// `ptr` must point to `len` initialized elements that stay valid and unmodified while the
    /// kernel runs.
    #[inline(always)]
    pub unsafe fn from_raw(ptr: *const T, len: usize) -> Self {
        Global { ptr, len }
    }
    /// Number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }
    /// `len() == 0`.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// `in[i]`; the caller guards `i < len()` (the emulator asserts it).
    #[inline(always)]
    pub fn get(&self, i: usize) -> T {
        #[cfg(not(target_arch = "nvptx64"))]
        assert!(
            i < self.len,
            "global read out of bounds: index {i}, length {}",
            self.len
        );
        unsafe { imp::load(self.ptr.add(i)) }
    }
    /// `in[i]`, but always from L2 / memory rather than a possibly stale L1 line (a `volatile`
    /// load): for data other blocks wrote during this launch.
    #[inline(always)]
    pub fn get_volatile(&self, i: usize) -> T {
        #[cfg(not(target_arch = "nvptx64"))]
        assert!(
            i < self.len,
            "global read out of bounds: index {i}, length {}",
            self.len
        );
        unsafe { imp::load_volatile(self.ptr.add(i)) }
    }
    /// How many leading elements come before the first 16-byte boundary.
    #[inline(always)]
    pub fn misaligned_head(&self) -> usize {
        let off = (self.ptr as usize) % 16;
        if off == 0 {
            0
        } else {
            ((16 - off) / core::mem::size_of::<T>()).min(self.len)
        }
    }
    /// The `v`-th 16-byte vector counted from element `start` (which must lie on a 16-byte
    /// boundary): elements `start + v*L .. start + (v+1)*L` with `L = 16 / size_of::<T>()`.
    #[inline(always)]
    pub fn get_vec4(&self, start: usize, v: usize) -> Vec4 {
        let lanes = 16 / core::mem::size_of::<T>();
        #[cfg(not(target_arch = "nvptx64"))]
        assert!(
            start + (v + 1) * lanes <= self.len,
            "16-byte global read past the end (vector {v} from {start})"
        );
        let _ = lanes;
        unsafe { imp::load_vec4((self.ptr.add(start) as *const Vec4).add(v)) }
    }
}

/// A writable array in device memory (`T* out`).
#[derive(Clone, Copy)]
pub struct GlobalMut<T> {
    ptr: *mut T,
    len: usize,
}

impl<T: Element> GlobalMut<T> {
    /// # Safety
    /// `ptr` must point to `len` elements that only this kernel accesses while it runs; each
    /// element must be written by at most one thread.
    #[inline(always)]
    pub unsafe fn from_raw(ptr: *mut T, len: usize) -> Self {
        GlobalMut { ptr, len }
    }
    /// `out[i] = v`.
    #[inline(always)]
    pub fn set(&self, i: usize, v: T) {
        #[cfg(not(target_arch = "nvptx64"))]
        assert!(
            i < self.len,
            "global write out of bounds: index {i}, length {}",
            self.len
        );
        unsafe { imp::store(self.ptr.add(i), v) }
    }
    /// A read-only view of the same memory.
    #[inline(always)]
    pub fn as_global(&self) -> Global<T> {
        Global {
            ptr: self.ptr,
            len: self.len,
        }
    }
}

/// A `u32` in device memory that blocks count on with atomics.
#[derive(Clone, Copy)]
pub struct Counter {
    ptr: *mut u32,
}

impl Counter {
    /// # Safety
    /// `ptr` must point to a `u32` in device memory that lives as long as the launch.
    #[inline(always)]
    pub unsafe fn from_raw(ptr: *mut u32) -> Self {
        Counter { ptr }
    }
    /// `atomicAdd(counter, 1)`: returns the value before the increment.
    #[inline(always)]
    pub fn increment(&self) -> u32 {
        unsafe { imp::atomic_add_u32(self.ptr, 1) }
    }
    /// `*counter = 0` (a plain store; the next launch sees it).
    #[inline(always)]
    pub fn reset(&self) {
        unsafe { imp::store(self.ptr, 0) }
    }
}
