//! The CPU emulator backend: runs the kernels' Rust source on an emulated grid
//! ([`reduce_kernels::emu`]).

use crate::backend::{DeviceCaps, KernelArgs, Launch};
use crate::buffer::BackendId;
use crate::error::{ReduceError, Result};
use crate::types::Scalar;

/// The CPU emulator.
pub struct Emulator {
    pub(crate) caps: DeviceCaps,
    pub(crate) id: BackendId,
}

impl Default for Emulator {
    fn default() -> Self {
        Emulator {
            caps: DeviceCaps {
                name: "CPU emulator".into(),
                // A small pretend device keeps the grid-stride stages' grids (and run times) small.
                sm_count: 4,
                max_threads_per_sm: 2048,
                total_mem: 1 << 34,
                compute_capability: (0, 0),
            },
            id: BackendId::fresh(),
        }
    }
}

impl Emulator {
    /// Run `l` on the emulated grid and wait for it.
    ///
    /// # Safety
    /// As [`crate::Backend::launch`]: the addresses in `l.args` are host addresses of live `T`
    /// (and `u32` counter) allocations holding what the kernel reads and writes for this shape.
    pub(crate) unsafe fn launch<T: Scalar>(&self, l: &Launch<'_>) -> Result<()> {
        use reduce_kernels::exports::{axis, axis_ticket, exact, multi_pass, single_pass};
        use reduce_kernels::table::{emulated, Body, KernelId};
        let missing = || ReduceError::MissingKernel {
            name: l.kernel.to_string(),
            path: "the CPU emulator".into(),
        };
        let id = KernelId::find(l.kernel, l.block).ok_or_else(missing)?;
        if id.ty != T::TYPE.kind() {
            return Err(ReduceError::InvalidArgument(format!(
                "kernel {} launched with {} buffers",
                l.kernel,
                T::TYPE
            )));
        }
        let body = emulated::<T>(id).ok_or_else(missing)?;
        let cfg = reduce_kernels::emu::LaunchConfig {
            grid_dim: l.grid,
            block_dim: l.block,
            shared_bytes: l.shared_bytes,
        };
        let run = |body: &(dyn Fn() + Sync)| {
            reduce_kernels::emu::launch(cfg, body).map_err(|source| ReduceError::Emulator {
                kernel: l.kernel.to_string(),
                source,
            })
        };
        match (body, l.args) {
            (Body::MultiPass(f), KernelArgs::MultiPass { input, n, partials }) => {
                let (i, p) = (input as usize, partials as usize);
                // SAFETY: the addresses are live host allocations of `n` and `grid` elements, by
                // this function's contract.
                run(&|| unsafe { multi_pass(f, i as *const T, n, p as *mut T) })
            }
            (
                Body::SinglePass(f),
                KernelArgs::SinglePass {
                    input,
                    n,
                    partials,
                    counter,
                    out,
                },
            ) => {
                let (i, p, c, o) = (
                    input as usize,
                    partials as usize,
                    counter as usize,
                    out as usize,
                );
                // SAFETY: as above, plus a zeroed counter and a one-element result.
                run(&|| unsafe {
                    single_pass(f, i as *const T, n, p as *mut T, c as *mut u32, o as *mut T)
                })
            }
            (
                Body::SinglePassWide(f),
                KernelArgs::SinglePass {
                    input,
                    n,
                    partials,
                    counter,
                    out,
                },
            ) => {
                use reduce_kernels::exports::single_pass_wide;
                type W<T> = <T as reduce_kernels::Element>::Wide;
                let (i, p, c, o) = (
                    input as usize,
                    partials as usize,
                    counter as usize,
                    out as usize,
                );
                // SAFETY: as above, with the partials and the result of the wide type (the
                // contract of a wide kernel's launch).
                run(&|| unsafe {
                    single_pass_wide(
                        f,
                        i as *const T,
                        n,
                        p as *mut W<T>,
                        c as *mut u32,
                        o as *mut W<T>,
                    )
                })
            }
            (
                Body::Axis(f),
                KernelArgs::Axis {
                    input,
                    n,
                    begin,
                    end,
                    out,
                    out_len,
                    count,
                    len,
                    parts,
                    group,
                },
            ) => {
                let (i, b, e, o) = (input as usize, begin as usize, end as usize, out as usize);
                // SAFETY: as above: `n` input elements, `count` offsets in each of `begin` and
                // `end` (or null), `out_len` results.
                run(&|| unsafe {
                    axis(
                        f,
                        i as *const T,
                        n,
                        b as *const u64,
                        e as *const u64,
                        o as *mut T,
                        out_len,
                        count,
                        len,
                        parts,
                        group,
                    )
                })
            }
            (
                Body::AxisTicket(f),
                KernelArgs::AxisTicket {
                    input,
                    n,
                    partials,
                    counter,
                    out,
                    out_len,
                    count,
                    len,
                    parts,
                    group,
                },
            ) => {
                let (i, p, c, o) = (
                    input as usize,
                    partials as usize,
                    counter as usize,
                    out as usize,
                );
                // SAFETY: as above: `n` input elements, `grid · len` partials, a zeroed
                // counter, `out_len` results.
                run(&|| unsafe {
                    axis_ticket(
                        f,
                        i as *const T,
                        n,
                        p as *mut T,
                        c as *mut u32,
                        o as *mut T,
                        out_len,
                        count,
                        len,
                        parts,
                        group,
                    )
                })
            }
            (
                Body::Transform(f),
                KernelArgs::Transform {
                    a,
                    b,
                    n,
                    partials,
                    counter,
                    out,
                },
            ) => {
                let (a, b, p, c, o) = (
                    a as usize,
                    b as usize,
                    partials as usize,
                    counter as usize,
                    out as usize,
                );
                // SAFETY: as above: `n` elements at `a` (and at `b`, or null), `3 · grid` f64
                // partials, a zeroed counter, three f64 result words.
                run(&|| unsafe {
                    reduce_kernels::transform::entry(
                        f,
                        a as *const T,
                        b as *const T,
                        n,
                        p as *mut f64,
                        c as *mut u32,
                        o as *mut f64,
                    )
                })
            }
            (
                Body::Exact(f),
                KernelArgs::SinglePass {
                    input,
                    n,
                    partials,
                    counter,
                    out,
                },
            ) => {
                let (i, w, c, o) = (
                    input as usize,
                    partials as usize,
                    counter as usize,
                    out as usize,
                );
                // SAFETY: as above; `partials` holds the exact sums' `slots` zeroed 64-bit words
                // (their plan).
                run(&|| unsafe {
                    exact(
                        f,
                        i as *const T,
                        n,
                        w as *mut i64,
                        c as *mut u32,
                        o as *mut T,
                    )
                })
            }
            (
                Body::ExactWords(f),
                KernelArgs::SinglePass {
                    input,
                    n,
                    partials,
                    counter,
                    out,
                },
            ) => {
                let (i, w, c, o) = (
                    input as usize,
                    partials as usize,
                    counter as usize,
                    out as usize,
                );
                // SAFETY: as above; `out` holds the words-out length (`W + 5` 64-bit words).
                run(&|| unsafe {
                    reduce_kernels::exact::words::words_entry(
                        f,
                        i as *const T,
                        n,
                        w as *mut i64,
                        c as *mut u32,
                        o as *mut i64,
                    )
                })
            }
            (Body::ExactCombine(f), KernelArgs::MultiPass { input, n, partials }) => {
                let (g, o) = (input as usize, partials as usize);
                // SAFETY: `input` holds `n` 64-bit words and `partials` one `T` (the combine's
                // arguments), by this function's contract.
                run(&|| unsafe {
                    reduce_kernels::exact::words::combine_entry(f, g as *const i64, n, o as *mut T)
                })
            }
            _ => Err(ReduceError::InvalidArgument(format!(
                "kernel {} takes another calling convention (multi-pass, single-pass or axis)",
                l.kernel
            ))),
        }
    }
}
