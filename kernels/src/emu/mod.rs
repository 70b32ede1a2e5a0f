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

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::boxed::Box;
use std::cell::Cell;
use std::format;
use std::string::{String, ToString};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::vec;
use std::vec::Vec;

/// Largest block CUDA allows.
pub const MAX_BLOCK_DIM: usize = 1024;
/// Largest dynamic shared memory per block on sm_90 (227 KiB, after opt-in).
pub const MAX_SHARED_BYTES: usize = 227 * 1024;
/// Largest `gridDim.x`.
pub const MAX_GRID_DIM: usize = (1 << 31) - 1;
const STACK_BYTES: usize = 256 * 1024;

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

/// The kind of a shared-memory race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaceKind {
    /// A thread read a word another thread wrote, with no barrier between.
    ReadAfterWrite,
    /// A thread wrote a word another thread read, with no barrier between.
    WriteAfterRead,
    /// Two threads wrote one word with no barrier between.
    WriteAfterWrite,
}

/// Why an emulated launch failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmuError {
    /// The grid/block/shared-memory shape is not one a GPU accepts.
    InvalidLaunch(String),
    /// Unordered conflicting shared-memory accesses.
    SharedRace {
        /// What kind of conflict.
        kind: RaceKind,
        /// Block it happened in.
        block: usize,
        /// Byte offset in shared memory.
        byte_offset: usize,
        /// The thread that made the earlier access (`usize::MAX`: several threads read it).
        earlier_thread: usize,
        /// The thread that made the later access.
        later_thread: usize,
    },
    /// A read of shared memory that no thread of the block had written.
    UninitializedSharedRead {
        /// Block.
        block: usize,
        /// Thread.
        thread: usize,
        /// Byte offset in shared memory.
        byte_offset: usize,
    },
    /// A shared-memory access past the bytes the launch reserved.
    SharedOutOfBounds {
        /// Block.
        block: usize,
        /// Thread.
        thread: usize,
        /// First byte accessed.
        byte_offset: usize,
        /// Bytes reserved.
        reserved: usize,
    },
    /// `__syncthreads()` reached by some threads while others had already exited.
    BarrierDivergence {
        /// Block.
        block: usize,
        /// Threads waiting at the barrier.
        waiting: usize,
        /// Threads that had exited.
        exited: usize,
    },
    /// No thread can make progress (for example a `__syncwarp()` some lanes never reach).
    Deadlock {
        /// Block.
        block: usize,
        /// What the threads were waiting for.
        detail: String,
    },
    /// Kernel code panicked (e.g. an out-of-bounds global access).
    Panic {
        /// Block.
        block: usize,
        /// Thread.
        thread: usize,
        /// The panic message.
        message: String,
    },
}

impl core::fmt::Display for EmuError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            EmuError::InvalidLaunch(m) => write!(f, "invalid launch: {m}"),
EmuError::SharedRace { kind, block, byte_offset, earlier_thread, later_thread } => {
                let earlier = if *earlier_thread == usize::MAX {
                    "several threads".to_string()
                } else {
                    format!("thread {earlier_thread}")
                };
                write!(
                    f,
                    "shared-memory race ({kind:?}) in block {block} at byte {byte_offset}: {earlier} and thread \
                     {later_thread} access it with no barrier between"
                )
            }
            EmuError::UninitializedSharedRead { block, thread, byte_offset } => write!(
                f,
                "thread {thread} of block {block} read shared byte {byte_offset} before any thread wrote it"
            ),
            EmuError::SharedOutOfBounds { block, thread, byte_offset, reserved } => write!(
                f,
                "thread {thread} of block {block} accessed shared byte {byte_offset}, but the launch reserved \
                 {reserved} bytes"
            ),
            EmuError::BarrierDivergence { block, waiting, exited } => write!(
                f,
                "__syncthreads() in divergent code in block {block}: {waiting} threads wait at it, {exited} \
                 threads had exited"
            ),
            EmuError::Deadlock { block, detail } => write!(f, "deadlock in block {block}: {detail}"),
            EmuError::Panic { block, thread, message } => {
                write!(f, "kernel panicked in thread {thread} of block {block}: {message}")
            }
        }
    }
}

impl std::error::Error for EmuError {}

/// Why a thread suspended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    SyncThreads,
    SyncWarp,
}

const NOBODY: u32 = u32::MAX;
const SEVERAL: u32 = u32::MAX - 1;

/// Who last touched a 4-byte word of shared memory, and in which barrier interval.
#[derive(Clone, Copy)]
struct Shadow {
    writer: u32,
    w_block_epoch: u32,
    w_warp_epoch: u32,
    reader: u32,
    r_warp: u32,
    r_block_epoch: u32,
    r_warp_epoch: u32,
}

const FRESH: Shadow = Shadow {
    writer: NOBODY,
    w_block_epoch: 0,
    w_warp_epoch: 0,
    reader: NOBODY,
    r_warp: NOBODY,
    r_block_epoch: 0,
    r_warp_epoch: 0,
};

struct Block {
    block_idx: usize,
    shared: Vec<u128>,
    shared_len: usize,
    shadow: Vec<Shadow>,
    block_epoch: u32,
    warp_epoch: Vec<u32>,
    warp_slots: Vec<[u32; 32]>,
    warp_lanes: Vec<usize>,
    /// `__syncthreads_or` votes, by block epoch parity.
    votes: [bool; 2],
    error: Option<EmuError>,
}

struct Current {
    info: ThreadInfo,
    block: *mut Block,
    yielder: *const Yielder<(), Event>,
}

std::thread_local! {
    static CURRENT: Cell<*const Current> = const { Cell::new(core::ptr::null()) };
}

/// Run `f` on the running emulated thread's [`Current`], borrowed for the call only (no
/// reference to it outlives `f`, so none is held across a suspension point).
fn with_current<R>(f: impl FnOnce(&Current) -> R) -> R {
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

/// The running block, as the raw pointer its one owner ([`run_block`]) handed out. Accesses
/// through it are short and never span a suspension point, and the scheduler only touches the
/// block while no coroutine runs, so no two accesses overlap.
fn current_block() -> *mut Block {
    with_current(|c| c.block)
}

fn suspend(ev: Event) {
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

/// `__shfl_down_sync(0xffffffff, v, delta)`.
pub fn shfl_down(v: u32, delta: u32) -> u32 {
    let tid = with_thread(|t| t.thread_idx);
    let b = current_block();
    let (warp, lane) = (tid / 32, tid % 32);
    {
        // SAFETY: see `current_block`: this reference ends before the suspension below.
        let blk = unsafe { &mut *b };
        blk.warp_slots[warp][lane] = v;
    }
    suspend(Event::SyncWarp);
    let src = lane + delta as usize;
    // SAFETY: see `current_block`: a reference only for this expression.
    let blk = unsafe { &*b };
    let r = if src < blk.warp_lanes[warp] {
        blk.warp_slots[warp][src]
    } else {
        v
    };
    // Second barrier: no lane may overwrite its slot before every lane has read.
    suspend(Event::SyncWarp);
    r
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

/// Base address of the running block's dynamic shared memory.
pub fn shared_base() -> *mut u8 {
    let b = current_block();
    // SAFETY: see `current_block`; only the address is taken.
    unsafe { (*b).shared.as_mut_ptr() as *mut u8 }
}

/// Check one shared-memory access (called by [`crate::gpu::Shared`] before it touches memory).
pub fn shared_access(byte_offset: usize, size: usize, write: bool) {
    let tid = with_thread(|t| t.thread_idx);
    // SAFETY: see `current_block`: this reference ends before the function returns, and nothing
    // in it suspends.
    let b = unsafe { &mut *current_block() };
    if byte_offset + size > b.shared_len {
        let err = EmuError::SharedOutOfBounds {
            block: b.block_idx,
            thread: tid,
            byte_offset,
            reserved: b.shared_len,
        };
        let msg = err.to_string();
        b.error.get_or_insert(err);
        panic!("{msg}");
    }
    let me = tid as u32;
    let warp = (tid / 32) as u32;
    let be = b.block_epoch;
    let we = b.warp_epoch[warp as usize];
    // Accesses by `other` (in block epoch `obe`, warp epoch `owe`) and by us are ordered when a
    // block barrier lies between them, or a warp barrier when both threads share a warp.
    let ordered =
        |other_warp: u32, obe: u32, owe: u32| obe != be || (other_warp == warp && owe != we);
    for word in byte_offset / 4..(byte_offset + size).div_ceil(4) {
        let s = &mut b.shadow[word];
        let mut found: Option<EmuError> = None;
        if write {
            if s.writer != NOBODY
                && s.writer != me
                && !ordered(s.writer / 32, s.w_block_epoch, s.w_warp_epoch)
            {
                found = Some(EmuError::SharedRace {
                    kind: RaceKind::WriteAfterWrite,
                    block: b.block_idx,
                    byte_offset: word * 4,
                    earlier_thread: s.writer as usize,
                    later_thread: tid,
                });
            } else if s.reader != NOBODY
                && (s.reader == SEVERAL || s.reader != me)
                && !(s.r_warp != SEVERAL && ordered(s.r_warp, s.r_block_epoch, s.r_warp_epoch))
            {
                found = Some(EmuError::SharedRace {
                    kind: RaceKind::WriteAfterRead,
                    block: b.block_idx,
                    byte_offset: word * 4,
                    earlier_thread: if s.reader == SEVERAL {
                        usize::MAX
                    } else {
                        s.reader as usize
                    },
                    later_thread: tid,
                });
            }
            s.writer = me;
            s.w_block_epoch = be;
            s.w_warp_epoch = we;
            s.reader = NOBODY;
            s.r_warp = NOBODY;
        } else {
            if s.writer == NOBODY {
                found = Some(EmuError::UninitializedSharedRead {
                    block: b.block_idx,
                    thread: tid,
                    byte_offset: word * 4,
                });
            } else if s.writer != me && !ordered(s.writer / 32, s.w_block_epoch, s.w_warp_epoch) {
                found = Some(EmuError::SharedRace {
                    kind: RaceKind::ReadAfterWrite,
                    block: b.block_idx,
                    byte_offset: word * 4,
                    earlier_thread: s.writer as usize,
                    later_thread: tid,
                });
            }
            let stale = s.reader == NOBODY
                || s.r_block_epoch != be
                || (s.r_warp == warp && s.r_warp_epoch != we);
            if stale {
                s.reader = me;
                s.r_warp = warp;
            } else if s.reader != me {
                s.reader = SEVERAL;
                if s.r_warp != warp {
                    s.r_warp = SEVERAL;
                }
            }
            s.r_block_epoch = be;
            s.r_warp_epoch = we;
        }
        if let Some(e) = found {
            b.error.get_or_insert(e);
        }
    }
}

/// The one owner of a running block (see [`run_block`]).
struct BlockOwner(*mut Block);

impl Drop for BlockOwner {
    fn drop(&mut self) {
        // SAFETY: from `Box::into_raw` in `run_block`, freed only here, after the coroutines.
        drop(unsafe { Box::from_raw(self.0) })
    }
}

/// The one owner of a block's per-thread [`Current`]s.
struct CurrentsOwner(*mut [Current]);

impl Drop for CurrentsOwner {
    fn drop(&mut self) {
        // SAFETY: from `Box::into_raw` in `run_block`, freed only here, after the coroutines.
        drop(unsafe { Box::from_raw(self.0) })
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Runnable,
    AtBlockBarrier,
    AtWarpBarrier,
    Exited,
}

fn panic_message(p: Box<dyn core::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

fn run_block(
    block_idx: usize,
    cfg: &LaunchConfig,
    kernel: &(dyn Fn() + Sync),
    stacks: &mut Vec<DefaultStack>,
) -> Result<(), EmuError> {
    let n = cfg.block_dim;
    let warps = n.div_ceil(32);
    // The block has one owner, `owner`, which holds it as the raw pointer from `Box::into_raw`
    // (freed when `owner` drops, after every coroutine). The scheduler and the coroutines all
    // reach it through that pointer, one short access at a time: no `Box` or `&mut` is kept
    // alive that another access could invalidate.
    let owner = BlockOwner(Box::into_raw(Box::new(Block {
        block_idx,
        // Filled with a poison pattern: the race detector reports reads of unwritten words, and
        // a kernel that ignored that report would see garbage, not zeros.
        shared: vec![0xDEAD_BEEF_DEAD_BEEF_DEAD_BEEF_DEAD_BEEFu128; cfg.shared_bytes.div_ceil(16)],
        shared_len: cfg.shared_bytes,
        shadow: vec![FRESH; cfg.shared_bytes.div_ceil(4)],
        block_epoch: 0,
        warp_epoch: vec![0; warps],
        warp_slots: vec![[0; 32]; warps],
        warp_lanes: (0..warps).map(|w| (n - w * 32).min(32)).collect(),
        votes: [false; 2],
        error: None,
    })));
    let bptr = owner.0;
    // The same for the per-thread `Current`s, which the coroutines write (their yielder) and the
    // thread-local `CURRENT` points into.
    let currents = CurrentsOwner(Box::into_raw(
        (0..n)
            .map(|t| Current {
                info: ThreadInfo {
                    thread_idx: t,
                    block_idx,
                    block_dim: n,
                    grid_dim: cfg.grid_dim,
                },
                block: bptr,
                yielder: core::ptr::null(),
            })
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    ));
    let cur = currents.0 as *mut Current;
    // Declared after both owners, so dropped before them: every coroutine is finished or
    // unwound before the memory it points into is freed.
    let mut coros: Vec<Coroutine<(), Event, (), DefaultStack>> = Vec::with_capacity(n);
    for t in 0..n {
        let stack = match stacks.pop() {
            Some(s) => s,
            None => DefaultStack::new(STACK_BYTES).map_err(|e| {
                EmuError::InvalidLaunch(format!("cannot allocate a thread stack: {e}"))
            })?,
        };
        // SAFETY: `t < n`, the length of the `Current` slice.
        let me = unsafe { cur.add(t) };
        let body = move |y: &Yielder<(), Event>, ()| {
            // SAFETY: this coroutine's own `Current`; nothing else accesses it now.
            unsafe { (*me).yielder = y };
            kernel();
        };
        // SAFETY: `me` and `kernel` outlive every coroutine (the owners and `kernel` are dropped
        // or returned only after `coros`), and the coroutine is resumed only on this OS thread.
        let co = unsafe { Coroutine::with_stack_unchecked(stack, body) };
        coros.push(co);
    }
    // Short accesses to the block from the scheduler, made only while no coroutine runs.
    let block = || {
        // SAFETY: `bptr` is live until `owner` drops, and the scheduler calls this only while no
        // coroutine runs, for one statement at a time.
        unsafe { &mut *bptr }
    };

    let mut state = vec![State::Runnable; n];
    let mut exited = 0;
    loop {
        for t in 0..n {
            if state[t] != State::Runnable {
                continue;
            }
            // SAFETY: `t < n`.
            CURRENT.with(|c| c.set(unsafe { cur.add(t) }));
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| coros[t].resume(())));
            CURRENT.with(|c| c.set(core::ptr::null()));
            match r {
                Ok(CoroutineResult::Yield(Event::SyncThreads)) => state[t] = State::AtBlockBarrier,
                Ok(CoroutineResult::Yield(Event::SyncWarp)) => state[t] = State::AtWarpBarrier,
                Ok(CoroutineResult::Return(())) => {
                    state[t] = State::Exited;
                    exited += 1;
                }
                Err(p) => {
                    let message = panic_message(p);
                    let err = block().error.take().unwrap_or(EmuError::Panic {
                        block: block_idx,
                        thread: t,
                        message,
                    });
                    drop(coros);
                    return Err(err);
                }
            }
        }
        if exited == n {
            break;
        }
        let mut released = false;
        for w in 0..warps {
            let lanes = w * 32..(w * 32 + block().warp_lanes[w]);
            if state[lanes.clone()]
                .iter()
                .all(|s| *s == State::AtWarpBarrier)
            {
                for s in &mut state[lanes] {
                    *s = State::Runnable;
                }
                block().warp_epoch[w] += 1;
                released = true;
            }
        }
        let waiting = state
            .iter()
            .filter(|s| **s == State::AtBlockBarrier)
            .count();
        if !released && waiting > 0 && waiting + exited == n {
            if exited > 0 {
                drop(coros);
                return Err(EmuError::BarrierDivergence {
                    block: block_idx,
                    waiting,
                    exited,
                });
            }
            for s in state.iter_mut() {
                *s = State::Runnable;
            }
            let b = block();
            b.block_epoch += 1;
            let e = b.block_epoch as usize;
            b.votes[e & 1] = false;
            released = true;
        }
        if !released {
            let at_warp = state.iter().filter(|s| **s == State::AtWarpBarrier).count();
            drop(coros);
            return Err(EmuError::Deadlock {
                block: block_idx,
                detail: format!(
                    "{at_warp} threads wait at __syncwarp()/a shuffle and {waiting} at __syncthreads(), {exited} \
                     have exited: some warp barrier is not reached by all 32 lanes"
                ),
            });
        }
    }
    for co in coros {
        stacks.push(co.into_stack());
    }
    match block().error.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Run `kernel` once per GPU thread of the grid `cfg` (the emulated `kernel<<<grid, block,
/// shared>>>()`), and wait for it. `kernel` reads its ids through [`crate::gpu`].
///
/// On error, the error of the lowest-numbered failing block is returned.
pub fn launch(cfg: LaunchConfig, kernel: &(dyn Fn() + Sync)) -> Result<(), EmuError> {
    if cfg.grid_dim == 0 || cfg.grid_dim > MAX_GRID_DIM {
        return Err(EmuError::InvalidLaunch(format!(
            "grid of {} blocks (allowed: 1..={MAX_GRID_DIM})",
            cfg.grid_dim
        )));
    }
    if cfg.block_dim == 0 || cfg.block_dim > MAX_BLOCK_DIM {
        return Err(EmuError::InvalidLaunch(format!(
            "block of {} threads (allowed: 1..={MAX_BLOCK_DIM})",
            cfg.block_dim
        )));
    }
    if cfg.shared_bytes > MAX_SHARED_BYTES {
        return Err(EmuError::InvalidLaunch(format!(
            "{} bytes of shared memory per block (sm_90 allows {MAX_SHARED_BYTES})",
            cfg.shared_bytes
        )));
    }
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(cfg.grid_dim);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let first_error: Mutex<Option<(usize, EmuError)>> = Mutex::new(None);
    let work = || {
        let mut stacks = Vec::new();
        loop {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= cfg.grid_dim {
                break;
            }
            if let Err(e) = run_block(b, &cfg, kernel, &mut stacks) {
                stop.store(true, Ordering::Relaxed);
                let mut g = first_error.lock().unwrap_or_else(|p| p.into_inner());
                if g.as_ref().is_none_or(|(fb, _)| b < *fb) {
                    *g = Some((b, e));
                }
            }
        }
    };
    if workers <= 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(work);
            }
        });
    }
    match first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests;
