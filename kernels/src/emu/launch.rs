//! Running a launch: blocks on a few OS threads, every GPU thread of a block a coroutine, and
//! the block scheduler that releases barriers.

use super::shared::FRESH;
use super::{
    Block, Current, EmuError, Event, LaunchConfig, ThreadInfo, CURRENT, MAX_BLOCK_DIM,
    MAX_GRID_DIM, MAX_SHARED_BYTES, STACK_BYTES,
};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::boxed::Box;
use std::format;
use std::string::{String, ToString};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::vec;
use std::vec::Vec;

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

pub(crate) fn run_block(
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
