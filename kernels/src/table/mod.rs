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
//! * [`emulated`], the emulator's dispatch: the row's Rust function as a [`Body`], which
//!   [`Body::call`] runs from the launch's argument words (the GPU's `kernelParams`),
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
use crate::Element;

pub use crate::primitives::tiles::SINGLE_PASS_UNROLL;

#[cfg(not(target_arch = "nvptx64"))]
mod body;
mod family;
mod identity;

#[cfg(not(target_arch = "nvptx64"))]
pub use body::*;
pub use identity::*;

// The macro that turns the rows below into the table, the symbols, the PTX entry points and the
// emulator's dispatch.
#[macro_use]
mod macros;

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
    Transform reduce_transform_r64 Transform const [f32, f64, f16, bf16] [SumSq, L1, Dot, Moments, Total, NanTotal] [256, 512, 1024]
        => one_pass::reduce;
    S8Wide reduce_s8_wide SinglePassWide const [i32, u32] [Sum] [256, 512, 1024]
        => s8_shuffle_vectorized::reduce_wide;
    ArgReduce reduce Item const [f32, f64, i32, u32, i64, u64, f16, bf16] [ArgMin, ArgMax, NanArgMin, NanArgMax] [256, 512]
        => argreduce::entry;
    ExactLean reduce_exact_lean Exact const [f32, f64] [Sum] [256, 512]
        => lean::sum_lean;
    ExactFastLean reduce_exact_fast_lean Exact const [f32, f64] [Sum] [256, 512]
        => lean::sum_fast_lean;
    ExactWords reduce_exact_words ExactWords const [f32, f64] [Sum] [256, 512]
        => words::sum_words;
    ExactCombine reduce_exact_combine ExactCombine any [f32, f64] [Sum] [32]
        => words::combine;
    S8Half reduce_s8_half SinglePassWide const [f16, bf16] [Sum, Min, Max, Prod, NanMin, NanMax, NanSum, Count] [256, 512, 1024]
        => s8_shuffle_vectorized::reduce_wide;
    ArgReduceU8 reduce_u8 Item const [f32, f64] [ArgMin, ArgMax, NanArgMin, NanArgMax] [256, 512]
        => argreduce::entry_u8;
    ArgReduceLean reduce_lean Item const [f32, f64] [ArgMin, ArgMax, NanArgMin, NanArgMax] [256, 512]
        => argreduce::entry_lean;
    ArgReduceLean8 reduce_lean8 Item const [f32, f64] [ArgMin, ArgMax, NanArgMin, NanArgMax] [256, 512]
        => argreduce::entry_lean8;
    AxisColumnsOnce reduce_cols_once AxisTicket const [f32, f64, i32, u32, i64, u64] [Sum, Min, Max] [256]
        => columns_once::columns_once;
    AxisRowsDeep reduce_rows_deep Axis const [f32, f64, i32, u32, i64, u64] [Sum, Min, Max] [256]
        => segments::rows_deep;
    AxisColumnsShort16 reduce_cols_short16 Axis const [f32, f64, i32, u32, i64, u64] [Sum, Min, Max] [256]
        => columns_short::columns_short16;
    AxisColumnsFlatDeep reduce_cols_flat_deep AxisTicket const [f32, f64, i32, u32, i64, u64] [Sum, Min, Max] [512]
        => columns_flat::columns_flat_deep;
    TransformShifted reduce_transform_shift_r80 Transform const [f16, bf16] [Moments] [256]
        => one_pass::reduce_shifted;
}

#[cfg(test)]
mod tests;
