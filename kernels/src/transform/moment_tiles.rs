//! # A tile of `f32` values → its (n, mean, M2), in `f32`
//!
//! The moments' tile forms for `f32`, `f16` and `bf16` inputs
//! ([`super::TransformOp::chunk_f32`] of [`super::Moments`]): the two-pass tile of `f32` inputs
//! ([`two_pass_f32`]), the one-pass tile of halves ([`one_pass_f32`]), the `f64` form both fall
//! back to (`wide_tile`) and the balanced sum they share (`pairwise`). Their error bounds are
//! derived in [`super::moments`]' module docs ("Tiles in `f32`", "Halves: one pass").

use super::moments::Welford;
use crate::gpu::arith::fma_f32;

/// Room for the longest tile the driver passes.
const MAX: usize = super::one_pass::F32_TILE;
/// The smallest largest deviation a tile may have for its squares in `f32` (below: `f64` form).
const LO: f32 = 1.0 / (1u64 << 50) as f32;
/// The largest largest deviation a tile may have for its sums of squares in `f32`.
const HI: f32 = (1u64 << 60) as f32;
/// The smallest `S₂` a tile of `bf16` values may have for the one-pass `f32` form: `2⁻¹⁰⁰`.
pub const S2_LO: f32 = LO * LO;
/// The largest: `2¹²⁰`.
pub const S2_HI: f32 = HI * HI;

/// The `f64` form of a tile that the `f32` forms must not take (squares that could underflow or
/// overflow in `f32`, ±inf, NaN): [`Moments::chunk`] of the widened values — the same operations
/// in the same order, so the same bits — widening each value where it is used instead of into
/// an array first (sixteen `f64` values held at once cost the rolling kernels 32 registers).
#[inline(always)]
pub(super) fn wide_tile(a: &[f32]) -> Welford {
    let n = a.len() as f64;
    let mut sum = 0.0f64;
    for x in a {
        sum += *x as f64;
    }
    let mean = sum / n;
    let mut m2 = 0.0f64;
    for x in a {
        let d = *x as f64 - mean;
        m2 += d * d;
    }
    Welford { n, mean, m2 }
}

/// The two-pass tile of `f32` values (module docs, "Tiles in `f32`"): `dᵢ = xᵢ − c`,
/// `centre = Σdᵢ / k`, `M2 = Σ(dᵢ − centre)²`, the second pass squaring and adding in one
/// rounding ([`fma_f32`]). A tile whose largest deviation is outside `[2⁻⁵⁰, 2⁶⁰]` takes the
/// `f64` form.
#[inline(always)]
pub fn two_pass_f32(a: &[f32]) -> Welford {
    let k = a.len();
    let c = a[0];
    let mut d = [0.0f32; MAX];
    let mut spread = 0.0f32;
    for i in 0..k {
        d[i] = a[i] - c;
        spread = spread.max(d[i].abs());
    }
    let mut t = d;
    let sum = pairwise(&mut t, k);
    if !(spread == 0.0 || (LO..=HI).contains(&spread)) {
        return wide_tile(a);
    }
    // The driver passes `k` = 4, 8 or 16: a power of two, so this is an exact scaling (any
    // other `k` adds one rounding).
    let centre = sum / k as f32;
    // Σeᵢ² by the same tree, its first level fused.
    let mut q = [0.0f32; MAX];
    let h = fused_squares(&mut q, k, |i| d[i] - centre);
    let m2 = pairwise(&mut q, h);
    Welford {
        n: k as f64,
        mean: c as f64 + centre as f64,
        m2: m2 as f64,
    }
}

/// The one-pass tile of halves (module docs, "Halves: one pass"): `dᵢ = xᵢ − c`, `S₁ = Σdᵢ`
/// and `S₂ = Σdᵢ²` by balanced trees from the same deviations, then `M2 = S₂ − S₁·(S₁/k)` in one
/// fused multiply-add — no second pass over the tile, so a deviation is dead once it is added
/// and squared. No per-element range test: `f16` needs none (a finite `f16` tile always passes
/// it, and a non-finite one gives a non-finite `S₁`); `bf16` tests `S₂` once instead
/// ([`S2_LO`]`..=`[`S2_HI`]: since `D² ≤ S₂ ≤ k·D²`, that keeps `D` inside `[2⁻⁵², 2⁶⁰]`, the
/// `f32` window of the two-pass tile's `[2⁻⁵⁰, 2⁶⁰]` test up to the factor `k`), and a tile
/// whose `S₂` is 0 takes the `f32` form only if every value equals `c` — one test per tile
/// where the `max|dᵢ|` test cost one per element (round 19: `bf16` var at 2^26 ran about
/// 1 µs behind `f16`'s).
#[inline(always)]
pub fn one_pass_f32(a: &[f32], f16: bool) -> Welford {
    let k = a.len();
    let c = a[0];
    let mut d = [0.0f32; MAX];
    for i in 0..k {
        d[i] = a[i] - c;
    }
    let mut q = [0.0f32; MAX];
    let h = fused_squares(&mut q, k, |i| d[i]);
    let s1 = pairwise(&mut d, k);
    let s2 = pairwise(&mut q, h);
    let f32_form = if f16 {
        s1.is_finite()
    } else if (S2_LO..=S2_HI).contains(&s2) {
        true
    } else {
        // Squares below `f32`'s range, or all zero: the `f32` form only for a constant tile.
        s2 == 0.0 && a.iter().all(|x| *x == c)
    };
    if !f32_form {
        return wide_tile(a);
    }
    let centre = s1 / k as f32; // exact: the driver passes k = 8 or 16
    let m2 = fma_f32(-s1, centre, s2);
    Welford {
        n: k as f64,
        mean: c as f64 + centre as f64,
        // A rounded difference below 0 (a tile of equal values but for rounding) is 0; NaN stays.
        m2: if m2 < 0.0 { 0.0 } else { m2 as f64 },
    }
}

/// The first level of a balanced tree of squares: `q[i] = eᵢ² + eᵢ₊ₕ²` for `e = f(0..k)` and
/// `h = ⌈k/2⌉`, as one multiply and one fused multiply-add ([`fma_f32`]; odd `k`: the middle
/// value has no partner); returns `h`, the values left for [`pairwise`].
#[allow(clippy::needless_range_loop)] // `i` also picks the partner `i + h`
#[inline(always)]
fn fused_squares(q: &mut [f32; MAX], k: usize, f: impl Fn(usize) -> f32) -> usize {
    let h = k.div_ceil(2);
    for i in 0..h {
        let e = f(i);
        q[i] = if i + h < k {
            let g = f(i + h);
            fma_f32(e, e, g * g)
        } else {
            e * e
        };
    }
    h
}

/// `v[0] + … + v[k − 1]` (`k ≤` [`super::one_pass::F32_TILE`]) as a balanced tree — the upper
/// half added onto the lower half until one value is left: `⌈log₂ k⌉` dependent additions where a
/// running sum takes `k − 1` (a shorter chain; measured neutral for speed on the H200), and
/// a rounding error of at most `⌈log₂ k⌉·u₃₂·Σ|vᵢ|` instead of `(k − 1)·u₃₂·Σ|vᵢ|` — inside the
/// module docs' bounds, which assume the running sum. `v` is overwritten. The same order on every
/// target, so the emulator gets the GPU's bits.
#[inline(always)]
fn pairwise(v: &mut [f32; super::one_pass::F32_TILE], k: usize) -> f32 {
    let mut n = k;
    while n > 1 {
        let w = n.div_ceil(2);
        for i in 0..n - w {
            v[i] += v[i + w];
        }
        n = w;
    }
    v[0]
}
