//! # Block layer: reduce one item per thread over the block
//!
//! What: every warp reduces its 32 items with [`super::warp::reduce`], lane 0 of each warp stores
//! its warp's item in shared memory (one item per warp, as words), and after one barrier warp 0
//! reduces those — CUB's `BlockReduce` "warp reductions" algorithm, stage 8's `block_reduce` for any
//! [`Combine`].
//!
//! Why faster than a shared-memory tree (stages 1–6): one barrier instead of `log2(BLOCK)`, and
//! `BLOCK / 32` items of shared memory instead of `BLOCK`. Cost: warp 0 does the last step alone.

use super::{load_item, store_item, warp, Combine};
use crate::gpu::{Shared, WARP_SIZE};
use crate::{thread, warp as hw_warp};

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
