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
//! [`reduce_shifted`] is the same driver with the next tile's loads issued before this tile's
//! arithmetic (rolling loads), for an op's grid-shift form (the `f16`/`bf16` moments: sums about
//! one shift for the whole grid, added by the trees — [`super::grid_shift`]).
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
use crate::gpu::WARP_SIZE;
use crate::gpu::{fail, sync_threads_or, Coherent, Counter, Global, GlobalMut, Shared, Vec4};
use crate::primitives::tiles::unrolled;
use crate::primitives::tiles::SINGLE_PASS_UNROLL as UNROLL;
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
    reduce_with::<T, O, BLOCK, PLAIN, false>(a, b, partials, counter, out)
}

/// [`reduce`] for the **grid-shift form** of `O` ([`ShiftForm::Grid`]; the moments:
/// [`super::grid_shift`]): every thread folds about one shift shared by the grid, and the warp,
/// block and grid trees add sums instead of merging by Chan's update. Not [`reduce`]'s bits (other
/// arithmetic), deterministic all the same; its own error bound. Same launch contract as
/// [`reduce`].
///
/// With **rolling loads**: the next tile's loads go out before this tile's arithmetic, so a
/// thread always has a tile in flight, and the arithmetic no longer stalls the memory pipe; the
/// cost is a second tile in registers. Built for the `f16`/`bf16` moments, whose tiles (32 values
/// in two chunks) are the most arithmetic per byte: under the `_r80` kernels' cap of 80 registers
/// (the rolling loop with Chan's merges held 72, then 79 with the moments' shifted thread fold;
/// capped lower it spilled), three 256-thread blocks per SM instead of two 512-thread ones. First
/// measured on the H200 with Chan's merges (`benches/results/h200-2026-12-02-occupancy/call1`): `f16`
/// `var` at 2^30 from 495.4 to 471.5 µs against the read-only kernel's 467.8; the counter behind
/// it (Nsight Compute, `call4` of the same run, `f16` var at 2^26): cycles stalled on memory (long
/// scoreboard) per issued instruction, 6.33 for [`reduce`]'s loop and 2.98 for the rolling one.
/// The same loop for `f32` moments (64 registers either way) measured level (924.9 against 927.3
/// µs), so they keep [`reduce`].
pub fn reduce_shifted<T: Element, O: ShiftForm, const BLOCK: usize>(
    a: Global<T>,
    b: Global<T>,
    partials: Coherent<f64>,
    counter: Counter,
    out: GlobalMut<f64>,
) {
    reduce_with::<T, O::Grid, BLOCK, ROLLING, false>(a, b, partials, counter, out)
}

/// The loops of [`reduce_with`].
const PLAIN: u8 = 0;
const ROLLING: u8 = 1;

/// [`reduce`] (`LOOP` = [`PLAIN`]) or [`reduce_shifted`] ([`ROLLING`]).
///
/// `INTERLEAVED` deals tile `k` to block `k mod gridDim.x` instead of one contiguous run per
/// block. No built kernel sets it (the interleaved kernels were deleted: `docs/decisions.md`),
/// but the branch stays: without it LLVM lays out the start of 62 of the transform kernels
/// differently (in the SASS, a compare, a branch and the predicate registers around them), and
/// the built kernels keep the machine code they were measured with.
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
        if LOOP == ROLLING {
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
        // The block's last, partial tile: the same loads, each guarded, all in flight at once; each loaded vector
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
