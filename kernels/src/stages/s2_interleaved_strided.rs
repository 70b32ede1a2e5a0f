//! # Stage 2 — interleaved addressing, strided index (no divergence, bank conflicts)
//!
//! Seed step: lesson **REDUCE-1** ("Interleaved Addressing 2.0").
//!
//! What changed from stage 1: instead of asking *which* threads should work (`tid % (2s) == 0`),
//! thread `tid` works on index `2*s*tid`. The active threads are now the **first** `blockDim/(2s)`
//! threads, so whole warps are either busy or idle — no divergence inside a warp until fewer than
//! 32 threads are left — and the `%` is gone.
//!
//! Why it is faster: warps no longer serialize both sides of a branch.
//!
//! What is still wrong: shared memory is split into 32 banks of 4 bytes. Thread `tid` touches
//! `sdata[2*s*tid]`: with `s = 16`, threads 0 and 1 hit words 0 and 32 — the **same bank** — and
//! the hardware serializes them. The stride grows every round, so the conflicts get worse
//! (stage 3 fixes this).

use crate::gpu::{block_dim, block_idx, sync_threads, thread_idx, Global, GlobalMut, Shared};
use crate::Element;

/// `partials[blockIdx.x] = sum of this block's blockDim.x elements`. Same launch as stage 1.
pub fn reduce<T: Element>(input: Global<T>, partials: GlobalMut<T>) {
    // SAFETY: the launch reserves `blockDim.x` elements of shared memory (see the host's plan).
    let sdata = unsafe { Shared::<T>::dynamic(block_dim()) };
    let tid = thread_idx();
    let i = block_idx() as usize * block_dim() as usize + tid as usize;

    sdata.set(
        tid,
        if i < input.len() {
            input.get(i)
        } else {
            T::ZERO
        },
    );
    sync_threads();

    let mut s = 1;
    while s < block_dim() {
        // Contiguous threads, strided data: no divergence, but bank conflicts.
        let index = 2 * s * tid;
        if index < block_dim() {
            sdata.set(index, sdata.get(index).plus(sdata.get(index + s)));
        }
        sync_threads();
        s *= 2;
    }

    if tid == 0 {
        partials.set(block_idx() as usize, sdata.get(0));
    }
}
