//! # The kernel table: one typed identity for every kernel
//!
//! Each row of `kernel_table!` (at the bottom of this file) is one kernel family: which
//! [`Family`] it is, its symbol stem, its calling convention ([`Abi`]), whether the block size is
//! a compile-time constant (`const`: one kernel per block size, named `…_b{BLOCK}_…`) or read at
//! run time (`any`), and the element types, operators and block sizes it is built for, then the
//! Rust function. From that one row the macro generates
//!
//! * the `#[no_mangle]` PTX entry points (on `nvptx64`),
//! * [`TABLE`], which the host's stage table, planner and kernel lookup read,
//! * [`emulated`], the emulator's function-pointer dispatch,
//!
//! and [`KernelId::symbol`] spells the entry names from the same row. Adding a block size is an
//! edit of one row; adding a stage is one row plus its file under `stages/` (and the host's
//! description of it in `host/src/stage.rs`).
//!
//! Symbol names: `{stem}[_{op}][_b{BLOCK}]_{type}` — the operator only for stage 8 and the axis
//! families (the ones with more than one), the block size only for `const` families. E.g.
//! `reduce_s3_sequential_f32`, `reduce_s6_complete_unroll_b256_i32`, `reduce_s8_max_b512_f64`,
//! `reduce_rows_sum_b256_f32`, `reduce_s8_nanmax_b512_f32`, and the wide sums of 32-bit integers
//! (input type in the name, 64-bit result) `reduce_s8_wide_sum_b512_i32`, and stage 8 on halves
//! (input type in the name, `f32` result) `reduce_s8_half_nanmax_b512_bf16`.

#[cfg(not(target_arch = "nvptx64"))]
use crate::gpu::{Coherent, Counter, Global, GlobalMut};
#[cfg(not(target_arch = "nvptx64"))]
use crate::Element;

/// Independent 16-byte loads per thread per step in stage 8 (8 measured no faster on the H200).
pub const SINGLE_PASS_UNROLL: usize = 4;

mod identity;

pub use identity::*;

/// A kernel's Rust function, as the emulator calls it.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy)]
pub enum Body<T: Element> {
    /// [`Abi::MultiPass`].
    MultiPass(fn(Global<T>, GlobalMut<T>)),
    /// [`Abi::SinglePass`].
    SinglePass(fn(Global<T>, Coherent<T>, Counter, GlobalMut<T>)),
    /// [`Abi::Axis`].
    Axis(AxisBody<T>),
    /// [`Abi::Transform`].
    Transform(TransformBody<T>),
    /// [`Abi::SinglePassWide`].
    SinglePassWide(WideBody<T>),
    /// [`Abi::Item`]: the raw entry point itself (it makes its own views).
    Item(crate::primitives::device::ItemEntry<T>),
    /// [`Abi::Exact`].
    Exact(fn(Global<T>, crate::exact::GlobalWords, Counter, GlobalMut<T>)),
    /// [`Abi::ExactWords`].
    ExactWords(fn(Global<T>, crate::exact::GlobalWords, Counter, GlobalMut<i64>)),
    /// [`Abi::ExactCombine`].
    ExactCombine(fn(Global<i64>, GlobalMut<T>)),
}

/// A transform kernel's Rust function: `(a, b, partials, counter, out)` ([`crate::transform`]).
#[cfg(not(target_arch = "nvptx64"))]
pub type TransformBody<T> = fn(Global<T>, Global<T>, Coherent<f64>, Counter, GlobalMut<f64>);

/// A wide stage-8 kernel's Rust function: `(input, partials, counter, out)`, the partials and the
/// result in [`Element::Wide`].
#[cfg(not(target_arch = "nvptx64"))]
pub type WideBody<T> =
    fn(Global<T>, Coherent<<T as Element>::Wide>, Counter, GlobalMut<<T as Element>::Wide>);

/// An axis kernel's Rust function: `(input, begin, end, out, params)`.
#[cfg(not(target_arch = "nvptx64"))]
pub type AxisBody<T> =
    fn(Global<T>, Global<u64>, Global<u64>, GlobalMut<T>, crate::axis::AxisParams);

/// Generates [`TABLE`], [`emulated`] and the PTX entry points from the rows at the end of this
/// file (see the module docs).
macro_rules! kernel_table {
    ($(
        $family:ident $stem:ident $abi:ident $mode:ident
        [$($t:ident),*] [$($op:ident),*] $blocks:tt => $module:ident :: $func:ident;
    )*) => {
        /// Every kernel family, in ladder order (stages 1–8, then the broken variants, then the
        /// reductions along an axis).
        pub const TABLE: &[Row] = &[$(
            Row {
                family: Family::$family,
                stem: stringify!($stem),
                abi: Abi::$abi,
                block_in_name: kernel_table!(@const $mode),
                types: &[$(kernel_table!(@kind $t)),*],
                ops: &[$(OpKind::$op),*],
                blocks: &kernel_table!(@blocks $blocks),
            }
        ),*];

        /// The Rust function behind `id`, for the emulator; `None` if `id` is not built or `T`
        /// is not its element type.
        #[cfg(not(target_arch = "nvptx64"))]
        pub fn emulated<T: Element>(id: KernelId) -> Option<Body<T>> {
            use crate::stages::*;
            use crate::axis::*;
            use crate::transform::{one_pass, Dot, Moments, NanTotal, SumSq, Total, L1};
            #[allow(unused_imports)]
            use crate::exact::*;
            use crate::{Max, Min, Sum};
            #[allow(unused_imports)]
            use crate::{Count, NanMax, NanMin, NanSum, Prod};
            use crate::argreduce::{self, ArgMax, ArgMin, NanArgMax, NanArgMin};
            if T::KIND != id.ty || !id.is_built() {
                return None;
            }
            match id.family {$(
                Family::$family => kernel_table!(@emu $abi $mode id [$($op),*] $blocks $module $func),
            )*}
        }

        /// The PTX entry points. Each is an `unsafe extern "ptx-kernel" fn` whose contract is
        /// that of [`crate::exports::multi_pass`] / [`crate::exports::single_pass`] plus the launch
        /// shape the host's plan gives (block size, shared memory).
        /// (Behind the `entry-points` feature, on by default: a user's crate built on
        /// [`crate::primitives`] turns it off so that its PTX holds its own kernels only.)
        #[cfg(all(target_arch = "nvptx64", feature = "entry-points"))]
        mod ptx_entry_points {
            use crate::exports::{axis, exact, multi_pass, single_pass, single_pass_wide};
            use crate::stages::*;
            use crate::axis::*;
            use crate::transform::{entry as transform_entry, one_pass, Dot, Moments, NanTotal, SumSq, Total, L1};
            // The table's type names for the 2-byte inputs (they shadow the unstable primitives).
            #[allow(unused_imports)]
            use crate::half::{Bf16 as bf16, F16 as f16};
            #[allow(unused_imports)]
            use crate::exact::*;
            use crate::{Max, Min, Sum};
            #[allow(unused_imports)]
            use crate::{Count, NanMax, NanMin, NanSum, Prod};
            use crate::argreduce::{self, ArgMax, ArgMin, NanArgMax, NanArgMin};
            use super::SINGLE_PASS_UNROLL;
            $( kernel_table!(@export $abi $mode $stem [$($t),*] [$($op),*] $blocks $module $func); )*
        }
    };

    (@const any) => { false };
    (@const const) => { true };
    (@kind f32) => { ElemKind::F32 };
    (@kind f64) => { ElemKind::F64 };
    (@kind i32) => { ElemKind::I32 };
    (@kind u32) => { ElemKind::U32 };
    (@kind i64) => { ElemKind::I64 };
    (@kind u64) => { ElemKind::U64 };
    (@kind f16) => { ElemKind::F16 };
    (@kind bf16) => { ElemKind::BF16 };
    (@blocks [$($b:literal),*]) => { [$($b),*] };

    // The emulator's dispatch.
    (@emu MultiPass any $id:ident $ops:tt $blocks:tt $module:ident $func:ident) => {
        Some(Body::MultiPass($module::$func::<T>))
    };
    (@emu MultiPass const $id:ident $ops:tt [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::MultiPass($module::$func::<T, $b>)),)*
            _ => None,
        }
    };
    (@emu SinglePass const $id:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        match $id.op {
            $(OpKind::$op => kernel_table!(@emu_sp $id $op $blocks $module $func),)*
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
    (@emu Axis const $id:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        match $id.op {
            $(OpKind::$op => kernel_table!(@emu_ax $id $op $blocks $module $func),)*
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
    (@emu Transform const $id:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        match $id.op {
            $(OpKind::$op => kernel_table!(@emu_tr $id $op $blocks $module $func),)*
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
    (@emu Item const $id:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        match $id.op {
            $(OpKind::$op => kernel_table!(@emu_it $id $op $blocks $module $func),)*
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
    (@emu_tr $id:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::Transform($module::$func::<T, $op, $b>)),)*
            _ => None,
        }
    };
    (@emu_it $id:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::Item($module::$func::<T, $op, $b>)),)*
            _ => None,
        }
    };
    (@emu Exact const $id:ident $ops:tt [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::Exact($module::$func::<T, $b, SINGLE_PASS_UNROLL>)),)*
            _ => None,
        }
    };
    (@emu ExactWords const $id:ident $ops:tt [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::ExactWords($module::$func::<T, $b, SINGLE_PASS_UNROLL>)),)*
            _ => None,
        }
    };
    (@emu ExactCombine any $id:ident $ops:tt $blocks:tt $module:ident $func:ident) => {
        Some(Body::ExactCombine($module::$func::<T>))
    };
    (@emu_ax $id:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::Axis($module::$func::<T, $op, $b>)),)*
            _ => None,
        }
    };
    (@emu SinglePassWide const $id:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        match $id.op {
            $(OpKind::$op => kernel_table!(@emu_spw $id $op $blocks $module $func),)*
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
    (@emu_spw $id:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::SinglePassWide($module::$func::<T, $op, $b, SINGLE_PASS_UNROLL>)),)*
            _ => None,
        }
    };
    (@emu_sp $id:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        match $id.block {
            $($b => Some(Body::SinglePass($module::$func::<T, $op, $b, SINGLE_PASS_UNROLL>)),)*
            _ => None,
        }
    };

    // The PTX entry points.
    (@export MultiPass any $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _ $t>](input: *const $t, n: usize, partials: *mut $t) {
                multi_pass($module::$func::<$t>, input, n, partials)
            }
        )* }
    };
    (@export MultiPass const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_lc $stem $t $blocks $module $func); )*
    };
    (@export_lc $stem:ident $t:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _b $b _ $t>](input: *const $t, n: usize, partials: *mut $t) {
                multi_pass($module::$func::<$t, $b>, input, n, partials)
            }
        )* }
    };
    (@export SinglePass const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_sp_t $stem $t $ops $blocks $module $func); )*
    };
    (@export_sp_t $stem:ident $t:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_sp $stem $t $op $blocks $module $func); )*
    };
    (@export Axis const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_ax_t $stem $t $ops $blocks $module $func); )*
    };
    (@export_ax_t $stem:ident $t:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_ax $stem $t $op $blocks $module $func); )*
    };
    (@export Exact const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_ex $stem $t $blocks $module $func); )*
    };
    (@export_ex $stem:ident $t:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _sum_b $b _ $t>](
                input: *const $t, n: usize, words: *mut i64, counter: *mut u32, out: *mut $t,
            ) {
                exact($module::$func::<$t, $b, SINGLE_PASS_UNROLL>, input, n, words, counter, out)
            }
        )* }
    };
    (@export ExactWords const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_exw $stem $t $blocks $module $func); )*
    };
    (@export_exw $stem:ident $t:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _sum_b $b _ $t>](
                input: *const $t, n: usize, words: *mut i64, counter: *mut u32, out: *mut i64,
            ) {
                crate::exact::words::words_entry(
                    $module::$func::<$t, $b, SINGLE_PASS_UNROLL>, input, n, words, counter, out,
                )
            }
        )* }
    };
    (@export ExactCombine any $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _sum_ $t>](
                gathered: *const i64, len: usize, out: *mut $t,
            ) {
                crate::exact::words::combine_entry($module::$func::<$t>, gathered, len, out)
            }
        )* }
    };
    (@export_ax $stem:ident $t:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _ $op:lower _b $b _ $t>](
                input: *const $t, n: usize, begin: *const u64, end: *const u64, out: *mut $t,
                out_len: usize, count: usize, len: usize, parts: usize, group: usize,
            ) {
                axis(
                    $module::$func::<$t, $op, $b>, input, n, begin, end, out, out_len,
                    count, len, parts, group,
                )
            }
        )* }
    };
    (@export Transform const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_tr_t $stem $t $ops $blocks $module $func); )*
    };
    (@export_tr_t $stem:ident $t:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_tr $stem $t $op $blocks $module $func); )*
    };
    (@export_tr $stem:ident $t:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _ $op:lower _b $b _ $t>](
                a: *const $t, b: *const $t, n: usize, partials: *mut f64, counter: *mut u32,
                out: *mut f64,
            ) {
                transform_entry($module::$func::<$t, $op, $b>, a, b, n, partials, counter, out)
            }
        )* }
    };
    (@export SinglePassWide const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_spw_t $stem $t $ops $blocks $module $func); )*
    };
    (@export_spw_t $stem:ident $t:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_spw $stem $t $op $blocks $module $func); )*
    };
    (@export_spw $stem:ident $t:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _ $op:lower _b $b _ $t>](
                input: *const $t, n: usize, partials: *mut <$t as crate::Element>::Wide,
                counter: *mut u32, out: *mut <$t as crate::Element>::Wide,
            ) {
                single_pass_wide(
                    $module::$func::<$t, $op, $b, SINGLE_PASS_UNROLL>, input, n, partials, counter, out,
                )
            }
        )* }
    };
    (@export Item const $stem:ident [$($t:ident),*] $ops:tt $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_it_t $stem $t $ops $blocks $module $func); )*
    };
    (@export_it_t $stem:ident $t:ident [$($op:ident),*] $blocks:tt $module:ident $func:ident) => {
        $( kernel_table!(@export_it $stem $t $op $blocks $module $func); )*
    };
    (@export_it $stem:ident $t:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _ $op:lower _b $b _ $t>](
                input: *const $t, n: usize, partials: *mut u32, counter: *mut u32, out: *mut u32,
            ) {
                // SAFETY: the entry point's contract is the item ABI's, this kernel's.
                unsafe { $module::$func::<$t, $op, $b>(input, n, partials, counter, out) }
            }
        )* }
    };
    (@export_sp $stem:ident $t:ident $op:ident [$($b:literal),*] $module:ident $func:ident) => {
        paste::paste! { $(
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn [<$stem _ $op:lower _b $b _ $t>](
                input: *const $t, n: usize, partials: *mut $t, counter: *mut u32, out: *mut $t,
            ) {
                single_pass($module::$func::<$t, $op, $b, SINGLE_PASS_UNROLL>, input, n, partials, counter, out)
            }
        )* }
    };
}

// family  symbol stem  ABI  block  types  operators  block sizes  => function
kernel_table! {
    S1 reduce_s1_interleaved_divergent MultiPass any [f32, i32] [Sum] [32, 64, 128, 256, 512, 1024]
        => s1_interleaved_divergent::reduce;
    S2 reduce_s2_interleaved_strided MultiPass any [f32, i32] [Sum] [32, 64, 128, 256, 512, 1024]
        => s2_interleaved_strided::reduce;
    S3 reduce_s3_sequential MultiPass any [f32, i32] [Sum] [32, 64, 128, 256, 512, 1024]
        => s3_sequential::reduce;
    S4 reduce_s4_first_add_during_load MultiPass any [f32, i32] [Sum] [32, 64, 128, 256, 512, 1024]
        => s4_first_add_during_load::reduce;
    S5 reduce_s5_unroll_last_warp MultiPass any [f32, i32] [Sum] [64, 128, 256, 512, 1024]
        => s5_unroll_last_warp::reduce;
    S6 reduce_s6_complete_unroll MultiPass const [f32, i32] [Sum] [64, 128, 256, 512, 1024]
        => s6_complete_unroll::reduce;
    S7 reduce_s7_grid_stride MultiPass const [f32, i32] [Sum] [64, 128, 256, 512, 1024]
        => s7_grid_stride::reduce;
    S8 reduce_s8 SinglePass const [f32, f64, i32, u32, i64, u64] [Sum, Min, Max, Prod, NanMin, NanMax, NanSum, Count] [256, 512, 1024]
        => s8_shuffle_vectorized::reduce;
    BrokenRacyLastWarp reduce_broken_racy_last_warp MultiPass any [f32, i32] [Sum] [64, 128, 256, 512, 1024]
        => broken::reduce_racy_last_warp;
    BrokenMissingBarrier reduce_broken_missing_barrier MultiPass any [f32, i32] [Sum] [32, 64, 128, 256, 512, 1024]
        => broken::reduce_missing_barrier;
    AxisRows reduce_rows Axis const [f32, f64, i32, u32, i64, u64] [Sum, Min, Max] [256]
        => segments::rows;
    AxisSegments reduce_segments Axis const [f32, f64, i32, u32, i64, u64] [Sum, Min, Max] [256]
        => segments::segments;
    AxisColumns reduce_cols Axis const [f32, f64, i32, u32, i64, u64] [Sum, Min, Max] [256]
        => columns::columns;
    Transform reduce_transform Transform const [f32, f64, f16, bf16] [SumSq, L1, Dot, Moments, Total, NanTotal] [256, 512, 1024]
        => one_pass::reduce;
    S8Wide reduce_s8_wide SinglePassWide const [i32, u32] [Sum] [256, 512, 1024]
        => s8_shuffle_vectorized::reduce_wide;
    ArgReduce reduce Item const [f32, f64, i32, u32, i64, u64, f16, bf16] [ArgMin, ArgMax, NanArgMin, NanArgMax] [256, 512]
        => argreduce::entry;
    Exact reduce_exact Exact const [f32, f64] [Sum] [256, 512]
        => kernel::sum;
    ExactFast reduce_exact_fast Exact const [f32, f64] [Sum] [256, 512]
        => kernel::sum_fast;
    ExactMerge reduce_exact_merge Exact const [f32, f64] [Sum] [256, 512]
        => kernel::sum_merge;
    ExactFastMerge reduce_exact_fast_merge Exact const [f32, f64] [Sum] [256, 512]
        => kernel::sum_fast_merge;
    AxisColumnsDeep reduce_cols_deep Axis const [f32, f64, i32, u32, i64, u64] [Sum, Min, Max] [256]
        => columns::columns_deep;
    ExactWords reduce_exact_words ExactWords const [f32, f64] [Sum] [256, 512]
        => words::sum_words;
    ExactCombine reduce_exact_combine ExactCombine any [f32, f64] [Sum] [32]
        => words::combine;
    S8Half reduce_s8_half SinglePassWide const [f16, bf16] [Sum, Min, Max, Prod, NanMin, NanMax, NanSum, Count] [256, 512, 1024]
        => s8_shuffle_vectorized::reduce_wide;
}

#[cfg(test)]
mod tests;
