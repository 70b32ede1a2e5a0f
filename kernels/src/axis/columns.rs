//! # One result per column: coalesced rows, one accumulator per column and thread
//!
//! Concept: **read along the memory, reduce across it.** A column of a row-major matrix is
//! strided in memory, so one thread walking one column would make every load of a warp hit a
//! different row (32 transactions per load). Instead a block takes a *tile* of `W = min(len,
//! BLOCK)` neighbouring columns and lays its threads out as `BLOCK / W` row lanes × `W` columns:
//! thread `(r, c)` adds rows `r, r + L, r + 2L, …` of column `c` into its own accumulator. In
//! each step the block reads `L` whole row-segments of `W` contiguous elements — coalesced — and
//! for narrow matrices (`len` < `BLOCK`) the `L` rows are themselves contiguous, so the block
//! streams through memory like a vector reduction does.
//!
//! The tile width is the launch's `group` (at most `BLOCK`, in vector columns on the vector
//! path): a narrower tile gives a wide matrix more tiles — more blocks — and each thread more
//! rows, at the price of shorter coalesced runs per row.
//!
//! Then the `L` row lanes of each column are combined — by warp shuffles within each warp when
//! the tile width divides the warp ([`warp::reduce_strided`]), then through shared memory in
//! warp order; otherwise through shared memory in row-lane order — and the first row lane writes
//! the column's result. With a single row lane (a tile as wide as the block: matrices of at least
//! `BLOCK` (vector) columns) there is nothing to combine, so that path has no shared memory and
//! no barrier at all: each warp runs on to its next work item on its own, and short columns
//! (few rows per item) do not drain the loads in flight at every item.
//!
//! When a row is a whole number of 16-byte vectors (and the matrix starts on a 16-byte boundary)
//! each thread takes a *vector column* instead — 4 neighbouring `f32` columns (2 of `f64`) — with
//! one 16-byte load per row and one accumulator per column (`columns_vec`): a quarter of the
//! load instructions, four times the bytes in flight.
//!
//! A tall matrix has few tiles; to fill the GPU the rows are cut into `parts` pieces (one work
//! item per tile × piece). Each writes a row of a `parts × len` matrix of partials, which the host
//! reduces with this kernel again (`parts` rows, one piece): a deterministic second pass.

use super::{piece, AxisParams};
use crate::gpu::{block_dim, block_idx, fail, grid_dim, sync_threads, thread_idx};
use crate::gpu::{Global, GlobalMut, Shared, Vec4, WARP_SIZE};
use crate::primitives::warp;
use crate::{Element, ReduceOp};

/// Independent loads in flight per thread of [`columns`].
const UNROLL: usize = 4;

/// Column results of a row-major `count × len` matrix: `out[part·len + column]`, `part <
/// parts`; tiles of `min(group, BLOCK)` (vector) columns; `UNROLL` (4) loads in flight per thread.
///
/// Launch with `blockDim.x == BLOCK`, `BLOCK` elements of dynamic shared memory, any grid;
/// `input` holds at least `count·len` elements, `out` at least `parts·len`.
pub fn columns<T: Element, O: ReduceOp, const BLOCK: usize>(
    input: Global<T>,
    begin: Global<u64>,
    end: Global<u64>,
    out: GlobalMut<T>,
    p: AxisParams,
) {
    columns_unrolled::<T, O, BLOCK, UNROLL>(input, begin, end, out, p)
}

/// [`columns`] with `U` independent loads in flight per thread.
#[inline(always)]
fn columns_unrolled<T: Element, O: ReduceOp, const BLOCK: usize, const U: usize>(
    input: Global<T>,
    _begin: Global<u64>,
    _end: Global<u64>,
    out: GlobalMut<T>,
    p: AxisParams,
) {
    let (rows, cols) = (p.count, p.len);
    if block_dim() as usize != BLOCK || p.parts == 0 {
        fail("axis columns: blockDim.x must be BLOCK and parts > 0");
    }
    if rows.checked_mul(cols).is_none_or(|n| n > input.len())
        || out.len() < p.parts.saturating_mul(cols)
    {
        fail("axis columns: input must hold count * len elements and out parts * len");
    }
    if cols == 0 {
        return;
    }
    let lanes = 16 / core::mem::size_of::<T>();
    if cols.is_multiple_of(lanes) && input.misaligned_head() == 0 {
        return columns_vec::<T, O, BLOCK, U>(input, out, p);
    }
    // SAFETY: the launch reserves `BLOCK` elements of shared memory (the host's plan reserves
    // 16 bytes per thread).
    let smem = unsafe { Shared::<T>::dynamic(BLOCK as u32) };
    let tid = thread_idx() as usize;
    let w = cols.min(p.group.clamp(1, BLOCK));
    let lanes = BLOCK / w;
    let (row_lane, col_off) = (tid / w, tid % w);
    let tiles = cols.div_ceil(w);
    let items = tiles.saturating_mul(p.parts);
    let mut item = block_idx() as usize;
    if lanes == 1 {
        // One row lane: a thread's total is its column's, so there is nothing to combine — no
        // shared memory, no barrier; each warp runs on to its next item on its own.
        while item < items {
            let (tile, part) = (item % tiles, item / tiles);
            let c = tile * w + col_off;
            let (r0, r1) = piece(0, rows, part, p.parts);
            // (Threads past the tile — `BLOCK` not a multiple of `w` — have no column.)
            if row_lane == 0 && c < cols {
                out.set(
                    part * cols + c,
                    column_total::<T, O, U>(input, cols, c, r0, r1, 1),
                );
            }
            item += grid_dim() as usize;
        }
        return;
    }
    // `item` is the same for the whole block: every thread reaches every barrier.
    while item < items {
        let (tile, part) = (item % tiles, item / tiles);
        let c = tile * w + col_off;
        let (r0, r1) = piece(0, rows, part, p.parts);
        let mut acc = O::identity::<T>();
        if c < cols && row_lane < lanes {
            acc = column_total::<T, O, U>(input, cols, c, r0 + row_lane, r1, lanes);
        }
        let fold = folds(w);
        if fold {
            acc = warp::reduce_strided::<T, O>(acc, w);
        }
        smem.set(tid as u32, acc);
        sync_threads();
        if row_lane == 0 && c < cols {
            let mut total = acc;
            if fold {
                for warp in 1..BLOCK / 32 {
                    total = O::combine(total, smem.get((warp * 32 + col_off) as u32));
                }
            } else {
                for l in 1..lanes {
                    total = O::combine(total, smem.get((l * w + col_off) as u32));
                }
            }
            out.set(part * cols + c, total);
        }
        sync_threads(); // the reads above are done before the next item overwrites `smem`
        item += grid_dim() as usize;
    }
}

/// `op` over rows `r, r + step, …` (below `r1`) of column `c` of a matrix of `cols` columns,
/// `U` independent loads in flight. The caller guarantees `c < cols` and `r1 <= count`,
/// with `count · cols <= input.len()` (checked on entry by [`columns`]).
#[inline(always)]
fn column_total<T: Element, O: ReduceOp, const U: usize>(
    input: Global<T>,
    cols: usize,
    c: usize,
    mut r: usize,
    r1: usize,
    step: usize,
) -> T {
    let mut acc = O::identity::<T>();
    while r + (U - 1) * step < r1 {
        let mut v = [O::identity::<T>(); U];
        for (u, x) in v.iter_mut().enumerate() {
            // SAFETY: row `r + u·step < r1 <= rows` and `c < cols`, so the index is below
            // `rows·cols <= input.len()` (the caller's guarantee).
            *x = unsafe { input.get_unchecked((r + u * step) * cols + c) };
        }
        #[allow(clippy::needless_range_loop)] // indexing keeps the array in registers
        for u in 0..U {
            acc = O::combine(acc, v[u]);
        }
        r += U * step;
    }
    while r < r1 {
        // SAFETY: `r < r1 <= rows`, `c < cols`, as above.
        acc = O::combine(acc, unsafe { input.get_unchecked(r * cols + c) });
        r += step;
    }
    acc
}

/// Do tiles of `w` columns fold their row lanes with shuffles ([`warp::reduce_strided`])? When
/// `w` divides the warp (and so the block: no thread is left without a row lane). With tiles of
/// `w` columns thread `(r, c)` is lane `r·w + c` of the block, so the row lanes of column `c` sit
/// `w` lanes apart in a warp: instead of `BLOCK / w − 1` dependent shared-memory reads by one
/// thread per column, `log2(32 / w)` shuffles by every thread and then `BLOCK / 32 − 1` reads.
#[inline(always)]
pub(super) fn folds(w: usize) -> bool {
    w < WARP_SIZE as usize && (WARP_SIZE as usize).is_multiple_of(w)
}

/// `op` over rows `r, r + step, …` (below `r1`) of vector column `vc` of a matrix of `vcols`
/// 16-byte vectors per row, one accumulator per element of the vector, `U` independent
/// loads in flight. The caller guarantees `vc < vcols`, `r1 <= count` with `count · vcols`
/// vectors in `input`, and `input` on a 16-byte boundary (checked by [`columns`]).
#[inline(always)]
pub(super) fn vec_column_total<T: Element, O: ReduceOp, const U: usize>(
    input: Global<T>,
    vcols: usize,
    vc: usize,
    mut r: usize,
    r1: usize,
    step: usize,
) -> [T; 4] {
    let lanes = 16 / core::mem::size_of::<T>();
    let mut acc = [O::identity::<T>(); 4];
    while r + (U - 1) * step < r1 {
        let mut v = [Vec4([0; 4]); U];
        for (u, x) in v.iter_mut().enumerate() {
            // SAFETY: row `r + u·step < r1 <= rows` and `vc < vcols`, so the vector
            // `(r + u·step)·vcols + vc` ends at or before `rows·cols <= input.len()`; element 0
            // is on a 16-byte boundary (the caller's guarantee).
            *x = unsafe { input.get_vec4_unchecked(0, (r + u * step) * vcols + vc) };
        }
        #[allow(clippy::needless_range_loop)] // indexing keeps the arrays in registers
        for u in 0..U {
            for k in 0..4 {
                if k < lanes {
                    acc[k] = O::combine(acc[k], element::<T>(v[u], k));
                }
            }
        }
        r += U * step;
    }
    while r < r1 {
        // SAFETY: `r < r1 <= rows`, `vc < vcols`, as above.
        let v = unsafe { input.get_vec4_unchecked(0, r * vcols + vc) };
        #[allow(clippy::needless_range_loop)]
        for k in 0..4 {
            if k < lanes {
                acc[k] = O::combine(acc[k], element::<T>(v, k));
            }
        }
        r += step;
    }
    acc
}

/// Element `k` of a 16-byte vector of `T`s.
#[inline(always)]
pub(super) fn element<T: Element>(v: Vec4, k: usize) -> T {
    let w = v.0;
    if core::mem::size_of::<T>() == 4 {
        T::from_bits64(w[k] as u64)
    } else {
        T::from_bits64(w[2 * k] as u64 | ((w[2 * k + 1] as u64) << 32))
    }
}

/// [`columns`] with 16-byte loads: thread `(r, c)` of a tile owns vector column `c` (`lanes`
/// neighbouring columns). Needs `len` a multiple of `lanes` and `input` on a 16-byte boundary
/// (the caller checked both) and `BLOCK · 16` bytes of shared memory.
#[inline(always)]
fn columns_vec<T: Element, O: ReduceOp, const BLOCK: usize, const U: usize>(
    input: Global<T>,
    out: GlobalMut<T>,
    p: AxisParams,
) {
    let lanes = 16 / core::mem::size_of::<T>();
    let (rows, cols) = (p.count, p.len);
    let vcols = cols / lanes;
    // SAFETY: the launch reserves 16 bytes per thread: `BLOCK · lanes` elements.
    let smem = unsafe { Shared::<T>::dynamic((BLOCK * lanes) as u32) };
    let tid = thread_idx() as usize;
    let w = vcols.min(p.group.clamp(1, BLOCK));
    let row_lanes = BLOCK / w;
    let (row_lane, col_off) = (tid / w, tid % w);
    let tiles = vcols.div_ceil(w);
    let items = tiles.saturating_mul(p.parts);
    let mut item = block_idx() as usize;
    if row_lanes == 1 {
        // One row lane: nothing to combine, no barrier (as in `columns`); threads past the
        // tile have no column.
        while item < items {
            let (tile, part) = (item % tiles, item / tiles);
            let vc = tile * w + col_off;
            let (r0, r1) = piece(0, rows, part, p.parts);
            if row_lane == 0 && vc < vcols {
                let acc = vec_column_total::<T, O, U>(input, vcols, vc, r0, r1, 1);
                #[allow(clippy::needless_range_loop)]
                for k in 0..4 {
                    if k < lanes {
                        out.set(part * cols + vc * lanes + k, acc[k]);
                    }
                }
            }
            item += grid_dim() as usize;
        }
        return;
    }
    while item < items {
        let (tile, part) = (item % tiles, item / tiles);
        let vc = tile * w + col_off;
        let (r0, r1) = piece(0, rows, part, p.parts);
        let mut acc = [O::identity::<T>(); 4];
        if vc < vcols && row_lane < row_lanes {
            acc = vec_column_total::<T, O, U>(input, vcols, vc, r0 + row_lane, r1, row_lanes);
        }
        let fold = folds(w);
        #[allow(clippy::needless_range_loop)]
        for k in 0..4 {
            if k < lanes {
                if fold {
                    acc[k] = warp::reduce_strided::<T, O>(acc[k], w);
                }
                smem.set((tid * lanes + k) as u32, acc[k]);
            }
        }
        sync_threads();
        if row_lane == 0 && vc < vcols {
            #[allow(clippy::needless_range_loop)]
            for k in 0..4 {
                if k < lanes {
                    let mut total = acc[k];
                    if fold {
                        for warp in 1..BLOCK / 32 {
                            let at = (warp * 32 + col_off) * lanes + k;
                            total = O::combine(total, smem.get(at as u32));
                        }
                    } else {
                        for l in 1..row_lanes {
                            let at = (l * w + col_off) * lanes + k;
                            total = O::combine(total, smem.get(at as u32));
                        }
                    }
                    out.set(part * cols + vc * lanes + k, total);
                }
            }
        }
        sync_threads(); // the reads above are done before the next item overwrites `smem`
        item += grid_dim() as usize;
    }
}
