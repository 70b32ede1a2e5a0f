//! # Candidate argmin/argmax loops (run-time selectable; measured against the default)
//!
//! The default kernel ([`super::reduce`], 4 loads in flight, the lane re-loaded after the loop)
//! reads f32 at ~87% of stage 8's bandwidth at 2^26 and trails CUB's `ArgMax` at 2^20 (measured
//! on the H200). Two changes, each its own kernel family so one binary measures them side by side
//! (`reduce arg --policy "unroll=8"`, `"lane=loop"`, `"unroll=8,lane=loop"`):
//!
//! * **8 loads in flight** ([`entry_u8`], [`entry_lean8`]): the kernel uses ~40 registers, so an
//!   SM holds 1024–1536 of its threads, not stage 8's 2048; with 4 vectors each that is 64–96 KiB
//!   of reads in flight per SM against stage 8's 128 KiB. Eight vectors per thread at 1024
//!   threads per SM restore 128 KiB (the loaded vectors cost 16 more registers; 4 blocks of 256
//!   still fit).
//! * **the lane found when the best changes** ([`reduce_lean`], [`entry_lean`], [`entry_lean8`]):
//!   instead of re-loading the winning vector after the loop (one more dependent trip to L2 at
//!   the end of every thread: at 2^20, where each thread runs one tile, that is a fifth of the
//!   kernel's critical path), the lane is looked up in the vector already in registers, only when
//!   the vector's best replaces the thread's (a branch, rarely taken once a thread has seen a few
//!   vectors), and kept packed with the vector number in one 32-bit position. The seed elements
//!   (misaligned head, short tail) are read after the loop, so their item does not occupy
//!   registers during it.
//!
//! Semantics are the default kernel's, bit for bit (first occurrence, first NaN, the element's
//! own bits returned); the emulator tests run every candidate through the same cases.

use super::order::{later_wins, worst};
use super::vector::{find_lane_in_regs, vector_best};
use super::{reduce, Arg, ArgItem, Direction, Layout, NO_POS};
use crate::gpu::{fail, Global, GlobalMut, Vec4};
use crate::primitives::device::{self, item_pass, Workspace};
use crate::primitives::tiles::{self, EvenShare};
use crate::primitives::Combine;
use crate::Element;

/// Loads in flight per thread in the 8-deep candidates ([`entry_u8`], [`entry_lean8`]).
pub const DEEP_UNROLL: usize = 8;

/// Argmin/argmax of `input` into `out`, the lane resolved in the loop (see the module docs):
/// same launch contract and result as [`super::reduce`].
pub fn reduce_lean<T: Element, D: Direction, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    ws: Workspace,
    out: GlobalMut<u32>,
) {
    let l = Layout::of(&input);
    let (lanes, head, tid) = (l.lanes, l.head, l.tid);
    let load = |v: usize| -> Vec4 {
        // SAFETY: `tiles::for_each_unrolled` calls this with `v < share.end <= vectors` only, so
        // `head + (v + 1) * lanes <= body_end <= n`; element `head` is the first on a 16-byte
        // boundary (`misaligned_head`).
        unsafe { input.get_vec4_unchecked(head, v) }
    };
    let share = EvenShare::new(l.vectors, BLOCK * UNROLL, l.grid.max(1), l.block);
    device::check::<ArgItem<T>, BLOCK>(&ws, &out);
    if (share.per_block / BLOCK).saturating_mul(lanes) >= NO_POS as usize {
        // The packed position (vector number × lanes + lane) would not fit 32 bits; the host
        // sizes the grid so that this never happens (`fits_positions`).
        fail("argreduce: more than 2^32 - 1 elements per thread; launch a larger grid");
    }

    // The hot loop: the best value and its packed position, nothing else.
    let mut best = worst::<T, D>();
    let mut at = NO_POS;
    tiles::for_each_unrolled::<Vec4, BLOCK, UNROLL>(share, tid, load, |v, x| {
        let vb = vector_best::<T, D>(x);
        if at == NO_POS || later_wins::<T, D>(best, vb) {
            // Rare after the first few vectors: the lane from the registers, not memory.
            let (k, value) = find_lane_in_regs::<T>(x, vb);
            best = value;
            // `j * lanes + k < per_block / BLOCK * lanes < 2^32 - 1` (checked above).
            at = (((v - share.start) / BLOCK) * lanes + k) as u32;
        }
    });
    let mut acc = Arg::<T, D>::identity();
    if at != NO_POS {
        let (j, k) = (at as usize / lanes, at as usize % lanes);
        let v = share.start + j * BLOCK + tid;
        acc = ArgItem {
            index: (head + v * lanes + k) as u64,
            value: best,
        };
    }
    // The elements outside whole vectors: the first threads of block 0, after the loop.
    let acc = Arg::<T, D>::combine(l.seed::<T, D>(&input), acc);
    device::finish::<Arg<T, D>, BLOCK>(acc, ws, out)
}

/// One candidate's raw entry point (the item ABI of [`item_pass`], as [`super::entry`]).
macro_rules! candidate {
    ($(#[$doc:meta])* $name:ident => $body:ident, $unroll:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// [`item_pass`]'s contract, with `I = ArgItem<T>`.
        pub unsafe fn $name<T: Element, D: Direction, const BLOCK: usize>(
            input: *const T,
            n: usize,
            partials: *mut u32,
            counter: *mut u32,
            out: *mut u32,
        ) {
            // SAFETY: this function's contract.
            unsafe {
                item_pass::<T, ArgItem<T>>(
                    $body::<T, D, BLOCK, { $unroll }>,
                    input,
                    n,
                    partials,
                    counter,
                    out,
                )
            }
        }
    };
}

candidate!(
    /// The default loop ([`super::reduce`]) with 8 loads in flight (`reduce arg --policy unroll=8`).
    entry_u8 => reduce, DEEP_UNROLL
);
candidate!(
    /// [`reduce_lean`] with 4 loads in flight (`reduce arg --policy lane=loop`).
    entry_lean => reduce_lean, super::UNROLL
);
candidate!(
    /// [`reduce_lean`] with 8 loads in flight (`reduce arg --policy unroll=8,lane=loop`).
    entry_lean8 => reduce_lean, DEEP_UNROLL
);
