//! The stage table: what each kernel is, which seed step it teaches, what it accepts.

use crate::error::{ReduceError, Result};
use crate::types::{ElemType, Op};
use reduce_kernels::table::{Abi, Family, KernelId, Row};
use std::fmt;
use std::sync::OnceLock;

pub use crate::types::Stage;

impl Stage {
    /// All stages in ladder order.
    pub const ALL: [Stage; 8] = [
        Stage::S1,
        Stage::S2,
        Stage::S3,
        Stage::S4,
        Stage::S5,
        Stage::S6,
        Stage::S7,
        Stage::S8,
    ];

    /// 1..=8.
    pub fn number(self) -> usize {
        self as usize + 1
    }

    /// Stage from its number.
    pub fn from_number(n: usize) -> Result<Stage> {
        Stage::ALL.get(n.wrapping_sub(1)).copied().ok_or_else(|| {
            ReduceError::InvalidArgument(format!("there is no stage {n} (stages are 1 to 8)"))
        })
    }

    /// Source file name under `kernels/src/stages/`.
    pub fn slug(self) -> &'static str {
        match self {
            Stage::S1 => "s1_interleaved_divergent",
            Stage::S2 => "s2_interleaved_strided",
            Stage::S3 => "s3_sequential",
            Stage::S4 => "s4_first_add_during_load",
            Stage::S5 => "s5_unroll_last_warp",
            Stage::S6 => "s6_complete_unroll",
            Stage::S7 => "s7_grid_stride",
            Stage::S8 => "s8_shuffle_vectorized",
        }
    }

    /// Human title.
    pub fn title(self) -> &'static str {
        match self {
            Stage::S1 => "Interleaved addressing (divergent)",
            Stage::S2 => "Interleaved addressing (strided index)",
            Stage::S3 => "Sequential addressing",
            Stage::S4 => "First add during load",
            Stage::S5 => "Unroll last warp (__syncwarp)",
            Stage::S6 => "Complete unroll (const generic block)",
            Stage::S7 => "Grid-stride loop",
            Stage::S8 => "Shuffles + 16-byte loads, one pass",
        }
    }

    /// The seed step it corresponds to.
    pub fn seed(self) -> &'static str {
        match self {
            Stage::S1 => "K1 / REDUCE-0",
            Stage::S2 => "REDUCE-1",
            Stage::S3 => "K2 / REDUCE-2",
            Stage::S4 => "K3 / REDUCE-3",
            Stage::S5 => "K4 / REDUCE-4",
            Stage::S6 => "K5 template / REDUCE-5",
            Stage::S7 => "K5 / REDUCE-6",
            Stage::S8 => "beyond the seeds",
        }
    }

    /// Its row of the kernel table (`reduce_kernels::table`), which says what is built.
    pub fn family(self) -> Family {
        match self {
            Stage::S1 => Family::S1,
            Stage::S2 => Family::S2,
            Stage::S3 => Family::S3,
            Stage::S4 => Family::S4,
            Stage::S5 => Family::S5,
            Stage::S6 => Family::S6,
            Stage::S7 => Family::S7,
            Stage::S8 => Family::S8,
        }
    }

    /// Element types with kernels (from the kernel table).
    pub fn types(self) -> &'static [ElemType] {
        static TYPES: OnceLock<Vec<Vec<ElemType>>> = OnceLock::new();
        &TYPES.get_or_init(|| {
            Stage::ALL
                .iter()
                .map(|s| {
                    let row = Row::of(s.family());
                    ElemType::ALL
                        .into_iter()
                        .filter(|t| row.types.contains(t))
                        .collect()
                })
                .collect()
        })[self as usize]
    }

    /// Operators it computes (from the kernel table; `mean`, a sum divided on the host, wherever
    /// the single-pass `sum` is built).
    pub fn ops(self) -> &'static [Op] {
        static OPS: OnceLock<Vec<Vec<Op>>> = OnceLock::new();
        &OPS.get_or_init(|| {
            Stage::ALL
                .iter()
                .map(|s| {
                    let row = Row::of(s.family());
                    Op::REDUCE
                        .into_iter()
                        .filter(|o| match o {
                            Op::Mean => row.abi == Abi::SinglePass && row.ops.contains(&Op::Sum),
                            Op::NanMean => {
                                row.abi == Abi::SinglePass
                                    && row.ops.contains(&Op::NanSum)
                                    && row.ops.contains(&Op::Count)
                            }
                            _ => row.ops.contains(o),
                        })
                        .collect()
                })
                .collect()
        })[self as usize]
    }

    /// Block sizes it accepts (from the kernel table).
    pub fn blocks(self) -> &'static [usize] {
        Row::of(self.family()).blocks
    }

    /// The block size used when none is given.
    pub fn default_block(self) -> usize {
        match self {
            Stage::S8 => 512,
            _ => 256,
        }
    }

    /// Does it read two elements per thread per step (first add during load)?
    pub fn two_per_thread(self) -> bool {
        matches!(self, Stage::S4 | Stage::S5 | Stage::S6 | Stage::S7)
    }

    /// Check `ty`, `op` and `block` against this stage's kernels.
    pub fn validate(self, ty: ElemType, op: Op, block: usize) -> Result<()> {
        ReduceError::check_op(op, &Op::REDUCE, "a reduce op")?;
        if ElemType::HALVES.contains(&ty) && self == Stage::S8 {
            // Built, in the S8Half family, with an f32 result: not this (same-type) API.
            return Err(ReduceError::HalfResultIsF32 { stage: self, ty });
        }
        if ElemType::HALVES.contains(&ty) {
            return Err(ReduceError::HalfNeedsTransform { stage: self, ty });
        }
        if !self.types().contains(&ty) {
            return Err(ReduceError::UnsupportedType { stage: self, ty });
        }
        if !self.ops().contains(&op) {
            return Err(ReduceError::UnsupportedOp { stage: self, op });
        }
        if !self.blocks().contains(&block) {
            let why = if !block.is_power_of_two() {
                "the tree halves the block each round, so it must be a power of two".to_string()
            } else if block < 32 {
                "a block must be at least one warp (32 threads)".to_string()
            } else if block > 1024 {
                "CUDA allows at most 1024 threads per block".to_string()
            } else {
                format!("this stage is built for {:?}", self.blocks())
            };
            return Err(ReduceError::InvalidBlockSize {
                stage: self,
                block,
                why,
            });
        }
        Ok(())
    }

    /// Every (type, operator, block size) it is built for, in that nesting order.
    pub fn configs(self) -> impl Iterator<Item = (ElemType, Op, usize)> {
        self.types().iter().flat_map(move |&ty| {
            self.ops()
                .iter()
                .flat_map(move |&op| self.blocks().iter().map(move |&block| (ty, op, block)))
        })
    }

    /// The kernel's typed identity for `ty`, `op` (the device's: `mean` runs `sum`), `block`.
    pub fn kernel(self, ty: ElemType, op: Op, block: usize) -> KernelId {
        KernelId {
            family: self.family(),
            ty,
            op: op.device_op(),
            block,
        }
    }

    /// Dynamic shared memory for one block.
    pub fn shared_bytes(self, ty: ElemType, block: usize) -> usize {
        match self {
            Stage::S8 => block / 32 * ty.size(),
            _ => block * ty.size(),
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stage {} ({})", self.number(), self.title())
    }
}
