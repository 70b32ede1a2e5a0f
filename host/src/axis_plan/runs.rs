//! The plans of contiguous runs: [`AxisPolicy::rows`] and [`AxisPolicy::segments`] (a group of
//! threads per run, a split of few long runs and its finishing pass).

use super::{
    check_shape, check_type, device_op, id_size, kernel, AxisKind, AxisPlan, AxisPolicy, AxisStep,
};
use super::{Offsets, AXIS_BLOCK};
use crate::backend::DeviceCaps;
use crate::error::Result;
use crate::types::{ElemType, Op};
use reduce_kernels::table::{Family, KernelId};

impl AxisPolicy {
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
        // A block per row: the deeper row kernel when [`AxisPolicy::row_unroll`] asks for it.
        let id = if id.family == Family::AxisRows && group == AXIS_BLOCK && self.row_unroll >= 8 {
            KernelId {
                family: Family::AxisRowsDeep,
                ..id
            }
        } else {
            id
        };
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
        let ty = check_type(ty)?;
        crate::policy_settings::check_fields(self)?;
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
    /// [`super::cut_segments`] cut into `pieces` pieces (`pieces == count` when none was cut). The plan
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
        let ty = check_type(ty)?;
        crate::policy_settings::check_fields(self)?;
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
