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
}

impl Default for AxisPolicy {
    fn default() -> Self {
        AxisPolicy {
            blocks_per_sm: 8,
            vectors_per_lane: 4,
            block_run: 2048,
            min_piece: 16384,
            min_piece_rows: 64,
            segment_piece: 1 << 16,
            col_tile: AXIS_BLOCK,
            max_col_parts: usize::MAX,
            finish_piece_rows: 0,
            row_waves: 1,
            col_blocks_per_sm: 0,
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

    /// Pieces per run of `len` elements when there are `count` runs.
    fn parts(&self, count: usize, len: usize, caps: &DeviceCaps) -> usize {
        let resident = self.resident(caps);
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
            .clamp(1, self.resident(caps));
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

    /// One result per column of a row-major `rows × cols` matrix: one pass over the input,
    /// split into pieces of rows when there are too few column tiles to fill the GPU, then
    /// finishing passes over the pieces' partials (each a column reduction itself, split again
    /// while [`AxisPolicy::finish_piece_rows`] allows).
    pub fn cols(
        &self,
        ty: ElemType,
        op: Op,
        rows: usize,
        cols: usize,
        caps: &DeviceCaps,
    ) -> Result<AxisPlan> {
        let op = device_op(op)?;
        check_shape(rows, cols)?;
        let id = kernel(Family::AxisColumns, ty, op);
        let resident = match self.col_blocks_per_sm {
            0 => self.resident(caps),
            b => (caps.sm_count * b).max(1),
        };
        // The kernel loads 16-byte vector columns when a row is a whole number of vectors.
        let lanes = if (cols * ty.size()).is_multiple_of(16) {
            16 / ty.size()
        } else {
            1
        };
        let vcols = cols / lanes;
        let tile = vcols.clamp(1, self.col_tile.clamp(1, AXIS_BLOCK));
        let tiles = vcols.div_ceil(tile);
        let split = |rows: usize, min_rows: usize| {
            if cols == 0 || tiles >= resident || min_rows == 0 {
                1
            } else {
                resident
                    .div_ceil(tiles)
                    .min(self.max_col_parts)
                    .min(rows / min_rows)
                    .max(1)
            }
        };
        let step = |count: usize, parts: usize, src: Option<usize>, dst: usize| AxisStep {
            offsets: Offsets::None,
            kernel: id,
            reads_input: src.is_none(),
            writes_result: parts == 1,
            grid: (tiles * parts).clamp(1, resident),
            shared_bytes: AXIS_BLOCK * 16,
            count,
            len: cols,
            parts,
            group: tile,
            out_len: parts * cols,
            src_offset: src.unwrap_or(0),
            dst_offset: dst,
        };
        let mut steps = Vec::new();
        let mut partials = 0;
        if cols > 0 {
            let mut parts = split(rows, self.min_piece_rows.max(1));
            steps.push(step(rows, parts, None, 0));
            while parts > 1 {
                let next = split(parts, self.finish_piece_rows);
                let next = if next >= parts { 1 } else { next };
                let (src, dst) = (partials, partials + parts * cols);
                steps.push(step(parts, next, Some(src), if next > 1 { dst } else { 0 }));
                partials += parts * cols;
                parts = next;
            }
        }
        Ok(AxisPlan {
            kind: AxisKind::Cols,
            ty,
            op,
            results: cols,
            partials,
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

/// Segments cut into pieces of at most `piece` elements: `(piece_begin, piece_end, first,
/// last)`, where segment `i`'s pieces are `first[i]..last[i]` (so their partials are
/// `partials[first[i]..last[i]]`, and an empty segment has none). `None` when no segment is longer
/// than `piece`.
#[allow(clippy::type_complexity)]
pub fn cut_segments(
    begin: &[u64],
    end: &[u64],
    piece: usize,
) -> Option<(Vec<u64>, Vec<u64>, Vec<u64>, Vec<u64>)> {
    let piece = piece.max(1) as u64;
    if begin
        .iter()
        .zip(end)
        .all(|(b, e)| e.saturating_sub(*b) <= piece)
    {
        return None;
    }
    let (mut pb, mut pe, mut first, mut last) = (vec![], vec![], vec![], vec![]);
    for (&b, &e) in begin.iter().zip(end) {
        first.push(pb.len() as u64);
        let mut at = b;
        while at < e {
            pb.push(at);
            at = at.saturating_add(piece).min(e);
            pe.push(at);
        }
        last.push(pb.len() as u64);
    }
    Some((pb, pe, first, last))
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

mod settings;

#[cfg(test)]
mod tests;
