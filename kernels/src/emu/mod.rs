//! The emulated grid: the same kernel source, run on the CPU.
//!
//! A launch runs its blocks on a few OS threads (blocks are independent, as on a GPU). Inside a
//! block, **every GPU thread is a coroutine** with its own stack. A coroutine runs until it reaches a
//! barrier ([`crate::gpu::sync_threads`], [`crate::gpu::sync_warp`], a warp shuffle) or finishes;
//! the block's scheduler releases a barrier once every thread it covers has arrived — exactly
//! CUDA's semantics for `__syncthreads()` and `__syncwarp()`. Scheduling inside a block is
//! deterministic, so a bug reproduces the same way every run.
//!
//! Global memory is ordinary host memory; [`crate::gpu::Counter`] uses real atomics, so
//! inter-block protocols (last-block-done) are exercised for real.
//!
//! Shared memory is per block and **checked**:
//! * every access is bounds-checked against the bytes the launch reserved;
//! * a read of a word nothing wrote in this block is reported (like `compute-sanitizer --tool
//!   initcheck`);
//! * two accesses to one word by different threads, at least one a write, with no barrier that
//!   orders them, are reported as a race (like `--tool racecheck`). Two accesses are ordered when a
//!   `__syncthreads()` lies between them, or, for threads of one warp, a `__syncwarp()` or
//!   shuffle. The check does not depend on the interleaving, so a missing barrier is found on
//!   every run, even when the emulator's schedule happens to produce the right sum.
//!
//! A `__syncthreads()` that some threads of the block never reach (a barrier in divergent code) is
//! reported as [`EmuError::BarrierDivergence`]; a panic in kernel code (for example an
//! out-of-bounds global access caught by [`crate::gpu::Global`]) as [`EmuError::Panic`].
//!
//! The emulator is slow — thousands of times slower than the GPU — and exists for correctness and
//! study, not speed.

use corosensei::Yielder;
use std::cell::Cell;
use std::vec::Vec;

mod error;
mod launch;
mod shared;

pub use error::{EmuError, RaceKind};
pub use launch::launch;
use shared::Shadow;
pub use shared::{shared_access, shared_base, shared_len};

/// Largest block CUDA allows.
pub const MAX_BLOCK_DIM: usize = 1024;
/// Largest dynamic shared memory per block on sm_90 (227 KiB, after opt-in).
pub const MAX_SHARED_BYTES: usize = 227 * 1024;
/// Largest `gridDim.x`.
pub const MAX_GRID_DIM: usize = (1 << 31) - 1;
pub(crate) const STACK_BYTES: usize = 256 * 1024;

/// Grid and block shape of one emulated launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks (`gridDim.x`).
    pub grid_dim: usize,
    /// Threads per block (`blockDim.x`).
    pub block_dim: usize,
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: usize,
}

/// What a thread can ask about itself (`threadIdx.x` …).
#[derive(Clone, Copy, Debug)]
pub struct ThreadInfo {
    /// `threadIdx.x`
    pub thread_idx: usize,
    /// `blockIdx.x`
    pub block_idx: usize,
    /// `blockDim.x`
    pub block_dim: usize,
    /// `gridDim.x`
    pub grid_dim: usize,
}

/// Why a thread suspended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    SyncThreads,
    SyncWarp,
}

pub(crate) struct Block {
    pub(crate) block_idx: usize,
    pub(crate) shared: Vec<u128>,
    pub(crate) shared_len: usize,
    pub(crate) shadow: Vec<Shadow>,
    pub(crate) block_epoch: u32,
    pub(crate) warp_epoch: Vec<u32>,
    pub(crate) warp_slots: Vec<[u32; 32]>,
    pub(crate) warp_lanes: Vec<usize>,
    /// `__syncthreads_or` votes, by block epoch parity.
    pub(crate) votes: [bool; 2],
    pub(crate) error: Option<EmuError>,
}

pub(crate) struct Current {
    pub(crate) info: ThreadInfo,
    pub(crate) block: *mut Block,
    pub(crate) yielder: *const Yielder<(), Event>,
}

std::thread_local! {
    pub(crate) static CURRENT: Cell<*const Current> = const { Cell::new(core::ptr::null()) };
}

/// Run `f` on the running emulated thread's [`Current`], borrowed for the call only (no
/// reference to it outlives `f`, so none is held across a suspension point).
pub(crate) fn with_current<R>(f: impl FnOnce(&Current) -> R) -> R {
    let p = CURRENT.with(|c| c.get());
    assert!(
        !p.is_null(),
        "a GPU intrinsic was called outside an (emulated) kernel launch"
    );
    // SAFETY: `CURRENT` is non-null only while the block scheduler runs this thread's coroutine,
    // and the `Current` it points to lives until the block is finished. Nothing writes it while
    // the coroutine runs, except the coroutine itself once, before its kernel code calls here.
    f(unsafe { &*p })
}

/// The running block, as the raw pointer its one owner ([`launch::run_block`]) handed out. Accesses
/// through it are short and never span a suspension point, and the scheduler only touches the
/// block while no coroutine runs, so no two accesses overlap.
pub(crate) fn current_block() -> *mut Block {
    with_current(|c| c.block)
}

pub(crate) fn suspend(ev: Event) {
    let y = with_current(|c| c.yielder);
    // SAFETY: the yielder belongs to the running coroutine (set as its first statement) and
    // lives as long as it.
    unsafe { (*y).suspend(ev) };
}

/// Run `f` with the calling emulated thread's ids.
pub fn with_thread<R>(f: impl FnOnce(&ThreadInfo) -> R) -> R {
    with_current(|c| f(&c.info))
}

/// `__syncthreads()`.
pub fn sync_threads() {
    suspend(Event::SyncThreads)
}

/// `__syncthreads_or(pred)`.
pub fn sync_threads_or(pred: bool) -> bool {
    let b = current_block();
    // SAFETY: see `current_block`: a short access while this coroutine runs.
    let epoch = unsafe {
        let epoch = (*b).block_epoch as usize;
        (*b).votes[epoch & 1] |= pred;
        epoch
    };
    suspend(Event::SyncThreads);
    // The slot of `epoch` is cleared only when the barrier after the next one is released, by
    // which time every thread has read it.
    // SAFETY: as above.
    unsafe { (*b).votes[epoch & 1] }
}

/// `__syncwarp()`.
pub fn sync_warp() {
    suspend(Event::SyncWarp)
}

/// One warp exchange: every lane of the calling warp publishes `v`, and once all have, each
/// computes its answer with `read(slots, lanes, lane)` (the published values, how many lanes the
/// warp has, the calling lane). Two warp barriers: one before the reads, one after them, so no
/// lane overwrites its slot (in the next exchange) before every lane has read.
fn exchange(v: u32, read: impl FnOnce(&[u32; 32], usize, usize) -> u32) -> u32 {
    let tid = with_thread(|t| t.thread_idx);
    let b = current_block();
    let (warp, lane) = (tid / 32, tid % 32);
    {
        // SAFETY: see `current_block`: this reference ends before the suspension below.
        let blk = unsafe { &mut *b };
        blk.warp_slots[warp][lane] = v;
    }
    suspend(Event::SyncWarp);
    let r = {
        // SAFETY: see `current_block`: a reference only for this block, which does not suspend.
        let blk = unsafe { &*b };
        read(&blk.warp_slots[warp], blk.warp_lanes[warp], lane)
    };
    suspend(Event::SyncWarp);
    r
}

/// `__shfl_down_sync(0xffffffff, v, delta)`.
pub fn shfl_down(v: u32, delta: u32) -> u32 {
    exchange(v, |slots, lanes, lane| {
        let src = lane + delta as usize;
        if src < lanes {
            slots[src]
        } else {
            v
        }
    })
}

/// `__shfl_sync(0xffffffff, v, src)`: lane `src % 32`'s `v`. Reading a lane the warp does not
/// have (a partial last warp) is undefined on the GPU: the emulator panics, naming it.
pub fn shfl_idx(v: u32, src: u32) -> u32 {
    exchange(v, |slots, lanes, _| {
        let src = (src % 32) as usize;
        if src >= lanes {
            panic!("__shfl_sync from lane {src}, which this warp (of {lanes} lanes) does not have");
        }
        slots[src]
    })
}

/// `__ballot_sync(0xffffffff, pred)`: bit `l` set for each lane `l` whose `pred` is true.
pub fn ballot(pred: bool) -> u32 {
    exchange(pred as u32, |slots, lanes, _| {
        (0..lanes).fold(0, |acc, l| acc | (slots[l] & 1) << l)
    })
}

/// The emulator runs warp operations (`__syncwarp`, shuffles) over whole warps: panic, naming
/// `what` and `mask`, if `mask` leaves out the calling lane or a lane this warp has.
pub fn check_warp_mask(mask: u32, what: &str) {
    let tid = with_thread(|t| t.thread_idx);
    // SAFETY: see `current_block`: a read of one field, nothing suspends.
    let lanes = unsafe { (&(*current_block()).warp_lanes)[tid / 32] };
    let present = if lanes >= 32 {
        u32::MAX
    } else {
        (1u32 << lanes) - 1
    };
    let lane = (tid % 32) as u32;
    if mask & (1 << lane) == 0 {
        panic!("{what} with mask {mask:#010x}, which leaves out the calling lane {lane}");
    }
    if mask & present != present {
        panic!(
            "{what} with mask {mask:#010x}: the emulator runs warp operations over whole warps \
             only (lanes {present:#010x} of this warp)"
        );
    }
}

#[cfg(test)]
mod tests;
