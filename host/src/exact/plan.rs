//! The exact sum's launch plan: pure arithmetic, the tuning policy as data.

use crate::backend::DeviceCaps;
use crate::error::{ReduceError, Result};
use crate::plan::LaunchOverrides;
use crate::stage::Stage;
use crate::types::ElemType;
use reduce_kernels::exact::int_finish::int_shared_bytes;
use reduce_kernels::exact::kernel::{async_shared_bytes, words_bytes};
use reduce_kernels::exact::kernel::{MAX_GRID as MAX_EXACT_GRID, MAX_PER_BLOCK};
use reduce_kernels::exact::probe::STAMPS;
use reduce_kernels::exact::Format;
use reduce_kernels::table::{Family, KernelId, OpKind, Row, SINGLE_PASS_UNROLL};

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
    /// f32 inputs take the fast-path kernel ([`reduce_kernels::exact::kernel::sum_fast`]: one
    /// addition per element when it is exact, checked with two more). On by default: on the
    /// H200 it took 2^30 f32 from 1280 to 949 µs (97% of stage 8's plain sum) and was faster at
    /// every N from 2^12 up (`benches/results/h200-2026-11-30-s5/call2/exact/`).
    pub fast_f32: bool,
    /// f64 inputs take the fast-path kernel too. Off by default: 53-bit inputs rarely add
    /// exactly, and on the H200 it was 1.45× slower at 2^30 (2769 vs 1909 µs).
    pub fast_f64: bool,
    /// The block merge ([`reduce_kernels::exact::kernel::sum_merge`]): warp 0 merges the warps'
    /// expansions with shuffles and one thread adds the block's to the words, instead of one
    /// thread per warp with contended shared atomics (compare-and-swap loops on sm_90).
    pub block_merge: bool,
    /// The lean publish ([`reduce_kernels::exact::lean`]): no per-thread `fence.sc.gpu` after a
    /// block adds its words into the grid's, before the ticket (thread 0's release orders them),
    /// and each warp's expansion added inline. On by default since session 7: on the H200 it
    /// was never slower beyond noise and faster below 2^24 (min µs, lean / fenced: f32 2^20
    /// 8.8 / 9.3, 2^24 25.8 / 25.8; f64 2^20 10.2 / 11.1, 2^24 41.9 / 42.5; 2^12 6.6 / 6.7 and
    /// 7.4 / 7.6; `benches/results/h200-2026-12-01-s7/call1/exact/s7-exact.md`). Not with
    /// `block_merge` (whose kernels keep the fence: set `lean_finish=0` with it).
    pub lean_finish: bool,
    /// The streaming loop (with `lean_finish` only for 1 and 2):
    /// * 0: plain — a tile's four loads into registers, then its additions;
    /// * 1: the rolling loads ([`reduce_kernels::exact::lean::sum_lean_pipe`], the `*_lean_pipe`
    ///   kernels): the next tile's loads issued while the current tile is added. ptxas (sm_90):
    ///   88 registers (f64), 90 (f32 fast), 76 (f32 plain), so two 256-thread blocks per SM fit
    ///   (three for plain f32): pair it with `blocks_per_sm = 2`. Slower on the H200 (session 7);
    /// * 2: the async loop ([`reduce_kernels::exact::lean::sum_lean_async`], the `*_lean_async`
    ///   kernels): each thread copies its tiles with `cp.async` into a shared-memory ring three
    ///   tiles ahead — more bytes in flight at the plain loop's registers, for 48 KiB more
    ///   shared memory per 256-thread block ([`reduce_kernels::exact::kernel::async_shared_bytes`];
    ///   the launch opts in above 48 KiB). Slower for f32 on the H200 (2^24: 30.3 against
    ///   25.2 µs), level for f64 (session 15).
    pub pipeline: u8,
    /// The probe kernels (`reduce_kernels::exact::probe`): the default kernel (lean publish,
    /// plain loop, `fast_*` as set) with per-block phase stamps written after the grid's words
    /// ([`crate::exact::PreparedExact::stamps`]). A diagnostic; the same bits.
    pub probe: bool,
    /// The warp finish ([`reduce_kernels::exact::warp_finish`], the `*_warp` kernels): after
    /// the streaming, one block barrier, then warp 0 alone merges the warps' expansions,
    /// computes the block's words with shifts instead of contended 64-bit shared atomics, carries
    /// them by shuffles, publishes them and takes the ticket (with `lean_finish=1`,
    /// `block_merge=0`, `pipeline=0`; with `probe`, the stamped `*_warp_probe_r80` kernels).
    /// Slower on the H200 (f32 2^24: 26.9 against 25.6 µs; session 16).
    pub warp_finish: bool,
    /// The integer finish ([`reduce_kernels::exact::int_finish`], the `*_int` kernels): each
    /// warp's expansions cut into a window of 32-bit digits and summed with integer shuffles,
    /// one shared-memory slot per warp, then each word thread adds up its word — no float merges
    /// and no shared atomics (with `lean_finish=1`, `block_merge=0`, `pipeline=0` and not with
    /// `warp_finish`; with `probe`, the stamped `*_int_probe_r80` kernels). Slower on the H200
    /// (f32 2^24: 28.9 against 25.6 µs; session 16).
    pub int_finish: bool,
    /// The warm rounding ([`reduce_kernels::exact::warm`], the `*_warm` kernels; an
    /// experiment): warp 0 of every block but the last runs the rounding once on its own words,
    /// so that its code is warm in L2 when the last block needs it (with `lean_finish=1`,
    /// `block_merge=0`, `pipeline=0`, no other finish; with `probe`, `*_warm_probe_r80`).
    /// A small gain on the H200 (f32 2^24: 25.7 against 26.1 µs on the same path; session 16).
    pub warm_round: bool,
}

impl Default for ExactPolicy {
    fn default() -> Self {
        ExactPolicy {
            block: 256,
            blocks_per_sm: 3,
            min_tiles: 1,
            fast_f32: true,
            fast_f64: false,
            block_merge: false,
            lean_finish: true,
            pipeline: 0,
            probe: false,
            warp_finish: false,
            int_finish: false,
            warm_round: false,
        }
    }
}

impl ExactPolicy {
    /// The kernel family for `ty` under this policy.
    ///
    /// # Errors
    /// [`ReduceError::Policy`] for a combination no kernel is built for: `block_merge` with
    /// `lean_finish` or a `pipeline`, a `pipeline` without `lean_finish`, a `pipeline` above 2,
    /// `probe`, `warp_finish`, `int_finish` or `warm_round` with anything but the lean publish
    /// and the plain loop, two of the last three together.
    pub fn family(&self, ty: ElemType) -> Result<Family> {
        let fast = match ty {
            ElemType::F32 => self.fast_f32,
            ElemType::F64 => self.fast_f64,
            _ => false,
        };
        use Family::*;
        // The finishes built on the lean plain kernel: [plain, fast, plain probe, fast probe].
        if self.warm_round {
            let other = self.int_finish || self.warp_finish;
            let kinds = [ExactWarm, ExactFastWarm, ExactWarmProbe, ExactFastWarmProbe];
            return self.lean_variant("warm_round", other, fast, kinds);
        }
        if self.int_finish {
            let kinds = [ExactInt, ExactFastInt, ExactIntProbe, ExactFastIntProbe];
            return self.lean_variant("int_finish", self.warp_finish, fast, kinds);
        }
        if self.warp_finish {
            let kinds = [ExactWarp, ExactFastWarp, ExactWarpProbe, ExactFastWarpProbe];
            return self.lean_variant("warp_finish", false, fast, kinds);
        }
        if self.probe {
            return match (fast, self.block_merge, self.lean_finish, self.pipeline) {
                (false, false, true, 0) => Ok(ExactProbe),
                (true, false, true, 0) => Ok(ExactFastProbe),
                _ => Err(ReduceError::Policy {
                    key: "probe".into(),
                    why:
                        "the probe kernels are built with lean_finish=1, block_merge=0, pipeline=0"
                            .into(),
                }),
            };
        }
        Ok(
            match (fast, self.block_merge, self.lean_finish, self.pipeline) {
                (.., 3..) => {
                    return Err(ReduceError::Policy {
                        key: "pipeline".into(),
                        why: format!(
                            "{} is not a loop (0 plain, 1 rolling, 2 async)",
                            self.pipeline
                        ),
                    })
                }
                (false, true, false, 0) => ExactMerge,
                (true, true, false, 0) => ExactFastMerge,
                (_, true, ..) => {
                    return Err(ReduceError::Policy {
                        key: "block_merge".into(),
                        why: "the block-merge kernels are built with lean_finish=0 and pipeline=0"
                            .into(),
                    })
                }
                (_, false, false, 1..) => {
                    return Err(ReduceError::Policy {
                        key: "pipeline".into(),
                        why: "the rolling-load and async kernels are built with lean_finish=1"
                            .into(),
                    })
                }
                (false, false, false, 0) => Exact,
                (true, false, false, 0) => ExactFast,
                (false, false, true, 0) => ExactLean,
                (true, false, true, 0) => ExactFastLean,
                (false, false, true, 1) => ExactLeanPipe,
                (true, false, true, 1) => ExactFastLeanPipe,
                (false, false, true, 2) => ExactLeanAsync,
                (true, false, true, 2) => ExactFastLeanAsync,
            },
        )
    }
}

impl ExactPolicy {
    /// One of `kinds` (`[plain, fast, plain probe, fast probe]`), the kernels of the finish `key`,
    /// which are built on the lean publish and the plain loop only, or the typed error naming
    /// `key` when the rest of the policy (or `other`, another finish) asks for something else.
    fn lean_variant(
        &self,
        key: &str,
        other: bool,
        fast: bool,
        kinds: [Family; 4],
    ) -> Result<Family> {
        if other || self.block_merge || !self.lean_finish || self.pipeline != 0 {
            return Err(ReduceError::Policy {
                key: key.into(),
                why: format!(
                    "the {key} kernels are built with lean_finish=1, block_merge=0, pipeline=0 \
                     and no other finish"
                ),
            });
        }
        Ok(kinds[usize::from(fast) + 2 * usize::from(self.probe)])
    }
}

/// One exact-sum launch, checked.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ExactPlan {
    /// Element type (f32 or f64).
    pub ty: ElemType,
    /// Elements.
    pub n: usize,
    /// Kernel symbol (`reduce_exact_sum_b512_f32`).
    pub kernel: String,
    /// Blocks.
    pub grid: usize,
    /// Threads per block.
    pub block: usize,
    /// Dynamic shared memory bytes (`16 · (W + 4 + block / 32)`: the words, their carries and
    /// one expansion per warp; the async loop's ring after them).
    pub shared_bytes: usize,
    /// 64-bit words of shared memory per block and of the grid's words (`W + 4`).
    pub slots: usize,
    /// 64-bit words of workspace: `slots`, and a probe's 8 stamps per block after them.
    pub workspace: usize,
}

/// The blocks the exact kernels are built for.
pub fn exact_blocks() -> &'static [usize] {
    Row::of(Family::Exact).blocks
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
    let Some(format) = Format::of(ty.kind()) else {
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
            .clamp(1, caps.sm_count * policy.blocks_per_sm)
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
        family: policy.family(ty)?,
        ty: ty.kind(),
        op: OpKind::Sum,
        block,
    };
    Ok(ExactPlan {
        ty,
        n,
        kernel: id.symbol().to_string(),
        grid,
        block,
        shared_bytes: if policy.pipeline == 2 {
            async_shared_bytes(format.slots(), block)
        } else if policy.int_finish {
            int_shared_bytes(format.slots(), block)
        } else {
            words_bytes(format.slots(), block)
        },
        slots: format.slots(),
        workspace: format.slots() + if policy.probe { STAMPS * grid } else { 0 },
    })
}
