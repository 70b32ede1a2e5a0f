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
//! **Variants** (the same contract, the same bits): [`sum`]; [`sum_fast`], whose whole tiles
//! take three `add.f64` per element when each addition is exact ([`Expansion::add_fast`]) and are
//! redone out of line otherwise; [`sum_merge`], which merges the warps' expansions in warp 0
//! (`block_merge`) instead of adding each warp's into the words with shared atomics; and
//! [`sum_fast_merge`], both.
//!
//! **Why the bits do not depend on the launch.** Every element's exact value ends in the integer
//! words (via `hi`/`lo` or a residual); the words' sum is the same integer whatever the grid,
//! block size or split of the input, and the rounding is a function of that integer alone.
//! Infinities and NaNs are counted, not added, and the "all inputs were -0.0" bit is an OR over
//! warps: order-free too.

use super::accumulator::{Format, GlobalWords, SharedWords};
use super::expansion::Expansion;
use super::int_finish::{int_finish, int_shared_bytes};
use super::lean::block_finish;
use super::merge::warp_merge;
use super::probe::{write_stamps, STAMPS};
use super::result::finish;
use super::tile::{add_one, add_partial_tile, add_tile, add_tile_fast, widen};
use super::tile::{stream_async, stream_rolling, Ring, ASYNC, PLAIN, ROLLING};
use super::warp_finish::warp_finish;
use crate::gpu::{clock64, fail, global_timer_ns, Counter, Global, GlobalMut};
use crate::gpu::{Shared, Vec4, WARP_SIZE};
use crate::{thread, warp, Element};

/// Dynamic shared memory of an exact-sum block of `block` threads for `slots` words: the words,
/// their carries and one expansion per warp.
pub const fn words_bytes(slots: usize, block: usize) -> usize {
    16 * (slots + block / 32)
}

/// Dynamic shared memory of an async-loop launch ([`super::lean::sum_lean_async`]):
/// [`words_bytes`], then the copy ring (48 KiB for 256 threads: a launch above 48 KiB needs the
/// driver's opt-in, `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`).
pub const fn async_shared_bytes(slots: usize, block: usize) -> usize {
    words_bytes(slots, block) + Ring::bytes(block)
}

/// Most elements one block may add: a word takes at most two digits per element and a few per
/// thread at the end, each below 2^32, so it stays below 2^63.
pub const MAX_PER_BLOCK: usize = 1 << 29;
/// Most blocks: each block's normalized words are below 2^33, so 2^24 of them sum below 2^57.
pub const MAX_GRID: usize = 1 << 24;

/// The correctly rounded sum of all of `input` into `out[0]`, in one launch.
///
/// Launch with `blockDim.x == BLOCK` (a power of two, at least `slots`, and at most 512: the kernel
/// uses 66–80 registers per thread, so a 1024-thread block cannot launch), `16 · (slots + BLOCK /
/// 32)` bytes of dynamic shared memory (`slots = Format::of(T).slots()`), any grid with at most [`MAX_PER_BLOCK`]
/// elements per block and at most [`MAX_GRID`] blocks; `words` must hold `slots` zeroed words and
/// `counter` must be 0 (the kernel leaves both zeroed again). `T` must be `f32` or `f64`. Any other launch stops the kernel.
pub fn sum<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, false, ATOMICS, false, PLAIN, false, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum`] with the fast path ([`Expansion::add_fast`]: three additions per element when one
/// addition is exact, the two TwoSums otherwise); the same launch contract and the same bits.
pub fn sum_fast<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, true, ATOMICS, false, PLAIN, false, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum`] with the block merge (`block_merge`: the warps' expansions merged by warp 0 with
/// shuffles, then one thread adds the block's into the words, instead of one thread per warp
/// with contended shared-memory atomics); the same launch contract and the same bits.
pub fn sum_merge<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, false, BLOCK_MERGE, false, PLAIN, false, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum_fast`] and [`sum_merge`] together.
pub fn sum_fast_merge<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, true, BLOCK_MERGE, false, PLAIN, false, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// Everything of [`sum`] but its last step: when the grid's words are in the block's shared
/// memory (`slots` words: digits, then the flags), the 32 lanes of that block's warp 0 call
/// `last(words, format, n)` together — [`sum`] rounds them, [`super::words::sum_words`] writes
/// them out unrounded. Same launch contract as [`sum`].
#[inline(always)]
pub(super) fn accumulate<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    last: impl FnOnce(&Shared<i64>, Format, usize),
) {
    sum_with::<T, BLOCK, UNROLL, false, ATOMICS, false, PLAIN, false, false>(
        input, words, counter, last,
    )
}

/// The last step of [`sum`] and its variants: warp 0 rounds the grid's words, lane 0 stores the
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

/// How a block combines its warps' expansions ([`sum_with`]'s `COMBINE`): lane 0 of each warp
/// adds into the block's words with shared atomics (the default).
pub(super) const ATOMICS: u8 = 0;
/// Warp 0 merges the warps' expansions first (`block_merge`), thread 0 adds.
pub(super) const BLOCK_MERGE: u8 = 1;
/// Warp 0 does the whole block finish without shared atomics ([`super::warp_finish`]).
pub(super) const WARP_FINISH: u8 = 2;
/// The warps' expansions reduced as integers in a window, no float merges or shared atomics
/// ([`super::int_finish`]).
pub(super) const INT_FINISH: u8 = 3;

/// The kernel behind [`sum`], [`sum_fast`], [`sum_merge`], [`sum_fast_merge`],
/// [`super::lean`]'s, [`super::probe`]'s, [`super::warp_finish`]'s and [`super::int_finish`]'s
/// variants and [`accumulate`] (`FAST` picks the per-element addition, `COMBINE` the block's
/// finish — [`ATOMICS`], [`BLOCK_MERGE`], [`WARP_FINISH`] or [`INT_FINISH`] — `LEAN` the publish
/// step's ordering, `LOOP` the streaming loop — [`PLAIN`], [`ROLLING`] or [`ASYNC`], see
/// [`super::lean`] — `PROBE` the stamps ([`super::probe`]), `WARM` the warm rounding
/// ([`super::warm`]), and `last` what warp 0 of the last block does with the grid's words). An
/// [`ASYNC`] launch reserves [`async_shared_bytes`] of dynamic shared memory and an
/// [`INT_FINISH`] launch [`int_shared_bytes`] instead of the `16 · (slots + BLOCK / 32)` of the
/// others.
#[inline(always)]
pub(super) fn sum_with<
    T: Element,
    const BLOCK: usize,
    const UNROLL: usize,
    const FAST: bool,
    const COMBINE: u8,
    const LEAN: bool,
    const LOOP: u8,
    const PROBE: bool,
    const WARM: bool,
>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    last: impl FnOnce(&Shared<i64>, Format, usize),
) {
    // `PROBE`: thread 0's stamps (see `super::probe`); the first two before anything else.
    let (entry_ns, entry) = if PROBE {
        (global_timer_ns(), clock64())
    } else {
        (0, 0)
    };
    let Some(f) = Format::of(T::KIND) else {
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

    let len = if COMBINE == INT_FINISH {
        int_shared_bytes(slots, BLOCK) / 8
    } else {
        2 * slots + 2 * BLOCK / WARP_SIZE as usize
    };
    // SAFETY: the launch reserves `16 · (slots + BLOCK / 32)` bytes of shared memory (the
    // contract above; an async launch reserves its ring after them, an integer-finish launch
    // `int_shared_bytes`, at least as many): `len` words.
    let smem = unsafe { Shared::<i64>::dynamic(len as u32) };
    // SAFETY: the same reservation; every phase below is fenced by barriers: plain stores
    // (zeroing), barrier, atomics only, barrier, plain loads (in the warp finish, once only warp
    // 0 runs, its lanes' atomics and loads are fenced by warp barriers instead).
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
    if LOOP == ROLLING && UNROLL == 4 {
        t = stream_rolling::<T, BLOCK, FAST>(input, head, t, end, &mut a, &mut b, &acc);
    } else if LOOP == ASYNC && UNROLL == 4 {
        // The ring lies after the words, carries and warp expansions (`words_bytes`).
        let ring = words_bytes(slots, BLOCK);
        t = stream_async::<T, BLOCK, FAST>(input, head, t, end, &mut a, &mut b, &acc, ring);
    }
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

    // Step 1: thread, then warp; steps 2–3: the block's words and the grid's (`COMBINE`).
    let streamed = if PROBE { clock64() } else { 0 };
    a.merge(b, &acc);
    let stamp = || if PROBE { clock64() } else { 0 };
    let done = if COMBINE == INT_FINISH {
        int_finish::<BLOCK, LEAN>(a, &smem, &acc, f, words, counter, n, last, stamp)
    } else {
        let e = warp_merge(a, &acc);
        finish_warps::<BLOCK, COMBINE, LEAN, PROBE>(e, &smem, &acc, f, words, counter, n, last)
    };
    if WARM && !done.last && tid < WARP_SIZE as usize {
        // Warm the rounding's code (see `super::warm`): warp 0 of every block that is not the
        // last rounds its own words once and drops the result, so that the last block finds
        // those instructions in L2 instead of fetching them from DRAM behind the stream.
        core::hint::black_box(finish(&smem, f, n));
    }
    if PROBE && tid == 0 {
        let cycles = [entry, streamed, done.merged, done.carried, clock64()];
        // SAFETY: a probe kernel's launch contract (`super::probe`): the workspace holds
        // `slots + STAMPS · gridDim.x` words, the stamps only written here, one block's each.
        let all = unsafe { words.with_len(slots + STAMPS * grid) };
        write_stamps(all, slots, block, entry_ns, cycles, done.last);
    }
}

/// Steps 2–3 from the warps' merged expansions `e` (valid in each warp's lane 0): the atomic
/// finish, the block merge or the warp finish (`COMBINE`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn finish_warps<const BLOCK: usize, const COMBINE: u8, const LEAN: bool, const PROBE: bool>(
    e: Expansion,
    smem: &Shared<i64>,
    acc: &SharedWords,
    f: Format,
    words: GlobalWords,
    counter: Counter,
    n: usize,
    last: impl FnOnce(&Shared<i64>, Format, usize),
) -> Finished {
    let (smem, acc, slots) = (smem, acc, f.slots());
    let (base, stamp) = (2 * slots, || if PROBE { clock64() } else { 0 });
    if COMBINE == WARP_FINISH {
        warp_finish::<BLOCK, PROBE>(e, smem, base, acc, f, words, counter, n, last)
    } else {
        let merge = COMBINE == BLOCK_MERGE;
        block_finish::<BLOCK, LEAN>(e, merge, smem, acc, f, words, counter, n, last, stamp)
    }
}

/// What a block's finish ([`super::lean::block_finish`], [`super::warp_finish::warp_finish`])
/// tells the kernel.
pub(super) struct Finished {
    /// This block took the last ticket (every block of a one-block launch does).
    pub last: bool,
    /// Thread 0's cycle counter once every warp has merged (0 unless probing).
    pub merged: u64,
    /// Thread 0's cycle counter after the carry step (0 unless probing).
    pub carried: u64,
}
