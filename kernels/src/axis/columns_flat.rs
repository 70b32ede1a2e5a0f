//! # A narrow matrix's columns read the way stage 8 reads a vector
//!
//! Concept: **when a row is a few 16-byte vectors, forget the rows.** A row-major `rows × cols`
//! matrix whose rows are `vcols` 16-byte vectors (2^20 × 16 `f32`: 4) is, in memory, one flat
//! run of `rows · vcols` vectors in which vector `i` belongs to vector column `i mod vcols`.
//! Stage 8's schedule ([`crate::primitives::tiles`]: each block one contiguous share, thread
//! `tid` taking vectors `t + tid, t + BLOCK + tid, …` of each tile, 4 loads in flight) gives a
//! thread only vectors of **one** vector column, `tid mod vcols`, whenever `vcols` divides
//! `BLOCK` (a power of two up to 32). So the loop is stage 8's: a 16-byte load per vector,
//! `lanes` accumulators instead of one, no row or column arithmetic — and as few registers as
//! stage 8 needs, where [`super::columns_once`] (a tile layout of row lanes, several
//! compile-time widths and its finishing tiles in one kernel) needs 63 for `f32` sum (ptxas
//! 12.9: 4 of its blocks per SM, 50% occupancy; Nsight Compute on the H200 measured its
//! 2^20 × 16 launch at 56% of DRAM bandwidth, session 8).
//!
//! Then, per column and in a fixed order (bit-identical run to run, no float atomics):
//! 1. **the warp**: the lanes of vector column `c` sit `vcols` apart, so shuffles down by 16, 8,
//!    …, `vcols` leave lane `c` with the warp's total (`columns::fold_warp`);
//! 2. **the block**: lane `c` of each warp writes its totals to shared memory, and thread `c`
//!    folds the `BLOCK / 32` warps in order — one row of `cols` partials per block;
//! 3. **the grid** (stage 8's ticket): every block stores its row of partials, fences and takes
//!    a ticket; the block that draws the last one reads the `gridDim.x × cols` partials — thread
//!    `(s, c)` folds rows `s, s + S, …` of column `c` (`S = BLOCK / cols` slices, 8 loads in
//!    flight), then thread `c` folds the `S` slices in order — writes the results and resets the
//!    counter.
//!
//! A row that is not whole vectors, an input not on a 16-byte boundary or a `vcols` that does
//! not divide 32 takes a scalar path with the same steps 2–3 (thread `(s, c)` adds rows `s,
//! s + S, …` of column `c` of its block's piece of rows): correct for any `cols <= BLOCK`, and
//! slow — the host picks this kernel only for whole-vector rows of 1, 2, 4, …, 32 vectors
//! (`AxisPolicy::col_once_flat`). The order of additions differs from [`super::columns_once`]'s,
//! so the two agree to rounding, not bit for bit.
//!
//! Launch with `blockDim.x == BLOCK`, `cols <= BLOCK`, `BLOCK · 16` bytes of dynamic shared
//! memory, any grid; `partials` holds `gridDim.x · cols` elements (unused with one block) and
//! `counter` is 0.

use super::columns::{element, fold_warp};
use super::{last_block, piece, AxisParams};
use crate::gpu::WARP_SIZE;
use crate::gpu::{block_dim, block_idx, fail, grid_dim, sync_threads};
use crate::gpu::{thread_idx, Coherent, Counter, Global, GlobalMut, Shared, Vec4};
use crate::primitives::tiles::{self, unrolled, EvenShare};
use crate::{Element, ReduceOp};

/// 16-byte loads in flight per thread (stage 8's).
const UNROLL: usize = 4;

/// Partials in flight per thread of the finishing block.
const FINISH_UNROLL: usize = 8;

/// Column results of a row-major `count × len` matrix (`len <= BLOCK`) in one launch:
/// `out[column]` (see the module docs for the launch).
pub fn columns_flat<T: Element, O: ReduceOp, const BLOCK: usize>(
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
    let flat = cols.is_multiple_of(lanes)
        && input.misaligned_head() == 0
        && vcols.is_power_of_two()
        && vcols <= WARP_SIZE as usize
        && BLOCK.is_multiple_of(WARP_SIZE as usize);
    let wrote = if flat {
        vector_totals::<T, O, BLOCK>(&input, rows, vcols, smem, put)
    } else {
        let mine = piece(0, rows, block, grid);
        slice_totals::<T, O, BLOCK>(cols, mine, smem, |r, c| input.get(r * cols + c), put)
    };
    if grid == 1 {
        return;
    }
    if last_block(wrote, counter, grid) {
        slice_totals::<T, O, BLOCK>(
            cols,
            (0, grid),
            smem,
            // (`r < grid`, `c < cols`: within `grid · cols <= partials.len()`.)
            |r, c| partials.get(r * cols + c),
            |c, v| out.set(c, v),
        );
        if thread_idx() == 0 {
            counter.reset();
        }
    }
}

/// The vector path (steps 1–2 of the module docs): this block's share of the `rows · vcols`
/// vectors, each thread one vector column; the block's column totals handed to `put(column,
/// total)` by threads `0..vcols`. Returns whether this thread wrote any. Every thread of the
/// block must call it (it has a barrier).
#[inline(always)]
fn vector_totals<T: Element, O: ReduceOp, const BLOCK: usize>(
    input: &Global<T>,
    rows: usize,
    vcols: usize,
    smem: Shared<T>,
    put: impl Fn(usize, T),
) -> bool {
    let lanes = 16 / core::mem::size_of::<T>();
    let tid = thread_idx() as usize;
    let count = rows * vcols; // (`rows · cols <= input.len()`: checked by the caller.)
    let share = EvenShare::new(
        count,
        BLOCK * UNROLL,
        grid_dim() as usize,
        block_idx() as usize,
    );
    let load = |i: usize| -> Vec4 {
        // SAFETY: `for_each_unrolled` loads only `i < share.end <= count`: the vector ends at
        // `(i + 1) · lanes <= rows · cols <= input.len()`, and element 0 is on a 16-byte
        // boundary (`misaligned_head() == 0`, checked by the caller).
        unsafe { input.get_vec4_unchecked(0, i) }
    };
    let mut acc = [O::identity::<T>(); 4];
    // Item `i = t + u·BLOCK + tid` with `t` a multiple of the tile: `i mod vcols = tid mod
    // vcols` (`vcols` divides `BLOCK`), so every item of this thread is of its vector column.
    tiles::for_each_unrolled::<Vec4, BLOCK, UNROLL>(share, tid, load, |_, v| {
        #[allow(clippy::needless_range_loop)] // indexing keeps the array in registers
        for k in 0..4 {
            if k < lanes {
                acc[k] = O::combine(acc[k], element::<T>(v, k));
            }
        }
    });
    let (warp, lane) = (tid / WARP_SIZE as usize, tid % WARP_SIZE as usize);
    #[allow(clippy::needless_range_loop)]
    for k in 0..4 {
        if k < lanes {
            acc[k] = fold_warp::<T, O>(acc[k], vcols);
            if lane < vcols {
                smem.set(((warp * vcols + lane) * lanes + k) as u32, acc[k]);
            }
        }
    }
    sync_threads();
    if tid >= vcols {
        return false;
    }
    #[allow(clippy::needless_range_loop)]
    for k in 0..4 {
        if k < lanes {
            let mut t = smem.get((tid * lanes + k) as u32);
            for w in 1..BLOCK / WARP_SIZE as usize {
                t = O::combine(t, smem.get(((w * vcols + tid) * lanes + k) as u32));
            }
            put(tid * lanes + k, t);
        }
    }
    true
}

/// The scalar steps (the scalar path's 1–2, and step 3): rows `r0..r1` of a `cols`-wide matrix
/// (`cols <= BLOCK`) read by `get(row, column)`; thread `(s, c)` (`s < S = BLOCK / cols`) folds
/// rows `r0 + s, r0 + s + S, …` of column `c`, [`FINISH_UNROLL`] reads in flight, then thread
/// `c` folds the `S` slices in order and hands the total to `put(column, total)`. Returns
/// whether this thread wrote any. Every thread of the block must call it (it has barriers);
/// `get` is called with `r0 <= row < r1` and `column < cols` only.
#[inline(always)]
fn slice_totals<T: Element, O: ReduceOp, const BLOCK: usize>(
    cols: usize,
    (r0, r1): (usize, usize),
    smem: Shared<T>,
    get: impl Fn(usize, usize) -> T,
    put: impl Fn(usize, T),
) -> bool {
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
    let wrote = tid < cols;
    if wrote {
        let mut t = smem.get(tid as u32);
        for k in 1..slices {
            t = O::combine(t, smem.get((k * cols + tid) as u32));
        }
        put(tid, t);
    }
    sync_threads(); // the reads above are done before anyone overwrites `smem`
    wrote
}

#[cfg(test)]
mod tests;
