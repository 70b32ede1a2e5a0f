//! One 16-byte vector of elements: its best value ([`vector_best`]) and where that value is
//! ([`find_lane`]).

use super::order::{is_nan, later_wins, same};
use super::Direction;
use crate::gpu::{minmax, Vec4};
use crate::vocabulary::ElemType;
use crate::Element;

/// Element `k` of a 16-byte vector of `T`s (`k < 16 / size_of::<T>()`).
#[inline(always)]
pub(super) fn lane<T: Element>(v: Vec4, k: usize) -> T {
    let w = v.0;
    match core::mem::size_of::<T>() {
        2 => T::from_bits64(((w[k / 2] >> (16 * (k % 2))) & 0xffff) as u64),
        4 => T::from_bits64(w[k] as u64),
        _ => T::from_bits64(w[2 * k] as u64 | ((w[2 * k + 1] as u64) << 32)),
    }
}

/// The best value of one 16-byte vector (a NaN if it holds one, for `argmin`/`argmax`; for the
/// `nan*` forms a NaN only if every lane is one). Only the value counts: [`find_lane`] finds the
/// first lane holding it afterwards, so of equal values (`-0.0`, `0.0`) either may come back, and
/// a NaN may come back as the canonical NaN.
///
/// `f32` and the halves fold the vector with one `min`/`max` instruction per pair
/// ([`crate::gpu::minmax`]: three `max.NaN.f32` for four floats; for eight halves, three packed
/// `max.NaN.bf16x2` and one more for the last pair) — about one instruction per element where the
/// compare-and-select below takes five or more. Other types compare lane by lane (a later lane
/// replaces the best so far only if it wins outright; for 64-bit types that is one compare).
#[inline(always)]
pub(super) fn vector_best<T: Element, D: Direction>(v: Vec4) -> T {
    let w = v.0;
    match T::TYPE {
        ElemType::F32 => {
            let f = |i: usize| f32::from_bits(w[i]);
            let best = fold4(f(0), f(1), f(2), f(3), pick_f32::<D>);
            return T::from_bits64(best.to_bits() as u64);
        }
        ElemType::F16 | ElemType::BF16 => {
            let op = |a, b| pick_x2::<D>(T::TYPE == ElemType::BF16, a, b);
            let pair = fold4(w[0], w[1], w[2], w[3], op); // the even lanes' best, the odd lanes'
            return T::from_bits64((op(pair, pair >> 16) & 0xffff) as u64);
        }
        _ => {}
    }
    let lanes = 16 / core::mem::size_of::<T>();
    let mut best = lane::<T>(v, 0);
    for k in 1..lanes {
        let x = lane::<T>(v, k);
        if later_wins::<T, D>(best, x) {
            best = x;
        }
    }
    best
}

/// `op(op(a, b), op(c, d))`: two independent instructions, then one.
#[inline(always)]
fn fold4<V: Copy>(a: V, b: V, c: V, d: V, op: impl Fn(V, V) -> V) -> V {
    op(op(a, b), op(c, d))
}

/// The `f32` instruction of direction `D`: `max` or `min`, NaN-propagating unless `D` skips NaN.
#[inline(always)]
fn pick_f32<D: Direction>(a: f32, b: f32) -> f32 {
    match (D::LARGEST, D::SKIP_NAN) {
        (true, false) => minmax::max_f32::<true>(a, b),
        (true, true) => minmax::max_f32::<false>(a, b),
        (false, false) => minmax::min_f32::<true>(a, b),
        (false, true) => minmax::min_f32::<false>(a, b),
    }
}

/// The packed-halves instruction of direction `D` (`bf16x2` or `f16x2`; `bf16` is a constant
/// wherever this is inlined, so the match folds to one instruction).
#[inline(always)]
fn pick_x2<D: Direction>(bf16: bool, a: u32, b: u32) -> u32 {
    match (D::LARGEST, D::SKIP_NAN, bf16) {
        (true, false, true) => minmax::max_bf16x2::<true>(a, b),
        (true, true, true) => minmax::max_bf16x2::<false>(a, b),
        (false, false, true) => minmax::min_bf16x2::<true>(a, b),
        (false, true, true) => minmax::min_bf16x2::<false>(a, b),
        (true, false, false) => minmax::max_f16x2::<true>(a, b),
        (true, true, false) => minmax::max_f16x2::<false>(a, b),
        (false, false, false) => minmax::min_f16x2::<true>(a, b),
        (false, true, false) => minmax::min_f16x2::<false>(a, b),
    }
}

/// The first lane of `v` holding `best` (a value [`vector_best`] returned for `v`): its position
/// and its own bits (of `-0.0` and `0.0`, the one that is there).
#[inline(always)]
pub(super) fn find_lane<T: Element>(v: Vec4, best: T) -> (usize, T) {
    let lanes = 16 / core::mem::size_of::<T>();
    let nan = is_nan(best);
    let mut k = 0;
    for j in (0..lanes).rev() {
        let x = lane::<T>(v, j);
        if (nan && is_nan(x)) || same(x, best) {
            k = j;
        }
    }
    (k, lane::<T>(v, k))
}

/// [`find_lane`] for a vector the loop holds in registers: the lane's bits come from a select
/// chain over the lanes (constant indices only), never from `v` indexed by the found position —
/// a run-time index into the loaded vectors would put every loaded vector of the unrolled step
/// in local memory (ptxas showed 80–144 bytes of stack for the lean kernels before this).
#[inline(always)]
pub(super) fn find_lane_in_regs<T: Element>(v: Vec4, best: T) -> (usize, T) {
    let lanes = 16 / core::mem::size_of::<T>();
    let nan = is_nan(best);
    let (mut k, mut value) = (0, lane::<T>(v, 0));
    for j in (0..lanes).rev() {
        let x = lane::<T>(v, j);
        if (nan && is_nan(x)) || same(x, best) {
            k = j;
            value = x;
        }
    }
    (k, value)
}
