//! # Tiled schedule: each block owns one contiguous run of tiles (CUB's "even share")
//!
//! What: `count` work items (16-byte vectors, usually) are cut into tiles of `BLOCK * UNROLL`;
//! block `b` of `grid` owns the tiles of one contiguous range ([`EvenShare`]); in a tile, thread
//! `tid` takes items `tid, tid + BLOCK, …` — `UNROLL` independent, coalesced loads issued before
//! the first is used ([`for_each`]). This is stage 8's schedule
//! ([`crate::stages::s8_shuffle_vectorized`], step 2) as a reusable primitive.
//!
//! Why faster than a grid stride: a block streams through one region of memory, so its loads
//! hit open DRAM pages and the L2's sectors in order (stage 8 measured ~10% over the grid-stride
//! loop at 2^22–2^24 elements); and a thread visits its items in **increasing index order**, so a
//! reduction that must keep the first of equal values (argmin/argmax) can keep "the best so far"
//! with a strict compare, without comparing indices in the hot loop.
//!
//! What it costs: the last block's range may be short (at most one tile per block of imbalance),
//! and `UNROLL` loaded items live in registers at once. Whole tiles can leave whole blocks idle:
//! 4,096 tiles on 264 blocks are 16 each for 256 blocks and none for 8 (3% of the grid), on 792
//! blocks 6 each for 683 blocks and none for 109 (14%). [`EvenShare::fine`] cuts shares to a
//! smaller `align` instead (the last tile of a block partial), so every block gets
//! `ceil(count / grid)` items give or take `align`.

/// Independent 16-byte loads per thread per step in stage 8 and the one-pass transforms (8
/// measured no faster on the H200).
pub const SINGLE_PASS_UNROLL: usize = 4;

/// The contiguous range of items one block owns: `start..end`, whole tiles but the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvenShare {
    /// First item of the block.
    pub start: usize,
    /// One past the last item (`<= count`).
    pub end: usize,
    /// Items per block (a multiple of the tile, or of `align` for [`EvenShare::fine`]); every
    /// block's `end - start` is at most this.
    pub per_block: usize,
}

impl EvenShare {
    /// Block `block` of `grid`'s share of `count` items in tiles of `tile` (`tile >= 1`,
    /// `grid >= 1`): `ceil(ceil(count / tile) / grid)` tiles each, the later blocks possibly
    /// short or empty.
    #[inline(always)]
    pub const fn new(count: usize, tile: usize, grid: usize, block: usize) -> EvenShare {
        if grid == 1 {
            // One block (the small-N policy): no division by `grid` before the first load.
            return EvenShare::of_block(count, count.div_ceil(tile) * tile, block);
        }
        EvenShare::of_block(count, count.div_ceil(tile).div_ceil(grid) * tile, block)
    }

    /// Block `block` of `grid`'s share of `count` items in runs of `align` (`align >= 1`,
    /// `grid >= 1`): `ceil(count / grid)` rounded up to a multiple of `align` each, the later
    /// blocks possibly short or empty. Every non-empty share starts at a multiple of `align`; a
    /// share need not be whole tiles ([`for_each_unrolled`] loads its last, partial tile item by
    /// item).
    #[inline(always)]
    pub const fn fine(count: usize, align: usize, grid: usize, block: usize) -> EvenShare {
        // One division (a prologue every warp runs: keep it short); none for one block.
        let per_grid = if grid == 1 {
            count
        } else {
            count.div_ceil(grid)
        };
        EvenShare::of_block(count, per_grid.div_ceil(align) * align, block)
    }

    /// Block `block`'s range when every block owns `per_block` of the `count` items.
    #[inline(always)]
    const fn of_block(count: usize, per_block: usize, block: usize) -> EvenShare {
        let start = block.saturating_mul(per_block);
        let start = if start < count { start } else { count };
        let end = if count - start > per_block {
            start + per_block
        } else {
            count
        };
        EvenShare {
            start,
            end,
            per_block,
        }
    }
}

/// Thread `tid` of a `BLOCK`-thread block walks its block's [`EvenShare`] of `count` items:
/// `load(i)` for each of its items, `UNROLL` loads issued together, then `visit(i, loaded)` for
/// each **in increasing `i`**. `load` is called only with `share.start <= i < share.end`.
///
/// Keep `load` a plain load (no data-dependent branch) so the `UNROLL` loads are in flight at
/// once; `visit` does the arithmetic.
#[inline(always)]
pub fn for_each<V: Copy, const BLOCK: usize, const UNROLL: usize>(
    share: EvenShare,
    tid: usize,
    load: impl Fn(usize) -> V,
    mut visit: impl FnMut(usize, V),
) {
    let tile = BLOCK * UNROLL;
    let (start, end) = (share.start, share.end);
    let mut t = start;
    // (Plain index loops of a constant trip count throughout: they unroll, and the arrays stay
    // in registers; an array iterator would put them in local memory.)
    while end - t >= tile {
        // All loads first: they are independent, so all UNROLL are in flight at once …
        let first = load(t + tid);
        let mut loaded = [first; UNROLL];
        #[allow(clippy::needless_range_loop)] // `u` is part of the index, not just a position
        for u in 1..UNROLL {
            loaded[u] = load(t + u * BLOCK + tid); // < t + tile <= end: the loop condition
        }
        // … then the arithmetic, in index order.
        #[allow(clippy::needless_range_loop)]
        for u in 0..UNROLL {
            visit(t + u * BLOCK + tid, loaded[u]);
        }
        t += tile;
    }
    // The block's last, partial tile: the same loads, each guarded. A thread whose first item is
    // past the end has none here (the later ones are further on); the others' slots start as
    // copies of their first load.
    if t < end && t + tid < end {
        let first = load(t + tid);
        let mut loaded = [first; UNROLL];
        let mut valid = [false; UNROLL];
        valid[0] = true;
        #[allow(clippy::needless_range_loop)]
        for u in 1..UNROLL {
            let i = t + u * BLOCK + tid;
            if i < end {
                loaded[u] = load(i);
                valid[u] = true;
            }
        }
        #[allow(clippy::needless_range_loop)]
        for u in 0..UNROLL {
            if valid[u] {
                visit(t + u * BLOCK + tid, loaded[u]);
            }
        }
    }
}

/// `f(0), f(1), …, f(N - 1)`, written out (for `N <= 16`): each call sees its `u` as a constant
/// once inlined, whatever the size of `f`. A `for u in 0..N` loop is unrolled only while its
/// body is small; a body that is not (a branch with a lane lookup, [`for_each_unrolled`]'s
/// callers) stays a loop, and an array indexed by its `u` goes to local memory.
#[inline(always)]
pub fn unrolled<const N: usize>(mut f: impl FnMut(usize)) {
    let () = UnrollCheck::<N>::OK;
    macro_rules! step {
        ($($u:literal)*) => { $( if $u < N { f($u) } )* };
    }
    step!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
}

/// Compile-time check that [`unrolled`]'s `N` is at most 16.
struct UnrollCheck<const N: usize>;
impl<const N: usize> UnrollCheck<N> {
    const OK: () = assert!(N <= 16, "unrolled::<N> writes out at most 16 steps");
}

/// [`for_each`] with both of its per-step loops written out by [`unrolled`] (`UNROLL <= 16`):
/// the same items, the same order, the same `load` contract. For a `visit` too large for the
/// compiler to unroll on its own (see [`unrolled`]); the loaded items then stay in registers.
#[inline(always)]
pub fn for_each_unrolled<V: Copy, const BLOCK: usize, const UNROLL: usize>(
    share: EvenShare,
    tid: usize,
    load: impl Fn(usize) -> V,
    mut visit: impl FnMut(usize, V),
) {
    let tile = BLOCK * UNROLL;
    let (start, end) = (share.start, share.end);
    let mut t = start;
    while end - t >= tile {
        let first = load(t + tid);
        let mut loaded = [first; UNROLL];
        unrolled::<UNROLL>(|u| {
            if u > 0 {
                loaded[u] = load(t + u * BLOCK + tid); // < t + tile <= end
            }
        });
        unrolled::<UNROLL>(|u| visit(t + u * BLOCK + tid, loaded[u]));
        t += tile;
    }
    if t < end && t + tid < end {
        let first = load(t + tid);
        let mut loaded = [first; UNROLL];
        let mut valid = [false; UNROLL];
        valid[0] = true;
        unrolled::<UNROLL>(|u| {
            let i = t + u * BLOCK + tid;
            if u > 0 && i < end {
                loaded[u] = load(i);
                valid[u] = true;
            }
        });
        unrolled::<UNROLL>(|u| {
            if valid[u] {
                visit(t + u * BLOCK + tid, loaded[u]);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::EvenShare;

    #[test]
    fn fine_shares_cover_everything_once_in_runs_of_align() {
        for (count, align, grid) in [
            (1usize << 22, 32usize, 264usize),
            (4096, 32, 7),
            (100, 8, 3),
            (5, 32, 4),
        ] {
            let per = count.div_ceil(grid).div_ceil(align) * align;
            let mut next = 0;
            for block in 0..grid {
                let s = EvenShare::fine(count, align, grid, block);
                assert_eq!(
                    s.start, next,
                    "{count} {align} {grid}: block {block} starts"
                );
                assert!(s.start == count || s.start.is_multiple_of(align));
                assert!(s.end - s.start <= per && s.per_block == per);
                next = s.end;
            }
            assert_eq!(next, count, "{count} {align} {grid}: all covered");
        }
        // 2^22 vectors on 264 blocks: every block busy (whole tiles of 1,024 leave 8 empty).
        assert!((0..264).all(|b| {
            let s = EvenShare::fine(1 << 22, 32, 264, b);
            s.end > s.start
        }));
        assert_eq!(EvenShare::new(1 << 22, 1024, 264, 263).start, 1 << 22);
    }
}
