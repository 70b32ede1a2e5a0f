//! # The warm rounding: the last block's rounding code fetched before it is needed
//!
//! **What changed.** The rounding ([`super::round::round_warp`], out of line in the kernel's
//! `finish`, about 600 instructions, 10 KB of code) runs once per launch, in the last block. In
//! the warm kernels, warp 0 of every other block also runs it once, on its own block's words,
//! after its publish, and drops the result (`core::hint::black_box`).
//!
//! **Why it could be faster.** The probe ([`super::probe`]) puts the last block's read and round
//! at about 2.2 µs on the H200 (and a one-block launch's round alone at about 1.4 µs) for a few
//! dozen dependent shuffles and loads — far more than their latencies. One explanation is the
//! instruction fetch: code that runs once per launch is cold, and at 2^24 and above the input
//! streaming through the 50 MB L2 evicts it, so the last block would fetch the rounding from DRAM.
//! Blocks that finish streaming before the last one are idle anyway; if they run the rounding,
//! its code is in L2 (and in their SMs' instruction caches) when the last block needs it. This
//! is an experiment: the measurement decides.
//!
//! **Measured** (session 16, H200, `benches/results/h200-2026-12-03-finish/call3/`): against the
//! default's own settings through the same `--policy` path, f32 2^24 25.7 µs / 26.1, f64 41.3 /
//! 41.9, 0.1–1.5 µs faster at 2^20–2^28 in 11 of 16 cells, level at 2^12, 2^16 and 2^30. The
//! probe: the last block's read and round fell from 2.9–3.7 µs to 2.3–2.8 at 2^24 and 2^26, but
//! the rounding still costs ~1.2 µs where its code is warm (in the blocks that run it here, and
//! in a one-block launch): it is long serial code — a shorter rounding is the next step. A
//! candidate (`warm_round=1`), not the default: the gain is within the spread between calls.
//!
//! **What it costs.** Nothing on the critical path when the hypothesis is wrong, except that the
//! idle blocks' warp 0 stays resident about a microsecond longer. The bits are the default's:
//! the extra rounding's result is never stored.

use super::kernel::{round_into, sum_with, ATOMICS};
use super::tile::PLAIN;
use super::GlobalWords;
use crate::gpu::{Counter, Global, GlobalMut};
use crate::Element;

/// The default kernel ([`super::lean::sum_lean`]) with the warm rounding; the same launch
/// contract and the same bits.
pub fn sum_warm<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, false, ATOMICS, true, PLAIN, false, true>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum_warm`] on the fast path ([`super::lean::sum_fast_lean`], f32's default).
pub fn sum_fast_warm<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, true, ATOMICS, true, PLAIN, false, true>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum_warm`] with the probe's stamps ([`super::probe`]'s launch contract).
pub fn sum_warm_probe<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, false, ATOMICS, true, PLAIN, true, true>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum_fast_warm`] with the probe's stamps.
pub fn sum_fast_warm_probe<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, true, ATOMICS, true, PLAIN, true, true>(
        input,
        words,
        counter,
        round_into(out),
    )
}
