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

use crate::gpu::{
    block_dim, block_idx, sync_threads, sync_warp, thread_idx, Global, GlobalMut, Shared,
};
use crate::stages::s4_first_add_during_load::load_two;
use crate::Element;

/// Sums `sdata[0..64]` into `sdata[0]`. Called by the 32 threads of the first warp.
#[inline(always)]
pub fn warp_reduce_shared<T: Element>(sdata: Shared<T>, tid: u32) {
    let mut v = sdata.get(tid);
    for offset in [32, 16, 8, 4, 2, 1] {
        v = v.plus(sdata.get(tid + offset)); // read the partner …
        sync_warp(); //                          … every lane has read …
        sdata.set(tid, v); //                    … then write …
        sync_warp(); //                          … every lane has written.
    }
}

/// `partials[blockIdx.x] = sum of this block's 2*blockDim.x elements`; `blockDim.x` ≥ 64.
pub fn reduce<T: Element>(input: Global<T>, partials: GlobalMut<T>) {
    // SAFETY: the launch reserves `blockDim.x` elements of shared memory (see the host's plan).
    let sdata = unsafe { Shared::<T>::dynamic(block_dim()) };
    let tid = thread_idx();
    let i = block_idx() as usize * (block_dim() as usize * 2) + tid as usize;

    sdata.set(tid, load_two(input, i, block_dim() as usize));
    sync_threads();

    // The block-wide loop now stops at 64 values …
    let mut s = block_dim() / 2;
    while s > 32 {
        if tid < s {
            sdata.set(tid, sdata.get(tid).plus(sdata.get(tid + s)));
        }
        sync_threads();
        s >>= 1;
    }

    // … and the first warp finishes on its own.
    if tid < 32 {
        warp_reduce_shared(sdata, tid);
    }

    if tid == 0 {
        partials.set(block_idx() as usize, sdata.get(0));
    }
}
