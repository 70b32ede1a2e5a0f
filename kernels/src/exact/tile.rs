//! # Adding a tile of elements into a thread's expansions (general and fast path)
//!
//! **What.** The streaming loop of [`super::kernel`] loads four 16-byte vectors per thread and
//! adds their elements into two expansions (two chains for instruction-level parallelism):
//! with [`Expansion::add`] (two TwoSums per element) or, for the fast kernels, with
//! `add_tile_fast`: three `add.f64` per element while every addition is exact, the whole tile
//! redone out of line (`tile_slow`) when one was not.
//!
//! **Why faster.** The general path is 12 `add.f64` per element, ~80% of the H200's FP64 rate at
//! HBM speed for f32 data; the fast path is 3 adds and 2 compares, with no call inside the loop.
//!
//! **What it costs.** A tile with one inexact addition is added twice (the second time with the
//! general path, from vectors reloaded from L1/L2); exactness never depends on the data.

use super::accumulator::SharedWords;
use super::expansion::Expansion;
use crate::gpu::{Global, Vec4};
use crate::vocabulary::ElemType;
use crate::Element;
/// One element as the `f64` it is exactly.
#[inline(always)]
pub(super) fn widen<T: Element>(x: T) -> f64 {
    match T::TYPE {
        ElemType::F32 => f32::from_bits(x.to_bits64() as u32) as f64,
        _ => f64::from_bits(x.to_bits64()),
    }
}

/// Add one element: [`Expansion::add_fast`] (one addition when it is exact) for `FAST`,
/// [`Expansion::add`] (two TwoSums) otherwise.
#[inline(always)]
pub(super) fn add_one<const FAST: bool>(e: &mut Expansion, x: f64, s: &SharedWords) {
    if FAST {
        e.add_fast(x, s);
    } else {
        e.add(x, s);
    }
}

/// Add one 16-byte vector: lanes `0..L/2` to `a`, the rest to `b`.
#[inline(always)]
pub(super) fn add_vec4<T: Element, const FAST: bool>(
    v: Vec4,
    a: &mut Expansion,
    b: &mut Expansion,
    s: &SharedWords,
) {
    if T::TYPE == ElemType::F32 {
        add_one::<FAST>(a, f32::from_bits(v.0[0]) as f64, s);
        add_one::<FAST>(a, f32::from_bits(v.0[1]) as f64, s);
        add_one::<FAST>(b, f32::from_bits(v.0[2]) as f64, s);
        add_one::<FAST>(b, f32::from_bits(v.0[3]) as f64, s);
    } else {
        let x = f64::from_bits(v.0[0] as u64 | (v.0[1] as u64) << 32);
        add_one::<FAST>(a, x, s);
        let y = f64::from_bits(v.0[2] as u64 | (v.0[3] as u64) << 32);
        add_one::<FAST>(b, y, s);
    }
}

/// Add a tile's `U` loaded vectors. With constant indices (U = 4, the built configuration)
/// `loaded` stays in registers; LLVM does not unroll the generic loop (its body holds four calls
/// of the slow path), and a loop that indexes an array keeps the array in local memory.
#[inline(always)]
pub(super) fn add_tile<T: Element, const U: usize, const FAST: bool>(
    loaded: &[Vec4; U],
    a: &mut Expansion,
    b: &mut Expansion,
    s: &SharedWords,
) {
    if U == 4 {
        add_vec4::<T, FAST>(loaded[0], a, b, s);
        add_vec4::<T, FAST>(loaded[1], a, b, s);
        add_vec4::<T, FAST>(loaded[2], a, b, s);
        add_vec4::<T, FAST>(loaded[3], a, b, s);
    } else {
        for v in loaded {
            add_vec4::<T, FAST>(*v, a, b, s);
        }
    }
}

/// One fast step: `hi += x`, and whether that addition was exact ([`Expansion::add_fast`]'s
/// test, which accepts exactly the exact additions).
#[inline(always)]
pub(super) fn fast_step(hi: &mut f64, x: f64) -> bool {
    let t = *hi + x;
    let exact = (t - *hi == x) & (t - x == *hi);
    *hi = t;
    exact
}

/// One vector on the fast path: [`fast_step`] for each element (lanes `0..L/2` into `a.hi`, the
/// rest into `b.hi`); whether every addition was exact.
#[inline(always)]
pub(super) fn fast_vec4<T: Element>(v: Vec4, a: &mut Expansion, b: &mut Expansion) -> bool {
    if T::TYPE == ElemType::F32 {
        fast_step(&mut a.hi, f32::from_bits(v.0[0]) as f64)
            & fast_step(&mut a.hi, f32::from_bits(v.0[1]) as f64)
            & fast_step(&mut b.hi, f32::from_bits(v.0[2]) as f64)
            & fast_step(&mut b.hi, f32::from_bits(v.0[3]) as f64)
    } else {
        fast_step(
            &mut a.hi,
            f64::from_bits(v.0[0] as u64 | (v.0[1] as u64) << 32),
        ) & fast_step(
            &mut b.hi,
            f64::from_bits(v.0[2] as u64 | (v.0[3] as u64) << 32),
        )
    }
}

/// A whole tile (4 vectors) on the fast path with **no call in the loop**: every element is added
/// with [`fast_step`] (three `add.f64`), the exactness bits are ANDed, and only if one addition
/// was inexact (or special) is the tile redone from the saved expansions by [`tile_slow`], out of
/// line. Keeping calls out of the hot loop keeps the loaded vectors out of callee-saved
/// registers (ptxas has to preserve everything live across a call).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn add_tile_fast<T: Element>(
    loaded: &[Vec4; 4],
    a: &mut Expansion,
    b: &mut Expansion,
    s: &SharedWords,
    input: Global<T>,
    head: usize,
    first: usize,
    stride: usize,
) {
    let (a0, b0) = (*a, *b);
    let mut ok = true;
    for v in loaded {
        ok &= fast_vec4::<T>(*v, a, b);
    }
    if !ok {
        // SAFETY: the caller just loaded vectors `first + u * stride` (u < 4) from `head`: in
        // bounds and 16-byte aligned.
        (*a, *b) = unsafe { tile_slow(a0, b0, input, head, first, stride, s) };
    }
}

/// The rare path of [`add_tile_fast`]: the tile again, from the expansions before it, with the
/// general addition ([`Expansion::add`]: two TwoSums, residuals spilled). It reloads the vectors
/// (they are in L1/L2) instead of taking them as arguments: an aggregate argument would be
/// copied to local memory on the fast path.
///
/// # Safety
/// Vectors `first + u * stride` for `u < 4`, counted from element `head` of `input`, lie inside
/// `input` and start on 16-byte boundaries.
#[cold]
#[inline(never)]
pub(super) unsafe fn tile_slow<T: Element>(
    mut a: Expansion,
    mut b: Expansion,
    input: Global<T>,
    head: usize,
    first: usize,
    stride: usize,
    s: &SharedWords,
) -> (Expansion, Expansion) {
    for u in 0..4 {
        // SAFETY: the function's contract.
        let v = unsafe { input.get_vec4_unchecked(head, first + u * stride) };
        add_vec4::<T, false>(v, &mut a, &mut b, s);
    }
    (a, b)
}

/// The partial tile `[t, end)` (fewer than `BLOCK · UNROLL` vectors from element `head`; nothing
/// when `t >= end`): this thread's vectors `t + u · BLOCK + tid` below `end`, all loaded before
/// any is added.
#[inline(always)]
pub(super) fn add_partial_tile<
    T: Element,
    const BLOCK: usize,
    const UNROLL: usize,
    const FAST: bool,
>(
    input: Global<T>,
    head: usize,
    t: usize,
    end: usize,
    a: &mut Expansion,
    b: &mut Expansion,
    s: &SharedWords,
) {
    if t >= end {
        return;
    }
    let tid = crate::thread::thread_idx_x() as usize;
    let mut loaded = [Vec4([0; 4]); UNROLL];
    let mut valid = [false; UNROLL];
    for u in 0..UNROLL {
        let v = t + u * BLOCK + tid;
        if v < end {
            // SAFETY: `v < end`, and `end` is at most the input's whole vectors from `head`
            // (the caller's run), so the vector is inside the input and 16-byte aligned.
            loaded[u] = unsafe { input.get_vec4_unchecked(head, v) };
            valid[u] = true;
        }
    }
    for u in 0..UNROLL {
        if valid[u] {
            add_vec4::<T, FAST>(loaded[u], a, b, s);
        }
    }
}
