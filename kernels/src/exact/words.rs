//! # Exact sums across GPUs: the grid's words out unrounded, then one combine that rounds once
//!
//! **What.** Two kernels that split [`super::lean::sum_lean`] at its rounding, so that shards on
//! several GPUs give the **same bits** as one GPU on the whole input:
//!
//! 1. [`sum_words`] is the exact sum's launch up to its last step (the same code,
//!    [`super::kernel`]'s `accumulate`); instead of rounding, the last block writes the grid's
//!    words **fully carried** (digit words in `[0, 2^32)`, the top one signed), the four flag
//!    counts, and the element count into `out` ([`words_len`] 64-bit words);
//! 2. the ranks all-gather those word vectors (NCCL; bytes are bytes), and on every rank
//!    [`combine`] adds the R vectors word by word — integer additions, so the order of the ranks
//!    cannot change the sum — and rounds **once** with the same [`super::round()`] (and the same
//!    NaN / infinity / `-0.0` rules) as the one-GPU kernel.
//!
//! The integer the R vectors add up to is the exact sum of the concatenation in units of the
//! smallest subnormal, whatever the sharding: the rounding of that integer is the one-GPU
//! answer, bit for bit.
//!
//! **Why it is fast.** The shard's pass is the exact sum's own; what is added is one carry pass
//! over `W + 4` words by one thread per launch, `8 · (W + 5)` bytes per rank through the
//! all-gather, and a one-thread combine of `R · (W + 5)` integer additions (a few hundred).
//!
//! **What it costs.** Two launches instead of one and the exchange's latency (microseconds);
//! the ranks' bound: a fully carried digit word is below 2^32 and the round needs words below
//! 2^62, so up to [`MAX_RANKS`] = 2^24 vectors can be added (`2^24 · 2^32 = 2^56`), far more
//! ranks than a host has GPUs. The flag words count warps and the last word counts elements,
//! both far below 2^63 for any input that fits in memory.

use super::accumulator::{Format, GlobalWords, MAX_SLOTS};
use super::kernel::accumulate;
use super::result::finish_words;
use crate::gpu::{fail, Counter, Global, GlobalMut, Shared};
use crate::{thread, Element};

/// Most word vectors [`combine`] adds (see the module docs).
pub const MAX_RANKS: usize = 1 << 24;

/// 64-bit words of one rank's vector: the `W` digit words, the 4 flags, the element count.
pub const fn words_len(f: Format) -> usize {
    f.slots() + 1
}

/// The exact sum of `input`, left unrounded: `out[..W]` the fully carried digit words,
/// `out[W..W + 4]` the flags (NaNs, +infs, -infs, warps not all `-0.0`), `out[W + 4]` the
/// element count. Same launch contract as [`super::lean::sum_lean`] (`words` and `counter` are
/// left zeroed); `out` must hold [`words_len`] words, or the kernel stops.
pub fn sum_words<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<i64>,
) {
    accumulate::<T, BLOCK, UNROLL>(input, words, counter, |smem, f, n| {
        if thread::thread_idx_x() == 0 {
            write_words(smem, f, n, out)
        }
    });
}

/// Thread 0's last step of [`sum_words`]: the words, fully carried, the flags and the count.
/// Out of line (as the rounding is in [`super::kernel`]): once per launch, and kept out of the
/// streaming loop's register allocation.
#[inline(never)]
fn write_words(smem: &Shared<i64>, f: Format, n: usize, out: GlobalMut<i64>) {
    if out.len() < words_len(f) {
        fail("exact words out: the output holds fewer than W + 5 words");
    }
    // Full carry propagation: each digit word keeps its low 32 bits, the top one the rest
    // (the value fits in 32·W - 1 bits, so the top word is small).
    let mut carry = 0i64;
    for i in 0..f.words {
        let t = smem.get(i as u32) + carry;
        if i + 1 == f.words {
            out.set(i, t);
        } else {
            out.set(i, t & 0xffff_ffff);
            carry = t >> 32;
        }
    }
    for i in f.words..f.slots() {
        out.set(i, smem.get(i as u32));
    }
    out.set(f.slots(), n as i64);
}

/// `out[0]` = the correctly rounded sum of the R word vectors in `gathered` (R · [`words_len`]
/// words, rank after rank, as [`sum_words`] wrote them): their word-by-word integer sum, rounded
/// once. One thread does it (thread 0 of block 0; any launch shape works, the others return).
/// `T` must be `f32` or `f64`, `gathered.len()` a positive multiple of [`words_len`] of at most
/// [`MAX_RANKS`] vectors, `out` one element; anything else stops the kernel.
pub fn combine<T: Element>(gathered: Global<i64>, out: GlobalMut<T>) {
    let Some(f) = Format::of(T::TYPE) else {
        fail("exact sums are for f32 and f64");
    };
    let len = words_len(f);
    let ranks = gathered.len() / len;
    if ranks == 0 || ranks * len != gathered.len() || ranks > MAX_RANKS {
        fail("exact combine: the gathered words are not 1..=MAX_RANKS vectors of W + 5 words");
    }
    if thread::thread_idx_x() != 0 || thread::block_idx_x() != 0 {
        return;
    }
    let mut w = [0i64; MAX_SLOTS];
    let mut n = 0i64;
    for r in 0..ranks {
        for (i, x) in w.iter_mut().enumerate().take(f.slots()) {
            *x += gathered.get(r * len + i);
        }
        n += gathered.get(r * len + f.slots());
    }
    out.set(0, T::from_bits64(finish_words(&w, f, n as usize)));
}

/// The words-out ABI: `(const T* input, size_t n, int64_t* words, unsigned* counter,
/// int64_t* out)` → safe views.
///
/// # Safety
/// As [`crate::exports::exact`], except that `out` holds [`words_len`] 64-bit words.
#[inline(always)]
pub unsafe fn words_entry<T: Element>(
    body: impl Fn(Global<T>, GlobalWords, Counter, GlobalMut<i64>),
    input: *const T,
    n: usize,
    words: *mut i64,
    counter: *mut u32,
    out: *mut i64,
) {
    let len = Format::of(T::TYPE).map_or(0, words_len);
    let slots = Format::of(T::TYPE).map_or(0, |f| f.slots());
    // SAFETY: the caller's contract, as listed above.
    let (input, words, counter, out) = unsafe {
        (
            Global::from_raw(input, n),
            GlobalWords::from_raw(words, slots),
            Counter::from_raw(counter),
            GlobalMut::from_raw(out, len),
        )
    };
    body(input, words, counter, out)
}

/// The combine ABI: `(const int64_t* gathered, size_t len, T* out)` → safe views.
///
/// # Safety
/// `gathered` holds `len` 64-bit words and `out` one `T`, both live for the launch.
#[inline(always)]
pub unsafe fn combine_entry<T: Element>(
    body: impl Fn(Global<i64>, GlobalMut<T>),
    gathered: *const i64,
    len: usize,
    out: *mut T,
) {
    // SAFETY: the caller's contract, as listed above.
    let (gathered, out) = unsafe { (Global::from_raw(gathered, len), GlobalMut::from_raw(out, 1)) };
    body(gathered, out)
}
