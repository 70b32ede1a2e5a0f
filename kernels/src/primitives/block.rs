//! # Block layer: reduce one item per thread over the block
//!
//! What: every warp reduces its 32 items with [`super::warp::reduce`], lane 0 of each warp stores
//! its warp's item in shared memory (one item per warp, as words), and after one barrier warp 0
//! reduces those — CUB's `BlockReduce` "warp reductions" algorithm, for any [`Combine`];
//! [`reduce_op`] is the same for an [`Element`] and a [`ReduceOp`], through a typed shared view
//! (stage 8's block step, and the axis kernels').
//!
//! Why faster than a shared-memory tree (stages 1–6): one barrier instead of `log2(BLOCK)`, and
//! `BLOCK / 32` items of shared memory instead of `BLOCK`. Cost: warp 0 does the last step alone.

use super::{load_item, store_item, warp, Combine};
use crate::gpu::{Shared, WARP_SIZE};
use crate::{thread, warp as hw_warp, Element, ReduceOp};

/// Shared-memory words [`reduce`] needs for a block of `block` threads and items of `words` words.
pub const fn shared_words(block: usize, words: usize) -> usize {
    block / WARP_SIZE as usize * words
}

/// Reduce one item per thread over a block of `BLOCK` threads; thread 0 gets the result.
///
/// `smem` must hold [`shared_words`]`(BLOCK, WORDS)` words (`WORDS` = [`super::Item::WORDS`] of `C::Item`) (checked: a smaller view traps
/// on the GPU, panics in the emulator). Every thread of the block must call it; to call it again
/// with the same `smem`, put a barrier in between (the last reads of this call are warp 0's).
#[inline(always)]
pub fn reduce<C: Combine, const BLOCK: usize>(v: C::Item, smem: Shared<u32>) -> C::Item {
    let tid = thread::thread_idx_x();
    let (warp_id, lane) = (tid / WARP_SIZE, hw_warp::lane_id());
    let warps = BLOCK as u32 / WARP_SIZE;
    let warp_total = warp::reduce::<C>(v);
    if lane == 0 {
        store_item(&smem, warp_id as usize, warp_total);
    }
    thread::sync_threads();
    let mut total = C::identity();
    if warp_id == 0 {
        let mine = if lane < warps {
            load_item::<C::Item>(&smem, lane as usize)
        } else {
            C::identity()
        };
        total = warp::reduce::<C>(mine);
    }
    total
}

/// Reduce one element per thread over a block of `BLOCK` threads with `O`; thread 0 gets the
/// result: [`warp::reduce_op`] in every warp, lane 0 of each stores its warp's total in `smem`,
/// one barrier, then warp 0 folds the `BLOCK / 32` totals with [`warp::reduce_op`].
///
/// `smem` should hold `BLOCK / 32` elements (a store past a smaller view traps on the GPU,
/// panics in the emulator). Every thread of the block must call it; to call it again with the
/// same `smem`, put a barrier in between (the last reads of this call are warp 0's).
#[inline(always)]
pub fn reduce_op<T: Element, O: ReduceOp, const BLOCK: usize>(v: T, smem: Shared<T>) -> T {
    let tid = thread::thread_idx_x();
    let (warp_id, lane) = (tid / WARP_SIZE, hw_warp::lane_id());
    let warp_total = warp::reduce_op::<T, O>(v);
    if lane == 0 {
        smem.set(warp_id, warp_total); // checked: a block larger than BLOCK traps here
    }
    thread::sync_threads();
    let mut total = O::identity();
    if warp_id == 0 {
        let mine = if lane < BLOCK as u32 / WARP_SIZE && lane < smem.len() {
            // SAFETY: `lane < smem.len()`, tested just above (the compiler folds it with the
            // first test when `smem` is a `BLOCK / 32` view).
            unsafe { smem.get_unchecked(lane) }
        } else {
            O::identity()
        };
        total = warp::reduce_op::<T, O>(mine);
    }
    total
}
