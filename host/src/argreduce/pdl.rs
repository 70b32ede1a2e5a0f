//! The second launch of argmin/argmax's two-kernel form (`--policy …,combine=pdl`,
//! `reduce_kernels::argreduce::pdl`): one block that folds the grid's per-block items, queued as
//! a programmatic dependent launch of the grid kernel (`cuLaunchKernelEx`,
//! [`crate::launch_ex`]); the emulator runs it after the grid, as a plain launch.

use crate::backend::{Backend, KernelArgs, Launch};
use crate::custom::ItemWorkspace;
use crate::error::{ReduceError, Result};
use crate::types::Scalar;
use reduce_kernels::primitives::block::shared_words;

impl ItemWorkspace {
    /// Queue the library's combine kernel `symbol` (one block of `self.block` threads, item ABI
    /// with `n` = the grid's block count) over the `self.grid` items in `self.partials`, into
    /// `self.out`, dependent on the launch queued just before it.
    ///
    /// # Safety
    /// `symbol` is a combine kernel of the kernel table (`Family::ArgPdlCombine`) for `T`, for
    /// items of `self.words` words and blocks of `self.block` threads, and the launch queued
    /// before it on `backend`'s stream is a grid kernel that stores one such item per block of
    /// `self.grid` blocks in `self.partials`.
    pub(crate) unsafe fn enqueue_combine<T: Scalar>(
        &self,
        backend: &Backend,
        symbol: &str,
    ) -> Result<()> {
        self.partials.check_owner(backend.id(), "the workspace")?;
        let shared_bytes = shared_words(self.block, self.words) * 4;
        let (p, c, o) = (
            self.partials.addr(0),
            self.counter.addr(0),
            self.out.addr(0),
        );
        match backend {
            Backend::Gpu(_) => {
                let l = Launch {
                    kernel: symbol,
                    grid: 1,
                    block: self.block,
                    shared_bytes,
                    // The item ABI's five words; the kernel does not read `input` (the
                    // partials' address stands in) nor touch the counter.
                    args: KernelArgs::SinglePass {
                        input: p,
                        n: self.grid,
                        partials: p,
                        counter: c,
                        out: o,
                    },
                };
                // SAFETY: the partials hold `grid * words` words and `out` `words` words of
                // this backend (allocated for this shape); the kernel reads the partials only
                // after `griddepcontrol.wait` (`entry_pdl_combine`); the rest is this
                // function's contract.
                unsafe { backend.launch_dependent::<T>(&l) }
            }
            Backend::Emulator(_) => {
                use reduce_kernels::table::{emulated, Body, KernelId};
                let missing = || ReduceError::MissingKernel {
                    name: symbol.to_string(),
                    path: "the CPU emulator".into(),
                };
                let id = KernelId::find(symbol, self.block).ok_or_else(missing)?;
                let Some(Body::Item(entry)) = emulated::<T>(id) else {
                    return Err(missing());
                };
                let cfg = reduce_kernels::emu::LaunchConfig {
                    grid_dim: 1,
                    block_dim: self.block,
                    shared_bytes,
                };
                let (p, c, o, n) = (p as usize, c as usize, o as usize, self.grid);
                reduce_kernels::emu::launch(cfg, &|| {
                    // SAFETY: `n` items of `words` words in the partials, a counter, `words`
                    // result words (allocated for this shape), the config's shared memory; the
                    // grid kernel before it ran to its end (the emulator runs launches in turn).
                    unsafe {
                        entry(
                            p as *const T,
                            n,
                            p as *mut u32,
                            c as *mut u32,
                            o as *mut u32,
                        )
                    }
                })
                .map_err(|source| ReduceError::Emulator {
                    kernel: symbol.to_string(),
                    source,
                })
            }
        }
    }
}
