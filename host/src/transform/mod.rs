//! # Transform-reduce in one pass: norms, dot products, mean and variance
//!
//! The host side of `reduce_kernels::transform`: Σx², Σ|x|, the L2 norm, the dot product of two
//! equal-length vectors, and count / mean / variance / standard deviation — each **one launch
//! that reads its input once**, for `f32` and `f64` inputs, accumulated and returned in `f64`.
//!
//! * [`Op::TRANSFORM`](crate::Op::TRANSFORM) — which op; [`plan_transform`] (and [`plan_transform_on`], which asks the
//!   driver how many blocks an SM holds) / [`TransformPlan`] — the launch (stage 8's
//!   policy: block, grid, shared memory) and the error-bound depth;
//! * [`PreparedTransform`] — a plan with its workspace, run as often as wanted (what the
//!   benchmarks time);
//! * [`Moments`] — count, mean, M2 and what follows from them (population and sample variance,
//!   standard deviations);
//! * the [`crate::Reducer`] methods in [`api`]: `sumsq`, `l1`, `norm2`, `dot`, `moments`, `var`,
//!   `std`, each over a buffer or a [`crate::View`] of one;
//! * [`reference`](mod@reference) — the CPU references they are tested against (compensated and two-pass).
//!
//! Semantics (`docs/semantics.md`, "Norms, dot products, mean and variance"): empty input
//! gives 0 for the sums and norms, an error for moments; `var`/`std` with `n ≤ ddof` is
//! [`crate::ReduceError::TooFewElements`] (NumPy returns NaN with a warning; a library has no
//! warnings, so it says so in the type); NaN or ±inf in the input gives NaN variance.

pub mod api;
pub mod moments;
pub mod plan;
pub mod prepared;
pub mod reference;

pub use moments::Moments;
pub use plan::{
    plan_transform, plan_transform_looped_on, plan_transform_on, TransformLoop, TransformPlan,
};
pub use prepared::PreparedTransform;
