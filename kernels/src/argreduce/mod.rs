//! # ArgMin / ArgMax: the index and value of the smallest / largest element
//!
//! What: an `(index, value)` item ([`ArgItem`]) reduced with the device primitives
//! ([`crate::primitives::device::reduce`]); the input is read as stage 8 reads it, in 16-byte
//! vectors (4 × 32-bit or 2 × 64-bit elements; a misaligned head and a short tail one element at a
//! time), each vector reduced to one item in registers before it meets the combine.
//!
//! Semantics, those of NumPy's `argmin`/`argmax` (and PyTorch's):
//! * **first occurrence**: of equal values the lowest index wins (`-0.0 == 0.0`, so they tie);
//! * **NaN wins**: if the input holds a NaN, the result is the index of the first NaN (for both
//!   argmin and argmax, as NumPy: a NaN compares as "more extreme" than any number);
//! * an empty input has no argmin: the host reports it as an error before launching.
//!
//! The combine is a total preorder with the index as the tie-break, so it is associative and
//! commutative: any split of the work gives the same answer, and the answer is deterministic.
//!
//! Why it is fast: the comparisons are a few instructions per element against 4 bytes of HBM
//! traffic, so the kernel runs at the loads' speed; the item (`u64` index + value) costs 3 or 4
//! shuffles per warp step, once per block. What it costs beyond a plain max: the index (a 64-bit
//! add and select per element) and twice or three times the registers for the running item.

use crate::gpu::{Global, GlobalMut, Vec4};
use crate::primitives::device::{self, item_pass, Workspace};
use crate::primitives::{Combine, Item, Words, MAX_WORDS};
use crate::table::ElemKind;
use crate::Element;
use core::marker::PhantomData;

/// Loads in flight per thread (16-byte vectors) in the argmin/argmax kernels.
pub const UNROLL: usize = crate::primitives::DEFAULT_POLICY.unroll;

/// The index that marks the identity (no element yet); no input reaches it.
pub const NO_INDEX: u64 = u64::MAX;

/// An element and its index. `index == NO_INDEX` is the identity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArgItem<T> {
    /// Position in the input.
    pub index: u64,
    /// The element there.
    pub value: T,
}

impl<T: Element> Item for ArgItem<T> {
    /// The index (2 words), then the value (1 or 2).
    const WORDS: usize = 2 + core::mem::size_of::<T>() / 4;
    #[inline(always)]
    fn to_words(self) -> Words {
        let bits = self.value.to_bits64();
        let mut w = [0u32; MAX_WORDS];
        w[0] = self.index as u32;
        w[1] = (self.index >> 32) as u32;
        w[2] = bits as u32;
        w[3] = (bits >> 32) as u32; // 0 for a 4-byte value
        w
    }
    #[inline(always)]
    fn from_words(w: &Words) -> Self {
        let bits = if Self::WORDS == 4 {
            w[2] as u64 | ((w[3] as u64) << 32)
        } else {
            w[2] as u64
        };
        ArgItem {
            index: w[0] as u64 | ((w[1] as u64) << 32),
            value: T::from_bits64(bits),
        }
    }
}

/// Which end an arg-reduction looks for.
pub trait Direction: 'static {
    /// Name in kernel symbols and messages (`argmin`).
    const NAME: &'static str;
    /// Larger is better (argmax), or smaller (argmin).
    const LARGEST: bool;
}

/// The smallest element.
pub struct ArgMin;
/// The largest element.
pub struct ArgMax;

impl Direction for ArgMin {
    const NAME: &'static str = "argmin";
    const LARGEST: bool = false;
}
impl Direction for ArgMax {
    const NAME: &'static str = "argmax";
    const LARGEST: bool = true;
}

/// `v` is a NaN (never, for integers: the test folds away).
#[inline(always)]
#[allow(clippy::eq_op)] // `v != v` is the NaN test
fn is_nan<T: Element>(v: T) -> bool {
    matches!(T::KIND, ElemKind::F32 | ElemKind::F64) && v != v
}

/// `a > b` (argmax) or `a < b` (argmin) in `T`'s own order: one `setp` on the bits as `T` (the
/// casts are free); false if either is a NaN, and `-0.0` and `0.0` are equal.
#[inline(always)]
fn better<T: Element, D: Direction>(a: T, b: T) -> bool {
    let (x, y) = (a.to_bits64(), b.to_bits64());
    macro_rules! cmp {
        ($t:ty, $conv:expr) => {{
            let (a, b): ($t, $t) = ($conv(x), $conv(y));
            if D::LARGEST {
                a > b
            } else {
                a < b
            }
        }};
    }
    match T::KIND {
        ElemKind::F32 => cmp!(f32, |v: u64| f32::from_bits(v as u32)),
        ElemKind::F64 => cmp!(f64, f64::from_bits),
        ElemKind::I32 => cmp!(i32, |v: u64| v as u32 as i32),
        ElemKind::U32 => cmp!(u32, |v: u64| v as u32),
        ElemKind::I64 => cmp!(i64, |v: u64| v as i64),
        ElemKind::U64 => cmp!(u64, |v: u64| v),
        ElemKind::F16 => cmp!(f32, |v: u64| crate::half::f16_bits_to_f32(v as u16)),
        ElemKind::BF16 => cmp!(f32, |v: u64| crate::half::bf16_bits_to_f32(v as u16)),
    }
}

/// `b`, a later element than `a`, replaces it: it is a NaN and `a` is not, or it is strictly
/// better (the first occurrence keeps ties).
#[inline(always)]
fn later_wins<T: Element, D: Direction>(a: T, b: T) -> bool {
    (is_nan(b) && !is_nan(a)) || better::<T, D>(b, a)
}

/// The worst value in direction `D` (the identity's value): nothing is worse, and the identity's
/// index ([`NO_INDEX`]) loses every tie.
#[inline(always)]
fn worst<T: Element, D: Direction>() -> T {
    let bits: u64 = match (T::KIND, D::LARGEST) {
        (ElemKind::F32, true) => f32::NEG_INFINITY.to_bits() as u64,
        (ElemKind::F32, false) => f32::INFINITY.to_bits() as u64,
        (ElemKind::F64, true) => f64::NEG_INFINITY.to_bits(),
        (ElemKind::F64, false) => f64::INFINITY.to_bits(),
        (ElemKind::I32, true) => i32::MIN as u32 as u64,
        (ElemKind::I32, false) => i32::MAX as u64,
        (ElemKind::I64, true) => i64::MIN as u64,
        (ElemKind::I64, false) => i64::MAX as u64,
        (ElemKind::U32, true) | (ElemKind::U64, true) => 0,
        (ElemKind::U32, false) => u32::MAX as u64,
        (ElemKind::U64, false) => u64::MAX,
        (ElemKind::F16, true) => 0xfc00,
        (ElemKind::F16, false) => 0x7c00,
        (ElemKind::BF16, true) => 0xff80,
        (ElemKind::BF16, false) => 0x7f80,
    };
    T::from_bits64(bits)
}

/// The [`Combine`] of an arg-reduction over `T` in direction `D`.
pub struct Arg<T, D>(PhantomData<(T, D)>);

impl<T: Element, D: Direction> Combine for Arg<T, D> {
    type Item = ArgItem<T>;
    #[inline(always)]
    fn identity() -> ArgItem<T> {
        ArgItem {
            index: NO_INDEX,
            value: worst::<T, D>(),
        }
    }
    /// `a` wins if it is a NaN and `b` is not, if it is strictly better, or if they tie (equal,
    /// or both NaN) and its index is lower. That is a total preorder on (NaN first, value, index):
    /// associative and commutative, so the order of the work does not matter.
    #[inline(always)]
    #[allow(clippy::eq_op)]
    fn combine(a: ArgItem<T>, b: ArgItem<T>) -> ArgItem<T> {
        let (an, bn) = (is_nan(a.value), is_nan(b.value));
        let tie = (an && bn) || a.value == b.value;
        let a_wins = (an && !bn) || better::<T, D>(a.value, b.value) || (tie && a.index < b.index);
        if a_wins {
            a
        } else {
            b
        }
    }
}

/// The best of the elements packed in one 16-byte vector whose first element is `first`.
#[inline(always)]
fn vector_item<T: Element, D: Direction>(v: Vec4, first: u64) -> ArgItem<T> {
    let w = v.0;
    let at = |k: usize| -> ArgItem<T> {
        let value = if core::mem::size_of::<T>() == 4 {
            T::from_bits64(w[k] as u64)
        } else {
            T::from_bits64(w[2 * k] as u64 | ((w[2 * k + 1] as u64) << 32))
        };
        ArgItem {
            index: first + k as u64,
            value,
        }
    };
    // The lanes are in index order: a later lane replaces the best so far only if it wins
    // outright (no index compare needed).
    let pick = |a: ArgItem<T>, b: ArgItem<T>| {
        if later_wins::<T, D>(a.value, b.value) {
            b
        } else {
            a
        }
    };
    if core::mem::size_of::<T>() == 4 {
        pick(pick(pick(at(0), at(1)), at(2)), at(3))
    } else {
        pick(at(0), at(1))
    }
}

/// Argmin/argmax of `input` into `out` (an [`ArgItem`] as words), in one launch of `BLOCK`
/// threads (see [`device::reduce`] for the launch contract). An empty input writes the identity
/// (`index == NO_INDEX`), which the host never asks for.
pub fn reduce<T: Element, D: Direction, const BLOCK: usize>(
    input: Global<T>,
    ws: Workspace,
    out: GlobalMut<u32>,
) {
    let n = input.len();
    let lanes = 16 / core::mem::size_of::<T>();
    let head = input.misaligned_head();
    let vectors = (n - head) / lanes;
    let body_end = head + vectors * lanes;
    // The elements outside whole vectors (before the first 16-byte boundary, after the last whole
    // vector: fewer than `2 * lanes`) are the seeds of the first threads of block 0.
    let (tid, block) = (
        crate::thread::thread_idx_x() as usize,
        crate::thread::block_idx_x() as usize,
    );
    let mut seed = Arg::<T, D>::identity();
    let odd = head + (n - body_end);
    if block == 0 && tid < odd {
        let i = if tid < head {
            tid
        } else {
            body_end + (tid - head)
        };
        seed = ArgItem {
            index: i as u64,
            value: input.get(i), // checked; `i < n` by construction
        };
    }
    let load = |v: usize| -> ArgItem<T> {
        // SAFETY: `device::reduce` calls this with `v < vectors` only, so
        // `head + (v + 1) * lanes <= body_end <= n`, and element `head` is the first on a 16-byte
        // boundary (`misaligned_head`).
        let x = unsafe { input.get_vec4_unchecked(head, v) };
        vector_item::<T, D>(x, (head + v * lanes) as u64)
    };
    device::reduce::<Arg<T, D>, BLOCK, UNROLL>(vectors, load, seed, ws, out)
}

/// The raw entry point of an argmin/argmax kernel (the kernel table's [`Abi::Item`] rows): the item
/// ABI of [`item_pass`] with `WORDS = ArgItem::<T>::WORDS`.
///
/// # Safety
/// [`item_pass`]'s contract, with `I = ArgItem<T>`.
///
/// [`Abi::Item`]: crate::table::Abi::Item
pub unsafe fn entry<T: Element, D: Direction, const BLOCK: usize>(
    input: *const T,
    n: usize,
    partials: *mut u32,
    counter: *mut u32,
    out: *mut u32,
) {
    // SAFETY: this function's contract.
    unsafe { item_pass::<T, ArgItem<T>>(reduce::<T, D, BLOCK>, input, n, partials, counter, out) }
}

#[cfg(test)]
mod tests;
