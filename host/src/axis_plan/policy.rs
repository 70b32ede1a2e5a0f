//! The geometry policy: [`AxisPolicy`], every tuning number of the axis kernels, and its
//! defaults (with the measurements that chose them).

use super::AXIS_BLOCK;
use crate::backend::DeviceCaps;
use reduce_kernels::table::Family;

/// The geometry policy: which kernel shape for which run length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AxisPolicy {
    /// Resident 256-thread blocks per SM the grid aims for (8 = 2048 threads, full occupancy).
    pub blocks_per_sm: usize,
    /// 16-byte vectors each lane of a sub-warp group should read: a run of `v` vectors gets
    /// `v / vectors_per_lane` lanes, rounded up to a power of two, at most 32 (so a lane has
    /// that many loads in flight).
    pub vectors_per_lane: usize,
    /// Runs at least this long get a whole block each.
    pub block_run: usize,
    /// A run is split across blocks only into pieces at least this long.
    pub min_piece: usize,
    /// A column split gives each piece at least this many rows.
    pub min_piece_rows: usize,
    /// Caller-given segments longer than this are cut into pieces of at most this many elements
    /// (one work item each), combined per segment by a second launch: a few very long segments
    /// among short ones then still spread over the whole GPU ([`super::cut_segments`]).
    pub segment_piece: usize,
    /// Widest column tile, in (vector) columns, of the column kernel (at most [`AXIS_BLOCK`]): a
    /// narrower tile gives a wide matrix more blocks and each thread more rows.
    pub col_tile: usize,
    /// Most pieces a column split cuts the rows into (the first pass's blocks per tile).
    pub max_col_parts: usize,
    /// The finishing pass of a column split is itself split (another pass, the same rule) while
    /// its rows — the pieces of the pass before — give each new piece at least this many rows;
    /// 0: one finishing pass, however many pieces.
    pub finish_piece_rows: usize,
    /// Work items per resident block that splitting a few long rows aims for: `count` rows get
    /// `⌊resident blocks · row_waves / count⌋` pieces each (rounded down, so that the last wave
    /// of blocks is never a small tail).
    pub row_waves: usize,
    /// Resident blocks per SM the column kernel's grid aims for; 0: [`AxisPolicy::blocks_per_sm`].
    /// Its own knob because the column kernel needs more registers than the row kernel (60
    /// against 35 per thread for `f32` sum, ptxas 12.9), so fewer of its blocks fit on an SM.
    pub col_blocks_per_sm: usize,
    /// Resident blocks per SM the segment kernel's grid aims for; 0: [`AxisPolicy::blocks_per_sm`].
    pub segment_blocks_per_sm: usize,
    /// Blocks per SM for rows long enough for a block each ([`AxisPolicy::block_run`]): the grid
    /// of such a row launch, and the number of pieces few long rows are split into; 0:
    /// [`AxisPolicy::blocks_per_sm`].
    pub long_row_blocks_per_sm: usize,
    /// The column tile is narrowed (never below a warp's 32 vector columns, never above
    /// [`AxisPolicy::col_tile`]) so that a matrix has at least this many tiles: a wide matrix's
    /// split then has fewer pieces per tile, and its finishing pass as many blocks as tiles.
    pub min_col_tiles: usize,
    /// Matrices of at most this many (vector) columns — 16-byte vectors when a row is a whole
    /// number of them — are reduced in ONE launch (`AxisColumnsOnce`: each block a piece of at
    /// least [`AxisPolicy::min_piece_rows`] rows, the last block finishing); 0: never (two
    /// launches, `AxisColumns`). Why: Nsight Compute on the H200 (the two-launch plan of
    /// 2^20 × 16 `f32`) timed its first pass at 24.3 µs (59% of DRAM bandwidth) and the
    /// one-block finishing pass at 7.0 µs; see the defaults below for the side-by-side times.
    pub col_once_max_vcols: usize,
    /// Resident blocks per SM the one-launch column kernel's grid aims for; 0:
    /// [`AxisPolicy::col_blocks_per_sm`].
    pub col_once_blocks_per_sm: usize,
    /// Tile width, in (vector) columns, of a column split's finishing passes (at most
    /// [`AXIS_BLOCK`]); 0: the first pass's. A narrower tile gives the finishing pass more
    /// blocks (a 2^12 × 2^14 split finishes in 16 blocks of 256-wide tiles, each thread
    /// walking all ~33 partial rows in turn: 11.7 µs in Nsight Compute on the H200, after a
    /// 67.8 µs first pass).
    pub finish_col_tile: usize,
    /// Independent loads in flight per lane of the row kernel when a row gets a whole block: 4
    /// (`AxisRows`) or 8 (`AxisRowsDeep`: the group a compile-time constant, so ptxas keeps the
    /// loads in flight together — 32 registers against 35, 8 blocks per SM against 6). Both give
    /// bit-identical results. Why: Nsight Compute on the H200 (2^12 × 2^14 rows, `AxisRows`):
    /// 70.8 µs at 80% of DRAM bandwidth, 75% occupancy, 80% of warp stalls on the loads
    /// (its SASS issues the 4 loads of a lane one or two at a time).
    pub row_unroll: usize,
    /// 16: every column plan runs `AxisColumnsShort16` — work items of at most 16 rows on the
    /// single-row-lane path load all their rows at once, at addresses formed once, and store a
    /// thread's results with one 16-byte store; 0 (the default): only the unsplit plans of
    /// [`AxisPolicy::wide_col_short_rows`] do. Why: Nsight Compute on the H200 (16 × 2^24
    /// `f32`, the plain kernel: 282.8 µs, level with torch) found ptxas keeping only 2–3 of its
    /// 4 loads in flight (each address recomputed from the run-time stride), 91% of the stalls
    /// on loads, and 15% of the store sectors wasted by 4-byte stores 16 bytes apart.
    /// Bit-identical either way. ptxas 12.9: 70 registers for `f32` sum (the 16 loads' 64
    /// registers reuse the 4-deep loop's), 3 blocks per SM — 22–53% slower on split plans.
    pub col_short_rows: usize,
    /// 1 (the default): a one-launch column plan whose rows are 1, 2, 4, 8, 16 or 32 whole
    /// 16-byte vectors (at most `AXIS_BLOCK` columns) runs `AxisColumnsFlatDeep` — the matrix
    /// read as one flat run of vectors in stage 8's schedule, each thread one vector column, 8
    /// loads in flight — on blocks of [`super::FLAT_BLOCK`], a grid of
    /// [`AxisPolicy::col_flat_blocks_per_sm`]; 0: the tile kernel `AxisColumnsOnce`.
    ///
    /// Why (2^20 × 16 `f32`, H200, min of 50): the tile kernel measured 25.0 µs (63 registers,
    /// 56% of DRAM bandwidth) and a first flat kernel 25.6–29.6, slower the more blocks (its
    /// finishing block then folded `grid × 16` partials 8 at a time). Nsight Compute on stage
    /// 8's own grid (512 × 4 per SM: 26.5 µs against stage 8's 21.4 on the same bytes) found the
    /// same loop and twice the per-warp work around it: a share computed with two divisions and
    /// an epilogue of serial shuffle chains and a barrier per level of a tree over the warps —
    /// run by every warp after its last load, and twice on the critical path (the last block to
    /// finish, then the finishing block). With the finish reading the partials as vectors, the
    /// shuffle chains interleaved and one barrier, the 4-load kernel needed 32 registers and
    /// measured 22.6–23.3 µs on 256 × 2, 512 × 2 and 512 × 4 (91–93% of the read-only roof's
    /// 21.1 µs; the tile kernel 24.5–25.2); on another machine (roof 20.1 µs): 23.8 and 24.4 µs
    /// (82–84%), the tile kernel 26.3. With 8 loads in flight (48 registers, 2 blocks of 512 per
    /// SM: half the warps pay that per-warp prologue and epilogue, and the finishing block reads
    /// half the partials), against 4 loads on 512 × 4, four calls: 22.8 against 22.6–22.9 µs,
    /// 24.7 against 24.8–25.1, 23.7 against 24.1–24.3, 22.5 against 22.9–24.2 — fastest in
    /// three of the four, within 1% in the fourth.
    pub col_once_flat: usize,
    /// 1 (the default): the flat column kernel cuts the blocks' shares in runs of 32 vectors,
    /// every block `ceil(vectors / grid)` of them; 0: whole tiles of `block · 8` vectors. With 4
    /// loads in flight, tiles of `block · 4` left 16 of 528 blocks of 512 without work on
    /// 2^20 × 16 `f32` (3%), or 109 of 792 blocks of 256 (14%); measured level on 512 × 4
    /// (22.9 µs sum and 24.6 max against 22.6 and 24.8 with tiles).
    pub col_flat_fine: usize,
    /// Resident blocks per SM the flat column kernel's grid aims for; 0:
    /// [`AxisPolicy::col_once_blocks_per_sm`]. 2 (the default: with 8 loads in flight, 1,024
    /// threads per SM hold as many loads in flight as stage 8's 4 blocks of 512 with 4).
    pub col_flat_blocks_per_sm: usize,
    /// 16: a column plan that needs no split — enough tiles for the whole grid, as 16 × 2^24 and
    /// 256 × 2^20 have — runs `AxisColumnsShort16` (items of at most 16 rows loaded at once,
    /// 16-byte result stores) on a grid of [`AxisPolicy::wide_col_blocks_per_sm`]; 0: the
    /// plain column kernel. Why: the H200 measured that kernel with 3 blocks per SM at
    /// 268.3 µs on 16 × 2^24 against 283.5 µs (torch: 281.9), and level on 256 × 2^20
    /// (250.6 against 251.4), but 22–53% slower on every split plan (its 70 registers, 3 blocks
    /// per SM, fewer row lanes in flight) — so it is chosen for unsplit plans only.
    pub wide_col_short_rows: usize,
    /// Resident blocks per SM of the unsplit plans' grid ([`AxisPolicy::wide_col_short_rows`]);
    /// 0: [`AxisPolicy::col_blocks_per_sm`].
    pub wide_col_blocks_per_sm: usize,
}

/// The defaults are the H200 sweep's (one device call, results in
/// `benches/results/h200-2026-11-30-tune/tune.md`, f32 sum of ones, min of 30 runs per
/// policy): per kernel family the grid point closest to every case's best (geometric mean of
/// time / best time over the six shapes 2^20 × 16, 2^16 × 1024, 2^12 × 2^14, 256 × 2^20,
/// 16 × 2^24 and 2^14 × 2^14), then changed by the later H200 runs below.
///
/// * Rows: `block_run = 8192`, `vectors_per_lane = 4`, `blocks_per_sm = 6` for rows of a
///   sub-warp or a warp each and `long_row_blocks_per_sm = 16` for rows of a block each. The old
///   8 blocks per SM launched 1,056 blocks of which only 792 fit (35 registers per thread: 6
///   blocks per SM), leaving a tail wave (7–13% slower than 6). 6 is best for short rows (2^20 ×
///   16: 23.2 against 24.3 µs with 16), 16 for few long rows (more, smaller pieces: 256 × 2^20
///   252.0 against 260.2 µs, 16 × 2^24 259.6 against 263.0 µs) and 2^12 × 2^14 (68.6 against
///   70.9 µs); 2^14 × 2^14 is 1.4% slower with 16 (250.6 against 247.2 µs).
/// * Columns: `col_blocks_per_sm = 4` (60 registers: 4 blocks per SM) and at least
///   `min_col_tiles = 8` tiles — 2^16 × 1024 (one tile of 256 vector columns before) went from
///   321 µs to 77.9 µs with tiles of 32; the other shapes keep tiles of 256 (`col_tile`):
///   2^20 × 16 30.4 µs (was 34.9), 2^12 × 2^14 80.4 (94.4), 256 × 2^20 267.8 (283.7), 16 × 2^24
///   331.0 (330.4), 2^14 × 2^14 269.1 (281.9). Finishing a split in several passes
///   (`finish_piece_rows`) rescued one wide tile (2^16 × 1024: 88.2 µs) but cost 1–3 µs
///   wherever the tiles are narrowed, so it is off.
/// * One H200 call (results in `benches/results/h200-2026-12-01-candidates/call1/axis/s7-axis.md`,
///   f32 sum of ones, min of 50 runs, torch and CUB in the same call) changed four of them:
///   - `row_unroll = 8` with `long_row_blocks_per_sm = 32` (was 4 and 16): the deep row kernel
///     (`AxisRowsDeep`) for rows of a block each. Fastest or within noise on every row shape:
///     2^12 × 2^14 65.5 µs (was 70.3; CUB 66.4), 2^14 × 2^14 239.2 (251.1; CUB 241.2),
///     16 × 2^24 251.8 (260.4; torch 266.0), 256 × 2^20 243.5 (251.5); short rows (2^20 × 16,
///     2^16 × 1024) do not use it and stay within 1%.
///   - `col_once_max_vcols = 32`, `col_once_blocks_per_sm = 2` (was 0: off): matrices of at
///     most 32 vector columns (128 `f32` columns) are reduced in one launch
///     (`AxisColumnsOnce`). Measured: 2^20 × 16 (4 vector columns) 25.0 µs with 2 blocks per SM
///     (264 blocks; median 26.2) and 24.9 with 4 (528; median 26.5), against 29.6 for the two
///     launches (the roof: 20.8). 2^16 × 1024 (256 vector columns) was 2–12× slower in one
///     launch (150–909 µs against 74.7), so it must stay narrow. Only 4 vector columns were
///     measured; 32 is where a row still fits one tile of the kernel's compile-time widths
///     (1..=32 vectors: its loads at constant offsets), the regime the 2^20 × 16 win comes from,
///     while wider matrices need several tiles per block (the slow case). The fastest plan
///     (24.6 µs, 256 blocks) came from `min_piece_rows = 4096`, which would also cut every
///     two-launch split (2^16 × 1024: 909 µs), so it is not a default.
///   - `finish_col_tile = 16` (was 0: the first pass's tile): 2^12 × 2^14 73.9 µs (was 75.5),
///     2^14 × 2^14 251.8 (253.2), 2^16 × 1024 74.1 (74.7); 2^20 × 16 is unchanged (29.8).
/// * Two H200 calls (results in `benches/results/h200-2026-12-01-columns/`):
///   - `wide_col_short_rows = 16`, `wide_col_blocks_per_sm = 3` (new): unsplit column plans
///     run `AxisColumnsShort16` on 3 blocks per SM — 16 × 2^24 268.1 µs against 283.8 for the
///     plain kernel (torch 287.6), 256 × 2^20 248.9 against 250.2 (the call before found the
///     same: 268.3 against 283.5). As a default for every plan (`col_short_rows = 16`) that
///     kernel was 22–53% slower on the split shapes, which keep the plain kernel. Its float
///     `min`/`max` need 109 registers (2 blocks per SM): 281.3 µs on 3 against 270.8 on 2 for
///     16 × 2^24 `max` — still 96% of the sum's bandwidth.
///   - `col_once_blocks_per_sm` stays 2: 4 measured 24.4 against 24.7 µs in one earlier call,
///     but 25.7 against 25.1 and 28.2 against 25.0 in these two.
/// * Seven H200 calls (results in `benches/results/h200-2026-12-02-axis/`): `col_once_flat = 1`
///   (was 0), `col_flat_fine = 1` (new): narrow matrices of whole-vector rows run the flat
///   kernel, on blocks of 512 — 2^20 × 16 22.6–23.3 µs in one call (the tile kernel
///   24.5–25.2), 23.8–24.4 in another (26.3); four later calls (results in
///   `benches/results/h200-2026-12-02-moments/` and `h200-2026-12-02-tiled/`) gave it 8 loads in
///   flight on `col_flat_blocks_per_sm = 2`; see [`AxisPolicy::col_once_flat`].
/// * Segments: `segment_piece = 2^14`, `segment_blocks_per_sm = 6`: 152.0 µs on the 2,000
///   log-uniform segments against 173.6 µs before (the read-only roof: 128.0 µs).
impl Default for AxisPolicy {
    fn default() -> Self {
        AxisPolicy {
            blocks_per_sm: 6,
            vectors_per_lane: 4,
            block_run: 8192,
            min_piece: 16384,
            min_piece_rows: 64,
            segment_piece: 1 << 14,
            col_tile: AXIS_BLOCK,
            max_col_parts: usize::MAX,
            finish_piece_rows: 0,
            row_waves: 1,
            col_blocks_per_sm: 4,
            segment_blocks_per_sm: 6,
            long_row_blocks_per_sm: 32,
            min_col_tiles: 8,
            col_once_max_vcols: 32,
            col_once_blocks_per_sm: 2,
            finish_col_tile: 16,
            row_unroll: 8,
            col_short_rows: 0,
            col_once_flat: 1,
            col_flat_fine: 1,
            col_flat_blocks_per_sm: 2,
            wide_col_short_rows: 16,
            wide_col_blocks_per_sm: 3,
        }
    }
}

impl AxisPolicy {
    pub(super) fn resident(&self, caps: &DeviceCaps) -> usize {
        (caps.sm_count * caps.scaled_blocks_per_sm(self.blocks_per_sm, AXIS_BLOCK)).max(1)
    }

    /// Blocks the grid of kernel family `family` aims for, with groups of `group` threads.
    pub(super) fn resident_for(&self, family: Family, group: usize, caps: &DeviceCaps) -> usize {
        let own = match family {
            Family::AxisColumns | Family::AxisColumnsShort16 => self.col_blocks_per_sm,
            Family::AxisColumnsOnce => match self.col_once_blocks_per_sm {
                0 => self.col_blocks_per_sm,
                b => b,
            },
            Family::AxisColumnsFlatDeep => {
                match (self.col_flat_blocks_per_sm, self.col_once_blocks_per_sm) {
                    (0, 0) => self.col_blocks_per_sm,
                    (0, b) | (b, _) => b,
                }
            }
            Family::AxisSegments => self.segment_blocks_per_sm,
            _ if group == AXIS_BLOCK => self.long_row_blocks_per_sm,
            _ => 0,
        };
        match own {
            0 => self.resident(caps),
            b => (caps.sm_count * caps.scaled_blocks_per_sm(b, AXIS_BLOCK)).max(1),
        }
    }
}
