//! # Stage 1 — interleaved addressing with a divergent branch
//!
//! Seed step: blog **Kernel 1** ("Reduction Trees", `reduce_naive`) / lesson **REDUCE-0**.
//!
//! The starting point. Each thread copies one element into shared memory; then, in `log2(blockDim)`
//! rounds, thread `tid` adds its neighbour `s` places to the right whenever `tid` is a multiple of
//! `2s`. After the last round `sdata[0]` holds the block's sum.
//!
//! ```text
//! s=1:  [a b c d e f g h] -> [a+b . c+d . e+f . g+h .]
//! s=2:  ->                   [a+b+c+d . . . e+f+g+h . . .]
//! s=4:  ->                   [a+…+h . . . . . . .]
//! ```
//!
//! Why it is slow: `tid % (2*s) == 0` keeps only every second, fourth, eighth… thread of each warp
//! busy, so **every warp diverges** in every round and runs at a fraction of its width; and `%` is
//! an expensive instruction sequence on the GPU.

use crate::gpu::{block_dim, block_idx, sync_threads, thread_idx, Global, GlobalMut, Shared};
use crate::Element;

/// `partials[blockIdx.x] = sum of input[blockIdx.x*blockDim.x ..][..blockDim.x]`.
///
/// Launch with `blockDim.x * size_of::<T>()` bytes of dynamic shared memory; `blockDim.x` a power
/// of two.
pub fn reduce<T: Element>(input: Global<T>, partials: GlobalMut<T>) {
    // extern __shared__ T sdata[];  (one slot per thread)
    // SAFETY: the launch reserves `blockDim.x` elements of shared memory (see the host's plan).
    let sdata = unsafe { Shared::<T>::dynamic(block_dim()) };
    let tid = thread_idx();
    let i = block_idx() as usize * block_dim() as usize + tid as usize;

    // Each thread loads one element (0 past the end of the input).
    sdata.set(
        tid,
        if i < input.len() {
            input.get(i)
        } else {
            T::ZERO
        },
    );
    sync_threads();

    // Interleaved addressing: the stride doubles each round.
    let mut s = 1;
    while s < block_dim() {
        #[allow(clippy::manual_is_multiple_of)] // the seed's `%` is the point of this stage
        if tid % (2 * s) == 0 {
            sdata.set(tid, sdata.get(tid).plus(sdata.get(tid + s)));
        }
        sync_threads();
        s *= 2;
    }

    if tid == 0 {
        partials.set(block_idx() as usize, sdata.get(0));
    }
}
