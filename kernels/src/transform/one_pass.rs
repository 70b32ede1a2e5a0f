//! # The one-pass driver: stage 8's loads, any transform
//!
//! The same schedule as [`crate::stages::s8_shuffle_vectorized`] — contiguous tiles of `BLOCK ·
//! UNROLL` 16-byte vectors per block, `UNROLL` independent loads in flight per thread before any
//! arithmetic, head and tail elements one by one, a warp-shuffle and shared-memory block combine,
//! and one launch whose last block (by an acquire-release ticket) merges the per-block partials in
//! block order — with two changes:
//!
//! * the loaded values are widened to `f64` and handed to the op as a tile
//!   ([`TransformOp::chunk`]) — the transform happens in registers, so the data is read once;
//!   an op that sets [`TransformOp::F32_TILES`] (the moments) gets the tiles of `f32`, `f16` and
//!   `bf16` inputs as `f32` instead, in chunks of at most [`F32_TILE`] values
//!   ([`TransformOp::chunk_f32`]);
//! * the accumulator is an [`Accumulator`] of up to three `f64` words (the partials hold
//!   `3 · gridDim.x` doubles, the result three).
//!
//! [`reduce_rolling`] is the same driver with the next tile's loads issued before this tile's
//! arithmetic; [`reduce_shifted`] is the rolling driver for an op's grid-shift form (the
//! `f16`/`bf16` moments: sums about one shift for the whole grid, added by the trees —
//! [`super::grid_shift`]); [`reduce_async`] keeps the next tiles in flight as `cp.async` copies
//! into shared memory instead (a measured candidate). [`reduce_tiles`] and
//! [`reduce_shifted_tiles`] deal the tiles to the blocks interleaved (tile `k` to block `k mod
//! gridDim.x`) instead of as one contiguous run per block.
//!
//! A thread folds its tiles with the op's [`TransformOp::Run`] ([`super::accumulate::Merged`],
//! the moments' [`super::moments::Shifted`], or [`super::grid_shift::GridShifted`]) before the
//! warp and block trees merge what it finishes with ([`super::accumulate::TotalOf`]); the thread
//! that writes the result turns the grid's total into the result words
//! ([`super::accumulate::Running::result`]).
//!
//! Two-input ops (the dot product) load `a` and `b` with the same vector index. That needs both
//! to sit at the same offset from a 16-byte boundary; when they do not (sub-slices), every thread
//! walks the elements one by one in grid-stride order instead — correct and deterministic, only
//! slower.

use super::accumulate::{block_merge, Accumulator, Running, TotalOf, TransformOp};
use super::grid_shift::ShiftForm;
pub use super::tile::F32_TILE;
use super::tile::{scalar, tile_into};
use super::{to_f64, WORDS};
use crate::async_copy::CopyRing;
use crate::gpu::WARP_SIZE;
use crate::gpu::{
    fail, sync_threads, sync_threads_or, Coherent, Counter, Global, GlobalMut, Shared, Vec4,
};
use crate::primitives::tiles::unrolled;
use crate::table::SINGLE_PASS_UNROLL as UNROLL;
use crate::{thread, Element};

/// `O` over all of `a` (and `b`, for two-input ops) into `out[0..3]`, in one launch: a thread
/// issues a tile's loads, then computes that tile.
///
/// Launch with `blockDim.x == BLOCK` (a power of two, 32..=1024; any other block traps),
/// `3 · BLOCK / 32` doubles of dynamic shared memory, any grid; `partials` must hold
/// `3 · gridDim.x` doubles and `counter` must be 0 (the kernel leaves it 0 again). A two-input op
/// traps unless `b.len() == a.len()`. The result words are [`Accumulator::word`] `0..3`.
pub fn reduce<T: Element, O: TransformOp, const BLOCK: usize>(
    a: Global<T>,
    b: Global<T>,
    partials: Coherent<f64>,
    counter: Counter,
    out: GlobalMut<f64>,
) {
    reduce_with::<T, O, BLOCK, PLAIN, RUNS>(a, b, partials, counter, out)
}

/// [`reduce`] with **rolling loads**: the next tile's loads go out before this tile's arithmetic,
/// so a thread always has a tile in flight, and the arithmetic no longer stalls the memory
/// pipe. The same tiles merge in the same order, so the result has [`reduce`]'s bits; the cost
/// is a second tile in registers. Built for the `f16`/`bf16` moments, whose tiles (32 values in
/// two chunks) are the most arithmetic per byte: there it held 72 registers (capped at 64 it
/// spilled; since session 14's shifted fold, [`super::moments::Shifted`], 79 under the
/// `reduce_transform_roll_r80` kernels' cap — at 72 it spilled again), three 256-thread blocks per SM
/// instead of two 512-thread ones, and took `f16` `var` at 2^30 from 495.4 to 471.5 µs against the
/// read-only kernel's 467.8 (session 13, `benches/results/h200-2026-12-02-occupancy/call1`). The
/// counter behind it (Nsight Compute, call 4 of the same session, `f16` var at 2^26): cycles
/// stalled on memory (long scoreboard) per issued instruction, 6.33 for [`reduce`] and 2.98 for
/// this loop. The same loop for `f32` moments (64 registers either way) measured level (924.9
/// against 927.3 µs), so they keep [`reduce`]. Same launch contract as [`reduce`].
pub fn reduce_rolling<T: Element, O: TransformOp, const BLOCK: usize>(
    a: Global<T>,
    b: Global<T>,
    partials: Coherent<f64>,
    counter: Counter,
    out: GlobalMut<f64>,
) {
    reduce_with::<T, O, BLOCK, ROLLING, RUNS>(a, b, partials, counter, out)
}

/// [`reduce_rolling`] for the **grid-shift form** of `O` ([`ShiftForm::Grid`]; the moments:
/// [`super::grid_shift`]): every thread folds about one shift shared by the grid, and the warp,
/// block and grid trees add sums instead of merging by Chan's update. Not [`reduce`]'s bits (other
/// arithmetic), deterministic all the same; its own error bound. Same launch contract as
/// [`reduce`].
pub fn reduce_shifted<T: Element, O: ShiftForm, const BLOCK: usize>(
    a: Global<T>,
    b: Global<T>,
    partials: Coherent<f64>,
    counter: Counter,
    out: GlobalMut<f64>,
) {
    reduce_with::<T, O::Grid, BLOCK, ROLLING, RUNS>(a, b, partials, counter, out)
}

/// [`reduce`] with the tiles **interleaved** over the blocks: tile `k` (of `BLOCK · UNROLL`
/// vectors) goes to block `k mod gridDim.x`, so at any moment the grid reads one compact stretch
/// of the input, instead of every block walking its own contiguous run. A block takes at most
/// `⌈tiles / grid⌉` tiles, the length of [`reduce`]'s runs, and a thread folds them in the same
/// sequential way, so the same error bound holds; the bits are those of another grouping (deterministic for a given launch shape;
/// [`reduce`]'s when the grid is one block). Built for the `f16`/`bf16` sums
/// (`reduce_transform_tiles_r64_*`, `reduce transform --loop tiles`), after a CUDA C experiment
/// on the H200 (session 20, `benches/cuda/roof_schedules.cu`): a sum of 2^26 halves with stage 8's
/// finish took 35.4–36.5 µs interleaved against 36.1–37.0 in runs (the read-only kernel
/// 33.7–34.7). A candidate: tested on the emulator, not yet timed on the H200 (session 20 had no
/// device time left for it; `benches/s20-tiles-on-gpu.sh` is the run), so the plan never picks
/// it. Same launch contract as [`reduce`].
pub fn reduce_tiles<T: Element, O: TransformOp, const BLOCK: usize>(
    a: Global<T>,
    b: Global<T>,
    partials: Coherent<f64>,
    counter: Counter,
    out: GlobalMut<f64>,
) {
    reduce_with::<T, O, BLOCK, PLAIN, TILES>(a, b, partials, counter, out)
}

/// [`reduce_shifted`] with [`reduce_tiles`]'s interleaved tiles (`reduce_transform_shift_tiles_r80_*`,
/// `--loop shifted-tiles`): the grid-shift moments' bound holds as it is (it counts the elements a
/// thread folds, not where they lie). Same launch contract as [`reduce`].
pub fn reduce_shifted_tiles<T: Element, O: ShiftForm, const BLOCK: usize>(
    a: Global<T>,
    b: Global<T>,
    partials: Coherent<f64>,
    counter: Counter,
    out: GlobalMut<f64>,
) {
    reduce_with::<T, O::Grid, BLOCK, ROLLING, TILES>(a, b, partials, counter, out)
}

/// [`reduce`] with **copies into shared memory**: each thread keeps up to [`ASYNC_STAGES`] tiles
/// in flight (two while it computes the third) as `cp.async` copies into its own slots of a
/// [`CopyRing`] (no register waits for them), and computes the oldest once its copies have
/// landed. Measured on the H200 (session 14, `benches/results/h200-2026-12-02-async/call1`): slower
/// than the plain and rolling loops at 2^26 (`f16` var 42.0–42.3 µs against 40.7–40.8), level at
/// 2^28–2^30 — a measured candidate (`reduce transform --loop async`), built for `f16` only. The same tiles merge in the same
/// order, so the result has [`reduce`]'s bits. Launch as [`reduce`], with
/// [`async_shared_bytes`]`(BLOCK)` bytes of dynamic shared memory (the ring; the block merge
/// reuses its first bytes afterwards). Two-input ops take [`reduce`]'s loop.
pub fn reduce_async<T: Element, O: TransformOp, const BLOCK: usize>(
    a: Global<T>,
    b: Global<T>,
    partials: Coherent<f64>,
    counter: Counter,
    out: GlobalMut<f64>,
) {
    reduce_with::<T, O, BLOCK, ASYNC, RUNS>(a, b, partials, counter, out)
}

/// Tiles a thread of [`reduce_async`] has in flight.
pub const ASYNC_STAGES: usize = 3;

/// The ring of [`reduce_async`].
type Ring = CopyRing<ASYNC_STAGES, UNROLL>;

/// Dynamic shared memory of a [`reduce_async`] launch of `block` threads: its copy ring (which
/// is larger than the block merge's `3 · block / 32` doubles).
pub const fn async_shared_bytes(block: usize) -> usize {
    Ring::bytes(block)
}

/// The schedules of [`reduce_with`]: each block one contiguous run of tiles, or tile `k` to
/// block `k mod gridDim.x`.
const RUNS: bool = false;
const TILES: bool = true;

/// The loops of [`reduce_with`].
const PLAIN: u8 = 0;
const ROLLING: u8 = 1;
const ASYNC: u8 = 2;

/// [`reduce`] (`LOOP` = [`PLAIN`]), [`reduce_rolling`] ([`ROLLING`]) or [`reduce_async`]
/// ([`ASYNC`]); `INTERLEAVED` = [`TILES`] for [`reduce_tiles`] and [`reduce_shifted_tiles`]
/// (never with [`ASYNC`]).
#[allow(clippy::needless_range_loop)] // `u` is part of the address, not just an index
#[inline(always)]
fn reduce_with<
    T: Element,
    O: TransformOp,
    const BLOCK: usize,
    const LOOP: u8,
    const INTERLEAVED: bool,
>(
    a: Global<T>,
    b: Global<T>,
    partials: Coherent<f64>,
    counter: Counter,
    out: GlobalMut<f64>,
) {
    // The proofs below need `tid < BLOCK`, `WORDS * blockIdx.x + i < partials.len()` and
    // `b.len() == a.len()` for two inputs: check them once.
    let grid = thread::grid_dim_x() as usize;
    if thread::block_dim_x() as usize != BLOCK || partials.len() < WORDS * grid {
        fail("a transform kernel needs blockDim.x == BLOCK and 3 * gridDim.x partials");
    }
    if O::TWO_INPUTS && b.len() != a.len() {
        fail("a two-input transform needs inputs of the same length");
    }
    // SAFETY: the launch reserves `WORDS * BLOCK / 32` doubles of shared memory (the host's plan).
    let smem = unsafe { Shared::<f64>::dynamic(WORDS as u32 * BLOCK as u32 / WARP_SIZE) };
    let tid = thread::thread_idx_x() as usize;
    let block = thread::block_idx_x() as usize;
    let n = a.len();
    let lanes = 16 / core::mem::size_of::<T>();
    let other = |i: usize| -> f64 {
        if O::TWO_INPUTS {
            to_f64(b.get(i)) // checked; `b.len() == n` (entry check) makes it always pass
        } else {
            0.0
        }
    };

    // What the thread's fold starts from goes out first (nothing, but for the grid-shift
    // moments: a sample of the input, [`Running::seed`]).
    let seed = O::Run::seed(&a);
    let mut run: O::Run;
    let head = a.misaligned_head();
    if O::TWO_INPUTS && b.misaligned_head() != head {
        // Vectors of `a` and `b` do not line up: element by element, grid stride.
        run = O::Run::start::<T>(seed);
        let mut i = block * BLOCK + tid;
        while i < n {
            run.add(O::item(scalar::<T, O>(a.get(i)), other(i)));
            i += grid * BLOCK;
        }
    } else {
        let vectors = (n - head) / lanes;
        let tile = BLOCK * UNROLL;
        // The block's tiles start at `start`, `step` vectors apart, and stop at `end`.
        let (start, end, step) = if grid == 1 {
            (0, vectors, tile) // one block: no division before the first load (as stage 8)
        } else if INTERLEAVED {
            (block * tile, vectors, grid * tile)
        } else {
            let per_block = vectors.div_ceil(tile).div_ceil(grid) * tile;
            let start = block * per_block;
            (start, (start + per_block).min(vectors), tile)
        };
        let load = |g: &Global<T>, v: usize| -> Vec4 {
            // SAFETY: every caller passes `v < end <= vectors`, and `head + vectors * lanes <= n
            // == g.len()` (`b.len() == n` for two inputs, checked on entry); element `head` is the
            // first on a 16-byte boundary of `a`, and of `b` (same offset, tested above).
            unsafe { g.get_vec4_unchecked(head, v) }
        };
        let mut t = start;
        let load_tile = |t: usize| {
            let mut la = [Vec4([0; 4]); UNROLL];
            let mut lb = [Vec4([0; 4]); UNROLL];
            for u in 0..UNROLL {
                la[u] = load(&a, t + u * BLOCK + tid);
                if O::TWO_INPUTS {
                    lb[u] = load(&b, t + u * BLOCK + tid);
                }
            }
            (la, lb)
        };
        // The rolling loop's first tile goes out before the fold starts: `start` may wait on
        // `seed`'s reads, which then wait together with the tile's.
        let rolls = LOOP == ROLLING && t + tile <= end;
        let mut current = if rolls {
            load_tile(t)
        } else {
            ([Vec4([0; 4]); UNROLL], [Vec4([0; 4]); UNROLL])
        };
        run = O::Run::start::<T>(seed);
        // Elements before the first 16-byte boundary: block 0, one per thread.
        if block == 0 && tid < head {
            // SAFETY: `tid < head <= a.len()` (`misaligned_head` is at most the length).
            run.add(O::item(
                scalar::<T, O>(unsafe { a.get_unchecked(tid) }),
                other(tid),
            ));
        }
        if LOOP == ASYNC && !O::TWO_INPUTS && !INTERLEAVED {
            // Tiles `i + 1 ..= i + STAGES - 1` in flight as copies while tile `i` is computed.
            let steps = (end - t.min(end)) / tile;
            // SAFETY: the launch reserves the ring's bytes (`new` checks it), and nothing else
            // touches them before the `drain` and the barrier below.
            let ring = unsafe { Ring::new() };
            let first = |step: usize| t + step * tile + tid;
            // SAFETY: step `s < steps` reads vectors `first(s) + u * BLOCK < t + steps * tile <=
            // end <= vectors`: in bounds and aligned, as `load`'s.
            unsafe {
                ring.stream(
                    &a,
                    head,
                    steps,
                    |s, u| first(s) + u * BLOCK,
                    |_, la| tile_into::<T, O>(&mut run, &la, &la),
                )
            };
            t += steps * tile;
        } else if LOOP == ROLLING {
            // Rolling loads: the next tile's loads go out before this tile's arithmetic, so a
            // thread has a tile in flight while it computes (the same tiles, merged in the same
            // order: the same bits).
            if rolls {
                t += step;
                while t + tile <= end {
                    let next = load_tile(t);
                    tile_into::<T, O>(&mut run, &current.0, &current.1);
                    current = next;
                    t += step;
                }
                tile_into::<T, O>(&mut run, &current.0, &current.1);
            }
        } else {
            while t + tile <= end {
                // All loads first (independent, so all in flight at once) …
                let (la, lb) = load_tile(t);
                // … then the transform and the accumulate, one tile in registers.
                tile_into::<T, O>(&mut run, &la, &lb);
                t += step;
            }
        }
        // The block's last, partial tile (under interleaving, the grid's last tile, in the block
        // it falls to): the same loads, each guarded, all in flight at once; each loaded vector
        // is then one chunk.
        if t < end {
            let mut la = [Vec4([0; 4]); UNROLL];
            let mut lb = [Vec4([0; 4]); UNROLL];
            let mut valid = [false; UNROLL];
            // Written out (`unrolled`): a loop this large stays a loop, and the arrays it
            // indexes would go to local memory.
            unrolled::<UNROLL>(|u| {
                let v = t + u * BLOCK + tid;
                if v < end {
                    la[u] = load(&a, v);
                    if O::TWO_INPUTS {
                        lb[u] = load(&b, v);
                    }
                    valid[u] = true;
                }
            });
            unrolled::<UNROLL>(|u| {
                if valid[u] {
                    tile_into::<T, O>(&mut run, &la[u..u + 1], &lb[u..u + 1]);
                }
            });
        }
        // Fewer than one vector's worth left at the end: the last block, one per thread.
        let tail = head + vectors * lanes;
        if block == grid - 1 && tail + tid < n {
            // SAFETY: `tail + tid < n`, tested just above.
            let x = unsafe { a.get_unchecked(tail + tid) };
            run.add(O::item(scalar::<T, O>(x), other(tail + tid)));
        }
    }

    let acc = run.finish();
    if LOOP == ASYNC && !O::TWO_INPUTS {
        // The block merge reuses the ring's first bytes: every thread must be done with its ring.
        sync_threads();
    }
    let block_total = block_merge::<TotalOf<O>, BLOCK>(acc, smem);
    let write = |v: TotalOf<O>| {
        for (i, w) in run.result(v).into_iter().enumerate() {
            out.set(i, w); // checked: `out` holds WORDS doubles
        }
    };
    if grid == 1 {
        if tid == 0 {
            write(block_total);
        }
        return;
    }
    // Publish this block's partial, then take a ticket (stage 8's protocol: the ticket's release
    // half publishes the partial to whoever acquires a later ticket).
    let mut last_ticket = false;
    if tid == 0 {
        for i in 0..WORDS {
            // SAFETY: `WORDS * block + i < WORDS * grid <= partials.len()` (entry check).
            unsafe { partials.set_unchecked(WORDS * block + i, block_total.word(i)) };
        }
        last_ticket = counter.take_ticket() as usize == grid - 1;
    }
    if sync_threads_or(last_ticket) {
        // Thread `tid` merges blocks `tid, tid + BLOCK, …` in that order, then the block merge
        // keeps thread order: a fixed tree for a given grid (Chan's update does not care which
        // elements a triple covers, only that the order is the same every run).
        let mut acc = TotalOf::<O>::empty();
        let mut i = tid;
        while i < grid {
            // SAFETY: `WORDS * i + k < WORDS * grid <= partials.len()` for `k < WORDS` (loop
            // condition, entry check).
            let word = |k: usize| unsafe { partials.get_unchecked(WORDS * i + k) };
            acc = acc.merge(TotalOf::<O>::from_words([word(0), word(1), word(2)]));
            i += BLOCK;
        }
        let total = block_merge::<TotalOf<O>, BLOCK>(acc, smem);
        if tid == 0 {
            write(total);
            counter.reset();
        }
    }
}
