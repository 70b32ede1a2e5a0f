//! # The moments about one shift shared by the whole grid: sums in the trees, one division
//!
//! [`super::Moments`] merges the threads' `(n, mean, M2)` triples by Chan's update in the warp,
//! block and grid trees: three `f64` words per shuffle and, per merge, a difference of means, its
//! square, four multiplies and — where the counts differ — a division, all on the trees' dependent
//! chains. Measured on the H200 (round 18, call 2, `f16` var at 2^26 on 396 × 256): the thread
//! fold's finish and the block merge took 2.35 µs per block against 1.09 for `total` (a plain
//! sum), the last block's grid merge 2.61 against 0.88; the same kernel with the merges turned
//! into additions (a wrong result, timing only) ran at `total`'s speed.
//!
//! [`GridMoments`] removes the merges. Every thread folds its tiles' triples about the **same
//! shift `K`** — the mean of a sample of the input every warp reads and reduces the same way
//! ([`GridShifted::seed`], [`GridShifted::start`]) — into plain sums
//!
//! ```text
//! n = Σ nₜ,   S₁ = Σ nₜ·(meanₜ − K),   S₂ = Σ (M2ₜ + nₜ·(meanₜ − K)²)      (exactly Σ(x − K), Σ(x − K)²)
//! ```
//!
//! which the trees **add** ([`ShiftSums`]); the thread that writes the result divides once:
//! `mean = K + S₁/n`, `M2 = S₂ − S₁·(S₁/n)`. Deterministic as before (fixed orders, and the same
//! `K` in every warp: the same values reduced by the same operations).
//!
//! **The sample.** Lane `l` of every warp reads elements `l + 32·j`, `j < 8`, that exist: the
//! first `k = min(n, 256)` elements, whatever the input's alignment; `K` is the mean of the finite
//! ones (0 if none is, or if their sum overflows). Its reads go out before the first tile's loads
//! are waited for ([`super::accumulate::Running::seed`]), and wait with them.
//!
//! **Accuracy.** With `u = 2⁻⁵³` and `L` the plan's depth (the longest chain of additions), the
//! sums carry at most `(L + 2)·u·S₂` (non-negative terms) and `(L + 1)·u·Σ|x − K| ≤ (L + 1)·u·
//! √(n·S₂)` (Cauchy–Schwarz); the final `S₂ − S₁²/n` turns the second into at most
//! `2·|S₁/n|·δS₁ ≤ 2(L + 1)·u·S₂`, so, to first order,
//!
//! ```text
//! |M2 − M2*| ≤ (3L + 6)·u·S₂*,   S₂* = M2* + n·(mean* − K)²,   |mean − mean*| ≤ (2L + 4)·u·max|x|
//! ```
//!
//! on top of the tiles' own error (the `f32` tile terms of [`super::moments`], unchanged: a tile
//! mean's error enters `S₂ − S₁²/n` as `2·Σ nₜ·(meanₜ − mean)·δₜ`, the same as in Chan's update,
//! whatever `K`). The cancellation `S₂*/M2*` is what the shift costs: `K` is the mean of `k`
//! elements of the input, so `k·(K − mean*)² ≤ M2*` and `S₂* ≤ (1 + n/k)·M2*` — at 2^30 halves
//! `(3L + 6)·u·(1 + n/256)` with the chains' real length (≈ 700 additions) is ~10⁻⁶ in the worst
//! case (all the spread in the sample), below the halves' tile term (251·u₃₂ ≈ 1.5·10⁻⁵), and
//! `S₂* ≈ M2*` for data whose first 256 values are typical. Built for `f16` / `bf16` inputs
//! only: for `f64` inputs it would replace the κ-bounded Chan form's `(L + 4)·κ·u` with this
//! data-dependent term. The host checks every result against this bound with `K` recomputed
//! (`reduce_host::transform::reference`).
//!
//! NaN or ±inf anywhere gives a NaN variance; the mean is NaN, or ±inf when every non-finite
//! value is an infinity of one sign (NumPy's mean).

use super::accumulate::{summed_words, Accumulator, Running, TransformOp};
use super::moments::{Moments, Welford};
use super::{to_f64, WORDS};
use crate::gpu::Global;
use crate::primitives::{self, tiles::unrolled};
use crate::{warp, Element};

/// Elements of the sample each lane reads (lane `l`: elements `l + 32·j`, `j < SAMPLE_PER_LANE`).
pub const SAMPLE_PER_LANE: usize = 8;

/// Elements of the input the shift is the mean of (at most): `32 ·` [`SAMPLE_PER_LANE`].
pub const SAMPLE: usize = 32 * SAMPLE_PER_LANE;

/// The moments with the grid-wide shift: [`Moments`]' tiles and items, folded by
/// [`GridShifted`] and added by the trees ([`ShiftSums`]). The result words are [`Moments`]'
/// (count, mean, M2).
#[derive(Clone, Copy, Debug, Default)]
pub struct GridMoments;

impl TransformOp for GridMoments {
    type Acc = Welford;
    type Run = GridShifted;
    const TWO_INPUTS: bool = false;
    #[inline(always)]
    fn item(a: f64, b: f64) -> Welford {
        Moments::item(a, b)
    }
    #[inline(always)]
    fn chunk(a: &[f64], b: &[f64]) -> Welford {
        Moments::chunk(a, b)
    }
    const F32_TILES: bool = true;
    #[inline(always)]
    fn chunk_f32<const FROM: u8>(a: &[f32]) -> Welford {
        Moments::chunk_f32::<FROM>(a)
    }
}

/// An op with a grid-shift form: the kernels of `reduce_shifted` (in [`super::one_pass`]) run
/// [`ShiftForm::Grid`] in its place.
pub trait ShiftForm: TransformOp {
    /// The same results, folded about one shift for the whole grid.
    type Grid: TransformOp;
}

impl ShiftForm for Moments {
    type Grid = GridMoments;
}

/// The sums about the shift, `(n, S₁, S₂)`: what the trees add.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShiftSums {
    /// Elements.
    pub n: f64,
    /// Σ(x − K).
    pub s1: f64,
    /// Σ(x − K)².
    pub s2: f64,
}

summed_words!(ShiftSums { n: 0, s1: 1, s2: 2 }, 3);

/// A lane's part of the sample: the bits of elements `l + 32·j` for `j < valid`.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    bits: [u64; SAMPLE_PER_LANE],
    valid: usize,
}

/// A thread's fold about the grid's shift `k`: the sums of [`ShiftSums`], no division.
#[derive(Clone, Copy, Debug)]
pub struct GridShifted {
    k: f64,
    sums: ShiftSums,
}

impl GridShifted {
    /// The shift (the same in every thread of the grid).
    pub fn shift(&self) -> f64 {
        self.k
    }
}

impl Running<Welford> for GridShifted {
    type Total = ShiftSums;
    type Seed = Sample;
    /// This lane's elements of the sample, read (not yet waited for).
    #[inline(always)]
    fn seed<T: Element>(a: &Global<T>) -> Sample {
        let lane = warp::lane_id() as usize;
        let mut s = Sample {
            bits: [0; SAMPLE_PER_LANE],
            valid: 0,
        };
        unrolled::<SAMPLE_PER_LANE>(|j| {
            let i = lane + 32 * j;
            if i < a.len() {
                // SAFETY: `i < a.len()`, tested just above.
                s.bits[j] = unsafe { a.get_unchecked(i) }.to_bits64();
                s.valid = j + 1;
            }
        });
        s
    }
    /// The shift: the lane's finite sample values summed in order, the warp's 32 sums and
    /// counts added down to lane 0 in lane order (as [`super::accumulate::warp_merge`]), lane 0's
    /// mean given to every lane. Every warp of the grid does exactly this, so every thread gets
    /// the same `k`.
    #[inline(always)]
    fn start<T: Element>(s: Sample) -> Self {
        let (mut sum, mut count) = (0.0f64, 0.0f64);
        unrolled::<SAMPLE_PER_LANE>(|j| {
            let x = to_f64(T::from_bits64(s.bits[j]));
            if j < s.valid && x.is_finite() {
                sum += x;
                count += 1.0;
            }
        });
        let (sum, count) = primitives::warp::tree((sum, count), 16, |(sum, count), offset| {
            // SAFETY: every lane of the warp calls `start` (the driver's rule), with the full
            // mask and the same `offset`.
            let (s_up, c_up) = unsafe {
                (
                    warp::shfl_down_sync(warp::FULL_MASK, sum, offset),
                    warp::shfl_down_sync(warp::FULL_MASK, count, offset),
                )
            };
            (sum + s_up, count + c_up)
        });
        let mean = if count > 0.0 { sum / count } else { 0.0 };
        // SAFETY: as above; lane 0 is in the full mask.
        let k = unsafe { warp::shfl_sync(warp::FULL_MASK, mean, 0) };
        GridShifted {
            k: if k.is_finite() { k } else { 0.0 },
            sums: ShiftSums::empty(),
        }
    }
    /// `w` has `n ≥ 1` (the driver never folds an empty triple).
    #[inline(always)]
    fn add(&mut self, w: Welford) {
        let d = w.mean - self.k;
        let nd = w.n * d;
        self.sums.n += w.n;
        self.sums.s1 += nd;
        self.sums.s2 += w.m2 + nd * d;
    }
    #[inline(always)]
    fn finish(self) -> ShiftSums {
        self.sums
    }
    /// `(n, K + S₁/n, S₂ − S₁·(S₁/n))`; all zero for nothing; a rounded M2 below 0 is 0.
    #[inline(always)]
    fn result(&self, t: ShiftSums) -> [f64; WORDS] {
        if t.n == 0.0 {
            return [0.0; WORDS];
        }
        let centre = t.s1 / t.n;
        let m2 = t.s2 - t.s1 * centre;
        // `!(m2 < 0)` keeps a NaN.
        [t.n, self.k + centre, if m2 < 0.0 { 0.0 } else { m2 }]
    }
}

/// The shift [`GridShifted::start`] computes from `x`, the first [`SAMPLE`] elements of an input
/// as `f64` (more are ignored) — the same operations in the same order, for the host's
/// reference and the tests.
pub fn sample_shift(x: &[f64]) -> f64 {
    let mut lanes = [(0.0f64, 0.0f64); 32];
    for (l, lane) in lanes.iter_mut().enumerate() {
        for j in 0..SAMPLE_PER_LANE {
            if let Some(v) = x.get(l + 32 * j).filter(|v| v.is_finite()) {
                lane.0 += v;
                lane.1 += 1.0;
            }
        }
    }
    let mut offset = 16;
    while offset > 0 {
        for l in 0..offset {
            lanes[l].0 += lanes[l + offset].0;
            lanes[l].1 += lanes[l + offset].1;
        }
        offset /= 2;
    }
    let (sum, count) = lanes[0];
    let k = if count > 0.0 { sum / count } else { 0.0 };
    if k.is_finite() {
        k
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests;
