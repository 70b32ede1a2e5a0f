//! The warp: 32 threads that execute together. Names and signatures of rust-cuda's
//! `cuda_std::warp` (0.2.2) — [`sync_warp`], [`lane_id`] — plus the shuffles and the vote the kernels use,
//! which `cuda_std` 0.2.2 does not have: they are named after CUDA C's `__shfl_down_sync`,
//! `__shfl_sync` and `__ballot_sync` and take the same arguments in the same order
//! ([`shfl_down_sync`], [`shfl_sync`], [`ballot_sync`]). See [`crate::porting`].
//!
//! **Masks.** As in CUDA C, the `mask` names the lanes that take part. The calling lane must be
//! in it, and the lanes in it must pass the same mask; otherwise the PTX ISA leaves the
//! instruction undefined, which is why the masked functions are `unsafe` (as
//! `cuda_std::warp::sync_warp` is). With [`FULL_MASK`] in every lane both hold; what is left —
//! every lane of the mask must get there — is a correctness rule like `__syncthreads()`'s (a
//! lane that never arrives hangs the warp), which the stages' `// SAFETY:` comments state.
//!
//! The emulator runs warp operations over **whole warps** only: a mask that leaves out a lane the
//! warp has (or the calling lane) stops the kernel there with a panic naming the mask, instead of
//! emulating something the GPU might do differently.

use crate::element::by_words;
use crate::intrinsics::imp;
use crate::Element;

pub use crate::intrinsics::FULL_MASK;

/// `__syncwarp(mask)`: waits until every lane named in `mask` has arrived, and orders their
/// shared-memory accesses (those before it happen before those after it). Since Volta the lanes
/// of a warp are scheduled independently; this barrier is what makes warp-level shared-memory
/// code correct.
///
/// # Safety
/// The calling lane must be in `mask`, and every lane in `mask` must call `sync_warp` with the
/// same mask (the PTX ISA leaves `bar.warp.sync` undefined otherwise). Same signature as
/// `cuda_std::warp::sync_warp`, whose contract says the same.
#[inline(always)]
pub unsafe fn sync_warp(mask: u32) {
    // SAFETY: the caller's contract is `imp::sync_warp`'s.
    unsafe { imp::sync_warp(mask) }
}

/// This thread's lane in its warp, `0..32`.
///
/// Same signature as `cuda_std::warp::lane_id`, which reads PTX's `%laneid`. Every launch of this
/// crate is 1-D, where the lane is `threadIdx.x % 32` by definition (warps are cut from the
/// linear thread index); it is computed that way here, so that the compiler folds it with the warp
/// index `threadIdx.x / 32` the kernels also need.
#[inline(always)]
pub fn lane_id() -> u32 {
    imp::thread_idx() % crate::intrinsics::WARP_SIZE
}

/// `__shfl_down_sync(mask, value, delta)`: the `value` of lane `lane_id() + delta`, read register
/// to register (no shared memory, no barrier); a lane whose partner would be past lane 31 gets
/// its own `value` back. 64-bit types take two 32-bit shuffles. (Width 32: CUDA C's optional
/// fourth argument is not offered.)
///
/// # Safety
/// As for [`sync_warp`]: the calling lane must be in `mask`, and every lane in `mask` must call
/// `shfl_down_sync` with the same mask and `delta` (the PTX ISA leaves `shfl.sync` undefined
/// otherwise).
#[inline(always)]
pub unsafe fn shfl_down_sync<T: Element>(mask: u32, value: T, delta: u32) -> T {
    by_words(value, |w| {
        // SAFETY: the caller's contract is `imp::shfl_down_u32`'s; every lane moves the same
        // words in the same order.
        unsafe { imp::shfl_down_u32(mask, w, delta) }
    })
}

/// `__shfl_sync(mask, value, src_lane)`: the `value` of lane `src_lane % 32`, read register to
/// register; 64-bit types take two 32-bit shuffles. (Width 32.)
///
/// # Safety
/// As for [`sync_warp`]: the calling lane must be in `mask`, every lane in `mask` must call
/// `shfl_sync` with the same mask, and the source lane must be in `mask` (the PTX ISA leaves
/// `shfl.sync` undefined otherwise).
#[inline(always)]
pub unsafe fn shfl_sync<T: Element>(mask: u32, value: T, src_lane: u32) -> T {
    by_words(value, |w| {
        // SAFETY: the caller's contract is `imp::shfl_idx_u32`'s; every lane moves the same
        // words in the same order.
        unsafe { imp::shfl_idx_u32(mask, w, src_lane) }
    })
}

/// `__ballot_sync(mask, predicate)`: bit `l` of the result is set when lane `l` of `mask` passed
/// a true `predicate` (`vote.sync.ballot.b32`).
///
/// # Safety
/// As for [`sync_warp`]: the calling lane must be in `mask`, and every lane in `mask` must call
/// `ballot_sync` with the same mask.
#[inline(always)]
pub unsafe fn ballot_sync(mask: u32, predicate: bool) -> u32 {
    // SAFETY: the caller's contract is `imp::ballot`'s.
    unsafe { imp::ballot(mask, predicate) }
}
