//! # Warp layer: shuffle any item, reduce 32 items in registers
//!
//! What: [`shfl_down`] moves an [`Item`] of `W` words from lane `lane + delta` with `W` 32-bit
//! `shfl.sync.down` instructions; [`reduce`] combines the 32 lanes' items in five shuffle steps
//! (offsets 16, 8, 4, 2, 1), lane 0 getting the result — stage 8's `warp_reduce_shuffle` for any
//! [`Combine`].
//!
//! Why faster than shared memory: registers to registers, no barrier, no bank conflicts. Cost:
//! `W` shuffles per step, so wide items pay per word.

use super::{Combine, Item, ItemCheck, MAX_WORDS};
use crate::gpu::{self, WARP_SIZE};

/// `__shfl_down_sync(0xffffffff, v, delta)` for any [`Item`]: the item of lane `lane + delta`
/// (this lane's own when that is past lane 31). All 32 lanes must call it together, with the same
/// `delta` (a correctness rule, as for [`gpu::shfl_down_u32`]; a missing lane hangs the warp).
#[inline(always)]
pub fn shfl_down<I: Item>(v: I, delta: u32) -> I {
    let () = ItemCheck::<I>::OK;
    let w = v.to_words();
    let mut out = [0u32; MAX_WORDS];
    for k in 0..I::WORDS {
        out[k] = gpu::shfl_down_u32(w[k], delta);
    }
    I::from_words(&out)
}

/// Reduce one item per lane over the warp; lane 0 gets the combine of lanes 0..32 (in a fixed
/// tree). All 32 lanes must call it together.
#[inline(always)]
pub fn reduce<C: Combine>(mut v: C::Item) -> C::Item {
    let mut offset = WARP_SIZE / 2;
    while offset > 0 {
        v = C::combine(v, shfl_down(v, offset));
        offset /= 2;
    }
    v
}
