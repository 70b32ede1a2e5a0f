//! # Session-7 candidates for N ≈ 2^24: a shorter publish step, a register cap
//!
//! **Why.** At 2^24 elements the exact sum took 26.1 µs (f32) and 42.7 µs (f64) on the H200
//! against stage 8's 20.6 and 35.5 (79% and 83%; the target is 90%), while at 2^28 and 2^30 it is
//! at 96–98%: the gap is mostly per-launch (the finish chain after the streaming) and
//! occupancy (68–80 registers per thread: three 256-thread blocks per SM, against stage 8's
//! eight). Two independent changes, each selectable at run time (the host's `ExactPolicy`
//! keys `lean_finish` and `max_regs`; `benches/s7-exact-on-gpu.sh` times them side by side):
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
//! 2. **The register cap** (the `*_r64` kernels: the same Rust functions, exported under
//!    another name; `cargo xtask build-ptx` gives every entry whose name has a `_r<N>_` segment
//!    the PTX directive `.maxnreg N`): 64 registers per thread make **four** 256-thread blocks
//!    resident per SM instead of three (1024 threads: a third more loads in flight). ptxas, sm_90:
//!    the hot loops keep every value in registers; what spills (8 bytes for f64, 48 for the f32
//!    fast kernel) is around the out-of-line calls of the rare path and the finish. The host's
//!    policy then launches `blocks_per_sm = 4`. The lean kernels are also built with 48
//!    (`*_lean_r48`: five blocks per SM, `blocks_per_sm = 5`); there ptxas keeps a few values
//!    of the streaming loop in local memory (L1), which the measurement weighs against the
//!    extra 256 threads per SM.
//!
//! Why occupancy: Nsight Compute on the H200 (f32, 2^24, the default fast kernel, 80 registers,
//! 3 blocks per SM): 60% of the warp-state samples are the first use of a tile's loads
//! (`long_sb` on the `F2F.F64.F32` after the four `LDG.E.128`), at 5.6 active warps per
//! scheduler and DRAM at 54% of peak — the loop waits for memory with too few loads in flight.
//!
//! 3. **L2 prefetch** ([`sum_lean_pf`], [`sum_fast_lean_pf`]): the streaming loop waits for its
//!    loads (the profile above) because a thread has one tile's loads in flight and computes
//!    between tiles. Each thread also asks L2 for its vectors of the tile two ahead
//!    (`prefetch.global.L2`, `prefetch_tile`): no registers (unlike loading the next tile
//!    early), so the block keeps two more tiles moving from HBM while it adds the current one,
//!    and the loads of later tiles hit L2. (`cp.async.bulk.prefetch.L2`, one instruction per
//!    tile, needs PTX 8.0; the kernels are built for PTX 7.8.)
//!
//! The bits are the same as every other variant's: only the order of memory operations and the
//! register allocation change, never an addition.

use super::kernel::{round_into, sum_with};
use super::GlobalWords;
use crate::gpu::{Counter, Global, GlobalMut};
use crate::Element;

/// Ask L2 for this thread's vectors of the tile that starts at vector `first` (thread `tid`'s
/// `first + u · BLOCK + tid`, `u < UNROLL`, counted from element `head`), when that whole tile
/// is before `end` (the block's own run); a hint, which never changes a result.
#[inline(always)]
pub(super) fn prefetch_tile<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    head: usize,
    first: usize,
    end: usize,
    tid: usize,
) {
    if first + BLOCK * UNROLL <= end {
        for u in 0..UNROLL {
            input.prefetch_vec4(head, first + u * BLOCK + tid);
        }
    }
}

/// [`super::kernel::sum`] with the lean publish (no per-thread fence before the ticket); the same
/// launch contract and the same bits.
pub fn sum_lean<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, false, false, true, false>(input, words, counter, round_into(out))
}

/// [`super::kernel::sum_fast`] with the lean publish; the same launch contract and the same bits.
pub fn sum_fast_lean<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, true, false, true, false>(input, words, counter, round_into(out))
}

/// [`sum_lean`] with L2 prefetches two tiles ahead; the same launch contract and the same bits.
pub fn sum_lean_pf<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, false, false, true, true>(input, words, counter, round_into(out))
}

/// [`sum_fast_lean`] with L2 prefetches two tiles ahead; the same launch contract and the same
/// bits.
pub fn sum_fast_lean_pf<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, true, false, true, true>(input, words, counter, round_into(out))
}
