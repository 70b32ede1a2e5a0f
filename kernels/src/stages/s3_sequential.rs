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
//!
//! ## In PTX: `reduce_s3_sequential_f32`
//!
//! (`cargo xtask ptx 3` shows the whole kernel beside this file.)
//!
//! ```text
//! setp.lt.u32   %p4, %r5, %r13;    // tid < s
//! ld.shared.b32 %r7, [%rd5];       // sdata[tid]: lane k reads word k, one bank each
//! mul.wide.s32  %rd15, %r13, 4;
//! add.s64       %rd16, %rd5, %rd15;
//! ld.shared.b32 %r8, [%rd16];      // sdata[tid + s]: consecutive too
//! add.rn.f32    %r9, %r7, %r8;
//! st.shared.b32 [%rd5], %r9;
//! shr.u32       %r13, %r13, 1;     // s >>= 1
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

    // Sequential addressing: halve the active range each round.
    tree_sequential(sdata, tid, 0);

    write_partial(sdata, partials, tid);
}

/// Sequential addressing: `sdata[tid] += sdata[tid + s]` for `s = blockDim.x / 2, …` down to
/// `s > down_to`, a barrier after each round; stages 4 and 5 fold the same way (stage 5 stops at
/// 32 and finishes in one warp).
#[inline(always)]
pub fn tree_sequential<T: Element>(sdata: Shared<T>, tid: u32, down_to: u32) {
    let mut s = thread::block_dim_x() / 2;
    while s > down_to {
        if tid < s {
            sdata.set(tid, sdata.get(tid).plus(sdata.get(tid + s)));
        }
        thread::sync_threads();
        s >>= 1;
    }
}
