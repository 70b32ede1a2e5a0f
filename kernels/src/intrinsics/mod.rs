//! The hardware layer: every GPU intrinsic, behind small documented wrappers, and nothing
//! above it (it imports only [`crate::emu`], whose CPU grid runs the host twins, and the half
//! types' bit conversions). [`crate::gpu`] is the kernels' facade over it and the memory views;
//! the lesson — which CUDA C each name stands for — is there.
//!
//! Each function has two implementations: on `nvptx64` it is one or two PTX instructions
//! (`nvptx.rs`); on the host it calls the emulator (`host.rs`), which runs the same kernel with
//! one coroutine per GPU thread.

/// 32 threads execute in lockstep groups called warps.
pub const WARP_SIZE: u32 = 32;

/// The mask naming all 32 lanes (`0xffffffff` in CUDA C). Not a `cuda_std` name.
pub const FULL_MASK: u32 = u32::MAX;

/// [`Word`]'s seal: implemented in `element.rs` for every element, and nowhere else.
pub(crate) mod sealed {
    pub trait Sealed {}
}

/// A value the coherent loads and stores (`imp::load_coherent` …) move as one 2-, 4- or 8-byte
/// access, by its bits: every [`crate::Element`] (a blanket impl in `element.rs`), so this layer
/// needs nothing above it. Sealed: the elements are the only words.
pub trait Word: Copy + sealed::Sealed {
    /// The bits, zero-extended to 64.
    fn to_word(self) -> u64;
    /// The value of these bits (the low 16, 32 or 64).
    fn from_word(bits: u64) -> Self;
}

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

/// `__syncthreads_or(pred)`: a block barrier that also tells every thread whether `pred` was true
/// in **any** thread of the block.
#[inline(always)]
pub fn sync_threads_or(pred: bool) -> bool {
    imp::sync_threads_or(pred)
}
/// `__syncwarp()`: [`crate::warp::sync_warp`] over the whole warp ([`FULL_MASK`]),
/// which needs no `unsafe`: the calling lane is always in the full mask, and that all 32 lanes
/// arrive is a correctness rule of the kernel like [`crate::thread::sync_threads`]'s (a warp where one never
/// arrives hangs).
#[inline(always)]
pub fn sync_warp() {
    // SAFETY: the full mask holds the calling lane; see the doc comment.
    unsafe { imp::sync_warp(FULL_MASK) }
}
/// `__shfl_down_sync(0xffffffff, v, delta)` on 32 bits: [`crate::warp::shfl_down_sync`] over
/// the whole warp, safe for the reason [`sync_warp`] is. All 32 lanes must call it together.
#[inline(always)]
pub fn shfl_down_u32(v: u32, delta: u32) -> u32 {
    // SAFETY: the full mask holds the calling lane; see `sync_warp`.
    unsafe { imp::shfl_down_u32(FULL_MASK, v, delta) }
}
/// `__shfl_sync(0xffffffff, v, src)` on 32 bits: [`crate::warp::shfl_sync`] over the whole warp,
/// safe for the reason [`sync_warp`] is. All 32 lanes must call it together.
#[inline(always)]
pub fn shfl_idx_u32(v: u32, src: u32) -> u32 {
    // SAFETY: the full mask holds the calling lane; see `sync_warp`.
    unsafe { imp::shfl_idx_u32(FULL_MASK, v, src) }
}
/// `__ballot_sync(0xffffffff, pred)`: [`crate::warp::ballot_sync`] over the whole warp, safe for
/// the reason [`sync_warp`] is. All 32 lanes must call it together.
#[inline(always)]
pub fn ballot(pred: bool) -> u32 {
    // SAFETY: the full mask holds the calling lane; see `sync_warp`.
    unsafe { imp::ballot(FULL_MASK, pred) }
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
