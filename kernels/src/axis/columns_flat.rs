//! # A narrow matrix's columns read the way stage 8 reads a vector
//!
//! Concept: **when a row is a few 16-byte vectors, forget the rows.** A row-major `rows × cols`
//! matrix whose rows are `vcols` 16-byte vectors (2^20 × 16 `f32`: 4) is, in memory, one flat
//! run of `rows · vcols` vectors in which vector `i` belongs to vector column `i mod vcols`.
//! Stage 8's schedule ([`crate::primitives::tiles`]: each block one contiguous share, thread
//! `tid` taking vectors `t + tid, t + BLOCK + tid, …` of each tile, `U` loads in flight) gives a
//! thread only vectors of **one** vector column, `tid mod vcols`, whenever `vcols` divides
//! `BLOCK` (a power of two up to 32). So the loop is stage 8's: a 16-byte load per vector,
//! `lanes` accumulators instead of one, no row or column arithmetic — and 32 registers for
//! `f32` sum (stage 8: 28), where [`super::columns_once`] (a tile layout of row lanes, several
//! compile-time widths and its finishing tiles in one kernel) needs 63–72 (ptxas 12.9; Nsight
//! Compute on the H200 measured its 2^20 × 16 launch at 56% of DRAM bandwidth).
//!
//! Then, per column and in a fixed order (bit-identical run to run, no float atomics):
//! 1. **the warp**: the lanes of vector column `c` sit `vcols` apart, so shuffles down by 16, 8,
//!    …, `vcols` leave lane `c` with the warp's totals (the `lanes` chains interleaved);
//! 2. **the block**: lane `c` of each warp writes its totals to shared memory, and after one
//!    barrier thread `j` folds column `j` of the `BLOCK / 32` warps in warp order — one row of
//!    `cols` partials per block;
//! 3. **the grid** (stage 8's ticket): every block stores its row of partials and, after a
//!    barrier, takes a ticket (`super::last_block`: thread 0's release covers the block); the block that draws the last one reads the `gridDim.x × cols` partials — a
//!    matrix of whole vectors itself, so steps 1–2 run again over it as one block's share
//!    (16-byte loads, 4 in flight, the shuffle and shared-memory folds: `gridDim.x · vcols /
//!    BLOCK` loads per thread, where an earlier finish loaded `gridDim.x · cols / BLOCK`
//!    scalars per thread and folded `BLOCK / cols` slices serially, and grew slower with the
//!    grid) — writes the results and resets the counter. Partials off a 16-byte boundary take
//!    the scalar slices of the next paragraph.
//!
//! **What the loop does not show** (Nsight Compute on the H200,
//! `benches/results/h200-2026-12-02-axis/call3`–`call4`): on stage 8's own grid this kernel first
//! took 26.5 µs for 2^20 × 16 where stage 8 takes 21.4 on the same bytes, with the same loop.
//! The difference was the work every warp does once: 248 instructions before its first load
//! (stage 8: 107) and an epilogue of four serial shuffle chains and one barrier per level of a
//! tree over the warps. Every warp runs its epilogue after its last load, when nothing is left
//! to hide it, and it is on the kernel's critical path twice (the last block to finish, then the
//! finishing block). Interleaving the chains, one barrier for the block fold and one division
//! for the share brought it to 22.6–23.3 µs (91–93% of a read-only kernel).
//! A row that is not whole vectors, an input not on a 16-byte boundary or a `vcols` that does
//! not divide 32 takes a scalar path with the same steps 2–3 (thread `(s, c)` adds rows `s,
//! s + S, …` of column `c` of its block's piece of rows): correct for any `cols <= BLOCK`, and
//! slow — the host picks this kernel only for whole-vector rows of 1, 2, 4, …, 32 vectors
//! (`AxisPolicy::col_once_flat`). The order of additions differs from [`super::columns_once`]'s,
//! so the two agree to rounding, not bit for bit.
//!
//! `p.group == 1` cuts the blocks' shares in runs of 32 vectors ([`EvenShare::fine`]) instead of
//! whole tiles of `BLOCK · U` vectors (any other value; `AxisPolicy::col_flat_fine`): with tiles
//! of 256 threads × 4 loads, 2^20 × 16 `f32` (4,096 tiles) left 8 of 264 blocks idle, or 109 of
//! 792.
//!
//! Built for blocks of 512 threads with 8 loads in flight per thread ([`columns_flat_deep`]; 4
//! loads, or blocks of 256, measured slower). Launch with `blockDim.x == BLOCK`, `cols <=
//! BLOCK`, `BLOCK · 16` bytes of dynamic shared memory, any grid; `partials` holds `gridDim.x ·
//! cols` elements (unused with one block) and `counter` is 0.

use super::columns::element;
use super::{last_block, piece, AxisParams};
use crate::gpu::WARP_SIZE;
use crate::gpu::{block_dim, block_idx, fail, grid_dim, sync_threads};
use crate::gpu::{thread_idx, Coherent, Counter, Global, GlobalMut, Shared, Vec4};
use crate::primitives::tiles::{self, unrolled, EvenShare};
use crate::{Element, ReduceOp};

/// 16-byte loads in flight per thread (stage 8's) of the finishing step.
const UNROLL: usize = 4;

/// Loads in flight per thread of the scalar slices (rows not whole vectors, or partials off a
/// 16-byte boundary).
const FINISH_UNROLL: usize = 4;

/// Column results of a row-major `count × len` matrix (`len <= BLOCK`) in one launch:
/// `out[column]` (see the module docs for the launch), 8 loads in flight per thread: the same
/// bytes in flight as stage 8's 4 from half the warps. Nsight Compute on the H200 put the
/// 4-deep loop's extra time over stage 8 on the same grid in work each warp does once — its
/// prologue (the checks and its share: 248 instructions per warp against stage 8's 107) and
/// its epilogue (the column folds) — issued by every warp when no load is left to hide it;
/// fewer, deeper warps pay it less often. Measured on 2^20 × 16 `f32` sum (H200, min of 50):
/// 22.5 µs on 2 blocks of 512 per SM against 22.9–24.2 with 4 loads on 4 per SM.
pub fn columns_flat_deep<T: Element, O: ReduceOp, const BLOCK: usize>(
    input: Global<T>,
    partials: Coherent<T>,
    counter: Counter,
    out: GlobalMut<T>,
    p: AxisParams,
) {
    flat_body::<T, O, BLOCK, 8>(input, partials, counter, out, p)
}

/// The kernel body of [`columns_flat_deep`], `U` loads in flight per thread on the input.
#[inline(always)]
fn flat_body<T: Element, O: ReduceOp, const BLOCK: usize, const U: usize>(
    input: Global<T>,
    partials: Coherent<T>,
    counter: Counter,
    out: GlobalMut<T>,
    p: AxisParams,
) {
    let (rows, cols) = (p.count, p.len);
    let (block, grid) = (block_idx() as usize, grid_dim() as usize);
    if block_dim() as usize != BLOCK || cols > BLOCK {
        fail("axis columns_flat: blockDim.x must be BLOCK and len at most BLOCK");
    }
    if rows.checked_mul(cols).is_none_or(|n| n > input.len())
        || out.len() < cols
        || (grid > 1 && partials.len() < grid.saturating_mul(cols))
    {
        fail(
            "axis columns_flat: input must hold count * len elements, out len, partials grid * len",
        );
    }
    if cols == 0 {
        return;
    }
    // SAFETY: the launch reserves `BLOCK · 16` bytes: `BLOCK · 16 / size_of::<T>()` elements,
    // at least `BLOCK` (the scalar steps) and `BLOCK / 32 · 32 · lanes` (the vector path's).
    let smem = unsafe { Shared::<T>::dynamic((BLOCK * 16 / core::mem::size_of::<T>()) as u32) };
    let put = |c: usize, v: T| {
        if grid == 1 {
            out.set(c, v)
        } else {
            // (`block · cols + c < grid · cols <= partials.len()`: checked above.)
            partials.set(block * cols + c, v)
        }
    };
    let lanes = 16 / core::mem::size_of::<T>();
    let vcols = cols / lanes;
    // (`lanes <= 4`: the vector path keeps four accumulators; 2-byte types take the scalar path.)
    let flat = lanes <= 4
        && cols.is_multiple_of(lanes)
        && input.misaligned_head() == 0
        && vcols.is_power_of_two()
        && vcols <= WARP_SIZE as usize
        && BLOCK.is_multiple_of(WARP_SIZE as usize);
    if flat {
        let count = rows * vcols; // (`rows · cols <= input.len()`: checked above.)
        let share = if p.group == 1 {
            // Shares in runs of 32 vectors (a multiple of `vcols`), not whole tiles.
            EvenShare::fine(count, WARP_SIZE as usize, grid, block)
        } else {
            EvenShare::new(count, BLOCK * U, grid, block)
        };
        let load = |i: usize| -> Vec4 {
            // SAFETY: `for_each_unrolled` loads only `i < share.end <= count`: the vector ends
            // at `(i + 1) · lanes <= rows · cols <= input.len()`, and element 0 is on a 16-byte
            // boundary (`misaligned_head() == 0`, checked above).
            unsafe { input.get_vec4_unchecked(0, i) }
        };
        vector_totals::<T, O, BLOCK, U>(share, vcols, load, smem, put);
    } else {
        let mine = piece(0, rows, block, grid);
        slice_totals::<T, O, BLOCK>(cols, mine, smem, |r, c| input.get(r * cols + c), put);
    }
    if grid == 1 {
        return;
    }
    if last_block(counter, grid) {
        if flat && partials.vec4_aligned() {
            // The partials are a `grid × cols` matrix of whole vectors: the same loop again,
            // one block over all of them (every thread's vectors of one vector column).
            let count = grid * vcols;
            let share = EvenShare::new(count, BLOCK * UNROLL, 1, 0);
            let load = |i: usize| -> Vec4 {
                // SAFETY: `i < count`: the vector ends at `(i + 1) · lanes <= grid · cols <=
                // partials.len()` (checked above), element 0 is on a 16-byte boundary (just
                // checked), and every block's stores are ordered before this load by the
                // ticket (`last_block`).
                unsafe { partials.get_vec4_unchecked(i) }
            };
            vector_totals::<T, O, BLOCK, UNROLL>(share, vcols, load, smem, |c, v| out.set(c, v));
        } else {
            slice_totals::<T, O, BLOCK>(
                cols,
                (0, grid),
                smem,
                // (`r < grid`, `c < cols`: within `grid · cols <= partials.len()`.)
                |r, c| partials.get(r * cols + c),
                |c, v| out.set(c, v),
            );
        }
        if thread_idx() == 0 {
            counter.reset();
        }
    }
}

/// The vector path (steps 1–2 of the module docs, and step 3 over the partials): this block's
/// `share` of a flat run of 16-byte vectors, vector `i` of vector column `i mod vcols` and
/// read by `load(i)` (`U` loads in flight), each thread one vector column; the block's column
/// totals handed to `put(column, total)` by threads `0..cols`. Every thread of the block must call it (it has a barrier; `smem` is free again
/// once every thread has passed the next one).
#[inline(always)]
fn vector_totals<T: Element, O: ReduceOp, const BLOCK: usize, const U: usize>(
    share: EvenShare,
    vcols: usize,
    load: impl Fn(usize) -> Vec4,
    smem: Shared<T>,
    put: impl Fn(usize, T),
) {
    let lanes = 16 / core::mem::size_of::<T>();
    let tid = thread_idx() as usize;
    let mut acc = [O::identity::<T>(); 4];
    // Item `i = t + u·BLOCK + tid` with `t` a multiple of 32 (a share starts at a multiple of
    // the tile or of 32, and steps by tiles): `i mod vcols = tid mod vcols` (`vcols` divides 32
    // and `BLOCK`), so every item of this thread is of its vector column.
    tiles::for_each_unrolled::<Vec4, BLOCK, U>(share, tid, load, |_, v| {
        #[allow(clippy::needless_range_loop)] // indexing keeps the array in registers
        for k in 0..4 {
            if k < lanes {
                acc[k] = O::combine(acc[k], element::<T>(v, k));
            }
        }
    });
    let (warp, lane) = (tid / WARP_SIZE as usize, tid % WARP_SIZE as usize);
    // The warp: shuffles down by 16, 8, …, `vcols`, the `lanes` chains interleaved so that
    // their shuffles are in flight together (this fold is on the kernel's critical path: the
    // last block to finish its loads runs it, then the finishing block runs it again).
    // Kept private: `warp::reduce_strided` per chain would serialise the chains (ILP, SASS).
    let mut offset = WARP_SIZE as usize / 2;
    while offset >= vcols {
        #[allow(clippy::needless_range_loop)] // indexing keeps the array in registers
        for k in 0..4 {
            if k < lanes {
                acc[k] = O::combine(acc[k], acc[k].shfl_down(offset as u32));
            }
        }
        offset /= 2;
    }
    #[allow(clippy::needless_range_loop)]
    for k in 0..4 {
        if k < lanes && lane < vcols {
            smem.set(((warp * vcols + lane) * lanes + k) as u32, acc[k]);
        }
    }
    sync_threads();
    // The block: entry `j` of each warp's row of `m = vcols · lanes` totals is column `j`;
    // thread `j` folds the `BLOCK / 32` warps' entries in warp order (a fixed order), their
    // loads issued together — one barrier, where a tree over the warps took one per level.
    let m = vcols * lanes;
    if tid < m {
        let mut t = smem.get(tid as u32);
        for w in 1..BLOCK / WARP_SIZE as usize {
            t = O::combine(t, smem.get((w * m + tid) as u32));
        }
        put(tid, t);
    }
}

/// The scalar steps (the scalar path's 1–2, and step 3): rows `r0..r1` of a `cols`-wide matrix
/// (`cols <= BLOCK`) read by `get(row, column)`; thread `(s, c)` (`s < S = BLOCK / cols`) folds
/// rows `r0 + s, r0 + s + S, …` of column `c`, [`FINISH_UNROLL`] reads in flight, then thread
/// `c` folds the `S` slices in order and hands the total to `put(column, total)`. Every thread of the block must call it (it has barriers);
/// `get` is called with `r0 <= row < r1` and `column < cols` only.
#[inline(always)]
fn slice_totals<T: Element, O: ReduceOp, const BLOCK: usize>(
    cols: usize,
    (r0, r1): (usize, usize),
    smem: Shared<T>,
    get: impl Fn(usize, usize) -> T,
    put: impl Fn(usize, T),
) {
    let tid = thread_idx() as usize;
    let slices = BLOCK / cols;
    let (s, c) = (tid / cols, tid % cols);
    let mut acc = O::identity::<T>();
    if s < slices {
        let mut r = r0 + s;
        while r + (FINISH_UNROLL - 1) * slices < r1 {
            let mut v = [O::identity::<T>(); FINISH_UNROLL];
            unrolled::<FINISH_UNROLL>(|u| v[u] = get(r + u * slices, c));
            unrolled::<FINISH_UNROLL>(|u| acc = O::combine(acc, v[u]));
            r += FINISH_UNROLL * slices;
        }
        while r < r1 {
            acc = O::combine(acc, get(r, c));
            r += slices;
        }
        smem.set(tid as u32, acc);
    }
    sync_threads();
    if tid < cols {
        let mut t = smem.get(tid as u32);
        for k in 1..slices {
            t = O::combine(t, smem.get((k * cols + tid) as u32));
        }
        put(tid, t);
    }
    sync_threads(); // the reads above are done before anyone overwrites `smem`
}

#[cfg(test)]
mod tests;
