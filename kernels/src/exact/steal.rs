//! # Work stealing: warps take chunks of the input from a global counter
//!
//! **What changed.** The other exact kernels give each block one contiguous run of whole tiles
//! (stage 8's split). Here the input's whole vectors are cut into chunks of [`CHUNK`] vectors
//! (each lane of a warp loads `4 · STEPS` of them, four at a time, coalesced); warp `w` of the
//! grid starts on chunk `w` and then takes the next unclaimed chunk from a counter in the
//! workspace (one relaxed `atom.add` by lane 0 per chunk, issued when the chunk starts and read
//! when it ends, so its latency hides behind the chunk's loads). The last, partial chunk goes to
//! the warp that claims its index, with guarded loads.
//!
//! **Why it should be faster.** The probe ([`super::probe`]) showed the blocks of an f32 sum of
//! 2^24 elements finishing their equal runs over a 2 µs spread (median 16.7 µs, slowest 18.7):
//! HBM's bandwidth is not shared evenly, and the kernel waits for its slowest block. With
//! stealing, a warp that is served faster takes more chunks, and every warp runs out of work
//! within about one chunk (16 KiB, a fraction of a microsecond at a warp's share) of the others.
//!
//! **What it costs.** One global atomic per 16 KiB per warp (4,096 at 2^24 f32 against one
//! address in L2), one workspace word (`words[slots]`, reset by the last block) and a cap on the
//! chunks a warp may claim (twice its even share, plus one), which bounds a block's elements
//! for the words' headroom ([`super::kernel::MAX_PER_BLOCK`]) while leaving enough claims to
//! cover every chunk. The bits are the other kernels': which warp adds an element changes no
//! integer sum.

use super::accumulator::SharedWords;
use super::expansion::Expansion;
use super::tile::{add_tile, add_tile_fast, add_vec4};
use super::GlobalWords;
use crate::gpu::{shfl_idx_u32, Global, Vec4, WARP_SIZE};
use crate::{thread, warp, Element};

/// Steps of four vectors per lane in one chunk.
pub const STEPS: usize = 8;
/// Vectors per chunk: 32 lanes × 4 vectors × [`STEPS`].
pub const CHUNK: usize = WARP_SIZE as usize * 4 * STEPS;

/// The most claims one warp of a grid of `warps` warps makes when the input has `chunks` whole
/// chunks (twice its share, plus one: `warps · cap ≥ chunks + 1`, so every chunk is claimed); a
/// warp adds at most `cap + 1` chunks (its first is not claimed).
pub const fn warp_cap(chunks: usize, warps: usize) -> usize {
    2 * chunks.div_ceil(warps) + 1
}

/// Add every whole vector of the input (`vectors` of them, counted from element `head`) that
/// this warp claims into `a` and `b`. `words` must hold `slots + 1` words, `words[slots]` zero at
/// the launch's start (the last block zeroes it again). All 32 lanes of every warp call it.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn stream_steal<T: Element, const BLOCK: usize, const FAST: bool>(
    input: Global<T>,
    head: usize,
    vectors: usize,
    words: GlobalWords,
    slots: usize,
    a: &mut Expansion,
    b: &mut Expansion,
    s: &SharedWords,
) {
    let warps_per_block = BLOCK / WARP_SIZE as usize;
    let warps = thread::grid_dim_x() as usize * warps_per_block;
    let me = thread::block_idx_x() as usize * warps_per_block
        + thread::thread_idx_x() as usize / WARP_SIZE as usize;
    let lane = warp::lane_id() as usize;
    let full = vectors / CHUNK;
    let cap = warp_cap(full, warps);
    // Chunk indices: `me` first, then `warps + k` for the k-th claim on the counter, grid-wide
    // (claims are ordered, so a claim made after the one that gave an index past `full` gives
    // one past `full` too: nothing claimed is left undone). `NONE`: no claim (capped).
    const NONE: i64 = u32::MAX as i64;
    let broadcast = |raw: i64| match shfl_idx_u32(raw as u32, 0) {
        u32::MAX => usize::MAX,
        k => k as usize + warps,
    };
    let mut claims = 0;
    let mut claim = || {
        if lane == 0 && claims < cap {
            claims += 1;
            words.fetch_add(slots, 1)
        } else {
            NONE
        }
    };
    let mut c = me;
    let mut pending = if c < full { claim() } else { NONE };
    while c < full {
        // The claim after `pending`, issued now and read after this chunk's loads.
        let newer = claim();
        for step in 0..STEPS {
            let first = c * CHUNK + step * 4 * WARP_SIZE as usize + lane;
            // SAFETY: `c < full`, so `first + 3 · 32 < (c + 1) · CHUNK <= vectors`: whole
            // vectors of the input from `head`, 16-byte aligned.
            let loaded = [0, 1, 2, 3]
                .map(|u| unsafe { input.get_vec4_unchecked(head, first + u * WARP_SIZE as usize) });
            if FAST {
                add_tile_fast::<T>(&loaded, a, b, s, input, head, first, WARP_SIZE as usize);
            } else {
                add_tile::<T, 4, FAST>(&loaded, a, b, s);
            }
        }
        c = broadcast(pending);
        pending = newer;
    }
    if c == full {
        // The partial chunk (possibly empty): guarded loads, 32 vectors apart.
        let mut v = full * CHUNK + lane;
        while v < vectors {
            // SAFETY: `v < vectors`: a whole vector of the input from `head`.
            let x: Vec4 = unsafe { input.get_vec4_unchecked(head, v) };
            add_vec4::<T, FAST>(x, a, b, s);
            v += WARP_SIZE as usize;
        }
    }
}
