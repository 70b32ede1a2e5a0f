//! # Stage 6 — complete unrolling with the block size known at compile time
//!
//! Seed step: the `template <unsigned int blockSize>` of blog **Kernel 5** (`reduce_final`) /
//! lesson **REDUCE-5** ("completely unrolled"), without yet the grid-stride loop (stage 7).
//!
//! What changed from stage 5: the block size is a **const generic** `BLOCK` — Rust's version of the
//! seeds' C++ template parameter. Every `if BLOCK >= 512` below is decided by the compiler, so the
//! loop over strides disappears: what is left is a straight line of exactly the rounds this block
//! size needs, with no loop counter, no shift, no compare-and-branch per round. The host
//! instantiates `BLOCK` = 64, 128, 256, 512 and 1024 and picks one at run time
//! (`reduce_s6_complete_unroll_b256_f32`, …).
//!
//! Why it is faster: the remaining per-round overhead of stage 5 (loop arithmetic and branches)
//! is gone; with few instructions per round the barriers and shared-memory latency are all that
//! remain.
//!
//! ## In PTX: `reduce_s6_complete_unroll_b256_f32`
//!
//! With `BLOCK = 256` the tree is a straight line; the two block-wide rounds (`cargo xtask ptx 6`
//! shows the whole kernel, `--block 1024` another instantiation):
//!
//! ```text
//! setp.lt.u32   %p4, %r4, 128;     // if tid < 128: 128 is a constant, not a loop variable
//! ld.shared.b32 %r7, [%rd6+512];   // sdata[tid + 128]
//! add.rn.f32    %r8, %r6, %r7;
//! st.shared.b32 [%rd6], %r8;
//! bar.sync      0;
//! setp.lt.u32   %p5, %r4, 64;      // if tid < 64
//! ld.shared.b32 %r10, [%rd6+256];  // sdata[tid + 64]
//! ```
//!
//! Stage 5's loop, for comparison, still computes `s` with `shr.u32` and tests it against the block
//! size read from `%ntid.x` every round.

use crate::gpu::{Global, GlobalMut, Shared};
use crate::stages::s1_interleaved_divergent::write_partial;
use crate::stages::s4_first_add_during_load::load_two;
use crate::stages::s5_unroll_last_warp::warp_reduce_shared;
use crate::thread;
use crate::Element;

/// The block-wide tree for a compile-time block size: after it, `sdata[0]` is the sum of
/// `sdata[0..BLOCK]`. Stage 7 reuses it.
#[inline(always)]
pub fn tree_reduce<T: Element, const BLOCK: usize>(sdata: Shared<T>, tid: u32) {
    if BLOCK >= 1024 {
        if tid < 512 {
            sdata.set(tid, sdata.get(tid).plus(sdata.get(tid + 512)));
        }
        thread::sync_threads();
    }
    if BLOCK >= 512 {
        if tid < 256 {
            sdata.set(tid, sdata.get(tid).plus(sdata.get(tid + 256)));
        }
        thread::sync_threads();
    }
    if BLOCK >= 256 {
        if tid < 128 {
            sdata.set(tid, sdata.get(tid).plus(sdata.get(tid + 128)));
        }
        thread::sync_threads();
    }
    if BLOCK >= 128 {
        if tid < 64 {
            sdata.set(tid, sdata.get(tid).plus(sdata.get(tid + 64)));
        }
        thread::sync_threads();
    }
    if tid < 32 {
        warp_reduce_shared(sdata, tid);
    }
}

/// `partials[blockIdx.x] = sum of this block's 2*BLOCK elements`. Launch with `blockDim.x == BLOCK`
/// (64 ≤ BLOCK ≤ 1024, a power of two).
pub fn reduce<T: Element, const BLOCK: usize>(input: Global<T>, partials: GlobalMut<T>) {
    // SAFETY: the launch reserves `BLOCK` elements of shared memory (see the host's plan).
    let sdata = unsafe { Shared::<T>::dynamic(BLOCK as u32) };
    let tid = thread::thread_idx_x();
    let i = thread::block_idx_x() as usize * (BLOCK * 2) + tid as usize;

    sdata.set(tid, load_two(input, i, BLOCK));
    thread::sync_threads();

    tree_reduce::<T, BLOCK>(sdata, tid);

    write_partial(sdata, partials, tid);
}
