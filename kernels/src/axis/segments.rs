//! # One result per row or per segment: a group of threads per contiguous run
//!
//! Concept: **match the number of threads to the length of the run.** A 16-element row is not
//! worth a block (most threads would idle) and a 2^20-element row is too much for a warp (one
//! row would run on one SM while the others wait). So the threads of a block are cut into
//! *groups* of `G` threads — `G` = 1, 2, 4, 8, 16 or 32 (part of one warp) or the whole block —
//! and each group reduces one work item:
//!
//! * the lanes of a group read 16-byte vectors `j, j + G, j + 2G, …` of the run (stage 8's
//!   loads): neighbouring lanes read neighbouring addresses (coalesced), four independent loads
//!   in flight per lane; the few elements before the run's first 16-byte boundary and after its
//!   last whole vector are read one per lane;
//! * a sub-warp group combines its lanes with `G/2, G/4, …, 1` shuffle-downs
//!   ([`warp::reduce_group`]). Lane 0 of the group only ever reads lanes of its own group
//!   (offsets below `G`), so groups sharing a warp do not disturb each other — and every lane of the warp takes part in every shuffle, because all
//!   groups of a block loop the same number of times;
//! * a block group combines through the device layer's [`block::reduce_op`] (stage 8's);
//! * a very long run is cut into `parts` pieces, one work item each; the host launches this kernel
//!   again on the `count × parts` partials, as `count` rows of `parts` elements, to finish.
//!
//! The same body serves rows of a row-major matrix (run `i` is `[i·len, (i+1)·len)`) and
//! caller-given segments (`[begin[i], end[i])`, CUB's `DeviceSegmentedReduce` semantics: an empty
//! segment gives the identity). Offsets are clamped to the input, so no argument can make a read
//! out of bounds (the host rejects bad offsets before launching).

use super::{piece, AxisParams};
use crate::gpu::{block_dim, block_idx, fail, grid_dim, sync_threads, thread_idx};
use crate::gpu::{Global, GlobalMut, Shared, Vec4, WARP_SIZE};
use crate::primitives::{block, warp};
use crate::{Element, ReduceOp};

/// Independent loads in flight per lane.
const UNROLL: usize = 4;

/// Independent loads in flight per lane of [`rows_deep`].
const DEEP_UNROLL: usize = 8;

/// `op` over `input[b..e]` by lane `lane` of a group of `g`: the elements before the run's first
/// 16-byte boundary and after its last whole vector one per lane, the vectors in between
/// `lane, lane + g, …` with 16-byte loads, `U` in flight.
#[inline(always)]
fn lane_total<T: Element, O: ReduceOp, const U: usize>(
    input: Global<T>,
    b: usize,
    e: usize,
    lane: usize,
    g: usize,
) -> T {
    // Clamped so that every index below is `< input.len()`, whatever the offsets say.
    let e = e.min(input.len());
    let b = b.min(e);
    let lanes = 16 / core::mem::size_of::<T>();
    // Index `i` is on a 16-byte boundary iff `i ≡ h0 (mod lanes)` (the array is element-aligned).
    let h0 = input.misaligned_head();
    let first = if b <= h0 {
        h0
    } else {
        b + (lanes - (b - h0) % lanes) % lanes
    };
    let first = first.min(e);
    let vectors = (e - first) / lanes;
    let tail = first + vectors * lanes;
    let mut acc = O::identity::<T>();
    // Head and tail: fewer than `lanes` elements each, `g` at a time.
    let mut i = b + lane;
    while i < first {
        // SAFETY: `i < first <= e <= input.len()`.
        acc = O::combine(acc, unsafe { input.get_unchecked(i) });
        i += g;
    }
    let mut i = tail + lane;
    while i < e {
        // SAFETY: `i < e <= input.len()`.
        acc = O::combine(acc, unsafe { input.get_unchecked(i) });
        i += g;
    }
    let mut v = lane;
    while v + (U - 1) * g < vectors {
        let mut loaded = [Vec4([0; 4]); U];
        #[allow(clippy::needless_range_loop)] // `u` is part of the address
        for u in 0..U {
            // SAFETY: `v + u·g < vectors` (loop condition), so the vector ends at or before
            // `tail <= e <= input.len()`; `first` is on a 16-byte boundary (above).
            loaded[u] = unsafe { input.get_vec4_unchecked(first, v + u * g) };
        }
        #[allow(clippy::needless_range_loop)] // indexing keeps the array in registers
        for u in 0..U {
            acc = O::combine(acc, T::reduce_vec4::<O>(loaded[u]));
        }
        v += U * g;
    }
    while v < vectors {
        // SAFETY: `v < vectors`, as above.
        acc = O::combine(
            acc,
            T::reduce_vec4::<O>(unsafe { input.get_vec4_unchecked(first, v) }),
        );
        v += g;
    }
    acc
}

/// The shared body: run `r` is `bounds(r)`; one work item per (run, part).
#[inline(always)]
fn reduce_runs<T: Element, O: ReduceOp, const BLOCK: usize, const U: usize, const WHOLE: bool>(
    input: Global<T>,
    out: GlobalMut<T>,
    p: AxisParams,
    bounds: impl Fn(usize) -> (usize, usize),
) {
    if WHOLE && p.group != BLOCK {
        fail("axis rows_deep: group must be BLOCK (a block per run)");
    }
    // `WHOLE`: the group is the compile-time `BLOCK`, so the `U` loads of a lane are at constant
    // offsets from one address (`[R.64 + 0x1000·u]`, as in stage 8) instead of `U` addresses
    // computed from a run-time stride.
    let g = if WHOLE { BLOCK } else { p.group };
    let sub_warp = g.is_power_of_two() && g <= WARP_SIZE as usize;
    if block_dim() as usize != BLOCK || !(sub_warp || g == BLOCK) || p.parts == 0 {
        fail("axis segments: blockDim.x must be BLOCK, group a power of two <= 32 or BLOCK, parts > 0");
    }
    let items = p.count.saturating_mul(p.parts);
    if out.len() < items {
        fail("axis segments: out must hold count * parts elements");
    }
    // SAFETY: the launch reserves `BLOCK / 32` elements of shared memory (the host's plan).
    let smem = unsafe { Shared::<T>::dynamic(BLOCK as u32 / WARP_SIZE) };
    let tid = thread_idx() as usize;
    let per_block = BLOCK / g;
    let step = grid_dim() as usize * per_block;
    let (lane, mine) = (tid % g, block_idx() as usize * per_block + tid / g);
    // Every thread of the block runs the same number of iterations (barriers and shuffles need
    // the whole block / warp), whether or not its own item exists.
    let mut base = 0;
    while base < items {
        let w = base + mine;
        let mut acc = O::identity::<T>();
        if w < items {
            // (No 64-bit division per item when runs are not split: the common case.)
            let (b, e) = if p.parts == 1 {
                let (rb, re) = bounds(w);
                (rb, re.max(rb))
            } else {
                let (rb, re) = bounds(w / p.parts);
                piece(rb, re.max(rb), w % p.parts, p.parts)
            };
            acc = lane_total::<T, O, U>(input, b, e, lane, g);
        }
        let total = if sub_warp {
            warp::reduce_group::<T, O>(acc, g)
        } else {
            let t = block::reduce_op::<T, O, BLOCK>(acc, smem);
            sync_threads(); // warp 0 has read `smem` before the next item overwrites it
            t
        };
        if lane == 0 && w < items {
            out.set(w, total);
        }
        base += step;
    }
}

/// One result per row of a row-major `count × len` matrix (`input` holds at least `count·len`
/// elements), or per piece of a row when `parts > 1`: `out[row·parts + part]`.
///
/// Launch with `blockDim.x == BLOCK`, `BLOCK / 32` elements of dynamic shared memory, any grid.
pub fn rows<T: Element, O: ReduceOp, const BLOCK: usize>(
    input: Global<T>,
    _begin: Global<u64>,
    _end: Global<u64>,
    out: GlobalMut<T>,
    p: AxisParams,
) {
    row_runs::<T, O, BLOCK, UNROLL, false>(input, out, p)
}

/// # The same, deeper: twice the loads in flight per lane
///
/// [`rows`] for a block per row only (`group == BLOCK`, a compile-time constant here), with
/// `DEEP_UNROLL` (8) independent 16-byte loads per lane before the first add instead of 4. *Why it can be faster:* with a block per row the block drains its loads at the
/// end of every row (its `block::reduce_op` barrier), and only 6 blocks of the 4-deep kernel fit on
/// an SM (35 registers), so the bytes in flight per SM are what bound a block-per-row launch
/// (CUB's `DeviceSegmentedReduce` reaches the roof on 2^12 rows of 2^14 `f32`; we were 7%
/// slower). *What it costs:* more registers (fewer resident blocks). The host's
/// `AxisPolicy::row_unroll` picks it for block-per-row steps; the adds of a lane run in the
/// same order either way, so the results are bit-identical to [`rows`].
pub fn rows_deep<T: Element, O: ReduceOp, const BLOCK: usize>(
    input: Global<T>,
    _begin: Global<u64>,
    _end: Global<u64>,
    out: GlobalMut<T>,
    p: AxisParams,
) {
    row_runs::<T, O, BLOCK, DEEP_UNROLL, true>(input, out, p)
}

/// [`rows`] with `U` loads in flight per lane (`WHOLE`: groups of a whole block only).
#[inline(always)]
fn row_runs<T: Element, O: ReduceOp, const BLOCK: usize, const U: usize, const WHOLE: bool>(
    input: Global<T>,
    out: GlobalMut<T>,
    p: AxisParams,
) {
    let len = p.len;
    reduce_runs::<T, O, BLOCK, U, WHOLE>(input, out, p, |r| {
        let b = r.saturating_mul(len);
        (b, b.saturating_add(len))
    })
}

/// One result per segment `[begin[i], end[i])`, `i < count` (or per piece, as [`rows`]).
/// Offsets past the input are clamped to it and an `end` before its `begin` gives an empty
/// segment (the host reports both as errors before it launches).
///
/// Launch as [`rows`]; `begin` and `end` hold `count` offsets.
pub fn segments<T: Element, O: ReduceOp, const BLOCK: usize>(
    input: Global<T>,
    begin: Global<u64>,
    end: Global<u64>,
    out: GlobalMut<T>,
    p: AxisParams,
) {
    reduce_runs::<T, O, BLOCK, UNROLL, false>(input, out, p, |r| {
        (begin.get(r) as usize, end.get(r) as usize)
    })
}
