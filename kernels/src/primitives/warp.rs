//! # Warp layer: shuffle any item, reduce 32 items in registers
//!
//! What: [`shfl_down`] moves an [`Item`] of `W` words from lane `lane + delta` with `W` 32-bit
//! `shfl.sync.down` instructions; [`reduce`] combines the 32 lanes' items in five shuffle steps
//! (offsets 16, 8, 4, 2, 1), lane 0 getting the result — CUB's `WarpReduce` for any [`Combine`].
//!
//! The trees every kernel of the crate folds a warp with, in one place: [`tree`] / [`tree_mut`]
//! (offsets `top, top/2, …, 1`) and [`tree_strided`] (offsets 16, 8, …, down to a stride) run a
//! caller's step — shuffle and combine — at each offset; [`reduce_op`] (the whole warp),
//! [`reduce_group`] (sub-warp groups of `g` lanes) and [`reduce_strided`] (lanes `w` apart) are
//! those trees for an [`Element`] and a [`ReduceOp`]. The step is inlined, so a tree here is the
//! same machine code as the loop written out at the call site.
//!
//! Why faster than shared memory: registers to registers, no barrier, no bank conflicts. Cost:
//! `W` shuffles per step, so wide items pay per word.

use super::{Combine, Item, ItemCheck, MAX_WORDS};
use crate::gpu::{self, WARP_SIZE};
use crate::{Element, ReduceOp};

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

/// The shuffle-down tree: `v = step(v, offset)` for `offset = top, top / 2, …, 1` (none when
/// `top` is 0). `step` shuffles and combines (`combine(v, shfl_down(v, offset))`); with `top` a
/// power of two at most 16, lane 0 ends with the combine of lanes `0..2·top`, in a fixed order.
/// Every lane of the warp must call it with the same `top` (the shuffles need all 32 lanes).
#[inline(always)]
pub fn tree<T>(mut v: T, top: u32, step: impl Fn(T, u32) -> T) -> T {
    let mut offset = top;
    while offset > 0 {
        v = step(v, offset);
        offset /= 2;
    }
    v
}

/// [`tree`] over a value updated in place: `step(&mut v, offset)` for `offset = top, top / 2,
/// …, 1` (for a value whose merge works in place, such as an exact expansion).
#[inline(always)]
pub fn tree_mut<T>(v: &mut T, top: u32, mut step: impl FnMut(&mut T, u32)) {
    let mut offset = top;
    while offset > 0 {
        step(v, offset);
        offset /= 2;
    }
}

/// The shuffle-down tree stopped at a stride: `v = step(v, offset)` for `offset = 16, 8, …,
/// stride` (for `stride` a power of two, 1..=16; none when it is above 16). Lanes `stride` apart
/// fold together: lane `c < stride` ends with the combine of lanes `c, c + stride, …` of the warp.
/// Every lane of the warp must call it with the same `stride`.
#[inline(always)]
pub fn tree_strided<T>(mut v: T, stride: usize, step: impl Fn(T, usize) -> T) -> T {
    let mut offset = WARP_SIZE as usize / 2;
    while offset >= stride {
        v = step(v, offset);
        offset /= 2;
    }
    v
}

/// Reduce one item per lane over the warp; lane 0 gets the combine of lanes 0..32 (in a fixed
/// tree). All 32 lanes must call it together.
#[inline(always)]
pub fn reduce<C: Combine>(v: C::Item) -> C::Item {
    tree(v, WARP_SIZE / 2, |v, offset| {
        C::combine(v, shfl_down(v, offset))
    })
}

/// Reduce one element per lane over the warp with `O`: five shuffle-and-combine steps (offsets
/// 16, 8, 4, 2, 1), registers only; lane 0 gets the result (stage 8's warp step; stage 5's
/// `warp_reduce_shared` does the same through shared memory). All 32 lanes must call it.
#[inline(always)]
pub fn reduce_op<T: Element, O: ReduceOp>(v: T) -> T {
    tree(v, WARP_SIZE / 2, |v, offset| {
        O::combine(v, v.shfl_down(offset))
    })
}

/// Reduce the lanes of sub-warp groups of `g` lanes (a power of two up to 32) with `O`: offsets
/// `g/2, …, 1`, so lane 0 of each group reads only its own group's lanes and groups sharing a
/// warp do not disturb each other; lane 0 of each group gets its group's total. Every lane of the
/// warp must call it with the same `g`.
#[inline(always)]
pub fn reduce_group<T: Element, O: ReduceOp>(v: T, g: usize) -> T {
    tree(v, g as u32 / 2, |v, offset| {
        O::combine(v, v.shfl_down(offset))
    })
}

/// Reduce lanes `w` apart with `O` (`w` dividing 32): shuffles down by 16, 8, …, `w` leave lane
/// `c < w` with the combine of lanes `c, c + w, …` (in a fixed tree: deterministic) — the row
/// lanes of a tile of `w` columns, thread `(r, c)` being lane `r·w + c`. Every lane of the warp
/// must call it with the same `w`.
#[inline(always)]
pub fn reduce_strided<T: Element, O: ReduceOp>(v: T, w: usize) -> T {
    tree_strided(v, w, |v, offset| O::combine(v, v.shfl_down(offset as u32)))
}
