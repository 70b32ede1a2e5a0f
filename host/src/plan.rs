//! Launch planning: pure arithmetic, tested on the CPU, shared by both backends.
//!
//! Like CUB, the *policy* (block size, blocks per SM, when to use a single block) is kept apart
//! from the *algorithm* (the kernels): [`SinglePassPolicy`] is the only place that knows tuning
//! numbers for stage 8.

use crate::backend::DeviceCaps;
use crate::error::{ReduceError, Result};
pub use crate::policy_settings::PolicySettings;
use crate::stage::Stage;
use crate::types::{ElemType, Op};
use reduce_kernels::table::KernelId;

/// Most blocks a stage-8 launch may use (the size of its partials workspace).
pub const MAX_SINGLE_PASS_GRID: usize = 4096;
/// CUDA's limit on `gridDim.x`.
pub const MAX_GRID: usize = (1 << 31) - 1;

/// One kernel launch of a reduction (stages 1–7 take several, stage 8 one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Pass {
    /// Elements this pass reads.
    pub n: usize,
    /// Blocks (= partials written).
    pub grid: usize,
    /// Threads per block.
    pub block: usize,
    /// Dynamic shared memory per block.
    pub shared_bytes: usize,
}

/// How a stage reduces `n` elements: one or more passes, or one single-pass launch.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Plan {
    /// The stage.
    pub stage: Stage,
    /// Element type.
    pub ty: ElemType,
    /// Operator the device runs.
    pub op: Op,
    /// The kernel (serialized as its symbol).
    #[serde(serialize_with = "crate::launch::serialize_symbol")]
    pub kernel: KernelId,
    /// The launches, in order. Pass `k+1` reads the partials of pass `k`.
    pub passes: Vec<Pass>,
    /// No element goes through more than this many operations: the factor of the float error
    /// bound ([`crate::reference::matches_reference`]).
    pub depth: usize,
}

/// User overrides of the launch shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct LaunchOverrides {
    /// Threads per block (default: the stage's, or the policy's for stage 8).
    pub block: Option<usize>,
    /// Blocks of the first pass, for the grid-stride stages 7 and 8 (others derive it from `n`).
    pub grid: Option<usize>,
}

/// Stage 8's tuning policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SinglePassPolicy {
    /// Threads per block.
    pub block: usize,
    /// Resident blocks per SM the grid aims for.
    pub blocks_per_sm: usize,
    /// 16-byte loads in flight per thread per step (compiled into the kernel).
    pub unroll: usize,
}

impl SinglePassPolicy {
    /// The policy for `n` elements of `ty` on `caps`.
    ///
    /// Tuned on an H200 (see `docs/ladder.md`, "Stage 8's tuning"): an input that fits in one
    /// tile of `unroll` vectors per thread of a 256-, 512- or 1024-thread block runs as that one
    /// block (all of its loads in flight at once, and no last-block-done round trips through L2
    /// — like CUB's single-tile path); anything larger uses 512-thread blocks, enough to fill
    /// every SM (4 per SM = 2048 threads, full occupancy), and no more blocks than there are
    /// tiles to hand out.
    pub fn for_input(n: usize, ty: ElemType, caps: &DeviceCaps) -> Self {
        let unroll = reduce_kernels::table::SINGLE_PASS_UNROLL;
        let vectors = n / (16 / ty.size());
        let block = Stage::S8
            .blocks()
            .iter()
            .copied()
            .find(|&b| vectors <= b * unroll)
            .unwrap_or(512);
        SinglePassPolicy {
            block,
            blocks_per_sm: (caps.max_threads_per_sm / block).max(1),
            unroll,
        }
    }
}

/// ⌈log₂ x⌉ (0 for 0 and 1): the levels of a tree reduction over `x` values.
pub(crate) fn log2_ceil(x: usize) -> usize {
    x.max(1).next_power_of_two().trailing_zeros() as usize
}

/// Plan a reduction of `n` elements of `ty` with `op` on `stage`.
pub fn plan(
    stage: Stage,
    ty: ElemType,
    op: Op,
    n: usize,
    o: LaunchOverrides,
    caps: &DeviceCaps,
) -> Result<Plan> {
    if stage == Stage::S8 {
        return plan_single_pass(ty, op, n, o, caps);
    }
    let block = o.block.unwrap_or(stage.default_block());
    stage.validate(ty, op, block)?;
    if let Some(g) = o.grid {
        if stage != Stage::S7 {
            return Err(ReduceError::InvalidGridSize {
                grid: g,
                why: format!(
                    "{stage} derives its grid from n; only stages 7 and 8 take a grid size"
                ),
            });
        }
        if g == 0 || g > MAX_GRID {
            return Err(ReduceError::InvalidGridSize {
                grid: g,
                why: format!("it must be 1..={MAX_GRID}"),
            });
        }
    }
    let per_block = if stage.two_per_thread() {
        2 * block
    } else {
        block
    };
    let resident = caps.sm_count * (caps.max_threads_per_sm / block).max(1);
    let mut passes = Vec::new();
    let mut depth = 0;
    let mut len = n;
    loop {
        let needed = len.div_ceil(per_block).max(1);
        let grid = if stage == Stage::S7 {
            let cap = if passes.is_empty() {
                o.grid.unwrap_or(resident)
            } else {
                resident
            };
            needed.min(cap)
        } else {
            needed
        };
        if grid > MAX_GRID {
            return Err(ReduceError::InvalidArgument(format!(
                "{n} elements need {grid} blocks of {block} threads for {stage}, over CUDA's limit of {MAX_GRID}; use \
                 stage 7 or 8, or a larger block"
            )));
        }
        let sequential = len.div_ceil(grid * block).max(1);
        depth += sequential + log2_ceil(block) + 1;
        passes.push(Pass {
            n: len,
            grid,
            block,
            shared_bytes: stage.shared_bytes(ty, block),
        });
        len = grid;
        if len == 1 {
            break;
        }
    }
    Ok(Plan {
        stage,
        ty,
        op: op.device_op(),
        kernel: stage.kernel(ty, op, block),
        passes,
        depth,
    })
}

fn plan_single_pass(
    ty: ElemType,
    op: Op,
    n: usize,
    o: LaunchOverrides,
    caps: &DeviceCaps,
) -> Result<Plan> {
    let stage = Stage::S8;
    let policy = SinglePassPolicy::for_input(n, ty, caps);
    let block = o.block.unwrap_or(policy.block);
    stage.validate(ty, op, block)?;
    let lanes = 16 / ty.size();
    let steps = (n / lanes).div_ceil(block * policy.unroll).max(1);
    let grid = match o.grid {
        Some(g) if g == 0 || g > MAX_SINGLE_PASS_GRID => {
            return Err(ReduceError::InvalidGridSize {
                grid: g,
                why: format!(
                    "stage 8 takes 1..={MAX_SINGLE_PASS_GRID} blocks (its partials workspace)"
                ),
            })
        }
        Some(g) => g,
        None => steps
            .min(caps.sm_count * (caps.max_threads_per_sm / block).max(1))
            .min(MAX_SINGLE_PASS_GRID),
    };
    let per_thread_vectors = (n / lanes).div_ceil(grid * block);
    // vector lanes + sequential accumulation + warp and block trees, then the same for partials.
    let depth = 2
        + per_thread_vectors
        + 1
        + 2 * log2_ceil(block)
        + grid.div_ceil(block)
        + 2 * log2_ceil(block)
        + 2;
    let first = Pass {
        n,
        grid,
        block,
        shared_bytes: stage.shared_bytes(ty, block),
    };
    Ok(Plan {
        stage,
        ty,
        op: op.device_op(),
        kernel: stage.kernel(ty, op, block),
        passes: vec![first],
        depth,
    })
}

#[cfg(test)]
mod tests;

/// Where stage 8 leaves its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum ResultIn {
    /// In device memory; reading it costs a device-to-host copy after the kernel.
    DeviceMemory,
    /// In pinned host memory mapped into the device's address space: the kernel's last block
    /// stores the result straight into host RAM, so the caller reads it as soon as the kernel
    /// is done, with no copy command. The default for stage 8 on a GPU.
    MappedHost,
}
