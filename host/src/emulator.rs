//! The CPU emulator backend: runs the kernels' Rust source on an emulated grid
//! ([`reduce_kernels::emu`]), each kernel's function and calling convention taken from the
//! kernel table ([`reduce_kernels::table::emulated`]).

use crate::buffer::BackendId;
use crate::caps::DeviceCaps;
use crate::error::{ReduceError, Result};
use crate::launch::Launch;
use crate::types::Scalar;
use reduce_kernels::table::emulated;

/// The CPU emulator.
pub struct Emulator {
    pub(crate) caps: DeviceCaps,
    pub(crate) id: BackendId,
}

impl Default for Emulator {
    fn default() -> Self {
        Emulator {
            caps: DeviceCaps::emulator(),
            id: BackendId::fresh(),
        }
    }
}

impl Emulator {
    /// An emulator that plans for the device `caps` describes (e.g. [`DeviceCaps::preset`]): its
    /// launches are the ones that device would get, run on the CPU grid.
    pub fn with_caps(caps: DeviceCaps) -> Self {
        Emulator {
            caps,
            id: BackendId::fresh(),
        }
    }

    /// Run `l` on the emulated grid and wait for it: the kernel table's Rust function for
    /// `l.kernel` ([`emulated`]), called with the launch's argument words
    /// ([`reduce_kernels::table::Body::call`]).
    ///
    /// # Safety
    /// As [`crate::Backend::launch`]: the addresses in `l.args` are host addresses of live `T`
    /// (and `u32` counter) allocations holding what the kernel reads and writes for this shape.
    pub(crate) unsafe fn launch<T: Scalar>(&self, l: &Launch) -> Result<()> {
        let id = l.kernel;
        if id.ty != T::TYPE {
            return Err(ReduceError::InvalidArgument(format!(
                "kernel {id} launched with {} buffers",
                T::TYPE
            )));
        }
        // A `const` family's kernel is built for its own block size only.
        let body = emulated::<T>(id)
            .filter(|_| !id.row().block_in_name || id.block == l.block)
            .ok_or_else(|| ReduceError::MissingKernel {
                name: id.to_string(),
                path: "the CPU emulator".into(),
            })?;
        if !l.args.fit(body.abi()) {
            return Err(ReduceError::InvalidArgument(format!(
                "kernel {id} takes another calling convention ({:?})",
                body.abi()
            )));
        }
        let words = l.args.words();
        let cfg = reduce_kernels::emu::LaunchConfig {
            grid_dim: l.grid,
            block_dim: l.block,
            shared_bytes: l.shared_bytes,
        };
        // SAFETY: the words are `body`'s calling convention's (checked just above), host
        // addresses of live allocations of the sizes this launch shape reads and writes, by this
        // function's contract.
        let run = || unsafe { body.call(&words) };
        reduce_kernels::emu::launch(cfg, &run).map_err(|source| ReduceError::Emulator {
            kernel: id.to_string(),
            source,
        })
    }
}
