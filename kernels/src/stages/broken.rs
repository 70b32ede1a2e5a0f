//! # Broken on purpose: what the barriers are for
//!
//! These kernels are wrong in the way the seeds' lessons warn about. They exist so that the
//! emulator's race detector (and `compute-sanitizer --tool racecheck` on a GPU) can be shown to
//! catch each bug; the host never uses them to compute a result.

use crate::gpu::{Global, GlobalMut, Shared};
use crate::stages::s1_interleaved_divergent::{load_one, write_partial};
use crate::stages::s3_sequential::tree_sequential;
use crate::stages::s4_first_add_during_load::load_two;
use crate::thread;
use crate::Element;

/// The seeds' `warpReduce`: six `volatile` read-modify-writes with no barrier between them. On
/// Volta and later, lane 0 may read `sdata[16]` while lane 16 is still updating it — a race.
/// Compare [`crate::stages::s5_unroll_last_warp::warp_reduce_shared`].
#[inline(always)]
pub fn warp_reduce_seed_racy<T: Element>(sdata: Shared<T>, tid: u32) {
    for offset in [32, 16, 8, 4, 2, 1] {
        sdata.set(tid, sdata.get(tid).plus(sdata.get(tid + offset)));
    }
}

/// Stage 5 with the seeds' racy last warp.
pub fn reduce_racy_last_warp<T: Element>(input: Global<T>, partials: GlobalMut<T>) {
    // SAFETY: the launch reserves `blockDim.x` elements of shared memory (see the host's plan).
    let sdata = unsafe { Shared::<T>::dynamic(thread::block_dim_x()) };
    let tid = thread::thread_idx_x();
    let i = thread::block_idx_x() as usize * (thread::block_dim_x() as usize * 2) + tid as usize;
    sdata.set(tid, load_two(input, i, thread::block_dim_x() as usize));
    thread::sync_threads();
    tree_sequential(sdata, tid, 32);
    if tid < 32 {
        warp_reduce_seed_racy(sdata, tid);
    }
    write_partial(sdata, partials, tid);
}

/// Stage 3 without the `__syncthreads()` inside the loop: a thread may read `sdata[tid + s]`
/// before the thread that owns it has finished the previous round.
pub fn reduce_missing_barrier<T: Element>(input: Global<T>, partials: GlobalMut<T>) {
    // SAFETY: the launch reserves `blockDim.x` elements of shared memory (see the host's plan).
    let sdata = unsafe { Shared::<T>::dynamic(thread::block_dim_x()) };
    let tid = thread::thread_idx_x();
    let i = thread::block_idx_x() as usize * thread::block_dim_x() as usize + tid as usize;
    sdata.set(tid, load_one(input, i));
    thread::sync_threads();
    let mut s = thread::block_dim_x() / 2;
    while s > 0 {
        if tid < s {
            sdata.set(tid, sdata.get(tid).plus(sdata.get(tid + s)));
        }
        // missing: thread::sync_threads();
        s >>= 1;
    }
    write_partial(sdata, partials, tid);
}
