//! # The integer finish: a warp's expansions reduced as integers in a window, not merged as floats
//!
//! **What changed.** The default kernels merge the 32 expansions of a warp with five rounds of
//! floating-point merges (`warp_merge`: each an exact TwoSum chain whose residual — nearly always
//! non-zero for sums of ordinary data — spills into the block's words through an out-of-line call
//! and 64-bit shared compare-and-swap loops), then every warp's lane 0 adds the warp's expansion
//! into the block's words with the same contended atomics, and a carry step follows between two
//! more barriers. The integer finish does the same integer arithmetic without any of that:
//!
//! 1. each thread's expansion `(hi, lo)` is cut into the digits of a **window** of [`WINDOW`]
//!    32-bit words that ends at the warp's highest digit (a maximum over the warp by shuffles);
//!    a value with a digit below the window (rare: a warp whose sums differ by more than
//!    `32 · WINDOW - 53` bits) is added to the block's words as before;
//! 2. the window's words are summed over the warp with integer shuffles (five rounds of
//!    [`WINDOW`] 64-bit additions: no rounding, no residual, no spill);
//! 3. lane 0 stores the warp's window, its base word and the flag counts (votes) in its own slot
//!    of shared memory — no atomics; **one** block barrier;
//! 4. thread `t < slots` adds up word `t` from the block's spills and every warp's window, and
//!    word `t - 1` the same way for the carry step ([`normalize_step`]), then publishes as the
//!    other kernels do (`lean::last_block`).
//!
//! **Why it should be faster.** The probe ([`super::probe`]) put the default's merge phase (the
//! warp merges, the shared atomics, the barrier) at 1.4–2.2 µs and its carry step at 0.3 µs per
//! block (H200, session 16), on the critical path of the block that finishes streaming last; the
//! warp finish ([`super::warp_finish`]) showed the five float merge rounds alone at ~1 µs.
//!
//! **Measured and lost** (session 16, H200, `benches/results/h200-2026-12-03-finish/call2/`): f32
//! 2^24 28.9 µs against the default's 25.6, f64 45.2 against 41.7, level at 2^30 (947.7 / 944.7
//! and 1897.8 / 1893.8). The probe: the windows and integer shuffles did not shorten the merge
//! phase (1.6–2.1 µs, mostly the block's warps finishing their streaming at different times),
//! and the gather in step 4 — two dependent shared loads per warp slot, for the word and again
//! for its neighbour — took 2.0–2.4 µs against the default's 0.3 µs carry step. The obvious next
//! step is a gather that loads the slots' bases once and sums both words in one pass. Kept as a
//! measured candidate (policy `int_finish=1`).
//!
//! **Why the bits are the same.** Every finite value's digits are added exactly once (in a
//! window or through the spill), so the words' total is the same integer; the flags count the
//! same classes (NaN, ±inf, not `-0.0`) over threads instead of warps, which changes counts but
//! not which of them are zero — all that the rounding step reads.

use super::accumulator::{normalize_step, significand, Format, GlobalWords, SharedWords, FLAGS};
use super::expansion::Expansion;
use super::kernel::{round_into, sum_with, Finished, INT_FINISH};
use super::lean::last_block;
use super::tile::PLAIN;
use super::warp_finish::digits3;
use crate::gpu::WARP_SIZE;
use crate::gpu::{ballot, shfl_down_u32, shfl_idx_u32, Counter, Global, GlobalMut, Shared};
use crate::{thread, warp, Element};

/// 32-bit words in a warp's window (two [`digits3`] calls): room for `hi`'s three digits and
/// `lo`'s, 53 bits further down, over the spread of the warp's `hi`s.
pub const WINDOW: usize = 6;
/// 64-bit words of a warp's slot in shared memory: the window's base word, its words, the flags.
pub const SLOT: usize = 1 + WINDOW + FLAGS;

/// Shared memory of an integer-finish block of `block` threads for `slots` words: the words,
/// then one [`SLOT`] per warp (at least what the other kernels reserve,
/// [`super::kernel::words_bytes`], since the shared view covers both).
pub const fn int_shared_bytes(slots: usize, block: usize) -> usize {
    let mine = 8 * (slots + SLOT * (block / 32));
    let others = super::kernel::words_bytes(slots, block);
    if mine > others {
        mine
    } else {
        others
    }
}

/// The default kernel ([`super::lean::sum_lean`]: the lean publish, the plain loop) with the
/// integer finish: launch with [`int_shared_bytes`] of dynamic shared memory; otherwise the
/// same launch contract and the same bits.
pub fn sum_int<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, false, INT_FINISH, true, PLAIN, false, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum_int`] on the fast path ([`super::lean::sum_fast_lean`], f32's default).
pub fn sum_fast_int<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, true, INT_FINISH, true, PLAIN, false, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum_int`] with the probe's stamps ([`super::probe`]'s launch contract).
pub fn sum_int_probe<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, false, INT_FINISH, true, PLAIN, true, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum_fast_int`] with the probe's stamps.
pub fn sum_fast_int_probe<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, true, INT_FINISH, true, PLAIN, true, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// The highest and the lowest digit word holding a bit of the finite, non-zero `v` (a multiple
/// of the unit `2^-unit_exp`).
#[inline(always)]
fn word_span(v: f64, unit_exp: i32) -> (i32, i32) {
    let (m, e) = significand(v);
    let shift = e + unit_exp;
    let top = shift + 63 - m.leading_zeros() as i32;
    let low = shift + m.trailing_zeros() as i32;
    (top.div_euclid(32), low.div_euclid(32))
}

/// Steps 2–3 of [`super::kernel::sum`] with the integer finish (see the module docs), from this
/// thread's expansion `e` (its two chains merged) to [`last_block`]. Every thread of the block
/// calls it; `smem` holds `slots + SLOT · BLOCK / 32` words, the first `slots` the block's words
/// `acc` (the streaming's spills). `stamp` reads the probe's cycle counter (or returns 0).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn int_finish<const BLOCK: usize, const LEAN: bool>(
    e: Expansion,
    smem: &Shared<i64>,
    acc: &SharedWords,
    f: Format,
    words: GlobalWords,
    counter: Counter,
    n: usize,
    last: impl FnOnce(&Shared<i64>, Format, usize),
    stamp: impl Fn() -> u64,
) -> Finished {
    let (w, slots) = (f.words, f.slots());
    let tid = thread::thread_idx_x() as usize;
    let (warp, lane) = (tid / WARP_SIZE as usize, warp::lane_id());
    let finite = e.hi.is_finite();
    // 1. The window: it ends at the warp's highest digit word (-1: no finite non-zero value).
    //    Both components count: after a cancellation `hi` may be 0 with `lo` not.
    let top_of = |v: f64| {
        if v == 0.0 {
            -1
        } else {
            word_span(v, f.unit_exp).0
        }
    };
    let mine = if finite {
        top_of(e.hi).max(top_of(e.lo))
    } else {
        -1
    };
    let mut top = mine;
    let mut offset = WARP_SIZE / 2;
    while offset > 0 {
        let other = shfl_down_u32(top as u32, offset) as i32;
        top = top.max(other);
        offset /= 2;
    }
    let top = shfl_idx_u32(top as u32, 0) as i32;
    let base = (top - (WINDOW as i32 - 1)).max(0);
    let mut win = [0i64; WINDOW];
    if finite {
        for v in [e.hi, e.lo] {
            if v == 0.0 {
                continue;
            }
            let (high, low) = word_span(v, f.unit_exp);
            if low >= base && high < base + WINDOW as i32 {
                let (lo3, hi3) = (
                    digits3(v, f.unit_exp, base as usize),
                    digits3(v, f.unit_exp, base as usize + 3),
                );
                for j in 0..3 {
                    win[j] += lo3[j];
                    win[j + 3] += hi3[j];
                }
            } else {
                // A digit outside the window: the value goes to the block's words as a residual.
                acc.add_f64_inline(v);
            }
        }
    }
    // 2. The window summed over the warp (integers: exact, no residual).
    let mut offset = WARP_SIZE / 2;
    while offset > 0 {
        for x in win.iter_mut() {
            *x += x.shfl_down(offset); // two 32-bit shuffles (`Element::shfl_down`)
        }
        offset /= 2;
    }
    let count = |p: bool| ballot(p).count_ones() as i64;
    let flags = [
        count(e.hi.is_nan()),
        count(e.hi == f64::INFINITY),
        count(e.hi == f64::NEG_INFINITY),
        count(e.hi.to_bits() != (-0.0f64).to_bits()),
    ];
    // 3. Lane 0's slot: base, window, flags.
    let slot = |k: usize| (slots + SLOT * warp + k) as u32;
    if lane == 0 {
        smem.set(slot(0), base as i64);
        for (j, &x) in win.iter().enumerate() {
            smem.set(slot(1 + j), x);
        }
        for (j, &x) in flags.iter().enumerate() {
            smem.set(slot(1 + WINDOW + j), x);
        }
    }
    thread::sync_threads();
    let merged = stamp();

    // 4. Word `k` of the block: the spills plus every warp's window digit (or flag count) there.
    let warps = BLOCK / WARP_SIZE as usize;
    let total = |k: usize| {
        let mut t = smem.get(k as u32);
        for v in 0..warps {
            let at = slots + SLOT * v;
            if k < w {
                let d = k as i64 - smem.get(at as u32);
                if (0..WINDOW as i64).contains(&d) {
                    t += smem.get((at + 1 + d as usize) as u32);
                }
            } else {
                t += smem.get((at + 1 + WINDOW + k - w) as u32);
            }
        }
        t
    };
    let mine = if tid < slots {
        let carry_in = if tid == 0 { 0 } else { total(tid - 1) >> 32 };
        normalize_step(total(tid), carry_in, tid, w)
    } else {
        0
    };
    let carried = stamp();
    let last = last_block::<LEAN>(smem, mine, f, words, counter, n, last);
    Finished {
        last,
        merged,
        carried,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_span_brackets_the_digits() {
        let f = Format::F64;
        assert_eq!(word_span(5e-324, f.unit_exp), (0, 0));
        assert_eq!(word_span(2f64.powi(-1074 + 32), f.unit_exp), (1, 1));
        // 1.0 is 2^1074 units: bit 1074 = word 33, bit 18.
        assert_eq!(word_span(1.0, f.unit_exp), (33, 33));
        assert_eq!(word_span(-1.5, f.unit_exp), (33, 33));
        let (top, low) = word_span(1.0 + f64::EPSILON, f.unit_exp);
        assert_eq!((top, low), (33, (1074 - 52) / 32));
        let g = Format::F32;
        assert_eq!(word_span(2f64.powi(-149), g.unit_exp), (0, 0));
        assert_eq!(word_span(f32::MAX as f64, g.unit_exp).0, (127 + 149) / 32);
    }
}
