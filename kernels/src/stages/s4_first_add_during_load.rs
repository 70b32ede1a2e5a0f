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
//!
//! ## In PTX: `reduce_s4_first_add_during_load_f32`
//!
//! (`cargo xtask ptx 4` shows the whole kernel beside this file.)
//!
//! ```text
//! ld.global.b32 %r14, [%rd6];      // input[i]
//! ld.global.b32 %r15, [%rd7];      // input[i + blockDim.x]: a second load in flight
//! add.rn.f32    %r7, %r14, %r15;   // the first round of the tree, in registers
//! st.shared.b32 [%rd8], %r7;
//! bar.sync      0;
//! ```

use crate::gpu::{Global, GlobalMut, Shared};
use crate::stages::s1_interleaved_divergent::write_partial;
use crate::stages::s3_sequential::tree_sequential;
use crate::thread;
use crate::Element;

/// `partials[blockIdx.x] = sum of this block's 2*blockDim.x elements`.
pub fn reduce<T: Element>(input: Global<T>, partials: GlobalMut<T>) {
    // SAFETY: the launch reserves `blockDim.x` elements of shared memory (see the host's plan).
    let sdata = unsafe { Shared::<T>::dynamic(thread::block_dim_x()) };
    let tid = thread::thread_idx_x();
    let i = thread::block_idx_x() as usize * (thread::block_dim_x() as usize * 2) + tid as usize;

    // Two loads and one add per thread.
    sdata.set(tid, load_two(input, i, thread::block_dim_x() as usize));
    thread::sync_threads();

    tree_sequential(sdata, tid, 0);

    write_partial(sdata, partials, tid);
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
