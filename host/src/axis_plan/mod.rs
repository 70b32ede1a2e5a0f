//! Launch plans for the reductions along an axis and over segments: pure arithmetic, tested on
//! the CPU. [`AxisPolicy`] holds every tuning number; the kernels (`reduce_kernels::axis`) hold
//! the algorithms.

use crate::error::{ReduceError, Result};
use crate::types::{ElemType, Op};
use reduce_kernels::table::{Family, KernelId, Row};

/// Threads per block of the axis kernels (the one block size they are built for), but for the
/// flat column kernel's [`FLAT_BLOCK`].
pub const AXIS_BLOCK: usize = 256;

/// Threads per block of the flat column kernel (`AxisColumnsFlatDeep`, the one block size it is
/// built for): with 8 loads in flight on 2 blocks per SM it holds as many loads in flight as
/// stage 8's 4 blocks of 512 with 4; blocks of 256 measured no faster (see
/// [`AxisPolicy::col_once_flat`]).
pub const FLAT_BLOCK: usize = 512;

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
    /// Kernel family (`AxisRows`, `AxisRowsDeep`, `AxisSegments`, `AxisColumns`,
    /// `AxisColumnsOnce`, `AxisColumnsFlatDeep` (narrow matrices) or `AxisColumnsShort16`
    /// (unsplit plans)).
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

impl AxisStep {
    /// Is it a one-launch step whose last block finishes (it takes the plan's counter)?
    pub fn ticket(&self) -> bool {
        matches!(
            self.kernel.family,
            Family::AxisColumnsOnce | Family::AxisColumnsFlatDeep
        )
    }
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
                Family::AxisColumnsOnce => format!("cols-once tile={}", st.group),
                Family::AxisColumnsFlatDeep => format!("cols-flat-deep b{}", st.kernel.block),
                Family::AxisColumnsShort16 => format!("cols-short16 tile={}", st.group),
                Family::AxisSegments => format!("segments g={}", st.group),
                Family::AxisRowsDeep => format!("rows-deep g={}", st.group),
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
        ty,
        op: op.device_op(),
        block: AXIS_BLOCK,
    }
}

/// The ops the axis kernels compute.
const AXIS_OPS: [Op; 3] = [Op::Sum, Op::Min, Op::Max];

/// `ty` if the axis kernels are built for it (every axis family is built for the same types):
/// a type they do not take is a typed error naming it, before any kernel is looked up.
fn check_type(ty: ElemType) -> Result<ElemType> {
    let built = Row::of(Family::AxisRows).types;
    if built.contains(&ty) {
        return Ok(ty);
    }
    let names: Vec<&str> = built.iter().map(|t| t.name()).collect();
    Err(ReduceError::InvalidArgument(format!(
        "the axis kernels (rows, columns, segments) are built for {}, not {ty}; reduce a whole \
         f16/bf16 input with Reducer (sum, min, max, mean, …)",
        names.join(", ")
    )))
}

fn device_op(op: Op) -> Result<Op> {
    if !op.is_reduce() {
        return Err(ReduceError::WrongOp {
            op,
            what: "an axis op",
            expected: &AXIS_OPS,
        });
    }
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

fn id_size(id: KernelId) -> usize {
    use reduce_kernels::table::ElemType;
    match id.ty {
        ElemType::F32 | ElemType::I32 | ElemType::U32 => 4,
        ElemType::F64 | ElemType::I64 | ElemType::U64 => 8,
        ElemType::F16 | ElemType::BF16 => 2,
    }
}

/// `rows × cols` must be a representable element count.
pub fn check_shape(rows: usize, cols: usize) -> Result<usize> {
    rows.checked_mul(cols)
        .filter(|&n| n <= isize::MAX as usize / 8)
        .ok_or_else(|| {
            ReduceError::bounds(
                "rows × cols",
                format!("a {rows} × {cols} matrix has more elements than memory can hold"),
            )
        })
}

mod cols;
mod cut;
mod policy;
mod runs;
mod settings;

pub use cut::{cut_segments, log_uniform_segments};
pub use policy::AxisPolicy;

#[cfg(test)]
mod reach;
#[cfg(test)]
mod tests;
