//! The CPU emulator backend: runs the kernels' Rust source on an emulated grid
//! ([`reduce_kernels::emu`]).

use crate::backend::{DeviceCaps, KernelArgs, Launch};
use crate::buffer::BackendId;
use crate::error::{ReduceError, Result};
use crate::Scalar;

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

/// A ladder kernel's body, as the emulator calls it.
type LadderBody<T> = fn(reduce_kernels::gpu::Global<T>, reduce_kernels::gpu::GlobalMut<T>);

/// The Rust function behind a ladder kernel symbol (the emulator runs the kernels' source).
fn ladder_body<T: Scalar>(kernel: &str, block: usize) -> Option<LadderBody<T>> {
    use reduce_kernels::stages::*;
    // The const-generic stages exist for each instantiated block size.
    macro_rules! by_block {
        ($($f:ident)::+) => {
            match block {
                64 => Some($($f)::+::<T, 64> as LadderBody<T>),
                128 => Some($($f)::+::<T, 128>),
                256 => Some($($f)::+::<T, 256>),
                512 => Some($($f)::+::<T, 512>),
                1024 => Some($($f)::+::<T, 1024>),
                _ => None,
            }
        };
    }
    let stem = kernel.strip_suffix(T::TYPE.name())?;
    match stem {
        "reduce_s1_interleaved_divergent_" => Some(s1_interleaved_divergent::reduce::<T>),
        "reduce_s2_interleaved_strided_" => Some(s2_interleaved_strided::reduce::<T>),
        "reduce_s3_sequential_" => Some(s3_sequential::reduce::<T>),
        "reduce_s4_first_add_during_load_" => Some(s4_first_add_during_load::reduce::<T>),
        "reduce_s5_unroll_last_warp_" => Some(s5_unroll_last_warp::reduce::<T>),
        _ if stem.starts_with("reduce_s6_complete_unroll_b") => {
            by_block!(s6_complete_unroll::reduce)
        }
        _ if stem.starts_with("reduce_s7_grid_stride_b") => by_block!(s7_grid_stride::reduce),
        "reduce_broken_racy_last_warp_" => Some(broken::reduce_racy_last_warp::<T>),
        "reduce_broken_missing_barrier_" => Some(broken::reduce_missing_barrier::<T>),
        _ => None,
    }
}

impl Emulator {
    /// Run `l` on the emulated grid and wait for it.
    ///
    /// # Safety
    /// As [`crate::Backend::launch`]: the addresses in `l.args` are host addresses of live `T`
    /// (and `u32` counter) allocations holding what the kernel reads and writes for this shape.
    pub(crate) unsafe fn launch<T: Scalar>(&self, l: &Launch<'_>) -> Result<()> {
        use reduce_kernels::exports::{ladder, single_pass};
        use reduce_kernels::stages::s8_shuffle_vectorized::reduce as s8;
        use reduce_kernels::{Max, Min, Sum};
        const U: usize = reduce_kernels::exports::SINGLE_PASS_UNROLL;
        let missing = || ReduceError::MissingKernel {
            name: l.kernel.to_string(),
            path: "the CPU emulator".into(),
        };
        if !l.kernel.ends_with(&format!("_{}", T::TYPE.name())) {
            return Err(ReduceError::InvalidArgument(format!(
                "kernel {} launched with {} buffers",
                l.kernel,
                T::TYPE
            )));
        }
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
        match l.args {
            KernelArgs::Ladder { input, n, partials } => {
                let f = ladder_body::<T>(l.kernel, l.block).ok_or_else(missing)?;
                // SAFETY: the addresses are live host allocations of `n` and `grid` elements, by
                // this function's contract.
                run(&|| unsafe {
                    ladder(
                        f,
                        input as usize as *const T,
                        n,
                        partials as usize as *mut T,
                    )
                })
            }
            KernelArgs::SinglePass {
                input,
                n,
                partials,
                counter,
                out,
            } => {
                type F<T> = fn(
                    reduce_kernels::gpu::Global<T>,
                    reduce_kernels::gpu::Coherent<T>,
                    reduce_kernels::gpu::Counter,
                    reduce_kernels::gpu::GlobalMut<T>,
                );
                let op = l.kernel.split('_').nth(2).unwrap_or_default();
                let f: F<T> = match (op, l.block) {
                    ("sum", 256) => s8::<T, Sum, 256, U>,
                    ("sum", 512) => s8::<T, Sum, 512, U>,
                    ("sum", 1024) => s8::<T, Sum, 1024, U>,
                    ("min", 256) => s8::<T, Min, 256, U>,
                    ("min", 512) => s8::<T, Min, 512, U>,
                    ("min", 1024) => s8::<T, Min, 1024, U>,
                    ("max", 256) => s8::<T, Max, 256, U>,
                    ("max", 512) => s8::<T, Max, 512, U>,
                    ("max", 1024) => s8::<T, Max, 1024, U>,
                    _ => return Err(missing()),
                };
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Op, Stage};

    #[test]
    fn the_emulator_knows_every_ladder_kernel_the_host_can_name() {
        for stage in &Stage::ALL[..7] {
            for &block in stage.blocks() {
                let f32_name = stage.kernel_name(crate::ElemType::F32, Op::Sum, block);
                let i32_name = stage.kernel_name(crate::ElemType::I32, Op::Sum, block);
                assert!(ladder_body::<f32>(&f32_name, block).is_some(), "{f32_name}");
                assert!(ladder_body::<i32>(&i32_name, block).is_some(), "{i32_name}");
                assert!(
                    ladder_body::<f32>(&i32_name, block).is_none(),
                    "{i32_name} is not an f32 kernel"
                );
            }
        }
        assert!(ladder_body::<f32>("reduce_s6_complete_unroll_b96_f32", 96).is_none());
        assert!(ladder_body::<f32>("reduce_broken_racy_last_warp_f32", 256).is_some());
        assert!(ladder_body::<f32>("no_such_kernel_f32", 256).is_none());
    }
}
