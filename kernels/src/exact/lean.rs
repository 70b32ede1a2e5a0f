//! # The lean publish (the default), the rolling loads and the async loop, for N ≈ 2^24
//!
//! **Why.** At 2^24 elements the exact sum took 26.1 µs (f32) and 42.7 µs (f64) on the H200
//! against stage 8's 20.6 and 35.5 (79% and 83%; the target is 90%), while at 2^28 and 2^30 it is
//! at 96–98%: the gap is mostly per-launch (the finish chain after the streaming) and
//! occupancy (68–80 registers per thread: three 256-thread blocks per SM, against stage 8's
//! eight). Two changes, each selectable at run time (the host's `ExactPolicy` keys `lean_finish`,
//! the default since session 7, and `pipeline`; `benches/s7b-exact-on-gpu.sh` times them):
//!
//! 1. **The lean publish** ([`sum_lean`], [`sum_fast_lean`]): the default kernels make every
//!    thread that adds a word into the grid's words execute a `fence.sc.gpu` before the block
//!    barrier and thread 0's acquire-release ticket. The fence is not needed: the atomic is
//!    ordered before the barrier, the barrier synchronizes with thread 0's, and thread 0's
//!    release is cumulative (PTX memory model: base causality order; the CUDA grid barrier of
//!    cooperative groups is built the same way — a block barrier, then one thread's fence and
//!    atomic). One GPU-scope fence (a round trip to L2 for the warp's atomics) less per block,
//!    on the critical path of the last block. The lean kernels also add each warp's expansion
//!    into the block's words inline ([`super::accumulator::SharedWords::add_f64_inline`]), not
//!    through the out-of-line call whose `&self` argument goes through local memory.
//! 2. **The rolling loads** ([`sum_lean_pipe`], [`sum_fast_lean_pipe`], policy key `pipeline`):
//!    the profile below says the loop waits on the first use of each tile's loads, because a
//!    thread has one tile's loads in flight and then none while it adds them. The rolling loop
//!    (`tile::stream_rolling`) refills each vector's register slot with the next tile's
//!    vector as soon as it is read, before adding it: the next tile's four loads are in flight
//!    while the current tile is added. In the source one vector more is live, but ptxas schedules
//!    the next tile's loads early, and the register counts show both tiles live: 88 (f64),
//!    90 (f32 fast), 76 (f32 plain) against 66-80 (ptxas, sm_90) — two 256-thread
//!    blocks per SM instead of three (`blocks_per_sm = 2`), each thread with two tiles in
//!    flight: 512 × 8 vectors per SM against 768 × 4. The measurement decides.
//!
//! Why: Nsight Compute on the H200 (f32, 2^24, the fast kernel, 80 registers, 3 blocks per SM):
//! 60% of the warp-state samples are the first use of a tile's loads (`long_sb` on the
//! `F2F.F64.F32` after the four `LDG.E.128`), at 5.6 active warps per scheduler and DRAM at 54%
//! of peak — the loop waits for memory with too few loads in flight.
//!
//! **Measured and dropped** (session 7, `benches/results/h200-2026-12-01-candidates/call1/exact/`,
//! NOTES.md there): register caps (`.maxnreg 64`: four blocks per SM; 48: five) and L2
//! prefetches two tiles ahead were slower at every N (f32 2^24: 26.6 and 30.4 µs capped, 26.6
//! prefetching, against 25.8 lean; 2^28 prefetching 272 against 249).
//!
//! 3. **The async loop** ([`sum_lean_async`], [`sum_fast_lean_async`], policy `pipeline=2`,
//!    session 15): the same diagnosis, answered without registers. Each thread copies its tiles
//!    with `cp.async` into its own slots of a shared-memory ring ([`crate::async_copy::CopyRing`],
//!    three tiles deep, after the block's words: [`super::kernel::async_shared_bytes`], 48 KiB
//!    more per 256-thread block) and adds a tile from shared memory while the next two are in
//!    flight — three tiles per thread in flight at three blocks per SM (2,304 vectors per SM,
//!    against 768 × 1 for the plain loop while it waits and none while it adds), at the plain
//!    loop's register count (86 registers uncapped, so the kernels are built capped at 80:
//!    `_r80`, no spills).
//!
//!    **Measured and lost** (session 15, `benches/results/h200-2026-12-03-pipeline/call1/exact.md`):
//!    `f32` 2^24 30.3 µs against the plain loop's 25.2, 2^30 1118 against 943 — the ring's
//!    copies, shared loads and slot arithmetic are instructions the `f32` kernel, near its issue
//!    budget (16 elements per tile), cannot hide; `f64` level (2^24 44.4, or 42.8 with one
//!    512-thread block per SM, against 42.0; 2^30 1866 against 1892). Three times the bytes in
//!    flight did not close the 2^24 gap, so that gap is not the loads' latency alone. Kept as a
//!    measured candidate (`pipeline=2`), like the rolling loads.
//!
//! The bits are the same as every other variant's: only the order of memory operations and the
//! register allocation change, never an addition.

use super::accumulator::{normalize_step, Format, SharedWords};
use super::expansion::Expansion;
use super::kernel::{round_into, sum_with, Finished, ATOMICS};
use super::merge::block_merge;
use super::tile::{ASYNC, PLAIN, ROLLING};
use super::GlobalWords;
use crate::gpu::{sync_threads_or, thread_fence, Counter, Global, GlobalMut, Shared, WARP_SIZE};
use crate::{thread, warp, Element};

/// [`super::kernel::sum`] with the lean publish (no per-thread fence before the ticket); the same
/// launch contract and the same bits.
pub fn sum_lean<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, false, ATOMICS, true, PLAIN, false, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`super::kernel::sum_fast`] with the lean publish; the same launch contract and the same bits.
pub fn sum_fast_lean<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, true, ATOMICS, true, PLAIN, false, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum_lean`] with the rolling loads (`tile::stream_rolling`); the same launch
/// contract and the same bits.
pub fn sum_lean_pipe<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, false, ATOMICS, true, ROLLING, false, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum_fast_lean`] with the rolling loads; the same launch contract and the same bits.
pub fn sum_fast_lean_pipe<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, true, ATOMICS, true, ROLLING, false, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum_lean`] with the async loop (`tile::stream_async`): launch with
/// [`super::kernel::async_shared_bytes`] of dynamic shared memory; otherwise the same launch
/// contract and the same bits.
pub fn sum_lean_async<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, false, ATOMICS, true, ASYNC, false, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum_fast_lean`] with the async loop; launch as [`sum_lean_async`].
pub fn sum_fast_lean_async<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, true, ATOMICS, true, ASYNC, false, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// Steps 2–3 of [`super::kernel::sum`] for every block but with the warp finish: lane 0 of each
/// warp (or, with `merge`, thread 0 after [`block_merge`]) adds its expansion `e` into the block's
/// words `acc` with shared atomics, a barrier, one carry step through shared memory, then
/// [`last_block`]. `stamp` reads the probe's cycle counter (or returns 0).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn block_finish<const BLOCK: usize, const LEAN: bool>(
    e: Expansion,
    merge: bool,
    smem: &Shared<i64>,
    acc: &SharedWords,
    f: Format,
    words: GlobalWords,
    counter: Counter,
    n: usize,
    last: impl FnOnce(&Shared<i64>, Format, usize),
    stamp: impl Fn() -> u64,
) -> Finished {
    let slots = f.slots();
    let tid = thread::thread_idx_x() as usize;
    let (e, adds) = if merge {
        (block_merge::<BLOCK>(e, smem, 2 * slots, acc), tid == 0)
    } else {
        (e, warp::lane_id() == 0)
    };
    if adds {
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
    let merged = stamp();

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
    let carried = stamp();
    let last = last_block::<LEAN>(smem, mine, f, words, counter, n, last);
    Finished {
        last,
        merged,
        carried,
    }
}

/// Step 3's end, for every block: publish the block's normalized word `mine` (thread `tid`'s)
/// into the grid's `words` and take the ticket; the last block reads the grid's words back,
/// zeroes them for the next launch, and its warp 0 calls `last` on them once (the variants round
/// there). A single-block launch skips the global words and the ticket and passes its own words.
/// Returns whether this block was the last (every block of a one-block launch is).
#[inline(always)]
pub(super) fn last_block<const LEAN: bool>(
    smem: &Shared<i64>,
    mine: i64,
    f: Format,
    words: GlobalWords,
    counter: Counter,
    n: usize,
    last: impl FnOnce(&Shared<i64>, Format, usize),
) -> bool {
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
        return true;
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
    is_last
}
