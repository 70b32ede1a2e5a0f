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
//!
//! ## In PTX: `reduce_s2_interleaved_strided_f32`
//!
//! (`cargo xtask ptx 2` shows the whole kernel beside this file.)
//!
//! ```text
//! shl.b32       %r3, %r15, 1;      // 2*s
//! mul.lo.s32    %r4, %r3, %r7;     // index = 2*s*tid: the multiply that replaced the `%`
//! setp.lt.u32   %p4, %r4, %r2;     // index < blockDim.x: the first threads, whole warps at a time
//! mul.wide.u32  %rd15, %r4, 4;     // byte offset 8*s*tid: lanes 2*s words apart …
//! ld.shared.b32 %r9, [%rd16];      // … a 2s-way bank conflict (32-way from s = 16)
//! ```

use crate::gpu::{Global, GlobalMut, Shared};
use crate::stages::s1_interleaved_divergent::{load_one, write_partial};
use crate::thread;
use crate::Element;

/// `partials[blockIdx.x] = sum of this block's blockDim.x elements`. Same launch as stage 1.
pub fn reduce<T: Element>(input: Global<T>, partials: GlobalMut<T>) {
    // SAFETY: the launch reserves `blockDim.x` elements of shared memory (see the host's plan).
    let sdata = unsafe { Shared::<T>::dynamic(thread::block_dim_x()) };
    let tid = thread::thread_idx_x();
    let i = thread::block_idx_x() as usize * thread::block_dim_x() as usize + tid as usize;

    sdata.set(tid, load_one(input, i));
    thread::sync_threads();

    let mut s = 1;
    while s < thread::block_dim_x() {
        // Contiguous threads, strided data: no divergence, but bank conflicts.
        let index = 2 * s * tid;
        if index < thread::block_dim_x() {
            sdata.set(index, sdata.get(index).plus(sdata.get(index + s)));
        }
        thread::sync_threads();
        s *= 2;
    }

    write_partial(sdata, partials, tid);
}
