//! [`ArgPolicy`]: the launch shape and kernel of an arg-reduction, and the measured default per
//! type and size ([`ArgPolicy::tuned`]).

use crate::error::{ReduceError, Result};
use crate::types::ElemType;
use reduce_kernels::argreduce::DEEP_UNROLL;
use reduce_kernels::primitives::DEFAULT_POLICY;
use reduce_kernels::table::Family;

/// Up to this many `f32` elements [`ArgPolicy::tuned`] keeps the default shape (2^16).
pub const TUNED_SMALL: usize = 1 << 16;
/// From this many elements [`ArgPolicy::tuned`] takes its large-input shapes (2^23): for `f32`
/// the 512-thread, 2-blocks-per-SM one, for `f64` the lane found in the loop.
pub const TUNED_LARGE: usize = 1 << 23;

/// The launch shape of an arg-reduction: threads per block (a built variant: 256 or 512),
/// resident blocks per SM the grid is sized for (`sm_count * blocks_per_sm` blocks at most), and
/// which kernel: loads in flight per thread (`unroll`, 4 or 8) and where the winning lane is found
/// (`lane`: re-loaded after the loop, or in the loop) — the loops of
/// `reduce_kernels::argreduce::reduce_lean`'s module docs, built for `f32` and `f64`; the blocks'
/// items are combined by a per-block ticket. Text form: `block=256,bps=4,unroll=8,lane=loop` (any
/// key may be left out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgPolicy {
    /// Threads per block: 256 or 512 (the kernel table's built variants).
    pub block: usize,
    /// Blocks per SM in the grid, 1..=32.
    pub blocks_per_sm: usize,
    /// 16-byte loads in flight per thread: 4 (every type) or 8 (`f32`, `f64`).
    pub unroll: usize,
    /// The winning lane is found in the loop, when the best changes (`f32`, `f64`), instead of
    /// by re-loading the winning vector after it.
    pub lane_in_loop: bool,
}

impl Default for ArgPolicy {
    /// 256 threads, 4 blocks per SM, 4 loads in flight, the lane re-loaded ([`DEFAULT_POLICY`]).
    fn default() -> Self {
        ArgPolicy {
            block: DEFAULT_POLICY.block,
            blocks_per_sm: DEFAULT_POLICY.blocks_per_sm,
            unroll: DEFAULT_POLICY.unroll,
            lane_in_loop: false,
        }
    }
}

impl ArgPolicy {
    /// The block sizes built into the kernel table.
    pub const BLOCKS: [usize; 2] = [256, 512];
    /// The default with the `key=value` settings of `text` applied (`block`, `bps`); a bad key or
    /// value is [`ReduceError::Policy`] naming it.
    pub fn parse(text: &str) -> Result<Self> {
        use crate::policy_settings::{pairs, size};
        let mut p = ArgPolicy::default();
        for (key, value) in pairs(text)? {
            match key {
                "block" => {
                    let b = size(key, value, 32, 1024)?;
                    if !Self::BLOCKS.contains(&b) {
                        return Err(ReduceError::Policy {
                            key: key.into(),
                            why: format!("{b} is not a built block size (256 or 512)"),
                        });
                    }
                    p.block = b;
                }
                "bps" | "blocks_per_sm" => p.blocks_per_sm = size(key, value, 1, 32)?,
                "unroll" => {
                    p.unroll = size(key, value, 1, 64)?;
                    if p.unroll != DEFAULT_POLICY.unroll && p.unroll != DEEP_UNROLL {
                        return Err(ReduceError::Policy {
                            key: key.into(),
                            why: format!("{} is not a built unroll (4 or 8)", p.unroll),
                        });
                    }
                }
                "lane" => {
                    p.lane_in_loop = match value {
                        "reload" => false,
                        "loop" => true,
                        _ => {
                            return Err(ReduceError::Policy {
                                key: key.into(),
                                why: format!("`{value}` is not `reload` or `loop`"),
                            })
                        }
                    }
                }
                _ => {
                    return Err(ReduceError::Policy {
                        key: key.into(),
                        why: "not a key of the arg policy (block, bps, unroll, lane)".into(),
                    })
                }
            }
        }
        Ok(p)
    }
    /// `block=…,bps=…`, then `,unroll=8` and `,lane=loop` where they differ from the default
    /// (what [`ArgPolicy::parse`] reads back).
    pub fn text(&self) -> String {
        let mut t = format!("block={},bps={}", self.block, self.blocks_per_sm);
        if self.unroll != DEFAULT_POLICY.unroll {
            t += &format!(",unroll={}", self.unroll);
        }
        if self.lane_in_loop {
            t += ",lane=loop";
        }
        t
    }
    /// The measured default for `n` elements of `ty` (what [`PreparedArg::new`](super::PreparedArg::new) and `reduce arg`
    /// without `--policy` launch). H200, min of 50 CUDA-event runs, argmax and argmin alike
    /// (`benches/results/h200-2026-12-01-candidates/call1/arg/s7-arg.md`):
    ///
    /// * `f32`: up to 2^16 the default shape (2^12: 7.7 µs, `unroll=8` 7.8); below 2^23
    ///   `unroll=8` (2^20: 11.1 µs against the default's 11.9); from 2^23
    ///   `block=512,bps=2,unroll=8,lane=loop` (2^26: 74.7 µs against 77.8; 2^30: 951.5 against
    ///   970.9);
    /// * `f64`: below 2^23 `unroll=8` (2^12: 7.3 µs against 10.2; 2^20: 12.6 against 14.8); from
    ///   2^23 `lane=loop` on the default shape (a later run, 2^26 beside CUB ArgMax's
    ///   131.7–132.4 µs: 129.6 µs against 131.2–132.5 for the default shape, 130.9 for
    ///   `block=512,bps=2` and 133.9 for the first run's `block=512,bps=2,unroll=8`, which had
    ///   measured 136.3 against the lean form's 135.6 and the default's 136.9 in that first run —
    ///   all within 3%, so this is the fastest measured, not a wide margin:
    ///   `benches/results/h200-2026-12-02-tiled/call1/s11-probe/arg64.md`);
    /// * every other type: the default shape (the candidates are built for `f32` and `f64` only).
    ///
    /// Only 2^12, 2^20, 2^26 and 2^30 were measured: the switches at 2^16 and 2^23 lie between
    /// two measured sizes (geometric middles), not at a measured crossover.
    pub fn tuned(ty: ElemType, n: usize) -> ArgPolicy {
        let deep = ArgPolicy {
            unroll: DEEP_UNROLL,
            ..ArgPolicy::default()
        };
        let wide = ArgPolicy {
            block: 512,
            blocks_per_sm: 2,
            ..deep
        };
        match ty {
            ElemType::F32 if n <= TUNED_SMALL => ArgPolicy::default(),
            ElemType::F32 if n < TUNED_LARGE => deep,
            ElemType::F32 => ArgPolicy {
                lane_in_loop: true,
                ..wide
            },
            ElemType::F64 if n < TUNED_LARGE => deep,
            ElemType::F64 => ArgPolicy {
                lane_in_loop: true,
                ..ArgPolicy::default()
            },
            _ => ArgPolicy::default(),
        }
    }
    /// The kernel family this policy launches.
    pub fn family(&self) -> Family {
        match (self.unroll == DEEP_UNROLL, self.lane_in_loop) {
            (false, false) => Family::ArgReduce,
            (true, false) => Family::ArgReduceU8,
            (false, true) => Family::ArgReduceLean,
            (true, true) => Family::ArgReduceLean8,
        }
    }
}
