//! The kernels' entry points: stable, readable `#[no_mangle]` names and raw-pointer ABIs.
//!
//! Two calling conventions, shared by the GPU and the emulator:
//!
//! * ladder stages 1–7 and the broken variants: `(const T* input, size_t n, T* partials)`;
//!   `partials` has `gridDim.x` elements;
//! * stage 8: `(const T* input, size_t n, T* partials, unsigned* counter, T* out)`;
//! * and one helper that is not a reduction, `bench_gate(unsigned* flag, uint64 timeout_ns)`
//!   ([`crate::bench_gate`]).
//!
//! Names: `reduce_s{stage}_{what}[_b{BLOCK}]_{type}` for the ladder (e.g.
//! `reduce_s6_complete_unroll_b256_f32`) and `reduce_s8_{op}_b{BLOCK}_{type}` for stage 8
//! (e.g. `reduce_s8_sum_b512_f32`). The host builds the same names from its stage table, and a
//! test checks every one of them is in the PTX.

use crate::gpu::{grid_dim, Coherent, Counter, Global, GlobalMut};
use crate::Element;

/// Block sizes instantiated for the const-generic stages 6 and 7.
pub const UNROLLED_BLOCKS: [usize; 5] = [64, 128, 256, 512, 1024];
/// Block sizes instantiated for stage 8.
pub const SINGLE_PASS_BLOCKS: [usize; 3] = [256, 512, 1024];
/// Independent 16-byte loads per thread per step in stage 8 (8 measured no faster on the H200).
pub const SINGLE_PASS_UNROLL: usize = 4;

/// Ladder ABI → safe views.
///
/// # Safety
/// `input` holds `n` elements; `partials` holds `gridDim.x` elements.
#[inline(always)]
pub unsafe fn ladder<T: Element>(
    body: impl Fn(Global<T>, GlobalMut<T>),
    input: *const T,
    n: usize,
    partials: *mut T,
) {
    // SAFETY: the caller's contract: `n` input elements, `gridDim.x` partials.
    let (input, partials) = unsafe {
        (
            Global::from_raw(input, n),
            GlobalMut::from_raw(partials, grid_dim() as usize),
        )
    };
    body(input, partials)
}

/// Stage-8 ABI → safe views.
///
/// # Safety
/// `input` holds `n` elements; `partials` holds `gridDim.x` elements (unused with one block);
/// `counter` is a zeroed `u32`; `out` holds one element.
#[inline(always)]
pub unsafe fn single_pass<T: Element>(
    body: impl Fn(Global<T>, Coherent<T>, Counter, GlobalMut<T>),
    input: *const T,
    n: usize,
    partials: *mut T,
    counter: *mut u32,
    out: *mut T,
) {
    // SAFETY: the caller's contract: `n` input elements, `gridDim.x` partials (written by each
    // block, read by the last, only through `Coherent`), a counter only used atomically, one
    // result element.
    let (input, partials, counter, out) = unsafe {
        (
            Global::from_raw(input, n),
            Coherent::from_raw(partials, grid_dim() as usize),
            Counter::from_raw(counter),
            GlobalMut::from_raw(out, 1),
        )
    };
    body(input, partials, counter, out)
}

#[cfg(target_arch = "nvptx64")]
mod ptx {
    use super::{ladder, single_pass};
    use crate::stages::*;
    use crate::{Max, Min, Sum};

    /// One `extern "ptx-kernel"` per (type × name) with the ladder ABI.
    macro_rules! ladder_kernels {
        ([$($t:ident),*] $names:tt) => { $( ladder_kernels!(@one $t $names); )* };
        (@one $t:ident [$($name:ident => $f:path),* $(,)?]) => { paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$name _ $t>](input: *const $t, n: usize, partials: *mut $t) {
                ladder($f::<$t>, input, n, partials)
            }
        )* } };
    }

    /// Stages 6 and 7 for every block size of `UNROLLED_BLOCKS`.
    macro_rules! unrolled_kernels {
        ([$($t:ident),*]) => { $( unrolled_kernels!(@one $t [64, 128, 256, 512, 1024]); )* };
        (@one $t:ident [$($b:literal),*]) => { paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<reduce_s6_complete_unroll_b $b _ $t>](input: *const $t, n: usize, partials: *mut $t) {
                ladder(s6_complete_unroll::reduce::<$t, $b>, input, n, partials)
            }
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<reduce_s7_grid_stride_b $b _ $t>](input: *const $t, n: usize, partials: *mut $t) {
                ladder(s7_grid_stride::reduce::<$t, $b>, input, n, partials)
            }
        )* } };
    }

    /// Stage 8 for every op × type × block size of `SINGLE_PASS_BLOCKS`.
    macro_rules! single_pass_kernels {
        ([$($t:ident),*]) => { $( single_pass_kernels!(@op $t [sum Sum, min Min, max Max]); )* };
        (@op $t:ident [$($op:ident $O:ident),*]) => { $( single_pass_kernels!(@one $t $op $O [256, 512, 1024]); )* };
        (@one $t:ident $op:ident $O:ident [$($b:literal),*]) => { paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<reduce_s8_ $op _b $b _ $t>](
                input: *const $t, n: usize, partials: *mut $t, counter: *mut u32, out: *mut $t,
            ) {
                single_pass(s8_shuffle_vectorized::reduce::<$t, $O, $b, { super::SINGLE_PASS_UNROLL }>, input, n, partials, counter, out)
            }
        )* } };
    }

    ladder_kernels!([f32, i32] [
        reduce_s1_interleaved_divergent => s1_interleaved_divergent::reduce,
        reduce_s2_interleaved_strided => s2_interleaved_strided::reduce,
        reduce_s3_sequential => s3_sequential::reduce,
        reduce_s4_first_add_during_load => s4_first_add_during_load::reduce,
        reduce_s5_unroll_last_warp => s5_unroll_last_warp::reduce,
        reduce_broken_racy_last_warp => broken::reduce_racy_last_warp,
        reduce_broken_missing_barrier => broken::reduce_missing_barrier,
    ]);
    unrolled_kernels!([f32, i32]);
    single_pass_kernels!([f32, f64, i32, u32, i64, u64]);

    /// The benchmarks' gate ([`crate::bench_gate`]): `flag[0]` is set by the host, `flag[1]` is
    /// set by the gate if it timed out. One thread.
    #[no_mangle]
    pub unsafe extern "ptx-kernel" fn bench_gate(flag: *mut u32, timeout_ns: u64) {
        // SAFETY: the host passes two u32 of mapped memory that it writes (flag[0]) and reads
        // (flag[1]) with single aligned accesses while the gate runs.
        let flags = unsafe { crate::gpu::Coherent::from_raw(flag, 2) };
        crate::bench_gate::wait(flags, timeout_ns)
    }
}
