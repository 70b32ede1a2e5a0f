//! The column plan: [`AxisPolicy::cols`].

use super::{
    check_shape, check_type, device_op, kernel, AxisKind, AxisPlan, AxisPolicy, AxisStep, Offsets,
};
use super::{AXIS_BLOCK, FLAT_BLOCK};
use crate::backend::DeviceCaps;
use crate::error::Result;
use crate::types::{ElemType, Op};
use reduce_kernels::table::{Family, KernelId};

impl AxisPolicy {
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
        let ty = check_type(ty)?;
        crate::policy_settings::check_fields(self)?;
        check_shape(rows, cols)?;
        let family = if self.col_short_rows > 0 {
            Family::AxisColumnsShort16
        } else {
            Family::AxisColumns
        };
        let resident = self.resident_for(family, AXIS_BLOCK, caps);
        // The kernel loads 16-byte vector columns when a row is a whole number of vectors.
        let lanes = if (cols * ty.size()).is_multiple_of(16) {
            16 / ty.size()
        } else {
            1
        };
        let vcols = cols / lanes;
        let narrowed = (vcols / self.min_col_tiles.max(1)).max(32);
        let tile = vcols.clamp(1, narrowed.min(self.col_tile).clamp(1, AXIS_BLOCK));
        let tiles = vcols.div_ceil(tile);
        if cols > 0 && vcols <= self.col_once_max_vcols {
            // Whole-vector rows of 1, 2, 4, …, 32 vectors: the flat kernel's vector path.
            let flat = self.col_once_flat > 0
                && lanes > 1
                && vcols.is_power_of_two()
                && vcols <= 32
                && cols <= AXIS_BLOCK;
            let once = if flat {
                KernelId {
                    block: FLAT_BLOCK,
                    ..kernel(Family::AxisColumnsFlatDeep, ty, op)
                }
            } else {
                kernel(Family::AxisColumnsOnce, ty, op)
            };
            let step = self.cols_once(once, rows, cols, (tile, lanes), caps);
            return Ok(AxisPlan {
                kind: AxisKind::Cols,
                ty,
                op,
                results: cols,
                partials: step.grid * cols,
                steps: vec![step],
            });
        }
        // Enough tiles to fill the grid: one pass, no split — the wide matrices'
        // [`AxisPolicy::wide_col_short_rows`] kernel and grid.
        let wide = tiles >= resident && self.wide_col_short_rows > 0;
        let (family, resident) = match (wide, self.wide_col_blocks_per_sm) {
            (false, _) => (family, resident),
            (true, 0) => (Family::AxisColumnsShort16, resident),
            (true, b) => (
                Family::AxisColumnsShort16,
                (caps.sm_count * caps.scaled_blocks_per_sm(b, AXIS_BLOCK)).max(1),
            ),
        };
        let id = kernel(family, ty, op);
        // The finishing passes' own tile ([`AxisPolicy::finish_col_tile`]).
        let finish_tile = match self.finish_col_tile {
            0 => tile,
            t => vcols.clamp(1, t.min(AXIS_BLOCK)),
        };
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
        let step = |count: usize, parts: usize, src: Option<usize>, dst: usize| {
            let tile = if src.is_some() { finish_tile } else { tile };
            AxisStep {
                offsets: Offsets::None,
                kernel: id,
                reads_input: src.is_none(),
                writes_result: parts == 1,
                grid: (vcols.div_ceil(tile) * parts).clamp(1, resident),
                shared_bytes: AXIS_BLOCK * 16,
                count,
                len: cols,
                parts,
                group: tile,
                out_len: parts * cols,
                src_offset: src.unwrap_or(0),
                dst_offset: dst,
            }
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

    /// The one-launch column step ([`AxisPolicy::col_once_max_vcols`]): `grid` blocks, each a
    /// piece of at least [`AxisPolicy::min_piece_rows`] rows (the flat kernel: a share of the
    /// `rows · cols / lanes` vectors, at least a tile each), the last one finishing; it needs
    /// `grid · cols` partials.
    fn cols_once(
        &self,
        id: reduce_kernels::table::KernelId,
        rows: usize,
        cols: usize,
        (tile, lanes): (usize, usize),
        caps: &DeviceCaps,
    ) -> AxisStep {
        let resident = self.resident_for(id.family, AXIS_BLOCK, caps);
        let flat = id.family == Family::AxisColumnsFlatDeep;
        let grid = if flat {
            // At most one block per tile of `block · 8` vectors (8 loads in flight per thread).
            let vectors = rows.saturating_mul(cols) / lanes;
            vectors.div_ceil(id.block * 8).clamp(1, resident)
        } else {
            (rows / self.min_piece_rows.max(1)).clamp(1, resident)
        };
        AxisStep {
            offsets: Offsets::None,
            kernel: id,
            reads_input: true,
            writes_result: true,
            grid,
            shared_bytes: id.block * 16,
            count: rows,
            len: cols,
            parts: grid,
            // The flat kernel reads `group` as its share rule (1: runs of 32 vectors).
            group: if flat { self.col_flat_fine } else { tile },
            out_len: cols,
            src_offset: 0,
            dst_offset: 0,
        }
    }
}
