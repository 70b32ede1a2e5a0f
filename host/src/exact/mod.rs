//! Exact sums: the correctly rounded sum of `f32`/`f64` data, bit-identical for every launch
//! (the kernels: `reduce_kernels::exact`; `docs/exact.md`).
//!
//! * [`reference`](mod@reference) — the host's exact accumulator ([`ExactSum`], [`exact_sum`]), an independent
//!   implementation the kernels are tested against;
//! * [`data`] — adversarial inputs ([`ExactData`]: cancellation, binades, subnormals, ties, …);
//! * [`plan`] — the launch plan and its policy ([`ExactPlan`], [`ExactPolicy`]);
//! * [`settings`] — [`ExactPolicy`] from `key=value` text (`reduce exact --policy`);
//! * [`prepared`] — [`PreparedExact`], the plan with its workspace (the one place that launches
//!   the exact kernels);
//! * [`repro`] — the reproducibility matrix (grids × blocks × input splits);
//! * [`api`] — [`crate::Reducer::sum_exact`], [`crate::Reducer::mean_exact`];
//! * [`words`] — across ranks: the words-out and combine launches ([`PreparedExactWords`],
//!   [`ExactCombine`]) behind `crate::MultiReducer::exact_sum`.

pub mod api;
pub mod data;
pub mod plan;
pub mod prepared;
pub mod reference;
pub mod repro;
pub mod settings;
pub mod words;

pub use data::{generate, ExactData, SplitMix};
pub use plan::{exact_blocks, exact_plan, ExactPlan, ExactPolicy};
pub use prepared::PreparedExact;
pub use reference::{exact_mean, exact_sum, exact_sum_parallel, ExactFloat, ExactSum};
pub use repro::{repro_grids, repro_matrix, repro_matrix_with, repro_variants, ReproCell};
pub use words::{words_len, ExactCombine, PreparedExactWords, MAX_EXACT_RANKS};

/// Distance in units in the last place between `got` and the correctly rounded `exact`, counted
/// as the number of representable values between them (0 = identical bits or both NaN; `u64::MAX`
/// when exactly one is NaN).
pub fn ulps<T: ExactFloat>(got: T, exact: T) -> u64 {
    let (g, e) = (got.to_f64(), exact.to_f64());
    if g.is_nan() || e.is_nan() {
        return if g.is_nan() && e.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    // Order-preserving map of the bits onto integers (two's-complement trick).
    let key = |x: T| -> i128 {
        let b = x.to_bits64() as i128;
        let sign = 1i128 << (T::TYPE.size() * 8 - 1);
        if b & sign != 0 {
            -(b & (sign - 1))
        } else {
            b
        }
    };
    key(got).abs_diff(key(exact)) as u64
}
