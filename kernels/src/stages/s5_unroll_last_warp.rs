//! # Stage 5 — unroll the last warp
//!
//! Seed step: blog **Kernel 4** ("Unrolling the Last Warp", `reduce_unroll_last_warp`) / lesson
//! **REDUCE-4** (`warpReduce`).
//!
//! What changed from stage 4: the shared-memory loop stops when 64 values are left (`s > 32`).
//! The last six rounds (strides 32, 16, 8, 4, 2, 1) only involve the first warp, so they are
//! written out by hand ([`warp_reduce_shared`]) and synchronize that warp with `__syncwarp()` instead of
//! the whole block with `__syncthreads()`.
//!
//! Why it is faster: the last six rounds no longer pay a block-wide barrier, a loop test and an
//! `if (tid < s)` each; the other warps of the block are already free to finish.
//!
//! ## The seeds' version is a data race on every GPU since Volta
//!
//! Both seeds write the last warp as
//!
//! ```c
//! volatile float* smem = sdata;
//! smem[tid] += smem[tid + 16];   // no barrier between the steps
//! ```
//!
//! and justify it with "a warp executes in lockstep". That was an implementation detail of GPUs
//! before Volta (2017). Since Volta every thread has its own program counter (*independent thread
//! scheduling*): lanes of one warp may run apart, so lane 0 may read `smem[16]` before or after
//! lane 16 has added into it. `volatile` only stops the compiler from caching values in registers;
//! it orders nothing between threads. NVIDIA's Volta tuning guide calls this pattern unsafe, and
//! `compute-sanitizer --tool racecheck` reports it.
//!
//! The fix is what CUDA 9 added for exactly this: split each step into *read — `__syncwarp()` —
//! write — `__syncwarp()`*. Every lane reads its partner's value, the warp synchronizes, every
//! lane writes, the warp synchronizes again. The barriers cost a few cycles; the code is correct
//! on every architecture. (Stage 8 goes further and keeps the whole warp step in registers with
//! shuffles.) The racy seed version is kept, for study and for the emulator's race detector, in
//! [`crate::stages::broken::warp_reduce_seed_racy`].
//!
//! ## In PTX: `reduce_s5_unroll_last_warp_f32`
//!
//! The first of the six unrolled steps and the start of the second (`cargo xtask ptx 5` shows the
//! whole kernel beside this file):
//!
//! ```text
//! ld.shared.b32 %r13, [%rd8];
//! ld.shared.b32 %r14, [%rd8+128];  // sdata[tid + 32]: the offset is an immediate, no loop left
//! add.rn.f32    %r15, %r13, %r14;
//! bar.warp.sync -1;                // __syncwarp(): every lane has read …
//! st.shared.b32 [%rd8], %r15;
//! bar.warp.sync -1;                // … every lane has written
//! ld.shared.b32 %r16, [%rd8+64];   // sdata[tid + 16]
//! ```
//!
//! `bar.warp.sync` synchronizes one warp, not the block's 8–32 warps as `bar.sync` would, and the
//! running value stays in a register (`%r16` feeds the next add): only the store goes to shared
//! memory.

use crate::gpu::{Global, GlobalMut, Shared};
use crate::stages::s1_interleaved_divergent::write_partial;
use crate::stages::s3_sequential::tree_sequential;
use crate::stages::s4_first_add_during_load::load_two;
use crate::warp::{self, FULL_MASK};
use crate::{thread, Element};

/// Sums `sdata[0..64]` into `sdata[0]`. Called by the 32 threads of the first warp.
#[inline(always)]
pub fn warp_reduce_shared<T: Element>(sdata: Shared<T>, tid: u32) {
    let mut v = sdata.get(tid);
    // The warp barriers below take the full mask, which holds every calling lane; that all 32
    // lanes get here is the caller's correctness rule (stage 5 calls this in the whole first
    // warp): a missing lane hangs the warp, as a missing `__syncthreads()` hangs a block.
    for offset in [32, 16, 8, 4, 2, 1] {
        // Read the partner's value …
        v = v.plus(sdata.get(tid + offset));
        // SAFETY: the full mask, in every lane (see above). … wait until every lane has read …
        unsafe { warp::sync_warp(FULL_MASK) };
        // … write …
        sdata.set(tid, v);
        // SAFETY: as above. … wait until every lane has written.
        unsafe { warp::sync_warp(FULL_MASK) };
    }
}

/// `partials[blockIdx.x] = sum of this block's 2*blockDim.x elements`; `blockDim.x` ≥ 64.
pub fn reduce<T: Element>(input: Global<T>, partials: GlobalMut<T>) {
    // SAFETY: the launch reserves `blockDim.x` elements of shared memory (see the host's plan).
    let sdata = unsafe { Shared::<T>::dynamic(thread::block_dim_x()) };
    let tid = thread::thread_idx_x();
    let i = thread::block_idx_x() as usize * (thread::block_dim_x() as usize * 2) + tid as usize;

    sdata.set(tid, load_two(input, i, thread::block_dim_x() as usize));
    thread::sync_threads();

    // The block-wide loop now stops at 64 values …
    tree_sequential(sdata, tid, 32);

    // … and the first warp finishes on its own.
    if tid < 32 {
        warp_reduce_shared(sdata, tid);
    }

    write_partial(sdata, partials, tid);
}
