//! Which transform op, and how it launches: stage 8's policy (block and grid from the device),
//! plus the depth of the longest chain of additions or merges (the error bounds' `L`).

use crate::backend::{Backend, DeviceCaps};
use crate::error::{ReduceError, Result};
use crate::plan::{log2_ceil, LaunchOverrides, SinglePassPolicy, MAX_SINGLE_PASS_GRID};
use crate::types::ElemType;
use reduce_kernels::table::{Family, KernelId, Op, Row, SINGLE_PASS_UNROLL};

/// Threads of a moments kernel one SM holds at once **on the emulator** (which has no registers
/// to count; on a GPU the driver's occupancy calculator answers: [`plan_transform_on`]): its
/// tiles take 54–64 registers (the `build-ptx` table), and 65,536 registers per SM fit 1,024
/// threads at 64 — two 512-thread blocks. 64 is a cap, not luck: the transform kernels are built
/// with `.maxnreg 64` (the `_r64_` in `reduce_transform_r64_*`, `xtask/src/directives.rs`),
/// because the `f16`/`bf16` moments kernels took 66 without it — and Nsight Compute then found ONE
/// 512-thread block per SM (25% occupancy) running the 264 blocks in two waves: f16 `var` at 2^26
/// in 58.7 µs against the f16 sum's 38.3 (base clocks,
/// `benches/results/h200-2026-12-02-tiled/call1`). Capped at 64 they do not spill (but for the
/// `bf16` ones since the moments' shifted thread fold: 8 bytes, one `f64` in local memory — the
/// halves take them only for one tile or a forced block). A grid sized for four runs in two
/// waves: f32 `var` at 2^26 took 71.8 µs on 528 blocks against 68.7 µs on 264 (the f32 sum:
/// 65.2–66.6 µs; f16: 57.9 against 49.4 µs; `benches/results/h200-2026-12-02-moments/call2`). Capping the registers instead (`.maxnreg` 40 or
/// 32, for three or four blocks) spilled in the loop: 99–129 µs.
pub const MOMENTS_THREADS_PER_SM: usize = 1024;

/// The block of the rolling-load kernels (`reduce_transform_shift_r80_*`: the `f16`/`bf16`
/// moments over more than one tile), and the threads an SM holds of them (the emulator's
/// estimate; a GPU's driver answers): the rolling loop with Chan's merges took 72 registers per
/// thread (79 with the moments' shifted thread fold, under a cap of 80), which fit three
/// 256-thread blocks in 65,536 registers, where a 512-thread block would leave one per SM
/// (measured on the H200, `benches/results/h200-2026-12-02-occupancy/call1`: f16 `var` at 2^30 in
/// 471.5 µs on <<<396, 256>>>, against 495.4 for the 64-register kernel on <<<264, 512>>> and
/// 467.8 for the read-only kernel).
pub const ROLLING_BLOCK: usize = 256;
/// See [`ROLLING_BLOCK`].
pub const ROLLING_THREADS_PER_SM: usize = 768;

/// How a transform kernel's threads keep their loads in flight (the kernel family). The plan
/// picks [`TransformLoop::Shifted`] for the `f16`/`bf16` moments over more than one tile and
/// [`TransformLoop::Plain`] for everything else; forcing [`TransformLoop::Plain`] on the halves'
/// moments keeps Chan's merges (a κ-free error bound, without the grid shift's data-dependent
/// term), and forcing [`TransformLoop::Shifted`] runs the grid-shift form on any length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum TransformLoop {
    /// One tile's loads, then its arithmetic (`reduce_transform_r64_*`).
    Plain,
    /// The next tile's loads issued before this tile's arithmetic, with the moments folded about
    /// one shift for the whole grid, the trees adding sums instead of Chan's merges
    /// (`reduce_transform_shift_r80_*`: `f16`/`bf16` moments;
    /// `reduce_kernels::transform::grid_shift`, its own error bound).
    Shifted,
}

impl TransformLoop {
    /// Both.
    pub const ALL: [TransformLoop; 2] = [TransformLoop::Plain, TransformLoop::Shifted];
    /// `plain` or `shifted`.
    pub fn name(self) -> &'static str {
        match self {
            TransformLoop::Plain => "plain",
            TransformLoop::Shifted => "shifted",
        }
    }
    fn family(self) -> Family {
        match self {
            TransformLoop::Plain => Family::Transform,
            TransformLoop::Shifted => Family::TransformShifted,
        }
    }
}

impl std::str::FromStr for TransformLoop {
    type Err = ReduceError;
    fn from_str(s: &str) -> Result<Self> {
        TransformLoop::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| {
                ReduceError::InvalidArgument(format!(
                    "there is no transform loop `{s}` (plain or shifted)"
                ))
            })
    }
}

/// Threads of `op`'s kernel (of `family`: the plain or the rolling-load transform kernels)
/// resident per SM when nothing better is known (the emulator): the device's limit, or fewer
/// where the kernel's registers say so ([`MOMENTS_THREADS_PER_SM`], [`ROLLING_THREADS_PER_SM`]).
pub fn resident_threads_per_sm(op: Op, family: Family, caps: &DeviceCaps) -> usize {
    let limit = match (family, op) {
        (Family::TransformShifted, _) => ROLLING_THREADS_PER_SM,
        (_, Op::Moments) => MOMENTS_THREADS_PER_SM,
        _ => caps.max_threads_per_sm,
    };
    caps.max_threads_per_sm.min(limit)
}

/// One transform launch.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TransformPlan {
    /// The op.
    pub op: Op,
    /// Input element type (`f32` or `f64`).
    pub ty: ElemType,
    /// Elements (of each input).
    pub n: usize,
    /// The kernel (serialized as its symbol, `reduce_transform_r64_sumsq_b512_f32`).
    #[serde(serialize_with = "crate::launch::serialize_symbol")]
    pub kernel: KernelId,
    /// Blocks.
    pub grid: usize,
    /// Threads per block.
    pub block: usize,
    /// Dynamic shared memory bytes (three `f64` per warp).
    pub shared_bytes: usize,
    /// The longest chain of additions (sums) or merges (moments) any element goes through: the
    /// `L` of the error bounds in `docs/semantics.md`. Conservative: it counts every element a
    /// thread reads.
    pub depth: usize,
    /// Do the moments fold about one shift for the whole grid (`reduce_transform_shift_*`:
    /// `reduce_kernels::transform::grid_shift`, whose error bound the reference applies)?
    pub grid_shift: bool,
}

impl TransformPlan {
    /// One line: `reduce_transform_r64_sumsq_b512_f32 <<<528, 512>>>`.
    pub fn describe(&self) -> String {
        format!("{} <<<{}, {}>>>", self.kernel, self.grid, self.block)
    }
}

/// Plan `op` over `n` elements of `ty` on `caps`: stage 8's policy (an input that fits one tile
/// of a 256-, 512- or 1024-thread block runs as that block; larger ones in 512-thread blocks,
/// as many as every SM holds at once: [`resident_threads_per_sm`]), unless
/// `overrides` fixes the block or grid. The `f16`/`bf16` moments over more than one tile take
/// the grid-shift kernel (rolling loads) in [`ROLLING_BLOCK`]-thread blocks instead.
///
/// # Errors
/// [`ReduceError::InvalidArgument`] for a type other than `f32`/`f64`/`f16`/`bf16` or a block size the kernels
/// are not built for; [`ReduceError::InvalidGridSize`] for a grid outside `1..=4096`.
pub fn plan_transform(
    op: Op,
    ty: ElemType,
    n: usize,
    overrides: LaunchOverrides,
    caps: &DeviceCaps,
) -> Result<TransformPlan> {
    plan_with_residency(op, ty, n, overrides, None, caps, None)
}

/// [`plan_transform`] on `backend`, the grid (unless `overrides` fixes it) sized by the
/// occupancy the driver reports for the planned kernel ([`Backend::resident_blocks_per_sm`]):
/// every SM as full as that kernel's registers allow, in one wave. On the emulator this is
/// [`plan_transform`].
///
/// # Errors
/// As [`plan_transform`]; [`ReduceError::MissingKernel`] if the loaded module lacks the kernel.
pub fn plan_transform_on(
    backend: &Backend,
    op: Op,
    ty: ElemType,
    n: usize,
    overrides: LaunchOverrides,
) -> Result<TransformPlan> {
    plan_transform_looped_on(backend, op, ty, n, overrides, None)
}

/// [`plan_transform_on`] with the kernel's loop forced (`None`: the plan's choice). A loop
/// not built for this op, type or block is [`ReduceError::InvalidArgument`].
///
/// # Errors
/// As [`plan_transform_on`].
pub fn plan_transform_looped_on(
    backend: &Backend,
    op: Op,
    ty: ElemType,
    n: usize,
    overrides: LaunchOverrides,
    looping: Option<TransformLoop>,
) -> Result<TransformPlan> {
    let caps = backend.caps();
    let first = plan_with_residency(op, ty, n, overrides, looping, caps, None)?;
    if overrides.grid.is_some() {
        return Ok(first);
    }
    match backend.resident_blocks_per_sm(first.kernel, first.block, first.shared_bytes)? {
        Some(blocks) => plan_with_residency(op, ty, n, overrides, looping, caps, Some(blocks)),
        None => Ok(first),
    }
}

/// The plan, with `blocks_per_sm` resident blocks per SM if known (else the static estimate).
fn plan_with_residency(
    op: Op,
    ty: ElemType,
    n: usize,
    overrides: LaunchOverrides,
    looping: Option<TransformLoop>,
    caps: &DeviceCaps,
    blocks_per_sm: Option<usize>,
) -> Result<TransformPlan> {
    ReduceError::check_op(op, &Op::TRANSFORM, "a transform-reduce")?;
    let row = Row::of(Family::Transform);
    if !row.types.contains(&ty) {
        return Err(ReduceError::InvalidArgument(format!(
            "{} is built for f32 and f64 inputs (and f16, bf16), not {ty}",
            op.name()
        )));
    }
    let policy = SinglePassPolicy::for_input(n, ty, caps);
    let lanes = 16 / ty.size();
    // The `f16`/`bf16` moments over more than one tile: the grid-shift kernel (rolling loads,
    // sums in the trees).
    let shifted_row = Row::of(Family::TransformShifted);
    let shifts = shifted_row.ops.contains(&op) && shifted_row.types.contains(&ty);
    let one_tile = n / lanes <= row.blocks.iter().max().copied().unwrap_or(0) * SINGLE_PASS_UNROLL;
    let forced = looping.map(|l| Row::of(l.family()));
    let default_block = match forced {
        // A forced loop keeps stage 8's block where it is built for it, else its first block.
        Some(r) if r.blocks.contains(&policy.block) => policy.block,
        Some(r) => r.blocks[0],
        None if shifts && !one_tile => ROLLING_BLOCK,
        None => policy.block,
    };
    let block = overrides.block.unwrap_or(default_block);
    if !row.blocks.contains(&block) {
        return Err(ReduceError::InvalidArgument(format!(
            "block size {block} is not built for the transform kernels (they take {:?})",
            row.blocks
        )));
    }
    let steps = (n / lanes).div_ceil(block * SINGLE_PASS_UNROLL).max(1);
    // More than one tile of the rolling kernel's block: there is a next tile to have in flight.
    let family = match forced {
        Some(r) => {
            if !(r.ops.contains(&op) && r.types.contains(&ty) && r.blocks.contains(&block)) {
                return Err(ReduceError::InvalidArgument(format!(
                    "the {} loop is built for {:?} of {:?} in blocks of {:?}, not {} of {ty} \
                     in blocks of {block}",
                    looping.map_or("plain", TransformLoop::name),
                    r.ops,
                    r.types,
                    r.blocks,
                    op.name()
                )));
            }
            r.family
        }
        None if shifts && shifted_row.blocks.contains(&block) && steps > 1 => {
            Family::TransformShifted
        }
        None => Family::Transform,
    };
    let grid = match overrides.grid {
        Some(g) if g == 0 || g > MAX_SINGLE_PASS_GRID => {
            return Err(ReduceError::InvalidGridSize {
                grid: g,
                why: format!("the transform kernels take 1..={MAX_SINGLE_PASS_GRID} blocks"),
            })
        }
        Some(g) => g,
        None => {
            let per_sm = blocks_per_sm.unwrap_or(resident_threads_per_sm(op, family, caps) / block);
            steps
                .min(caps.sm_count * per_sm.max(1))
                .min(MAX_SINGLE_PASS_GRID)
        }
    };
    let id = KernelId {
        family,
        ty,
        op,
        block,
    };
    // Per thread: every element it reads (a tile's chunk is a sequential fold, then one merge),
    // plus head/tail items; then the warp and block trees, the partials per thread of the last
    // block, and its trees again.
    let per_thread = n.div_ceil(grid * block) + 4 * SINGLE_PASS_UNROLL + 2;
    let depth = per_thread + 2 * log2_ceil(block) + grid.div_ceil(block) + 2 * log2_ceil(block) + 2;
    Ok(TransformPlan {
        op,
        ty,
        n,
        kernel: id,
        grid,
        block,
        shared_bytes: reduce_kernels::transform::WORDS * (block / 32) * 8,
        depth,
        grid_shift: family == Family::TransformShifted,
    })
}

#[cfg(test)]
mod tests;
