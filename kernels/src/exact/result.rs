//! # From the grid's words to the result's bits
//!
//! The exact sums' last step, shared by every kernel: NaN and infinities from their counts
//! (IEEE: any NaN, or +inf with -inf, gives NaN), else the one rounding of the digit words — by
//! warp 0 in the kernels ([`finish`]: [`round_warp`]) or by one thread on words in registers
//! ([`finish_words`]: [`round`], the multi-GPU combine) — and the sign of a zero sum (-0.0 only
//! when every element was -0.0).

use super::accumulator::{Format, MAX_SLOTS};
use super::round::{round, round_warp};
use crate::gpu::Shared;

/// Warp 0's last step: the specials, the rounding ([`round_warp`]), the sign of zero — the bits
/// of the result, in every lane. Out of line: once per launch, one copy for every kernel, and
/// kept out of the streaming loop's register allocation.
#[inline(never)]
pub(super) fn finish(smem: &Shared<i64>, f: Format, n: usize) -> u64 {
    let flag = |i: usize| smem.get((f.words + i) as u32);
    result_bits([flag(0), flag(1), flag(2), flag(3)], f, n, || {
        round_warp(|k| smem.get(k as u32), f)
    })
}

/// [`finish`] by one thread on words already in registers (`w[..f.slots()]`: digits then flags;
/// each digit word below 2^62 in magnitude) of `n` elements: the bits of the result.
#[inline(always)]
pub(super) fn finish_words(w: &[i64; MAX_SLOTS], f: Format, n: usize) -> u64 {
    let flags = [w[f.words], w[f.words + 1], w[f.words + 2], w[f.words + 3]];
    result_bits(flags, f, n, || round(&w[..f.words], f))
}

/// The result's bits from the four flag counts (NaNs, +infs, -infs, warps not all `-0.0`) and
/// `rounded`, the rounding of the digit words (called only when the result is finite, so by
/// every lane or none where `rounded` is a warp's).
#[inline(always)]
fn result_bits(flags: [i64; 4], f: Format, n: usize, rounded: impl FnOnce() -> u64) -> u64 {
    let [nan, pinf, ninf, not_neg_zero] = flags;
    if nan > 0 || (pinf > 0 && ninf > 0) {
        return f.nan_bits();
    }
    if pinf > 0 {
        return f.inf_bits();
    }
    if ninf > 0 {
        return f.inf_bits() | f.sign_bit();
    }
    let r = rounded();
    if r == 0 && n > 0 && not_neg_zero == 0 {
        f.sign_bit()
    } else {
        r
    }
}
