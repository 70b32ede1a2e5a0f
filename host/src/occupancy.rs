//! How many blocks of one kernel an SM holds at once: the driver's occupancy calculator
//! (`cuOccupancyMaxActiveBlocksPerMultiprocessor`), which counts the kernel's registers and
//! shared memory as the loaded module has them.
//!
//! A plan that sizes its grid as "every SM full, once" needs this number. Taken from the
//! device's thread limit alone it is wrong for any kernel above 32 registers per thread: the
//! transform kernels' `nantotal` takes 40, so an SM holds three 512-thread blocks, not four, and
//! a grid of four per SM runs in one and a third waves — `f16` `nanmean` at 2^26 took 44.8 µs
//! against 37.8 for the `f16` sum (round 12, `benches/results/h200-2026-12-02-regcap/call4`).
//! The emulator has no registers: it answers `None`, and plans keep their static estimate.

use crate::backend::Backend;
use crate::error::Result;
use crate::gpu::{driver_result, Gpu};
use cust::sys as cu;
use reduce_kernels::table::KernelId;

impl Backend {
    /// Blocks of `kernel` with `block` threads and `shared_bytes` of dynamic shared memory that
    /// one SM holds at once (at least 1), or `None` on the emulator.
    ///
    /// # Errors
    /// [`crate::ReduceError::MissingKernel`] if the loaded module has no `kernel`;
    /// [`crate::ReduceError::Driver`] if the driver rejects the query (a block above the
    /// kernel's limit, say).
    pub fn resident_blocks_per_sm(
        &self,
        kernel: KernelId,
        block: usize,
        shared_bytes: usize,
    ) -> Result<Option<usize>> {
        match self {
            Backend::Gpu(g) => resident_blocks(g, kernel, block, shared_bytes).map(Some),
            Backend::Emulator(_) => Ok(None),
        }
    }
}

fn resident_blocks(g: &Gpu, kernel: KernelId, block: usize, shared_bytes: usize) -> Result<usize> {
    let f = g.function(kernel)?;
    let mut blocks: i32 = 0;
    let threads = i32::try_from(block).unwrap_or(i32::MAX);
    // SAFETY: `f` is a function of the loaded module (it lives as long as `g`), and `blocks` is
    // a live `i32` the driver writes.
    let r = unsafe {
        cu::cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut blocks, f, threads, shared_bytes)
    };
    driver_result(r, format!("occupancy of {kernel} with {block} threads"))?;
    Ok(usize::try_from(blocks).unwrap_or(0).max(1))
}
