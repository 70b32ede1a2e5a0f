//! # The exact-sum kernels: the lean publish
//!
//! [`sum_lean`] and [`sum_fast_lean`] are [`super::kernel`]'s launch ([`super::kernel`]'s
//! `sum_with`) with the **lean publish**: a block that adds its words into the grid's does not
//! make every adding thread execute a `fence.sc.gpu` before the block barrier and thread 0's
//! acquire-release ticket. The fence is not needed: the atomic is ordered before the barrier, the
//! barrier synchronizes with thread 0's, and thread 0's release is cumulative (PTX memory model:
//! base causality order; the CUDA grid barrier of cooperative groups is built the same way — a
//! block barrier, then one thread's fence and atomic). One GPU-scope fence (a round trip to L2
//! for the warp's atomics) less per block, on the critical path of the last block. The lean
//! kernels also add each warp's expansion into the block's words inline
//! ([`super::accumulator::SharedWords::add_f64_inline`]), not through the out-of-line call whose
//! `&self` argument goes through local memory.
//!
//! Measured on the H200 against the fenced publish (min µs, lean / fenced): never slower beyond
//! noise, faster below 2^24 — f32 2^20 8.8 / 9.3, 2^24 25.8 / 25.8; f64 2^20 10.2 / 11.1, 2^24
//! 41.9 / 42.5 (`benches/results/h200-2026-12-01-candidates/call1/exact/s7-exact.md`). The multi-GPU
//! words kernel ([`super::words::sum_words`]) keeps the fence (`LEAN = false` in `last_block`).
//!
//! Where the time goes at N ≈ 2^24 (26 µs for f32, 42 for f64 on the H200, against stage 8's
//! 20.6 and 35.5; 96–98% of stage 8 at 2^28 and 2^30): the finish chain after the streaming and
//! occupancy (66–80 registers per thread: three 256-thread blocks per SM, against stage 8's
//! eight). Nsight Compute (f32, 2^24, the fast kernel): 60% of the warp-state samples are the
//! first use of a tile's loads (`long_sb` on the `F2F.F64.F32` after the four `LDG.E.128`), at
//! 5.6 active warps per scheduler and DRAM at 54% of peak.
//!
//! The bits are the same as every other variant's: only the order of memory operations and the
//! register allocation change, never an addition.

use super::accumulator::{normalize_step, Format, SharedWords};
use super::expansion::Expansion;
use super::kernel::{round_into, sum_with};
use super::GlobalWords;
use crate::gpu::{sync_threads_or, thread_fence, Counter, Global, GlobalMut, Shared, WARP_SIZE};
use crate::{thread, warp, Element};

/// The correctly rounded sum of all of `input` into `out[0]`, in one launch (the general path:
/// two TwoSums per element).
///
/// Launch with `blockDim.x == BLOCK` (a power of two, at least `slots`, and at most 512: the kernel
/// uses 66–80 registers per thread, so a 1024-thread block cannot launch),
/// [`super::kernel::words_bytes`]`(slots, BLOCK)` = `16 · (slots + BLOCK / 32)` bytes of dynamic
/// shared memory (`slots = Format::of(T).slots()`), any grid with at most
/// [`super::kernel::MAX_PER_BLOCK`] elements per block and at most [`super::kernel::MAX_GRID`]
/// blocks; `words` must hold `slots` zeroed words and `counter` must be 0 (the kernel leaves both
/// zeroed again). `T` must be `f32` or `f64`. Any other launch stops the kernel.
pub fn sum_lean<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, false, true>(input, words, counter, round_into(out))
}

/// [`sum_lean`] with the fast path ([`super::Expansion::add_fast`]: three additions per element
/// when one addition is exact, the two TwoSums otherwise); the same launch contract and the same
/// bits.
pub fn sum_fast_lean<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, true, true>(input, words, counter, round_into(out))
}

/// Steps 2–3 of the kernel ([`super::kernel`]): lane 0 of each warp adds its warp's expansion
/// `e` into the block's words `acc` with shared atomics, a barrier, one carry step through shared
/// memory, then [`last_block`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn block_finish<const LEAN: bool>(
    e: Expansion,
    smem: &Shared<i64>,
    acc: &SharedWords,
    f: Format,
    words: GlobalWords,
    counter: Counter,
    n: usize,
    last: impl FnOnce(&Shared<i64>, Format, usize),
) {
    let slots = f.slots();
    let tid = thread::thread_idx_x() as usize;
    if warp::lane_id() == 0 {
        let w = f.words;
        if e.hi.is_nan() {
            acc.add(w, 1);
        } else if e.hi == f64::INFINITY {
            acc.add(w + 1, 1);
        } else if e.hi == f64::NEG_INFINITY {
            acc.add(w + 2, 1);
        } else if LEAN {
            acc.add_f64_inline(e.hi);
            acc.add_f64_inline(e.lo);
        } else {
            acc.add_f64(e.hi);
            acc.add_f64(e.lo);
        }
        if e.hi.to_bits() != (-0.0f64).to_bits() {
            acc.add(w + 3, 1);
        }
    }
    thread::sync_threads();

    // Step 3: one carry step (each thread reads its own word and, through the second half of
    // shared memory, its neighbour's carry), then publish (or finish, for a single block).
    let own = if tid < slots { smem.get(tid as u32) } else { 0 };
    if tid < slots {
        smem.set((slots + tid) as u32, own >> 32);
    }
    thread::sync_threads();
    let mine = if tid < slots {
        let carry_in = if tid == 0 {
            0
        } else {
            smem.get((slots + tid - 1) as u32)
        };
        normalize_step(own, carry_in, tid, f.words)
    } else {
        0
    };
    last_block::<LEAN>(smem, mine, f, words, counter, n, last);
}

/// Step 3's end, for every block: publish the block's normalized word `mine` (thread `tid`'s)
/// into the grid's `words` and take the ticket; the last block reads the grid's words back,
/// zeroes them for the next launch, and its warp 0 calls `last` on them once (the rounding
/// kernels round there). A single-block launch skips the global words and the ticket and passes
/// its own words. `LEAN`: the publish without the per-thread fence (see the module docs).
#[inline(always)]
pub(super) fn last_block<const LEAN: bool>(
    smem: &Shared<i64>,
    mine: i64,
    f: Format,
    words: GlobalWords,
    counter: Counter,
    n: usize,
    last: impl FnOnce(&Shared<i64>, Format, usize),
) {
    let slots = f.slots();
    let tid = thread::thread_idx_x() as usize;
    if thread::grid_dim_x() == 1 {
        thread::sync_threads();
        if tid < slots {
            smem.set(tid as u32, mine);
        }
        thread::sync_threads();
        if tid < WARP_SIZE as usize {
            last(smem, f, n);
        }
        return;
    }
    if tid < slots {
        if mine != 0 {
            words.add(tid, mine);
        }
        if !LEAN {
            // Make this thread's atomic visible GPU-wide before thread 0's release (the barrier
            // below orders it before the ticket).
            thread_fence();
        }
        // `LEAN`: no fence here. The atomic precedes this thread's barrier below, which
        // synchronizes with thread 0's, which precedes thread 0's release (the ticket) in
        // program order: the atomic is in causality order before the release, and the release
        // pattern makes it visible to the block that acquires the last ticket (PTX ISA, "Memory
        // Consistency Model": base causality order; the CUDA grid barrier relies on the same:
        // a block barrier, then one thread's fence and atomic).
    }
    thread::sync_threads();
    let mut last_ticket = false;
    if tid == 0 {
        last_ticket = counter.take_ticket() == thread::grid_dim_x() - 1;
    }
    let is_last = sync_threads_or(last_ticket);
    if is_last {
        // The last block: every block's words are in `words` (thread 0's acquire, then the
        // barrier, order these loads after every block's release). Read them, zero them for the
        // next launch, round.
        if tid < slots {
            smem.set(tid as u32, words.get(tid));
            words.set(tid, 0);
        }
        thread::sync_threads();
        if tid < WARP_SIZE as usize {
            last(smem, f, n);
        }
        if tid == 0 {
            counter.reset();
        }
    }
}
