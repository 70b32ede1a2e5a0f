//! The exact sum's launch plan: pure arithmetic, the tuning policy as data.

use crate::backend::DeviceCaps;
use crate::error::{ReduceError, Result};
use crate::launch::{KernelArgs, Launch};
use crate::plan::LaunchOverrides;
use crate::stage::Stage;
use crate::types::ElemType;
use reduce_kernels::exact::kernel::{words_bytes, MAX_GRID as MAX_EXACT_GRID, MAX_PER_BLOCK};
use reduce_kernels::exact::Format;
use reduce_kernels::table::{Family, KernelId, Op, Row, SINGLE_PASS_UNROLL};

/// The exact sum's tuning policy (data, apart from the algorithm); set from text with
/// [`ExactPolicy::with_settings`] (`reduce exact --policy fast_f32=1,blocks_per_sm=4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ExactPolicy {
    /// Threads per block for inputs larger than one tile (256 or 512, the built blocks).
    pub block: usize,
    /// Blocks per SM the grid aims for: the kernels use 68–72 registers per thread (ptxas,
    /// sm_90), so three 256-thread blocks (768 threads) are what fits on an SM.
    pub blocks_per_sm: usize,
    /// At least this many tiles (`block · 4` vectors) per block: fewer, wider blocks for small
    /// inputs, down to one block (no global atomics, no ticket) once the input has at most
    /// `min_tiles` tiles. 1: as many blocks as tiles, up to `blocks_per_sm` per SM.
    pub min_tiles: usize,
    /// f32 inputs take the fast-path kernel ([`reduce_kernels::exact::lean::sum_fast_lean`]:
    /// one addition per element when it is exact, checked with two more). On by default: on the
    /// H200 it took 2^30 f32 from 1280 to 949 µs (97% of stage 8's plain sum) and was faster at
    /// every N from 2^12 up (`benches/results/h200-2026-11-30-multi/call2/exact/`).
    pub fast_f32: bool,
    /// f64 inputs take the fast-path kernel too. Off by default: 53-bit inputs rarely add
    /// exactly, and on the H200 it was 1.45× slower at 2^30 (2769 vs 1909 µs). A choice for data
    /// whose additions are exact, where each element then takes three additions instead of two
    /// TwoSums.
    pub fast_f64: bool,
}

impl Default for ExactPolicy {
    fn default() -> Self {
        ExactPolicy {
            block: 256,
            blocks_per_sm: 3,
            min_tiles: 1,
            fast_f32: true,
            fast_f64: false,
        }
    }
}

impl ExactPolicy {
    /// The kernel family for `ty` under this policy: the fast path ([`Family::ExactFastLean`])
    /// where `fast_f32` / `fast_f64` ask for it, else the general path ([`Family::ExactLean`]).
    pub fn family(&self, ty: ElemType) -> Family {
        let fast = match ty {
            ElemType::F32 => self.fast_f32,
            ElemType::F64 => self.fast_f64,
            _ => false,
        };
        if fast {
            Family::ExactFastLean
        } else {
            Family::ExactLean
        }
    }
}

/// One exact-sum launch, checked.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ExactPlan {
    /// Element type (f32 or f64).
    pub ty: ElemType,
    /// Elements.
    pub n: usize,
    /// The kernel (serialized as its symbol, `reduce_exact_fast_lean_sum_b256_f32`).
    #[serde(serialize_with = "crate::launch::serialize_symbol")]
    pub kernel: KernelId,
    /// Blocks.
    pub grid: usize,
    /// Threads per block.
    pub block: usize,
    /// Dynamic shared memory bytes (`16 · (W + 4 + block / 32)`:
    /// [`reduce_kernels::exact::kernel::words_bytes`]).
    pub shared_bytes: usize,
    /// 64-bit words of shared memory per block and of the grid's words, the workspace (`W + 4`).
    pub slots: usize,
}

impl ExactPlan {
    /// This plan's launch (kernel, grid, block, shared memory) with the arguments `args`.
    pub(crate) fn launch(&self, args: KernelArgs) -> Launch {
        Launch {
            kernel: self.kernel,
            grid: self.grid,
            block: self.block,
            shared_bytes: self.shared_bytes,
            args,
        }
    }
}

/// The blocks the exact kernels are built for.
pub fn exact_blocks() -> &'static [usize] {
    Row::of(Family::ExactLean).blocks
}

/// Plan an exact sum of `n` elements of `ty` on `caps` (`overrides` force the block and/or grid).
pub fn exact_plan(
    ty: ElemType,
    n: usize,
    overrides: LaunchOverrides,
    caps: &DeviceCaps,
    policy: ExactPolicy,
) -> Result<ExactPlan> {
    // Its fields are public: held to the ranges of the text form.
    crate::policy_settings::check_fields_with(&policy, &ExactPolicy::KEYS, ExactPolicy::set)?;
    let Some(format) = Format::of(ty) else {
        return Err(ReduceError::InvalidArgument(format!(
            "exact sums are for f32 and f64, not {ty}"
        )));
    };
    let lanes = 16 / ty.size();
    // An upper bound whatever the input's alignment: the kernel's `(n - head) / lanes`.
    let vectors = n / lanes;
    let unroll = SINGLE_PASS_UNROLL;
    let block = match overrides.block {
        Some(b) => {
            if !exact_blocks().contains(&b) {
                return Err(ReduceError::InvalidBlockSize {
                    stage: Stage::S8,
                    block: b,
                    why: format!("the exact sum is built for blocks {:?}", exact_blocks()),
                });
            }
            b
        }
        None => exact_blocks()
            .iter()
            .copied()
            .find(|&b| vectors <= b * unroll)
            .unwrap_or(policy.block),
    };
    let tiles = vectors.div_ceil(block * unroll).max(1);
    let grid = match overrides.grid {
        Some(g) => {
            if g == 0 || g > MAX_EXACT_GRID {
                return Err(ReduceError::InvalidGridSize {
                    grid: g,
                    why: format!("an exact sum takes 1..={MAX_EXACT_GRID} blocks"),
                });
            }
            g
        }
        None => tiles
            .div_ceil(policy.min_tiles.max(1))
            .clamp(
                1,
                caps.sm_count * caps.scaled_blocks_per_sm(policy.blocks_per_sm, block),
            )
            .max(tiles.div_ceil(MAX_PER_BLOCK / (block * unroll * lanes))),
    };
    let per_block = tiles.div_ceil(grid) * block * unroll * lanes + 2 * lanes;
    if per_block > MAX_PER_BLOCK {
        return Err(ReduceError::InvalidGridSize {
            grid,
            why: format!(
                "{n} elements would give a block up to {per_block} of them; an exact-sum block \
                 takes at most {MAX_PER_BLOCK} (its integer words' headroom): use a larger grid"
            ),
        });
    }
    let id = KernelId {
        family: policy.family(ty),
        ty,
        op: Op::Sum,
        block,
    };
    Ok(ExactPlan {
        ty,
        n,
        kernel: id,
        grid,
        block,
        shared_bytes: words_bytes(format.slots(), block),
        slots: format.slots(),
    })
}
