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
//! setp.lt.u32   %p4, %r6, %r3;     // tid < s
//! ld.shared.b32 %r8, [%rd5];       // sdata[tid]: lane k reads word k, one bank each
//! mul.wide.s32  %rd15, %r3, 4;
//! add.s64       %rd16, %rd5, %rd15;
//! ld.shared.b32 %r9, [%rd16];      // sdata[tid + s]: consecutive too
//! add.rn.f32    %r10, %r8, %r9;
//! st.shared.b32 [%rd5], %r10;
//! shr.u32       %r3, %r3, 1;       // s >>= 1
//! ```

use crate::gpu::{Global, GlobalMut, Shared};
use crate::thread;
use crate::Element;

/// `partials[blockIdx.x] = sum of this block's blockDim.x elements`. Same launch as stage 1.
pub fn reduce<T: Element>(input: Global<T>, partials: GlobalMut<T>) {
    // SAFETY: the launch reserves `blockDim.x` elements of shared memory (see the host's plan).
    let sdata = unsafe { Shared::<T>::dynamic(thread::block_dim_x()) };
    let tid = thread::thread_idx_x();
    let i = thread::block_idx_x() as usize * thread::block_dim_x() as usize + tid as usize;

    sdata.set(
        tid,
        if i < input.len() {
            input.get(i)
        } else {
            T::ZERO
        },
    );
    thread::sync_threads();

    // Sequential addressing: halve the active range each round.
    let mut s = thread::block_dim_x() / 2;
    while s > 0 {
        if tid < s {
            sdata.set(tid, sdata.get(tid).plus(sdata.get(tid + s)));
        }
        thread::sync_threads();
        s >>= 1;
    }

    if tid == 0 {
        partials.set(thread::block_idx_x() as usize, sdata.get(0));
    }
}
