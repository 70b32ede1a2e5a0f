//! # Dot product of two equal-length vectors
//!
//! Σ aᵢ·bᵢ, reading both inputs once: each thread issues the same 16-byte loads on `a` and on
//! `b` (twice the bytes in flight of a one-input op, the same code). Products of `f32` pairs are
//! exact in `f64`, so an `f32` dot product has only the `f64` sum's rounding (relative to Σ|aᵢbᵢ|,
//! as for any sum with cancellation).
//!
//! Both inputs must have the same length (the kernel traps otherwise; the host checks first and
//! returns a typed error). When `a` and `b` start at different offsets from a 16-byte boundary
//! (sub-slices), their vectors do not line up: then every thread reads element by element, grid
//! stride — correct, slower, and never taken for whole buffers (allocations are 256-byte aligned).

use super::accumulate::{F64Sum, Merged, TransformOp};

/// Σ aᵢ·bᵢ.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dot;

impl TransformOp for Dot {
    type Acc = F64Sum;
    type Run = Merged<F64Sum>;
    const TWO_INPUTS: bool = true;
    #[inline(always)]
    fn item(a: f64, b: f64) -> F64Sum {
        F64Sum(a * b)
    }
}
