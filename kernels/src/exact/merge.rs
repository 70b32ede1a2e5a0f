//! # Merging expansions across a warp and a block (shuffles, exact)
//!
//! **What.** `warp_merge`: a shuffle tree in which lane `l < offset` takes lane `l + offset`'s
//! expansion (the others add nothing, so nothing counts twice). `block_merge`: the warps'
//! results through shared memory into warp 0, merged the same way.
//!
//! **Why faster.** Without the block merge every warp's lane 0 adds its expansion into the same
//! few words of the block's long accumulator, and 64-bit shared atomics are compare-and-swap
//! loops on sm_90 (`ATOMS.CAST.SPIN.64`): 8–16 warps contend. With it, one thread adds once.
//!
//! **What it costs.** One more barrier and five shuffle rounds in warp 0, and `16 · BLOCK / 32`
//! bytes of shared memory.

use super::accumulator::SharedWords;
use super::expansion::Expansion;
use crate::gpu::{Shared, WARP_SIZE};
use crate::{thread, warp, Element};
/// The block's expansions merged (`MERGE`): lane 0 of each warp writes its warp's expansion to
/// `smem[base..]` (as bits), and warp 0 merges them with [`warp_merge`]; thread 0 holds the
/// result. Exact like the per-warp adds it replaces, so the words get the same integer; what
/// changes is that 8–16 lane-0 threads no longer add into the same few shared words at once
/// (64-bit shared atomics are compare-and-swap loops on sm_90: `ATOMS.CAST.SPIN.64`).
#[inline(always)]
pub(super) fn block_merge<const BLOCK: usize>(
    e: Expansion,
    smem: &Shared<i64>,
    base: usize,
    s: &SharedWords,
) -> Expansion {
    let warps = (BLOCK / WARP_SIZE as usize) as u32;
    let (warp, lane) = (thread::thread_idx_x() / WARP_SIZE, warp::lane_id());
    if lane == 0 {
        let at = base as u32 + 2 * warp;
        smem.set(at, e.hi.to_bits() as i64);
        smem.set(at + 1, e.lo.to_bits() as i64);
    }
    thread::sync_threads();
    let mut r = Expansion::EMPTY;
    if warp == 0 {
        if lane < warps {
            let at = base as u32 + 2 * lane;
            r = Expansion {
                hi: f64::from_bits(smem.get(at) as u64),
                lo: f64::from_bits(smem.get(at + 1) as u64),
            };
        }
        // The whole of warp 0 is here: the shuffles' full mask is met.
        r = warp_merge(r, s);
    }
    r
}

/// The warp's 32 expansions merged; lane 0 holds the result (see the module docs, step 1).
#[inline(always)]
pub(super) fn warp_merge(mut e: Expansion, s: &SharedWords) -> Expansion {
    let lane = warp::lane_id();
    let mut offset = WARP_SIZE / 2;
    while offset > 0 {
        // Every lane shuffles (the full mask must be met); only lanes below `offset` merge.
        let o = Expansion {
            hi: e.hi.shfl_down(offset),
            lo: e.lo.shfl_down(offset),
        };
        if lane < offset {
            e.merge(o, s);
        }
        offset /= 2;
    }
    e
}
