//! # Transform-reduce in one pass: norms, dot products, mean and variance
//!
//! CUB's `DeviceReduce::TransformReduce` and PyTorch's `linalg.vector_norm`, `dot` and `var`
//! apply a function to every element (or pair of elements) and reduce the results. Done naively
//! that is two passes over memory — write `x²` to a temporary, then sum it — which reads and
//! writes the data three times. Here the transform happens **in registers, between the load and
//! the accumulate**, so each op reads its input exactly once, with stage 8's machinery
//! ([`one_pass`]): 16-byte loads, several in flight per thread, one launch, a deterministic
//! last-block combine.
//!
//! | op | file | accumulator | result |
//! |---|---|---|---|
//! | `sumsq` Σx², L2 norm √Σx² | [`norms`] | `f64` sum ([`F64Sum`]) | `f64` |
//! | `l1` Σ\|x\| | [`norms`] | `f64` sum | `f64` |
//! | `dot` Σxᵢyᵢ (two inputs) | [`dot`] | `f64` sum | `f64` |
//! | `moments` count, mean, M2 | [`moments`] | Welford / Chan triple ([`Welford`]); `f16`/`bf16` over more than one tile: sums about one grid-wide shift ([`grid_shift`]) | 3 × `f64` |
//! | `total` Σx (the sum of `f16`/`bf16` inputs) | [`norms`] | `f64` sum | `f64` |
//!
//! Inputs are `f32`, `f64`, and the 2-byte [`crate::half::F16`] / [`crate::half::Bf16`]: a
//! 16-byte load brings 8 halves, each widened exactly (see [`crate::half`]).
//!
//! Every op is two small functions — [`TransformOp::item`] (one element → an accumulator) and
//! [`Accumulator::merge`] (combine two accumulators) — and the driver in [`one_pass`] does the
//! rest: that is what [`accumulate`] means by "the per-item combine is one function".
//!
//! **Why accumulate in `f64`.** For `f32` inputs the accumulator is `f64`: each term is exact
//! (the square of an `f32` fits an `f64` exactly), so nothing overflows or underflows — `f32::MAX²
//! ≈ 1.2e77` and the smallest subnormal squared `≈ 2e-90` are both far inside `f64`'s range — and
//! the sum carries 29 more bits than the data. The costs: one `cvt.f64.f32` per element and
//! double-precision adds, which the H200 does at ~34 TFLOP/s, far more than the ~1.2 × 10¹² `f32`
//! elements per second its memory delivers. `f64` inputs accumulate in `f64` too (no wider type
//! is cheap), so an `f64` L2 norm overflows once Σx² exceeds `f64::MAX` (|x| ≳ 1.3e154), as
//! NumPy's does.
//!
//! Results always come back as `f64` (three words: see [`Accumulator`]).

pub mod accumulate;
pub mod dot;
pub mod grid_shift;
pub mod moment_tiles;
pub mod moments;
pub mod norms;
pub mod one_pass;
mod tile;

pub use accumulate::{Accumulator, F64Sum, F64SumCount, TransformOp, Widened};
pub use dot::Dot;
pub use grid_shift::GridMoments;
pub use moments::{Moments, Welford};
pub use norms::{NanTotal, SumSq, Total, L1};

use crate::gpu::{Coherent, Counter, Global, GlobalMut};
use crate::vocabulary::ElemType;
use crate::Element;

/// Words of `f64` one block's partial (and the result) takes: the widest accumulator's.
pub const WORDS: usize = 3;

/// `x` as an `f64` (exact for every `f32`, `f64`, `i32`, `u32`, `f16`, `bf16`; nearest for
/// 64-bit integers).
/// `T::TYPE` is a constant, so this folds to one conversion.
#[inline(always)]
pub fn to_f64<T: Element>(x: T) -> f64 {
    let bits = x.to_bits64();
    match T::TYPE {
        ElemType::F32 => f32::from_bits(bits as u32) as f64,
        ElemType::F64 => f64::from_bits(bits),
        ElemType::I32 => bits as u32 as i32 as f64,
        ElemType::U32 => bits as u32 as f64,
        ElemType::I64 => bits as i64 as f64,
        ElemType::U64 => bits as f64,
        ElemType::F16 => crate::half::f16_bits_to_f32(bits as u16) as f64,
        ElemType::BF16 => crate::half::bf16_bits_to_f32(bits as u16) as f64,
    }
}

/// The transform ABI (`Abi::Transform` in [`crate::table`]) → safe views:
/// `(const T* a, const T* b, size_t n, double* partials, unsigned* counter, double* out)`.
///
/// # Safety
/// `a` holds `n` elements; `b` holds `n` elements or is null (one-input ops: the kernel then sees
/// it empty); `partials` holds `3 * gridDim.x` doubles (unused with one block); `counter` is a
/// zeroed `u32`; `out` holds 3 doubles. Nothing writes `a` or `b` during the launch.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn entry<T: Element>(
    body: impl Fn(Global<T>, Global<T>, Coherent<f64>, Counter, GlobalMut<f64>),
    a: *const T,
    b: *const T,
    n: usize,
    partials: *mut f64,
    counter: *mut u32,
    out: *mut f64,
) {
    let b = if b.is_null() {
        // SAFETY: no element: a dangling, aligned pointer is never read.
        unsafe { Global::from_raw(core::ptr::NonNull::<T>::dangling().as_ptr(), 0) }
    } else {
        // SAFETY: the caller's contract: `n` elements.
        unsafe { Global::from_raw(b, n) }
    };
    // SAFETY: the caller's contract: `n` input elements, `3 * gridDim.x` partials (written by
    // each block, read by the last, only through `Coherent`), a counter only used atomically,
    // three result words.
    let (a, partials, counter, out) = unsafe {
        (
            Global::from_raw(a, n),
            Coherent::from_raw(partials, WORDS * crate::gpu::grid_dim() as usize),
            Counter::from_raw(counter),
            GlobalMut::from_raw(out, WORDS),
        )
    };
    body(a, b, partials, counter, out)
}

#[cfg(test)]
mod tests;
