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
//! busy, so **every warp diverges** in every round and runs at a fraction of its width. (The seeds
//! also blame the `%`, an expensive instruction sequence on the GPU; here the compiler removes it,
//! see "In PTX" below.)
//!
//! ## In PTX: `reduce_s1_interleaved_divergent_f32`
//!
//! The loop body as rustc compiled it (from `target/ptx/reduce_kernels.ptx`, which `cargo xtask build-ptx` writes; the whole kernel
//! beside this file: `cargo xtask ptx 1`):
//!
//! ```text
//! shl.b32       %r3, %r16, 1;      // 2*s
//! add.s32       %r7, %r3, -1;      // 2*s - 1
//! and.b32       %r8, %r7, %r6;     // tid % (2*s), as tid & (2*s - 1)
//! setp.ne.b32   %p4, %r8, 0;
//! @%p4 bra      $L__BB5_7;         // the divergent branch: most lanes of each warp skip the add
//! ```
//!
//! There is no `rem.u32`: LLVM sees that `2*s` is a power of two (`s` starts at 1 and doubles) and
//! turns the `%` into an `and`, so the seeds' worry about the cost of `%` does not apply to this
//! build. The divergence does: the predicate `%p4` differs between the lanes of every warp.

use crate::gpu::{Global, GlobalMut, Shared};
use crate::thread;
use crate::Element;

/// `partials[blockIdx.x] = sum of input[blockIdx.x*blockDim.x ..][..blockDim.x]`.
///
/// Launch with `blockDim.x * size_of::<T>()` bytes of dynamic shared memory; `blockDim.x` a power
/// of two.
pub fn reduce<T: Element>(input: Global<T>, partials: GlobalMut<T>) {
    // extern __shared__ T sdata[];  (one slot per thread)
    // SAFETY: the launch reserves `blockDim.x` elements of shared memory (see the host's plan).
    let sdata = unsafe { Shared::<T>::dynamic(thread::block_dim_x()) };
    let tid = thread::thread_idx_x();
    let i = thread::block_idx_x() as usize * thread::block_dim_x() as usize + tid as usize;

    // Each thread loads one element (0 past the end of the input).
    sdata.set(tid, load_one(input, i));
    thread::sync_threads();

    // Interleaved addressing: the stride doubles each round.
    let mut s = 1;
    while s < thread::block_dim_x() {
        #[allow(clippy::manual_is_multiple_of)] // the seed's `%` is the point of this stage
        if tid % (2 * s) == 0 {
            sdata.set(tid, sdata.get(tid).plus(sdata.get(tid + s)));
        }
        thread::sync_threads();
        s *= 2;
    }

    write_partial(sdata, partials, tid);
}

/// `input[i]`, or 0 past the end of the input. Stages 2 and 3 load the same way (stage 4 loads
/// two: `load_two`).
#[inline(always)]
pub fn load_one<T: Element>(input: Global<T>, i: usize) -> T {
    if i < input.len() {
        input.get(i)
    } else {
        T::ZERO
    }
}

/// Thread 0 (`tid`) writes the block's result, `sdata[0]`, to `partials[blockIdx.x]`: every
/// multi-pass stage ends so (the host launches again on the partials).
#[inline(always)]
pub fn write_partial<T: Element>(sdata: Shared<T>, partials: GlobalMut<T>, tid: u32) {
    if tid == 0 {
        partials.set(thread::block_idx_x() as usize, sdata.get(0));
    }
}
