//! # The exact-sum kernel: expansions while streaming, integers to combine, one rounding
//!
//! **What.** One launch, stage 8's shape ([`crate::stages::s8_shuffle_vectorized`]): each block
//! streams its contiguous run of 16-byte vectors with `UNROLL` loads in flight; each thread adds
//! every element exactly into two [`Expansion`]s (two independent chains for instruction-level
//! parallelism); then
//!
//! 1. each thread merges its two expansions, and each warp merges its 32 with shuffles (a tree in
//!    which lane `l < offset` takes lane `l + offset`'s expansion; the other lanes add nothing,
//!    so nothing is counted twice);
//! 2. lane 0 of each warp adds its expansion's two components into the block's long accumulator
//!    ([`SharedWords`], shared-memory atomics) — where the rare residuals already went;
//! 3. the block normalizes its words once
//!    ([`normalize_step`](super::accumulator::normalize_step)) and adds the non-zero ones into
//!    the grid's words ([`GlobalWords`], global atomics: integers, so any order gives the same
//!    bits), then takes stage 8's acquire-release ticket; the last block reads the grid's words
//!    (and zeroes them for the next launch), and its warp 0 rounds **once**
//!    ([`round_warp`](super::round::round_warp):
//!    the digits in registers, carries by shuffles, the sign and the top bits by votes).
//!
//! **Why it is fast.** The per-element work is 12 `add.f64` in registers (plus a conversion for
//! f32), which the H200's FP64 units sustain at HBM speed (see [`super`] for the budget); all the
//! integer work happens once per warp or block, not per element.
//!
//! **What it costs.** `16 · (W + 4 + BLOCK / 32)` bytes of shared memory per block, `8 · (W + 4)`
//! of workspace (W = 11 for f32, 68 for f64), a handful of global atomics per block, and
//! registers: 66–80 per thread (ptxas, sm_90, depending on the variant), so at most 768 threads
//! per SM are resident — the host's policy launches 256-thread blocks, three per SM.
//!
//! **Variants** (the same contract, the same bits), all this module's `sum_with`:
//! [`super::lean::sum_lean`] (the general path) and [`super::lean::sum_fast_lean`], whose whole
//! tiles take three `add.f64` per element when each addition is exact ([`Expansion::add_fast`])
//! and are redone out of line otherwise — both with the lean publish ([`super::lean`]); and
//! [`super::words::sum_words`] (through `accumulate`), which writes the grid's words out
//! unrounded instead of rounding them.
//!
//! **Why the bits do not depend on the launch.** Every element's exact value ends in the integer
//! words (via `hi`/`lo` or a residual); the words' sum is the same integer whatever the grid,
//! block size or split of the input, and the rounding is a function of that integer alone.
//! Infinities and NaNs are counted, not added, and the "all inputs were -0.0" bit is an OR over
//! warps: order-free too.

use super::accumulator::{Format, GlobalWords, SharedWords};
use super::expansion::Expansion;
use super::lean::block_finish;
use super::merge::warp_merge;
use super::result::finish;
use super::tile::{add_one, add_partial_tile, add_tile, add_tile_fast, widen};
use crate::gpu::{fail, Counter, Global, GlobalMut};
use crate::gpu::{Shared, Vec4, WARP_SIZE};
use crate::{thread, warp, Element};

/// Dynamic shared memory of an exact-sum block of `block` threads for `slots` words: the words,
/// their carries, and room for one expansion per warp (which the kernels' finish does not use;
/// the launches reserve it as they always have).
pub const fn words_bytes(slots: usize, block: usize) -> usize {
    16 * (slots + block / 32)
}

/// Most elements one block may add: a word takes at most two digits per element and a few per
/// thread at the end, each below 2^32, so it stays below 2^63.
pub const MAX_PER_BLOCK: usize = 1 << 29;
/// Most blocks: each block's normalized words are below 2^33, so 2^24 of them sum below 2^57.
pub const MAX_GRID: usize = 1 << 24;

/// Everything of [`super::lean::sum_lean`] but its last step: when the grid's words are in the
/// block's shared memory (`slots` words: digits, then the flags), the 32 lanes of that block's
/// warp 0 call `last(words, format, n)` together — [`super::words::sum_words`] writes them out
/// unrounded. The publish keeps the per-thread fence before the ticket (`LEAN = false`, see
/// [`super::lean::last_block`]). Same launch contract as [`super::lean::sum_lean`].
#[inline(always)]
pub(super) fn accumulate<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    last: impl FnOnce(&Shared<i64>, Format, usize),
) {
    sum_with::<T, BLOCK, UNROLL, false, false>(input, words, counter, last)
}

/// The last step of the rounding kernels: warp 0 rounds the grid's words, lane 0 stores the
/// result in `out[0]`.
#[inline(always)]
pub(super) fn round_into<T: Element>(
    out: GlobalMut<T>,
) -> impl FnOnce(&Shared<i64>, Format, usize) {
    move |smem, f, n| {
        let bits = finish(smem, f, n);
        if warp::lane_id() == 0 {
            out.set(0, T::from_bits64(bits));
        }
    }
}

/// The kernel behind [`super::lean::sum_lean`], [`super::lean::sum_fast_lean`] and
/// [`accumulate`]: `FAST` picks the per-element addition, `LEAN` the publish step's ordering
/// ([`super::lean::last_block`]), and `last` is what warp 0 of the last block does with the
/// grid's words.
#[inline(always)]
pub(super) fn sum_with<
    T: Element,
    const BLOCK: usize,
    const UNROLL: usize,
    const FAST: bool,
    const LEAN: bool,
>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    last: impl FnOnce(&Shared<i64>, Format, usize),
) {
    let Some(f) = Format::of(T::TYPE) else {
        fail("exact sums are for f32 and f64");
    };
    let slots = f.slots();
    let tid = thread::thread_idx_x() as usize;
    let (block, grid) = (
        thread::block_idx_x() as usize,
        thread::grid_dim_x() as usize,
    );
    if thread::block_dim_x() as usize != BLOCK
        || BLOCK < slots
        || BLOCK < WARP_SIZE as usize
        || grid > MAX_GRID
        || words.len() < slots
    {
        fail("exact sum needs blockDim.x == BLOCK >= max(slots, 32) and slots words");
    }
    let n = input.len();
    let lanes = 16 / core::mem::size_of::<T>();
    let head = input.misaligned_head();
    let vectors = (n - head) / lanes;
    let tile = BLOCK * UNROLL;
    let per_block = vectors.div_ceil(tile).div_ceil(grid) * tile;
    if per_block * lanes + 2 * lanes > MAX_PER_BLOCK {
        fail("exact sum: more than 2^29 elements per block (launch a larger grid)");
    }

    let len = 2 * slots + 2 * BLOCK / WARP_SIZE as usize;
    // SAFETY: the launch reserves `16 · (slots + BLOCK / 32)` bytes of shared memory (the
    // launch contract, [`words_bytes`]): `len` words.
    let smem = unsafe { Shared::<i64>::dynamic(len as u32) };
    // SAFETY: the same reservation; every phase below is fenced by barriers: plain stores
    // (zeroing), barrier, atomics only, barrier, plain loads.
    let acc = unsafe { SharedWords::new(f) };
    if tid < slots {
        smem.set(tid as u32, 0);
    }
    thread::sync_threads();

    let (mut a, mut b) = (Expansion::EMPTY, Expansion::EMPTY);
    if block == 0 && tid < head {
        // SAFETY: `tid < head <= input.len()`.
        add_one::<FAST>(&mut a, widen(unsafe { input.get_unchecked(tid) }), &acc);
    }
    let start = block * per_block;
    let end = if start + per_block < vectors {
        start + per_block
    } else {
        vectors
    };
    let mut t = start;
    while t + tile <= end {
        let mut loaded = [Vec4([0; 4]); UNROLL];
        #[allow(clippy::needless_range_loop)] // `u` is part of the address, not just an index
        for u in 0..UNROLL {
            // SAFETY: `t + u * BLOCK + tid < t + tile <= end <= vectors` and
            // `head + vectors * lanes <= n`; element `head` is on a 16-byte boundary.
            loaded[u] = unsafe { input.get_vec4_unchecked(head, t + u * BLOCK + tid) };
        }
        match <&[Vec4; 4]>::try_from(&loaded[..]) {
            Ok(four) if FAST => {
                add_tile_fast::<T>(four, &mut a, &mut b, &acc, input, head, t + tid, BLOCK)
            }
            _ => add_tile::<T, UNROLL, FAST>(&loaded, &mut a, &mut b, &acc),
        }
        t += tile;
    }
    add_partial_tile::<T, BLOCK, UNROLL, FAST>(input, head, t, end, &mut a, &mut b, &acc);
    let tail = head + vectors * lanes;
    if block == grid - 1 && tail + tid < n {
        // SAFETY: `tail + tid < n`.
        add_one::<FAST>(
            &mut b,
            widen(unsafe { input.get_unchecked(tail + tid) }),
            &acc,
        );
    }

    // Step 1: thread, then warp; steps 2–3: the block's words and the grid's.
    a.merge(b, &acc);
    let e = warp_merge(a, &acc);
    block_finish::<LEAN>(e, &smem, &acc, f, words, counter, n, last);
}
