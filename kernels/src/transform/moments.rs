//! # Mean and variance in one pass: Welford per thread, Chan's combine across threads
//!
//! The textbook one-pass variance `(Σx² − (Σx)²/n) / n` cancels catastrophically: for data
//! `1e6 + u` with `u` uniform in `[0, 1)` the two sums agree to ~13 digits, so even in `f64`
//! the result keeps about 3 correct digits, and in `f32` none. Two passes (mean, then Σ(x−mean)²)
//! are accurate but read the data twice.
//!
//! This op carries the triple **(n, mean, M2)** with `M2 = Σ(x − mean)²` (Welford, 1962) and
//! combines two triples with **Chan, Golub and LeVeque's** pairwise update (1979):
//!
//! ```text
//! n = nₐ + n_b,   δ = mean_b − meanₐ,   mean = meanₐ + δ·n_b/n,   M2 = M2ₐ + M2_b + δ²·nₐ·n_b/n
//! ```
//!
//! which never forms a difference of large sums: every quantity is a deviation from a mean.
//!
//! **Where the work goes.** A per-element Welford update costs a double-precision division
//! (`δ/n`), too slow at HBM speed. Instead each thread takes its registers' tile (16 `f32`, 32
//! halves or 8 `f64` values after the 16-byte loads) and computes that tile's exact-form triple in two passes
//! *over registers* — sum, mean (a multiply: the count is a power of two), Σ(x−mean)² — then
//! folds it into sums of deviations from a shift, the thread's first tile mean ([`Shifted`]):
//! **one division per thread**, where a Chan update per tile cost one per 16 elements. Warps
//! merge the threads' triples by shuffle tree (Chan), blocks through shared memory, the last block
//! over the per-block triples in block order: a fixed order, so the result is **deterministic**
//! run to run. (The `f16`/`bf16` moments over more than one tile take another form by default:
//! every thread folds about one shift shared by the grid and the trees add sums —
//! [`super::grid_shift`], with its own bound.)
//!
//! **Accuracy** (stated and tested): with `u = 2⁻⁵³`, the condition number
//! `κ = √(1 + mean²/var_pop)` and `L` the longest chain of merges any element goes through
//! (tiles per thread + log₂(threads per block) + log₂(blocks) + a few),
//! `|M2 − M2_exact| ≲ (L + 4)·κ·u·M2_exact` — the pairwise algorithm's bound (Chan, Golub,
//! LeVeque, *Algorithms for computing the sample variance*, 1983), with the sequential part
//! limited to one thread's tiles (whose shifted fold adds at most `(C + 4)(C + 1)·u·M2` for `C`
//! chunks per thread, inside that term: [`Shifted`]). For `1e6 + U(0,1)` (`κ ≈ 3.5e6`) at 2^20 elements that is a
//! relative error below ~1e-7 (measured on the emulator: ~1e-13), where `Σx² − (Σx)²/n` in `f64` is off by ~1e-3. The mean's error
//! is at most `(L + 2)·u·max|x|`.
//!
//! **Tiles in `f32`** (`f32`, `f16` and `bf16` inputs). Widening every element to `f64` costs a
//! conversion — 16 per clock per SM on the H200, an eighth of the `f32` rate — and three `f64`
//! operations per element. So for these inputs the tile's two passes run in `f32` around the
//! tile's first value `c` (measured on the H200 at 2^26, same plan: `f32` var 69.0 µs against
//! 77.9 µs with the tiles widened first, `f16` 50.2 against 56.4; the `f32` sum took 66.6 µs —
//! `benches/results/h200-2026-12-02-moments/call3/s10-var`):
//! `dᵢ = xᵢ − c`, `centre = Σdᵢ / k`, `M2 = Σ(dᵢ − centre)²`, and only `c + centre` and `M2` go to
//! `f64` for the merge. Both sums are balanced trees (`log₂ k` dependent additions instead of
//! `k − 1`) and the squares are added by `fma.rn.f32` (round 12: measured neutral for speed on
//! the H200, slightly tighter in error); the bounds below assume a running sum, which the tree
//! only improves on. With `u₃₂ = 2⁻²⁴`, `k` the tile's length (16, for `f32` and halves alike) and
//! `D = max|xᵢ − c|` — so that the tile's exact `M2* ≥ D²/2` — the rounding errors are relative
//! to the tile's own spread, not its magnitude:
//!
//! * tile mean: `|(c + centre) − mean*| ≤ (k + 2)·u₃₂·D`;
//! * tile M2: `|M2 − M2*| ≤ (2√(2k) + k + 2)·u₃₂·M2*` (the error of `centre` is a common shift,
//!   which `Σ(dᵢ − centre)` cancels to first order);
//! * carried through Chan's update (the tile means' errors enter the between-tile term
//!   `δ²·nₐ·n_b/n`, bounded with Cauchy–Schwarz): `|M2 − M2*| ≤ ((k + 4)·√(2k) + k + 2)·u₃₂·M2*`
//!   over the whole input — 131·u₃₂ ≈ 7.8e-6 for `k = 16` — on top of
//!   the `f64` bound below, and **independent of κ** (for `1e6 + U(0,1)` the `f64` form's `κ·u`
//!   term is larger). The mean gains `2(k + 2)·u₃₂·max|x|`.
//!
//! A tile whose largest deviation `D` is outside `[2⁻⁵⁰, 2⁶⁰]` (and not 0) takes the `f64` form:
//! below, squares could underflow `f32`; above, their sum could overflow it; ±inf lands there
//! too. NaN propagates either way. (`bf16` tiles test their `S₂` instead, once per tile:
//! [`super::moment_tiles::one_pass_f32`].) `f64` inputs keep the `f64` tile.
//!
//! **Halves: one pass** (`f16` and `bf16` inputs, [`one_pass_f32`]). The two-pass tile keeps
//! every deviation `dᵢ` live until `centre` is known and then spends a second subtraction per
//! element. For halves the tile instead takes `S₁ = Σdᵢ` and `S₂ = Σdᵢ²` from the same
//! deviations (balanced trees, the squares' first level fused) and `M2 = S₂ − S₁·(S₁/k)` in one
//! `fma.rn.f32`: about five operations per element instead of six, and no second pass. Its
//! cancellation is bounded because `c` is one of the tile's values: with `D̄ = mean* − c`,
//! `M2* ≥ D̄²·k/(k − 1)`, so `S₂* = M2* + k·D̄² ≤ k·M2*`. With `ℓ = ⌈log₂ k⌉` the rounding
//! errors are (first order): the deviations' own `2u₃₂·√(S₂*·M2*) ≤ 2√k·u₃₂·M2*`; `S₂`'s
//! `(ℓ + 1)·u₃₂·S₂* ≤ (ℓ + 1)·k·u₃₂·M2*`; `S₁`'s `ℓ·u₃₂·Σ|dᵢ| ≤ ℓ·k·u₃₂·√M2*`, entering
//! through `2·|D̄|·δS₁` as `2ℓ·k·u₃₂·M2*`; the fused subtraction's `u₃₂·M2*`:
//!
//! * tile M2: `|M2 − M2*| ≤ (2√k + (3ℓ + 1)·k + 1)·u₃₂·M2*` (217·u₃₂ for `k = 16`);
//! * tile mean: `|(c + centre) − mean*| ≤ (ℓ + 1)·u₃₂·D`, tighter than the two-pass tile's;
//! * over the whole input, with the means carried through Chan's update as above:
//!   `((ℓ + 2)·√(2k) + 2√k + (3ℓ + 1)·k + 1)·u₃₂·M2*` — 251·u₃₂ ≈ 1.5e-5 for `k = 16`, about
//!   twice the two-pass tile's 131·u₃₂ and far below a half's own precision (`f16`: 2⁻¹¹,
//!   `bf16`: 2⁻⁸), still independent of κ. `f32` inputs keep the two-pass tile.
//!
//! NaN or ±inf anywhere gives NaN for the variance (as NumPy), and possibly for the mean (NumPy's
//! mean of `[inf, inf]` is inf; here `inf − inf` in the merge makes it NaN).

use super::accumulate::{Accumulator, Running, TransformOp, Widened};
use super::moment_tiles::{one_pass_f32, two_pass_f32};
use super::WORDS;
use crate::gpu::arith::div_f64;
use crate::gpu::Global;
use crate::Element;

/// The accumulator (n, mean, M2), all `f64` (`n` is exact below 2^53).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Welford {
    /// Elements seen.
    pub n: f64,
    /// Their mean.
    pub mean: f64,
    /// Σ(x − mean)².
    pub m2: f64,
}

impl Accumulator for Welford {
    const WORDS: usize = 3;
    #[inline(always)]
    fn empty() -> Self {
        Welford {
            n: 0.0,
            mean: 0.0,
            m2: 0.0,
        }
    }
    /// Chan's pairwise update (see the module docs).
    #[inline(always)]
    fn merge(self, later: Self) -> Self {
        if later.n == 0.0 {
            return self;
        }
        if self.n == 0.0 {
            return later;
        }
        let n = self.n + later.n;
        let delta = later.mean - self.mean;
        // Equal halves (two chunks of a tile, and nearly every merge of the warp, block and
        // grid trees) need no division: `n_b / (2·n_b)` is exactly 0.5 (counts are integers
        // below 2^53), so this is the division's own result, one long-latency `div.rn.f64` fewer
        // on the trees' dependent chains — provided the division stays in its branch, which
        // `later.n / n` did not (the compiler computed it on every merge and selected):
        // [`div_f64`] does. Measured on the H200 (round 18, call 3): `f16` var at 2^24
        // 15.6 µs against 16.7, `bf16` 16.4 against 17.2; level from 2^26 (the same bits).
        let r = if later.n == self.n {
            0.5
        } else {
            div_f64(later.n, n)
        };
        Welford {
            n,
            mean: self.mean + delta * r,
            m2: self.m2 + later.m2 + delta * delta * self.n * r,
        }
    }
    #[inline(always)]
    fn word(&self, i: usize) -> f64 {
        match i {
            0 => self.n,
            1 => self.mean,
            2 => self.m2,
            _ => 0.0,
        }
    }
    #[inline(always)]
    fn from_words(w: [f64; WORDS]) -> Self {
        Welford {
            n: w[0],
            mean: w[1],
            m2: w[2],
        }
    }
}

/// A thread's fold of its own chunks' triples: sums of deviations from a **shift** `k` — the
/// first chunk's mean — instead of one Chan update per chunk (round 14: that update, with its
/// `div.rn.f64`, was about 40 of the `f16` loop's ~280 instructions per tile):
///
/// ```text
/// dᵢ = meanᵢ − k,   S₁ = Σ nᵢ·dᵢ,   S₂ = Σ (M2ᵢ + nᵢ·dᵢ²),   n = Σ nᵢ
/// then  mean = k + S₁/n,   M2 = S₂ − S₁·(S₁/n)        (one division per thread)
/// ```
///
/// exact in real arithmetic (`S₂ = Σ(x − k)²`, `S₁ = Σ(x − k)`). **Rounding.** The final
/// subtraction cancels by at most `S₂/M2 = 1 + n·(mean − k)²/M2`, and since `k` is one chunk's
/// mean, `n_c·(k − mean)² ≤ M2` for that chunk's `n_c` elements — so `S₂/M2 ≤ 1 + n/n_c`, the
/// thread's number of chunks `C`. With `u = 2⁻⁵³` the fold adds at most about `(C + 4)·u·S₂ ≤
/// (C + 4)(C + 1)·u·M2`; `C` is at most the thread's elements over 8, so this stays below the
/// module bound's `(L + 4)·κ·u·M2` term for every launch the plan makes (at 2^30 halves, `C` =
/// 662: ~5·10⁻¹¹ relative, against the tiles' 131·u₃₂ ≈ 7.8·10⁻⁶). Like the Chan form it works
/// only with deviations, never with the data's magnitude, so it is κ-independent but for the
/// chunk means' own error. A rounded `M2` below 0 (all values equal but for rounding) is 0.
#[derive(Clone, Copy, Debug)]
pub struct Shifted {
    k: f64,
    n: f64,
    s1: f64,
    s2: f64,
}

impl Running<Welford> for Shifted {
    type Total = Welford;
    type Seed = ();
    #[inline(always)]
    fn seed<T: Element>(_: &Global<T>) {}
    #[inline(always)]
    fn start<T: Element>(_: ()) -> Self {
        Shifted {
            k: 0.0,
            n: 0.0,
            s1: 0.0,
            s2: 0.0,
        }
    }
    /// `w` has `n ≥ 1` (an element or a chunk: the driver never folds an empty triple).
    #[inline(always)]
    fn add(&mut self, w: Welford) {
        // The first chunk sets the shift and adds d = 0 (not `mean − mean`, which an infinite
        // mean would make NaN): selects, no branch.
        let first = self.n == 0.0;
        let k = if first { w.mean } else { self.k };
        let d = if first { 0.0 } else { w.mean - k };
        let nd = w.n * d;
        self.k = k;
        self.n += w.n;
        self.s1 += nd;
        self.s2 += w.m2 + nd * d;
    }
    #[inline(always)]
    fn finish(self) -> Welford {
        if self.n == 0.0 {
            return Welford::empty();
        }
        let centre = self.s1 / self.n;
        let m2 = self.s2 - self.s1 * centre;
        Welford {
            n: self.n,
            mean: self.k + centre,
            // `!(m2 < 0)` keeps a NaN (`f64::max` would drop it).
            m2: if m2 < 0.0 { 0.0 } else { m2 },
        }
    }
}

/// Count, mean and M2 of the input (the host derives variance and standard deviation).
#[derive(Clone, Copy, Debug, Default)]
pub struct Moments;

impl TransformOp for Moments {
    type Acc = Welford;
    type Run = Shifted;
    const TWO_INPUTS: bool = false;
    #[inline(always)]
    fn item(a: f64, _: f64) -> Welford {
        Welford {
            n: 1.0,
            mean: a,
            // 0 for a finite value, NaN for ±inf or NaN: as NumPy, whose `x − mean` is then
            // `inf − inf` (a tile's two-pass form gets the same NaN from `x − mean`).
            m2: if a.is_finite() { 0.0 } else { f64::NAN },
        }
    }
    /// The exact two-pass form over a tile in registers: no division when `a.len()` is a power
    /// of two (a multiply by its exact reciprocal).
    #[inline(always)]
    fn chunk(a: &[f64], _: &[f64]) -> Welford {
        let n = a.len() as f64;
        let mut sum = 0.0;
        for x in a {
            sum += *x;
        }
        let mean = sum / n;
        let mut m2 = 0.0;
        for x in a {
            let d = *x - mean;
            m2 += d * d;
        }
        Welford { n, mean, m2 }
    }

    /// `f32`, `f16` and `bf16` inputs: the tile in `f32` around its first value (see the module
    /// docs, "Tiles in `f32`"); three conversions to `f64` per tile instead of one per element.
    /// `f32` inputs take the two-pass form ([`two_pass_f32`]), halves the one-pass form
    /// ([`one_pass_f32`]). Takes 1 to [`super::one_pass::F32_TILE`] values (a longer slice
    /// indexes past its buffers: a panic in the emulator, a trap on the GPU).
    const F32_TILES: bool = true;
    #[inline(always)]
    fn chunk_f32<const FROM: u8>(a: &[f32]) -> Welford {
        if FROM == Widened::F32 {
            two_pass_f32(a)
        } else {
            one_pass_f32(a, FROM == Widened::F16)
        }
    }
}
