//! # Where the exact kernel's time goes: per-block phase stamps (a diagnostic)
//!
//! **What.** [`sum_probe`] and [`sum_fast_probe`] are the default exact kernels (the lean
//! publish, the plain loop; the second with the fast path, f32's default) with stamps: thread 0
//! of every block reads the SM's cycle counter ([`clock64`](crate::gpu::clock64)) at five points
//! and the GPU-wide `%globaltimer` at entry and exit, and writes them after the grid's words —
//! block `b`'s [`STAMPS`] words at `words[slots + STAMPS · b ..]`:
//!
//! | word | what |
//! |---|---|
//! | 0, 1 | `%globaltimer` (ns, GPU-wide, in steps of about a microsecond) at entry and at exit |
//! | 2 | cycles at entry |
//! | 3 | after streaming: thread 0's own tiles added (the other warps may still stream) |
//! | 4 | after the barrier that follows the warp merges and the shared-memory adds: every warp has streamed and merged |
//! | 5 | after the carry step (two more barriers) |
//! | 6 | at exit: after the publish and the ticket, and for the last block after it read, zeroed and rounded the grid's words |
//! | 7 | `%smid`, plus 2^32 for the block that took the last ticket |
//!
//! Cycle differences are durations within one block (the counters of different SMs are not
//! synchronized); the `%globaltimer` words place the blocks on one time line, coarsely. The host
//! (`reduce exact --probe`) prints, over the blocks, the median and maximum of each phase.
//!
//! **Why.** The exact sum reaches 91–97% of stage 8's plain sum from 2^26 but 80% (f32) and 84%
//! (f64) at 2^24, and neither fewer registers, nor rolling loads, nor a `cp.async` ring with three
//! times the bytes in flight closed that gap (sessions 7 and 15): the stamps say how much of a
//! launch is streaming and how much is the finish after it.
//!
//! **What it costs.** Seven special-register reads and eight stores per block; the stamps are
//! taken where the kernel already synchronizes, and the additions — hence the bits — are the
//! default kernels' (tested).

use super::kernel::{round_into, sum_with, ATOMICS};
use super::tile::PLAIN;
use super::GlobalWords;
use crate::gpu::{global_timer_ns, sm_id, Counter, Global, GlobalMut};
use crate::Element;

/// Words of stamps per block.
pub const STAMPS: usize = 8;

/// The default plain-loop kernel ([`super::lean::sum_lean`]) with stamps: the launch's `words`
/// allocation holds `slots + STAMPS · gridDim.x` words (the first `slots` zeroed, as for every
/// exact kernel; the ABI's view covers those `slots`, the stamps are written through a longer
/// one, [`super::GlobalWords::with_len`]); otherwise [`super::kernel::sum`]'s launch contract,
/// and the same bits.
pub fn sum_probe<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, false, ATOMICS, true, PLAIN, true, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum_probe`] on the fast path ([`super::lean::sum_fast_lean`], f32's default).
pub fn sum_fast_probe<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, true, ATOMICS, true, PLAIN, true, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// Thread 0's stamps of block `block` (`cycles`: entry, streamed, merged, carried, exit), its
/// entry time `entry_ns`, and whether it took the last ticket, into `words[slots + STAMPS ·
/// block ..]` (the kernel checked that `words` holds them).
#[inline(always)]
pub(super) fn write_stamps(
    words: GlobalWords,
    slots: usize,
    block: usize,
    entry_ns: u64,
    cycles: [u64; 5],
    last: bool,
) {
    let at = slots + STAMPS * block;
    let exit_ns = global_timer_ns();
    words.set(at, entry_ns as i64);
    words.set(at + 1, exit_ns as i64);
    for (i, c) in cycles.iter().enumerate() {
        words.set(at + 2 + i, *c as i64);
    }
    words.set(at + 7, sm_id() as i64 | (last as i64) << 32);
}
