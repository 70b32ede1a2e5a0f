//! # Merging expansions across a warp (shuffles, exact)
//!
//! **What.** [`warp_merge`]: a shuffle tree in which lane `l < offset` takes lane `l + offset`'s
//! expansion (the others add nothing, so nothing counts twice); lane 0 ends with the warp's.
//!
//! **What it costs.** Five shuffle rounds of two `f64` each and five exact merges (a residual
//! spills into the block's words, as while streaming).

use super::accumulator::SharedWords;
use super::expansion::Expansion;
use crate::gpu::WARP_SIZE;
use crate::{primitives, warp, Element};

/// The warp's 32 expansions merged; lane 0 holds the result.
#[inline(always)]
pub(super) fn warp_merge(mut e: Expansion, s: &SharedWords) -> Expansion {
    let lane = warp::lane_id();
    primitives::warp::tree_mut(&mut e, WARP_SIZE / 2, |e, offset| {
        // Every lane shuffles (the full mask must be met); only lanes below `offset` merge.
        let o = Expansion {
            hi: e.hi.shfl_down(offset),
            lo: e.lo.shfl_down(offset),
        };
        if lane < offset {
            e.merge(o, s);
        }
    });
    e
}
