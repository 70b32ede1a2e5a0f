//! # One result per column in one launch: the last block finishes
//!
//! Concept: **stage 8's single-pass finish, per column.** [`super::columns`] reduces a tall,
//! narrow matrix (2^20 × 16) in two launches: a first pass whose `parts` blocks each write one
//! row of partials, then a second launch that reduces those `parts` rows. The second launch is
//! tiny (one block for 16 columns) but it costs a launch gap and a kernel's ramp-up and drain,
//! a large share of a ~20 µs reduction. Here the same first pass is one block per piece of rows
//! (`gridDim.x` pieces, [`super::piece`]): each block reduces its rows with the column kernel's
//! tile layout — thread `(r, c)` owns (vector) column `c` of every tile and adds rows `r, r + L,
//! …` of the block's piece, 4 independent loads in flight, then the row lanes are folded with
//! shuffles and shared memory in a fixed order — and writes its row of partials. Then, after a
//! barrier, the block takes a ticket (`atom.acq_rel.gpu`, as stage 8: its release covers the
//! whole block's partials, `super::last_block`), and **the block that
//! draws the last ticket reduces the `gridDim.x` rows of partials itself**, in block order, with
//! the same layout the second launch would use, and writes the results (then resets the counter
//! for the next call). No second launch, and no float atomics: still bit-identical run to run.
//!
//! It is also bit-identical to the two-launch plan with `parts = gridDim.x` and the same tile:
//! every column visits the same rows in the same order in both passes and folds them through the
//! same tree (the finish reads the partials as the second launch would: in vector columns when a
//! row of partials is a whole number of 16-byte vectors). The host picks it by geometry
//! (`AxisPolicy::col_once_max_vcols`).
//!
//! Launch with `blockDim.x == BLOCK`, `BLOCK · 16` bytes of dynamic shared memory, any grid;
//! `partials` holds `gridDim.x · len` elements (unused with one block) and `counter` is 0.

use super::columns::folds;
use super::{last_block, piece, AxisParams};
use crate::gpu::{block_dim, block_idx, fail, grid_dim, sync_threads};
use crate::gpu::{thread_idx, Coherent, Counter, Global, GlobalMut, Shared};
use crate::primitives::tiles::unrolled;
use crate::primitives::warp;
use crate::{Element, ReduceOp};

/// Independent loads (16-byte vectors, or elements) in flight per thread (and in every
/// finishing pass). 8 on the input (a `columns_once_deep` twin) measured within noise of 4 and
/// was removed.
const UNROLL: usize = 4;

/// Elements per unit a thread owns: a 16-byte vector of `T` (`VEC`) or one element.
#[inline(always)]
fn unit_len<T: Element, const VEC: bool>() -> usize {
    if VEC {
        16 / core::mem::size_of::<T>()
    } else {
        1
    }
}

/// Where a tile's rows are read from: the input (read-only path, one 16-byte load per unit) or
/// the partials (coherent loads, one per element).
trait Units<T: Element> {
    /// (Slots past the unit hold `fill`.)
    /// Unit `i`: elements `i · n .. (i + 1) · n` (`n` = [`unit_len`]) in slots `0..n`.
    ///
    /// # Safety
    /// `(i + 1) · n` is at most the length of the array; with `VEC`, an input starts on a
    /// 16-byte boundary.
    unsafe fn unit<const VEC: bool>(&self, i: usize, fill: T) -> [T; 4];
}

impl<T: Element> Units<T> for Global<T> {
    #[inline(always)]
    unsafe fn unit<const VEC: bool>(&self, i: usize, fill: T) -> [T; 4] {
        let mut x = [fill; 4];
        if VEC {
            // SAFETY: the vector ends at `(i + 1) · n <= len`, element 0 is on a 16-byte
            // boundary (the caller's contract).
            let v = unsafe { self.get_vec4_unchecked(0, i) }.0;
            #[allow(clippy::needless_range_loop)]
            for k in 0..4 {
                if k < unit_len::<T, VEC>() {
                    x[k] = if core::mem::size_of::<T>() == 4 {
                        T::from_bits64(v[k] as u64)
                    } else {
                        T::from_bits64(v[2 * k] as u64 | ((v[2 * k + 1] as u64) << 32))
                    };
                }
            }
        } else {
            // SAFETY: `i < len` (the caller's contract).
            x[0] = unsafe { self.get_unchecked(i) };
        }
        x
    }
}

impl<T: Element> Units<T> for Coherent<T> {
    #[inline(always)]
    unsafe fn unit<const VEC: bool>(&self, i: usize, fill: T) -> [T; 4] {
        let n = unit_len::<T, VEC>();
        let mut x = [fill; 4];
        #[allow(clippy::needless_range_loop)]
        for k in 0..4 {
            if k < n {
                // SAFETY: `i · n + k < (i + 1) · n <= len` (the caller's contract).
                x[k] = unsafe { self.get_unchecked(i * n + k) };
            }
        }
        x
    }
}

/// One tile of a `rows × units` matrix of units (rows `r0..r1`): thread `(r, c)` of the tile
/// layout (`w` units wide, `BLOCK / w` row lanes) adds rows `r0 + r, r0 + r + L, …` of unit `vc`,
/// then the row lanes are combined exactly as [`super::columns`] combines them. Returns the
/// column totals of unit `vc` in row lane 0 (slots `0..unit_len`). Every thread of the block must
/// call it (it has barriers); `vc` may be past the row (such threads add nothing). `W > 0`: the
/// caller guarantees `units == w == W` (one tile), a compile-time constant.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn tile_totals<
    T: Element,
    O: ReduceOp,
    const BLOCK: usize,
    const VEC: bool,
    const W: usize,
    const U: usize,
>(
    src: &impl Units<T>,
    units: usize,
    w: usize,
    vc: usize,
    r0: usize,
    r1: usize,
    smem: Shared<T>,
) -> [T; 4] {
    let (units, w) = if W > 0 { (W, W) } else { (units, w) };
    let n = unit_len::<T, VEC>();
    let tid = thread_idx() as usize;
    let row_lanes = BLOCK / w;
    let (row_lane, col_off) = (tid / w, tid % w);
    let mut acc = [O::identity::<T>(); 4];
    if vc < units && row_lane < row_lanes {
        let mut r = r0 + row_lane;
        while r + (U - 1) * row_lanes < r1 {
            let mut v = [[O::identity::<T>(); 4]; U];
            // Written out ([`unrolled`]): as a loop, `min`/`max` with 8 loads kept `v` in
            // local memory (`columns_short` measured what that costs).
            unrolled::<U>(|u| {
                // SAFETY: row `r + u·L < r1 <= rows` and `vc < units`: the unit ends at or before
                // `rows · units · n`, within the array (the caller's guarantee).
                v[u] = unsafe { src.unit::<VEC>((r + u * row_lanes) * units + vc, O::identity()) };
            });
            unrolled::<U>(|u| {
                for k in 0..4 {
                    if k < n {
                        acc[k] = O::combine(acc[k], v[u][k]);
                    }
                }
            });
            r += U * row_lanes;
        }
        while r < r1 {
            // SAFETY: `r < r1`, as above.
            let x = unsafe { src.unit::<VEC>(r * units + vc, O::identity()) };
            #[allow(clippy::needless_range_loop)]
            for k in 0..4 {
                if k < n {
                    acc[k] = O::combine(acc[k], x[k]);
                }
            }
            r += row_lanes;
        }
    }
    let fold = folds(w);
    #[allow(clippy::needless_range_loop)]
    for k in 0..4 {
        if k < n {
            if fold {
                acc[k] = warp::reduce_strided::<T, O>(acc[k], w);
            }
            smem.set((tid * n + k) as u32, acc[k]);
        }
    }
    sync_threads();
    if row_lane == 0 && vc < units {
        #[allow(clippy::needless_range_loop)]
        for k in 0..4 {
            if k < n {
                if fold {
                    for warp in 1..BLOCK / 32 {
                        acc[k] =
                            O::combine(acc[k], smem.get(((warp * 32 + col_off) * n + k) as u32));
                    }
                } else {
                    for l in 1..row_lanes {
                        acc[k] = O::combine(acc[k], smem.get(((l * w + col_off) * n + k) as u32));
                    }
                }
            }
        }
    }
    sync_threads(); // the reads above are done before the next tile overwrites `smem`
    acc
}

/// Every tile of rows `r0..r1` of `src` (a `rows × cols` matrix read in units of
/// [`unit_len`]), each column total handed to `write(column, total)` by row lane 0. `W > 0`: the caller guarantees one tile of `W` units.
#[inline(always)]
fn all_tiles<
    T: Element,
    O: ReduceOp,
    const BLOCK: usize,
    const VEC: bool,
    const W: usize,
    const U: usize,
>(
    src: &impl Units<T>,
    cols: usize,
    group: usize,
    (r0, r1): (usize, usize),
    write: impl Fn(usize, T),
) {
    let n = unit_len::<T, VEC>();
    let units = cols / n;
    // SAFETY: the launch reserves 16 bytes per thread: `BLOCK · n` elements (`n · size_of::<T>()
    // <= 16`).
    let smem = unsafe { Shared::<T>::dynamic((BLOCK * n) as u32) };
    let w = units.min(group.clamp(1, BLOCK));
    let tid = thread_idx() as usize;
    let (row_lane, col_off) = (tid / w, tid % w);
    // `units` is the same for the whole block: every thread reaches every barrier.
    for tile in 0..units.div_ceil(w) {
        let vc = tile * w + col_off;
        let t = tile_totals::<T, O, BLOCK, VEC, W, U>(src, units, w, vc, r0, r1, smem);
        if row_lane == 0 && vc < units {
            #[allow(clippy::needless_range_loop)]
            for k in 0..4 {
                if k < n {
                    write(vc * n + k, t[k]);
                }
            }
        }
    }
}

/// Column results of a row-major `count × len` matrix in one launch: `out[column]`, tiles of
/// `min(group, BLOCK)` (vector) columns (see the module docs for the launch), 4 loads
/// in flight per thread.
///
/// Every kernel-table row exports its own function: LLVM inlines a function into an entry only
/// while that entry is its one caller. When a register-capped twin row exported this same
/// function, the body stayed out of line and both entries called it through local memory —
/// 32.1 µs instead of 25.0 µs on 2^20 × 16 (H200, `benches/results/h200-2026-12-01-candidates/call2/
/// s7b-axis/` against `call1/axis/`). Hence a twin exports its own function, and both call
/// one `#[inline(always)]` body.
pub fn columns_once<T: Element, O: ReduceOp, const BLOCK: usize>(
    input: Global<T>,
    partials: Coherent<T>,
    counter: Counter,
    out: GlobalMut<T>,
    p: AxisParams,
) {
    once_body::<T, O, BLOCK, UNROLL>(input, partials, counter, out, p)
}

/// The one-launch body with `U` loads in flight per thread on the input.
#[inline(always)]
fn once_body<T: Element, O: ReduceOp, const BLOCK: usize, const U: usize>(
    input: Global<T>,
    partials: Coherent<T>,
    counter: Counter,
    out: GlobalMut<T>,
    p: AxisParams,
) {
    let (rows, cols) = (p.count, p.len);
    let (block, grid) = (block_idx() as usize, grid_dim() as usize);
    if block_dim() as usize != BLOCK {
        fail("axis columns_once: blockDim.x must be BLOCK");
    }
    if rows.checked_mul(cols).is_none_or(|n| n > input.len())
        || out.len() < cols
        || (grid > 1 && partials.len() < grid.saturating_mul(cols))
    {
        fail(
            "axis columns_once: input must hold count * len elements, out len, partials grid * len",
        );
    }
    if cols == 0 {
        return;
    }
    let lanes = 16 / core::mem::size_of::<T>();
    let vec_rows = cols.is_multiple_of(lanes);
    // One block: its totals are the results (no partials, no ticket).
    let mine = piece(0, rows, block, grid);
    let put = |c: usize, v: T| {
        if grid == 1 {
            out.set(c, v)
        } else {
            // (`block · cols + c < grid · cols <= partials.len()`: checked above.)
            partials.set(block * cols + c, v)
        }
    };
    // A row of 1, 2, 4, …, 32 vectors in one tile (16 `f32` columns: 4) gets a body with the
    // width a compile-time constant: then the `U` loads of a thread are at constant offsets
    // from one address, and ptxas keeps them in flight together (with a run-time width it
    // issues them about two at a time).
    let units = cols / lanes;
    let one_tile = vec_rows && input.misaligned_head() == 0 && units <= p.group.clamp(1, BLOCK);
    let g = p.group;
    match (one_tile, units) {
        (true, 1) => all_tiles::<T, O, BLOCK, true, 1, U>(&input, cols, g, mine, put),
        (true, 2) => all_tiles::<T, O, BLOCK, true, 2, U>(&input, cols, g, mine, put),
        (true, 4) => all_tiles::<T, O, BLOCK, true, 4, U>(&input, cols, g, mine, put),
        (true, 8) => all_tiles::<T, O, BLOCK, true, 8, U>(&input, cols, g, mine, put),
        (true, 16) => all_tiles::<T, O, BLOCK, true, 16, U>(&input, cols, g, mine, put),
        (true, 32) => all_tiles::<T, O, BLOCK, true, 32, U>(&input, cols, g, mine, put),
        _ if vec_rows && input.misaligned_head() == 0 => {
            all_tiles::<T, O, BLOCK, true, 0, U>(&input, cols, g, mine, put)
        }
        _ => all_tiles::<T, O, BLOCK, false, 0, U>(&input, cols, g, mine, put),
    }
    if grid == 1 {
        return;
    }
    // The last block reduces the `grid × cols` partials as the second launch of the two-pass
    // plan would: one piece of `grid` rows, in vector columns when a row is a whole number of
    // vectors (the partials start on a 16-byte boundary).
    if last_block(counter, grid) {
        let rows_of = (0, grid);
        let put = |c: usize, v: T| out.set(c, v);
        if vec_rows {
            all_tiles::<T, O, BLOCK, true, 0, UNROLL>(&partials, cols, p.group, rows_of, put);
        } else {
            all_tiles::<T, O, BLOCK, false, 0, UNROLL>(&partials, cols, p.group, rows_of, put);
        }
        if thread_idx() == 0 {
            counter.reset();
        }
    }
}
