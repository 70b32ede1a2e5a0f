//! # Stage 4 — first add during the global load
//!
//! Seed step: blog **Kernel 3** ("First Add During Load", `reduce_first_add`) / lesson **REDUCE-3**.
//!
//! What changed from stage 3: each block now covers `2 * blockDim` elements. Every thread loads
//! **two** elements, one `blockDim` apart, adds them, and stores the sum — so the first round of the
//! tree happens in registers during the load, and no thread is idle after it.
//!
//! Why it is faster: the same work is done by **half as many blocks**, so half the shared-memory
//! rounds, barriers and block launches per element; and each thread has two independent loads in
//! flight instead of one, which hides more memory latency.

use crate::gpu::{block_dim, block_idx, sync_threads, thread_idx, Global, GlobalMut, Shared};
use crate::Element;

/// `partials[blockIdx.x] = sum of this block's 2*blockDim.x elements`.
pub fn reduce<T: Element>(input: Global<T>, partials: GlobalMut<T>) {
    // SAFETY: the launch reserves `blockDim.x` elements of shared memory (see the host's plan).
    let sdata = unsafe { Shared::<T>::dynamic(block_dim()) };
    let tid = thread_idx();
    let i = block_idx() as usize * (block_dim() as usize * 2) + tid as usize;

    // Two loads and one add per thread.
    sdata.set(tid, load_two(input, i, block_dim() as usize));
    sync_threads();

    let mut s = block_dim() / 2;
    while s > 0 {
        if tid < s {
            sdata.set(tid, sdata.get(tid).plus(sdata.get(tid + s)));
        }
        sync_threads();
        s >>= 1;
    }

    if tid == 0 {
        partials.set(block_idx() as usize, sdata.get(0));
    }
}

/// `input[i] + input[i + stride]`, with 0 for indices past the end. Stages 5 and 6 load the
/// same way.
#[inline(always)]
pub fn load_two<T: Element>(input: Global<T>, i: usize, stride: usize) -> T {
    let n = input.len();
    let a = if i < n { input.get(i) } else { T::ZERO };
    let b = if i + stride < n {
        input.get(i + stride)
    } else {
        T::ZERO
    };
    a.plus(b)
}
