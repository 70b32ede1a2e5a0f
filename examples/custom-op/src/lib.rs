//! # Your own operator on the device primitives
//!
//! A user's `no_std` crate that reduces with its **own item type and combine function**, using
//! `reduce_kernels::primitives` (warp → block → device) exactly as the library's argmin/argmax
//! do, and exports its own `#[no_mangle]` PTX entry points:
//!
//! * [`custom_minmaxabs_f32`]: `(min, max, max |x|)` of `f32`s — a three-field struct item;
//! * [`custom_maxabs_f64`]: `max |x|` of `f64`s — a scalar item with its own combine.
//!
//! Build the PTX (and an sm_90 cubin when `ptxas` is found) with
//! `cargo xtask build-ptx --crate examples/custom-op` → `target/ptx/custom_op.ptx`, and launch it
//! with `reduce_host::CustomReduction` (see `host/examples/custom_op.rs`). On the host the same
//! functions run on the CPU emulator (`host/tests/custom_op.rs`).
//!
//! Floats follow IEEE `minNum`/`maxNum` here (Rust's `f32::min`/`max`): a NaN is ignored. That is
//! this operator's choice; the combine is whatever the user writes.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use reduce_kernels::gpu::{Global, GlobalMut};
use reduce_kernels::primitives::device::{self, item_pass, Workspace};
use reduce_kernels::primitives::{Combine, Item, Words, DEFAULT_POLICY, MAX_WORDS};

/// Threads per block of this crate's kernels (the host passes it to `CustomKernel::block`).
pub const BLOCK: usize = DEFAULT_POLICY.block;
/// Loads in flight per thread.
const UNROLL: usize = DEFAULT_POLICY.unroll;

/// `(min, max, max |x|)` of a set of `f32`s: three words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MinMaxAbs {
    /// Smallest value (`+inf` for none).
    pub min: f32,
    /// Largest value (`-inf` for none).
    pub max: f32,
    /// Largest magnitude (`0` for none).
    pub max_abs: f32,
}

impl MinMaxAbs {
    /// One element's item.
    #[inline(always)]
    pub fn of(x: f32) -> Self {
        MinMaxAbs {
            min: x,
            max: x,
            max_abs: x.abs(),
        }
    }
}

impl Item for MinMaxAbs {
    const WORDS: usize = 3;
    #[inline(always)]
    fn to_words(self) -> Words {
        let mut w = [0u32; MAX_WORDS];
        w[0] = self.min.to_bits();
        w[1] = self.max.to_bits();
        w[2] = self.max_abs.to_bits();
        w
    }
    #[inline(always)]
    fn from_words(w: &Words) -> Self {
        MinMaxAbs {
            min: f32::from_bits(w[0]),
            max: f32::from_bits(w[1]),
            max_abs: f32::from_bits(w[2]),
        }
    }
}

/// The combine of [`MinMaxAbs`].
pub struct MinMaxAbsOp;

impl Combine for MinMaxAbsOp {
    type Item = MinMaxAbs;
    #[inline(always)]
    fn identity() -> MinMaxAbs {
        MinMaxAbs {
            min: f32::INFINITY,
            max: f32::NEG_INFINITY,
            max_abs: 0.0,
        }
    }
    #[inline(always)]
    fn combine(a: MinMaxAbs, b: MinMaxAbs) -> MinMaxAbs {
        MinMaxAbs {
            min: a.min.min(b.min),
            max: a.max.max(b.max),
            max_abs: a.max_abs.max(b.max_abs),
        }
    }
}

/// `max |x|` of `f64`s (the identity is 0).
pub struct MaxAbs64;

impl Combine for MaxAbs64 {
    type Item = f64;
    #[inline(always)]
    fn identity() -> f64 {
        0.0
    }
    #[inline(always)]
    fn combine(a: f64, b: f64) -> f64 {
        a.max(b)
    }
}

fn minmaxabs_body(input: Global<f32>, ws: Workspace, out: GlobalMut<u32>) {
    device::reduce::<MinMaxAbsOp, BLOCK, UNROLL>(
        input.len(),
        |i| MinMaxAbs::of(input.get(i)), // checked load: `i < n` is the primitive's promise
        MinMaxAbsOp::identity(),
        ws,
        out,
    )
}

fn maxabs_body(input: Global<f64>, ws: Workspace, out: GlobalMut<u32>) {
    device::reduce::<MaxAbs64, BLOCK, UNROLL>(
        input.len(),
        |i| input.get(i).abs(),
        MaxAbs64::identity(),
        ws,
        out,
    )
}

/// `(min, max, max |x|)` of `n` `f32`s: the item ABI
/// (`reduce_kernels::primitives::device::item_pass`) with [`MinMaxAbs`] items and `BLOCK`
/// threads. Exported to PTX as `custom_minmaxabs_f32`; the emulator calls this function.
///
/// # Safety
/// `item_pass`'s contract with `I = MinMaxAbs`.
pub unsafe fn custom_minmaxabs_f32(
    input: *const f32,
    n: usize,
    partials: *mut u32,
    counter: *mut u32,
    out: *mut u32,
) {
    // SAFETY: this function's contract.
    unsafe { item_pass::<f32, MinMaxAbs>(minmaxabs_body, input, n, partials, counter, out) }
}

/// `max |x|` of `n` `f64`s: the item ABI with `f64` items. Exported as `custom_maxabs_f64`.
///
/// # Safety
/// `item_pass`'s contract with `I = f64`.
pub unsafe fn custom_maxabs_f64(
    input: *const f64,
    n: usize,
    partials: *mut u32,
    counter: *mut u32,
    out: *mut u32,
) {
    // SAFETY: this function's contract.
    unsafe { item_pass::<f64, f64>(maxabs_body, input, n, partials, counter, out) }
}

/// The PTX entry points: the functions above under the same names.
#[cfg(target_arch = "nvptx64")]
mod ptx {
    /// # Safety
    /// [`super::custom_minmaxabs_f32`]'s.
    #[no_mangle]
    pub unsafe extern "ptx-kernel" fn custom_minmaxabs_f32(
        input: *const f32,
        n: usize,
        partials: *mut u32,
        counter: *mut u32,
        out: *mut u32,
    ) {
        // SAFETY: the entry point's contract is the function's.
        unsafe { super::custom_minmaxabs_f32(input, n, partials, counter, out) }
    }

    /// # Safety
    /// [`super::custom_maxabs_f64`]'s.
    #[no_mangle]
    pub unsafe extern "ptx-kernel" fn custom_maxabs_f64(
        input: *const f64,
        n: usize,
        partials: *mut u32,
        counter: *mut u32,
        out: *mut u32,
    ) {
        // SAFETY: as above.
        unsafe { super::custom_maxabs_f64(input, n, partials, counter, out) }
    }
}
