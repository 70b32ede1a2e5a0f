//! # The parallel-reduction ladder, in Rust, for NVIDIA GPUs
//!
//! Every file under [`stages`] is one rung of the classic optimization ladder for a parallel sum
//! (Harris, *Optimizing Parallel Reduction in CUDA*), as taught by the project's two seed
//! documents — the blog "Reduction in CUDA" (kernels **K1–K5**) and the lesson following
//! "7 Step Optimization of Parallel Reduction" (**REDUCE-0 … REDUCE-4**) — and then one rung past
//! them ([`stages::s8_shuffle_vectorized`]) that is faster than NVIDIA's CUB on an H200.
//!
//! | stage | file | seed step |
//! |---|---|---|
//! | 1 | [`stages::s1_interleaved_divergent`] | K1 / REDUCE-0 |
//! | 2 | [`stages::s2_interleaved_strided`] | REDUCE-1 |
//! | 3 | [`stages::s3_sequential`] | K2 / REDUCE-2 |
//! | 4 | [`stages::s4_first_add_during_load`] | K3 / REDUCE-3 |
//! | 5 | [`stages::s5_unroll_last_warp`] | K4 / REDUCE-4 (made correct for Volta+) |
//! | 6 | [`stages::s6_complete_unroll`] | K5's template, REDUCE-5 ("complete unroll") |
//! | 7 | [`stages::s7_grid_stride`] | K5 / REDUCE-6 ("multiple adds per thread") |
//! | 8 | [`stages::s8_shuffle_vectorized`] | beyond the seeds: shuffles, 128-bit loads, one pass |
//!
//! All hardware access goes through one small module, [`gpu`]: thread and block indices,
//! barriers, shared memory, warp shuffles, wide loads and atomics. On `nvptx64` it lowers to PTX;
//! on the host it runs the very same kernel source on an emulated grid (one coroutine per GPU
//! thread, real barriers, per-block shared memory with a race detector) so tests and debuggers
//! can step through a kernel without a GPU. The stages call it by rust-cuda's names —
//! [`thread`], [`warp`], [`shared`], as in `cuda_std` 0.2.2 — and [`porting`] maps every
//! intrinsic CUDA C ↔ `cuda_std` ↔ this crate (and says why `cuda_std` itself cannot be used).
//!
//! Every kernel has one typed identity, a row of [`table`] (stage, element types, operators, block
//! sizes): the `#[no_mangle]` entry points with stable names (`reduce_s3_sequential_f32`, …), the
//! host's lookup and plan and the emulator's dispatch all derive from it. [`exports`] holds the
//! calling conventions. [`axis`] reduces along an axis of a matrix or over segments (one result
//! per row, column or segment). One kernel there is not a reduction: [`bench_gate`], which the benchmarks
//! queue before a timed run so that the CUDA events time the GPU and not the host's launch.
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        abi_ptx,
        stdarch_nvptx,
        core_intrinsics,
        link_llvm_intrinsics,
        asm_experimental_arch,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem
    )
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]
// Without the `entry-points` feature (a user's kernel crate) nothing here is `extern "ptx-kernel"`.
#![cfg_attr(
    all(target_arch = "nvptx64", not(feature = "entry-points")),
    allow(unused_features)
)]

#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

pub mod argreduce;
pub mod axis;
pub mod bench_gate;
mod coherent;
pub mod element;
pub mod exact;
pub mod exports;
pub mod gpu;
pub mod half;
pub mod intrinsics;
mod memory;
pub mod ops;
pub mod porting;
pub mod primitives;
pub mod shared;
pub mod stages;
pub mod table;
pub mod thread;
pub mod transform;
pub mod vocabulary;
pub mod warp;

#[cfg(test)]
mod test_rng;

#[cfg(not(target_arch = "nvptx64"))]
pub mod emu;

pub use element::{Element, ReduceOp};
pub use ops::{Count, Max, Min, NanMax, NanMin, NanSum, Prod, Sum};

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // A panic on the GPU (only reachable through a bug) stops the kernel with a trap, which the
    // host sees as CUDA_ERROR_LAUNCH_FAILED / ILLEGAL_INSTRUCTION on its next call.
    // SAFETY: `trap` aborts the kernel; it has no other effect.
    unsafe { core::arch::nvptx::trap() }
}
