//! # Stage 7 — many elements per thread: the grid-stride loop
//!
//! Seed step: blog **Kernel 5** ("Fully Optimized Kernel", `reduce_final`) / lesson **REDUCE-6**
//! ("multiple adds per thread").
//!
//! What changed from stage 6: the grid no longer has one block per `2*BLOCK` elements. A fixed,
//! device-sized grid (a few blocks per SM) sweeps the whole input: each thread walks it in steps
//! of `2 * BLOCK * gridDim.x`, adding two elements per step into a **register**, and only then
//! enters the shared-memory tree of stage 6 once.
//!
//! Why it is faster: the expensive part of stages 1–6 — the tree with its barriers — now runs once
//! per *thread-full of work* instead of once per two elements per thread. The loop body is just
//! loads and adds, so the memory system stays busy, and the first pass writes a few hundred
//! partials instead of millions, so the second pass is tiny. (The seed accumulates straight into
//! `sdata[tid]`; keeping the running sum in a register saves a shared-memory round trip per step.)
//!
//! ## In PTX: `reduce_s7_grid_stride_b256_f32`
//!
//! The grid-stride loop (`cargo xtask ptx 7` shows the whole kernel beside this file):
//!
//! ```text
//! ld.global.b32 %r4, [%rd21+-1024];  // input[i]
//! add.rn.f32    %r29, %r29, %r4;     // sum += …: a register, no shared memory in the loop
//! add.s64       %rd16, %rd22, 256;
//! setp.lt.u64   %p2, %rd16, %rd9;    // i + BLOCK < n
//! ld.global.b32 %r5, [%rd21];        // input[i + BLOCK]
//! add.rn.f32    %r29, %r29, %r5;
//! add.s64       %rd22, %rd22, %rd4;  // i += 2 * BLOCK * gridDim.x
//! ```

use crate::gpu::{Global, GlobalMut, Shared};
use crate::stages::s1_interleaved_divergent::write_partial;
use crate::stages::s6_complete_unroll::tree_reduce;
use crate::thread;
use crate::Element;

/// `partials[blockIdx.x] = sum of the elements this block's threads visit`. Launch with
/// `blockDim.x == BLOCK` and any grid size.
pub fn reduce<T: Element, const BLOCK: usize>(input: Global<T>, partials: GlobalMut<T>) {
    // SAFETY: the launch reserves `BLOCK` elements of shared memory (see the host's plan).
    let sdata = unsafe { Shared::<T>::dynamic(BLOCK as u32) };
    let tid = thread::thread_idx_x();
    let n = input.len();
    let grid_size = BLOCK * 2 * thread::grid_dim_x() as usize;

    // The grid-stride loop: two elements per step, summed in a register.
    let mut sum = T::ZERO;
    let mut i = thread::block_idx_x() as usize * (BLOCK * 2) + tid as usize;
    while i < n {
        sum = sum.plus(input.get(i));
        if i + BLOCK < n {
            sum = sum.plus(input.get(i + BLOCK));
        }
        i += grid_size;
    }
    sdata.set(tid, sum);
    thread::sync_threads();

    tree_reduce::<T, BLOCK>(sdata, tid);

    write_partial(sdata, partials, tid);
}
