//! Launch plans for the reductions along an axis and over segments: pure arithmetic, tested on
//! the CPU. [`AxisPolicy`] holds every tuning number; the kernels (`reduce_kernels::axis`) hold
//! the algorithms.

use crate::backend::DeviceCaps;
use crate::error::{ReduceError, Result};
use crate::types::{ElemType, Op};
use reduce_kernels::table::{Family, KernelId};

/// Threads per block of the axis kernels (the one block size they are built for).
pub const AXIS_BLOCK: usize = 256;

/// Which reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AxisKind {
    /// One result per row of a row-major matrix (the last axis: `x.sum(dim=-1)`).
    Rows,
    /// One result per column (the first axis: `x.sum(dim=0)`).
    Cols,
    /// One result per caller-given segment `[begin[i], end[i])`.
    Segments,
}

impl AxisKind {
    /// `rows`, `cols` or `segments`.
    pub fn name(self) -> &'static str {
        match self {
            AxisKind::Rows => "rows",
            AxisKind::Cols => "cols",
            AxisKind::Segments => "segments",
        }
    }
}

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
    /// among short ones then still spread over the whole GPU ([`cut_segments`]).
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
}

/// The defaults are the H200 sweep's (`benches/tune-on-gpu.sh`, one device call, results in
/// `benches/results/h200-2026-11-30-s4-tune/tune.md`, f32 sum of ones, min of 30 runs per
/// policy): per kernel family the grid point closest to every case's best (geometric mean of
/// time / best time over the six shapes of issue #13, "One policy for all cases" there).
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
            long_row_blocks_per_sm: 16,
            min_col_tiles: 8,
        }
    }
}

/// Which offsets a segment step reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Offsets {
    /// None (rows and columns).
    None,
    /// The caller's segments.
    Segments,
    /// The pieces the long segments were cut into ([`cut_segments`]).
    Pieces,
    /// For each segment, the range of its pieces' partials.
    PieceRanges,
}

/// One launch of an axis kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AxisStep {
    /// The offsets it reads.
    pub offsets: Offsets,
    /// Kernel family (`AxisRows`, `AxisSegments` or `AxisColumns`).
    #[serde(skip)]
    pub kernel: KernelId,
    /// Does it read the caller's input (`false`: the previous step's partials)?
    pub reads_input: bool,
    /// Does it write the caller's output (`false`: the partials workspace)?
    pub writes_result: bool,
    /// Blocks.
    pub grid: usize,
    /// Dynamic shared memory bytes.
    pub shared_bytes: usize,
    /// Rows or segments this step reads.
    pub count: usize,
    /// Elements per row this step reads.
    pub len: usize,
    /// Work items per run.
    pub parts: usize,
    /// Threads per work item.
    pub group: usize,
    /// Elements it writes.
    pub out_len: usize,
    /// Where in the partials workspace it reads (when it does not read the input).
    pub src_offset: usize,
    /// Where in the partials workspace it writes (when it does not write the result).
    pub dst_offset: usize,
}

/// How one axis reduction runs: up to two launches and a workspace.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AxisPlan {
    /// Which reduction.
    pub kind: AxisKind,
    /// Element type.
    pub ty: ElemType,
    /// Operator the device runs.
    pub op: Op,
    /// Results (rows, columns or segments).
    pub results: usize,
    /// Elements of the partials workspace (0 without a split).
    pub partials: usize,
    /// The launches, in order (none when there is no result to write).
    pub steps: Vec<AxisStep>,
}

impl AxisPlan {
    /// Kernel shapes as text, for reports: `rows g=16 grid=1056`, `+ split 8`.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for (i, st) in self.steps.iter().enumerate() {
            if i > 0 {
                s.push_str(" + ");
            }
            let what = match st.kernel.family {
                Family::AxisColumns => format!("cols tile={}", st.group),
                Family::AxisSegments => format!("segments g={}", st.group),
                _ => format!("rows g={}", st.group),
            };
            s.push_str(&format!("{what} parts={} grid={}", st.parts, st.grid));
        }
        s
    }
}

fn kernel(family: Family, ty: ElemType, op: Op) -> KernelId {
    KernelId {
        family,
        ty: ty.kind(),
        op: op.kind(),
        block: AXIS_BLOCK,
    }
}

fn device_op(op: Op) -> Result<Op> {
    if op == Op::Mean {
        return Err(ReduceError::InvalidArgument(
            "the axis kernels compute sum, min and max; a mean is the sum divided on the host"
                .into(),
        ));
    }
    if !matches!(op, Op::Sum | Op::Min | Op::Max) {
        return Err(ReduceError::InvalidArgument(format!(
            "the axis kernels compute sum, min and max; {op} is a whole-input reduction (Reducer)"
        )));
    }
    Ok(op)
}

impl AxisPolicy {
    fn resident(&self, caps: &DeviceCaps) -> usize {
        (caps.sm_count * self.blocks_per_sm).max(1)
    }

    /// Blocks the grid of kernel family `family` aims for, with groups of `group` threads.
    fn resident_for(&self, family: Family, group: usize, caps: &DeviceCaps) -> usize {
        let own = match family {
            Family::AxisColumns => self.col_blocks_per_sm,
            Family::AxisSegments => self.segment_blocks_per_sm,
            _ if group == AXIS_BLOCK => self.long_row_blocks_per_sm,
            _ => 0,
        };
        match own {
            0 => self.resident(caps),
            b => (caps.sm_count * b).max(1),
        }
    }

    /// Threads per run of `len` elements of `size` bytes.
    pub fn group(&self, len: usize, size: usize) -> usize {
        if len >= self.block_run {
            AXIS_BLOCK
        } else {
            (len * size)
                .div_ceil(16)
                .div_ceil(self.vectors_per_lane.max(1))
                .max(1)
                .next_power_of_two()
                .min(32)
        }
    }

    /// Pieces per run of `len` elements when there are `count` runs (only runs of at least
    /// `2 · min_piece` elements are split: a block each, when `min_piece` is at least half of
    /// `block_run`).
    fn parts(&self, count: usize, len: usize, caps: &DeviceCaps) -> usize {
        let resident = self.resident_for(Family::AxisRows, AXIS_BLOCK, caps);
        if count == 0 || count >= resident || len < 2 * self.min_piece {
            return 1;
        }
        (resident * self.row_waves.max(1) / count)
            .min(len / self.min_piece.max(1))
            .max(1)
    }

    /// One step of the run kernel over `count` runs of (about) `len` elements.
    fn run_step(
        &self,
        id: KernelId,
        count: usize,
        len: usize,
        parts: usize,
        caps: &DeviceCaps,
    ) -> AxisStep {
        let group = self.group(len.div_ceil(parts), id_size(id));
        let items = count * parts;
        let grid = items
            .div_ceil(AXIS_BLOCK / group)
            .clamp(1, self.resident_for(id.family, group, caps));
        AxisStep {
            offsets: Offsets::None,
            kernel: id,
            reads_input: true,
            writes_result: parts == 1,
            grid,
            shared_bytes: AXIS_BLOCK / 32 * id_size(id),
            count,
            len,
            parts,
            group,
            out_len: items,
            src_offset: 0,
            dst_offset: 0,
        }
    }

    /// The finishing step of a split: `count` rows of `parts` partials.
    fn finish(
        &self,
        ty: ElemType,
        op: Op,
        count: usize,
        parts: usize,
        caps: &DeviceCaps,
    ) -> AxisStep {
        let mut s = self.run_step(kernel(Family::AxisRows, ty, op), count, parts, 1, caps);
        s.reads_input = false;
        s
    }

    /// One result per row of a row-major `rows × cols` matrix.
    pub fn rows(
        &self,
        ty: ElemType,
        op: Op,
        rows: usize,
        cols: usize,
        caps: &DeviceCaps,
    ) -> Result<AxisPlan> {
        let op = device_op(op)?;
        check_shape(rows, cols)?;
        let mut steps = Vec::new();
        let parts = self.parts(rows, cols, caps);
        if rows > 0 {
            steps.push(self.run_step(kernel(Family::AxisRows, ty, op), rows, cols, parts, caps));
            if parts > 1 {
                steps.push(self.finish(ty, op, rows, parts, caps));
            }
        }
        Ok(AxisPlan {
            kind: AxisKind::Rows,
            ty,
            op,
            results: rows,
            partials: if parts > 1 { rows * parts } else { 0 },
            steps,
        })
    }

    /// One result per segment, for `count` segments of `total` elements together, which
    /// [`cut_segments`] cut into `pieces` pieces (`pieces == count` when none was cut). The plan
    /// uses the mean length; the offsets themselves are only read by the kernel.
    pub fn segments(
        &self,
        ty: ElemType,
        op: Op,
        count: usize,
        pieces: usize,
        total: usize,
        caps: &DeviceCaps,
    ) -> Result<AxisPlan> {
        let op = device_op(op)?;
        let id = kernel(Family::AxisSegments, ty, op);
        let mut steps = Vec::new();
        let cut = pieces != count;
        if count > 0 && !cut {
            let mut s = self.run_step(id, count, total.checked_div(count).unwrap_or(0), 1, caps);
            s.offsets = Offsets::Segments;
            steps.push(s);
        }
        if count > 0 && cut {
            let mut first =
                self.run_step(id, pieces, total.checked_div(pieces).unwrap_or(0), 1, caps);
            first.offsets = Offsets::Pieces;
            first.writes_result = false;
            let mut second = self.run_step(id, count, pieces.div_ceil(count), 1, caps);
            second.offsets = Offsets::PieceRanges;
            second.reads_input = false;
            steps.extend([first, second]);
        }
        for s in &mut steps {
            s.len = 0;
        }
        Ok(AxisPlan {
            kind: AxisKind::Segments,
            ty,
            op,
            results: count,
            partials: if cut { pieces } else { 0 },
            steps,
        })
    }
}

fn id_size(id: KernelId) -> usize {
    use reduce_kernels::table::ElemKind;
    match id.ty {
        ElemKind::F32 | ElemKind::I32 | ElemKind::U32 => 4,
        ElemKind::F64 | ElemKind::I64 | ElemKind::U64 => 8,
        ElemKind::F16 | ElemKind::BF16 => 2,
    }
}

/// `rows × cols` must be a representable element count.
pub fn check_shape(rows: usize, cols: usize) -> Result<usize> {
    rows.checked_mul(cols)
        .filter(|&n| n <= isize::MAX as usize / 8)
        .ok_or_else(|| {
            ReduceError::InvalidArgument(format!(
                "a {rows} × {cols} matrix has more elements than memory can hold"
            ))
        })
}

mod cols;
mod cut;
mod settings;

pub use cut::cut_segments;

#[cfg(test)]
mod tests;
