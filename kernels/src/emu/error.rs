//! Why an emulated launch fails: races, barrier divergence, panics, bad shapes.

use std::format;
use std::string::{String, ToString};

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
