//! # Stage 8, two-kernel form — programmatic dependent launch (PDL) instead of the ticket
//!
//! Hopper (sm_90) step: **the cross-block combine without a ticket.** Same reads, same per-block
//! partials, same combine order as [`super::s8_shuffle_vectorized`]; only *how the last step
//! learns that every partial is stored* changes.
//!
//! What changed from stage 8, and why it is faster:
//!
//! 1. **Two kernels, no atomic.** Stage 8 ends every block with a partial store, an
//!    `atom.acq_rel.gpu` ticket and a block barrier, and the block that draws the last ticket then
//!    re-reads every partial — a chain of L2 round trips *after* the last block finished reading
//!    the input. Here [`partials`] (the grid) only stores one partial per block, and [`combine`]
//!    (one block) reads them in the same fixed order and writes the result.
//! 2. **The second kernel is already resident.** The host launches [`combine`] with the
//!    *programmatic stream serialization* attribute (`cuLaunchKernelEx`,
//!    `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`). Every block of [`partials`]
//!    executes `griddepcontrol.launch_dependents` first thing, so once all of them are running
//!    the GPU may start [`combine`] early: its block is launched, takes its registers and shared
//!    memory and waits in `griddepcontrol.wait` while the grid reads. When the last block of
//!    [`partials`] exits and its stores are visible, the wait returns — no kernel-launch gap, no
//!    ticket, no block waiting on an atomic.
//! 3. **Ordering by the hardware, not by a protocol.** `griddepcontrol.wait` returns only when the
//!    prerequisite grid has *completed* and all its memory operations are performed and visible to
//!    this grid (PTX ISA, "Parallel Synchronization and Communication Instructions:
//!    griddepcontrol"). So the partials need no release/acquire pair: plain stores in the first
//!    kernel, and the second reads them (through [`Coherent`], as stage 8's last block does) only
//!    after its wait.
//!
//! Measured first in CUDA C (`benches/cuda/hopper_combine.cu`, H200, gated protocol, f32 sums,
//! min of 100 runs; `benches/results/tuning-2026-11-30-hopper/notes.md`): the two-kernel form
//! took 4.64 / 5.31 / 7.14 / 20.06 µs at 2^12 / 2^20 / 2^22 / 2^24 against the ticket's 4.83 /
//! 5.73 / 7.46 / 20.35 — 0.2 to 0.4 µs less from 2^12 to 2^24, level above (2^28: 239.01 vs
//! 239.17). Thread-block clusters (DSMEM) lost at every size in the same call, so this is the one
//! Hopper feature ported. Whether the Rust port keeps the win is what
//! `benches/s7-hopper-on-gpu.sh` measures; until then the policy's default stays the ticket
//! (`host/src/plan.rs`, `Combine`).
//!
//! Determinism and bit-identity: [`partials`] computes each block's partial with stage 8's own
//! `block_partial` (same tiles, same loads, same tree), and [`combine`] folds them with stage
//! 8's own `combine_partials` with the same `BLOCK`: for the same input, grid and block the
//! result is **the same bits as stage 8's** (tested on the emulator for every operator and type).
//! With one block there is nothing to combine, and the host runs stage 8's one-block kernel
//! instead, which writes its result itself: a second launch would only add its cost.
//!
//! The emulator runs the two launches one after the other, each to its end, so both
//! `griddepcontrol` instructions are no-ops there — a faithful model, since "the prerequisite has
//! completed and its writes are visible" is then always true when [`combine`] starts (see
//! [`crate::gpu::griddepcontrol_wait`]).

use super::s8_shuffle_vectorized::{block_partial, combine_partials};
use crate::gpu::{
    fail, griddepcontrol_launch_dependents, griddepcontrol_wait, Coherent, Global, GlobalMut,
    Shared, WARP_SIZE,
};
use crate::{thread, Element, ReduceOp};

/// The grid: each block reduces its share of `input` (stage 8's tiles and tree) and stores it in
/// `partials[blockIdx.x]`.
///
/// Launch with `blockDim.x == BLOCK` (a power of two, 32..=1024; any other block traps; the
/// kernel table builds 512), `BLOCK / 32` elements of dynamic shared memory, any grid size;
/// `partials` must hold `gridDim.x` elements. Then launch [`combine`] with the same `BLOCK` on the same stream, programmatically
/// dependent on this launch (or plainly after it: same result, without the overlap).
pub fn partials<T: Element, O: ReduceOp, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    partials: GlobalMut<T>,
) {
    // Let the combine kernel be scheduled now: it waits for this grid's completion anyway, and a
    // block that exits early counts as having triggered.
    griddepcontrol_launch_dependents();
    let grid = thread::grid_dim_x() as usize;
    if thread::block_dim_x() as usize != BLOCK || partials.len() < grid {
        fail("stage 8 (PDL) needs blockDim.x == BLOCK and gridDim.x partials");
    }
    // SAFETY: the launch reserves `BLOCK / 32` elements of shared memory (see the host's plan).
    let smem = unsafe { Shared::<T>::dynamic(BLOCK as u32 / WARP_SIZE) };
    // SAFETY: `blockDim.x == BLOCK`, checked above.
    let total = unsafe {
        block_partial::<T, T, O, BLOCK, UNROLL>(input, smem, |x| O::lift(x), T::reduce_vec4::<O>)
    };
    if thread::thread_idx_x() == 0 {
        // SAFETY: `blockIdx.x < gridDim.x <= partials.len()` (checked above).
        unsafe { partials.set_unchecked(thread::block_idx_x() as usize, total) };
    }
}

/// One block: waits for the [`partials`] launch before it on the stream, then combines all of
/// `partials` in stage 8's fixed order and stores the result in `out[0]`.
///
/// Launch with one block of `blockDim.x == BLOCK` threads (the `BLOCK` of the [`partials`]
/// launch: the order of the fold depends on it), `BLOCK / 32` elements of dynamic shared memory;
/// `partials` holds the earlier launch's `gridDim.x` partials, `out` one element.
pub fn combine<T: Element, O: ReduceOp, const BLOCK: usize>(
    partials: Coherent<T>,
    out: GlobalMut<T>,
) {
    // Nothing before this line touches the partials: until the wait returns, the first kernel
    // may still be writing them.
    griddepcontrol_wait();
    if thread::block_dim_x() as usize != BLOCK || thread::grid_dim_x() != 1 {
        fail("stage 8's PDL combine needs one block of BLOCK threads");
    }
    // SAFETY: the launch reserves `BLOCK / 32` elements of shared memory (see the host's plan).
    let smem = unsafe { Shared::<T>::dynamic(BLOCK as u32 / WARP_SIZE) };
    let total = combine_partials::<T, O, BLOCK>(partials, partials.len(), smem);
    if thread::thread_idx_x() == 0 {
        out.set(0, total);
    }
}
