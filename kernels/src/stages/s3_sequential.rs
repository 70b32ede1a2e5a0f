//! # Stage 3 — sequential addressing
//!
//! Seed step: blog **Kernel 2** ("Sequential Addressing", `reduce_sequential`) / lesson **REDUCE-2**.
//!
//! What changed from stage 2: the stride now *starts* at `blockDim/2` and halves each round, and
//! thread `tid` adds `sdata[tid + s]` into `sdata[tid]`:
//!
//! ```text
//! s=4:  [a b c d | e f g h] -> [a+e b+f c+g d+h]
//! s=2:  [a+e b+f | c+g d+h] -> [a+e+c+g b+f+d+h]
//! s=1:  -> [a+…+h]
//! ```
//!
//! Why it is faster: the 32 threads of a warp now read 32 **consecutive** words — one per bank —
//! so there are no bank conflicts, and the active threads are still the first `s`, so no divergence
//! either.
//!
//! What is still wasteful: in the very first round half of the threads only loaded a value and
//! then sit idle (stage 4 fixes this).

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

    // Sequential addressing: halve the active range each round.
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
