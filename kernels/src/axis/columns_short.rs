//! # The column kernel of wide matrices: 16-byte result stores, short columns loaded at once
//!
//! Concept: **on a single row lane, a thread's work is a few strided loads and four results —
//! make both wide.** A matrix of at least `BLOCK` vector columns (16 × 2^24 `f32`) runs
//! [`super::columns`] with one row lane: each thread owns a vector column (4 `f32` columns) and
//! walks its rows. Nsight Compute on the H200 (16 × 2^24 `f32` sum: 282.8 µs, 90% of the
//! read + write roof, level with torch) found two things besides the loads' latency:
//!
//! * **the 4 results of a thread were 4 scalar stores 4 bytes apart**: a warp's store covers
//!   512 contiguous bytes but in four instructions of 16-byte-strided sectors (15% of the
//!   store sectors wasted). Here a thread packs its 4 results into one 16-byte store
//!   ([`GlobalMut::set_vec4_unchecked`]): one instruction, whole sectors.
//! * **only 2–3 of the 4 loads in flight**: each load's address `(r + u)·vcols + vc` is
//!   recomputed from the run-time stride, and ptxas interleaves those multiplies with the loads.
//!   Here a work item of at most `SHORT` rows (a 16-row matrix: every item) takes its rows in
//!   one compile-time-unrolled step: the address `base + u·vcols` of row `u` is formed once,
//!   then all (up to `SHORT`) 16-byte loads are issued before the first add — `SHORT` loads in
//!   flight per thread instead of 4, at the price of `4·SHORT` registers for the loaded
//!   vectors (fewer resident blocks, but many more bytes in flight per SM).
//!
//! It adds a column's rows in the same order as [`super::columns`] (row by row, from the
//! identity), so the results are **bit-identical** to the plain kernel's. Every other case —
//! several row lanes, the scalar path (a row not a whole number of vectors), a result buffer
//! not on a 16-byte boundary, longer items — runs [`super::columns`] itself. The host picks it
//! for column plans with enough tiles to fill the grid unsplit (`AxisPolicy::wide_col_short_rows`:
//! 16 × 2^24 268.1 µs against 283.8 for the plain kernel on the H200); on split plans it was
//! 22–53% slower (its 70 registers: 3 blocks per SM), so those keep [`super::columns`]
//! (`AxisPolicy::col_short_rows` runs it everywhere).

use super::columns::{columns, element, vec_column_total};
use super::{piece, AxisParams};
use crate::gpu::{block_dim, block_idx, grid_dim, thread_idx, Global, GlobalMut, Vec4};
use crate::primitives::tiles::unrolled;
use crate::{Element, ReduceOp};

/// Rows per work item that [`columns_short16`] loads in one step.
const SHORT: usize = 16;

/// [`super::columns`] with 16-byte result stores on the single-row-lane vector path, and work
/// items of at most 16 rows loaded in one step (16 loads in flight).
///
/// Launch as [`super::columns`].
pub fn columns_short16<T: Element, O: ReduceOp, const BLOCK: usize>(
    input: Global<T>,
    begin: Global<u64>,
    end: Global<u64>,
    out: GlobalMut<T>,
    p: AxisParams,
) {
    columns_lean::<T, O, BLOCK, SHORT>(input, begin, end, out, p)
}

/// The single-row-lane vector path with 16-byte stores and (`S > 0`) short items at once;
/// anything else is [`super::columns`].
#[inline(always)]
fn columns_lean<T: Element, O: ReduceOp, const BLOCK: usize, const S: usize>(
    input: Global<T>,
    begin: Global<u64>,
    end: Global<u64>,
    out: GlobalMut<T>,
    p: AxisParams,
) {
    let lanes = 16 / core::mem::size_of::<T>();
    let (rows, cols) = (p.count, p.len);
    let vcols = cols / lanes;
    let w = vcols.min(p.group.clamp(1, BLOCK));
    let lean = cols > 0
        && cols.is_multiple_of(lanes)
        && input.misaligned_head() == 0
        && out.vec4_aligned()
        && BLOCK / w == 1
        && block_dim() as usize == BLOCK
        && p.parts > 0
        && rows.checked_mul(cols).is_some_and(|n| n <= input.len())
        && out.len() >= p.parts.saturating_mul(cols);
    if !lean {
        // (Checks and fails exactly as the default kernel does.)
        return columns::<T, O, BLOCK>(input, begin, end, out, p);
    }
    let tid = thread_idx() as usize;
    let tiles = vcols.div_ceil(w);
    let items = tiles.saturating_mul(p.parts);
    let mut item = block_idx() as usize;
    while item < items {
        let (tile, part) = (item % tiles, item / tiles);
        let vc = tile * w + tid;
        let (r0, r1) = piece(0, rows, part, p.parts);
        // (Threads past the tile — `BLOCK` not a multiple of `w` — have no column.)
        if tid < w && vc < vcols {
            let acc = if S > 0 && r1 - r0 <= S {
                short_total::<T, O, S>(input, vcols, vc, r0, r1)
            } else {
                vec_column_total::<T, O, 4>(input, vcols, vc, r0, r1, 1)
            };
            // SAFETY: vector `part·vcols + vc` ends at `(part·vcols + vc + 1)·lanes <=
            // parts·cols <= out.len()` (checked above), and `out` is on a 16-byte boundary.
            unsafe { out.set_vec4_unchecked(part * vcols + vc, pack::<T>(acc)) };
        }
        item += grid_dim() as usize;
    }
}

/// `op` over rows `r0..r1` (at most `S` of them) of vector column `vc`: every load issued
/// before the first add, at addresses `base + u·vcols`. The caller guarantees `r1 - r0 <= S`,
/// `vc < vcols`, `r1 <= count` with `count · vcols` vectors in `input`, on a 16-byte boundary.
#[inline(always)]
fn short_total<T: Element, O: ReduceOp, const S: usize>(
    input: Global<T>,
    vcols: usize,
    vc: usize,
    r0: usize,
    r1: usize,
) -> [T; 4] {
    let lanes = 16 / core::mem::size_of::<T>();
    let n = r1 - r0;
    let base = r0 * vcols + vc;
    let mut v = [Vec4([0; 4]); S];
    #[allow(clippy::needless_range_loop)] // indexing keeps the array in registers
    for u in 0..S {
        if u < n {
            // SAFETY: row `r0 + u < r1 <= count` and `vc < vcols`: the vector lies within
            // `count · vcols` vectors, on a 16-byte boundary (the caller's guarantee).
            v[u] = unsafe { input.get_vec4_unchecked(0, base + u * vcols) };
        }
    }
    // The adds written out ([`unrolled`]): with `min`/`max` the combine is large enough that
    // the compiler kept this loop rolled, indexing `v` at run time — all 16 vectors went to
    // local memory (930.7 µs for 16 × 2^24 `f32` max against 269.1 µs for the sum, H200,
    // before this rewrite).
    let mut acc = [O::identity::<T>(); 4];
    unrolled::<S>(|u| {
        if u < n {
            #[allow(clippy::needless_range_loop)] // indexing keeps the arrays in registers
            for k in 0..4 {
                if k < lanes {
                    acc[k] = O::combine(acc[k], element::<T>(v[u], k));
                }
            }
        }
    });
    acc
}

/// The first `16 / size_of::<T>()` slots of `acc` as one 16-byte vector (the inverse of
/// [`element`]).
#[allow(clippy::needless_range_loop)] // indexing keeps the arrays in registers
#[inline(always)]
fn pack<T: Element>(acc: [T; 4]) -> Vec4 {
    let mut w = [0u32; 4];
    if core::mem::size_of::<T>() == 4 {
        for k in 0..4 {
            w[k] = acc[k].to_bits64() as u32;
        }
    } else {
        for k in 0..2 {
            let b = acc[k].to_bits64();
            w[2 * k] = b as u32;
            w[2 * k + 1] = (b >> 32) as u32;
        }
    }
    Vec4(w)
}
