//! The gate of [`Protocol::Gated`](super::Protocol::Gated): a kernel that holds the stream until
//! the host has queued a whole timed run (NVIDIA nvbench's "blocking kernel"; see
//! `reduce_kernels::bench_gate`).

use crate::backend::{Gpu, Mapped};
use crate::error::Result;

/// How long the gate waits for the host to queue one run before it gives up.
pub(super) const GATE_TIMEOUT_MS: u64 = 1000;

/// Two `u32` in mapped pinned memory, `[open, timed_out]`.
pub(super) struct Gate(Mapped<u32>);

/// A closed gate; dropping it opens the gate (also when queuing the run failed half-way).
pub(super) struct Closed<'a>(&'a mut Gate);

impl Gate {
    pub(super) fn new() -> Result<Self> {
        Ok(Gate(Mapped::new(2)?))
    }

    /// Queue the gate kernel on `gpu`'s stream; the stream stops there until the guard drops.
    pub(super) fn close<'a>(&'a mut self, gpu: &Gpu) -> Result<Closed<'a>> {
        self.0.write(0, 0);
        self.0.write(1, 0);
        // SAFETY: the flag words live in `self`, which outlives the stream's wait on them (the
        // caller synchronizes before the gate is dropped).
        unsafe { gpu.launch_gate(self.0.device_addr(), GATE_TIMEOUT_MS * 1_000_000)? };
        Ok(Closed(self))
    }

    /// Did the last run's gate give up waiting? (Read after the run has finished.)
    pub(super) fn timed_out(&self) -> bool {
        self.0.read(1) != 0
    }
}

impl Drop for Closed<'_> {
    fn drop(&mut self) {
        self.0 .0.write(0, 1);
    }
}
