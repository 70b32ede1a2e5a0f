//! The kernel families: one variant per row of the table ([`super::TABLE`]), each naming the
//! kernel function its row exports.

/// A kernel family: one row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Stage 1.
    S1,
    /// Stage 2.
    S2,
    /// Stage 3.
    S3,
    /// Stage 4.
    S4,
    /// Stage 5.
    S5,
    /// Stage 6.
    S6,
    /// Stage 7.
    S7,
    /// Stage 8.
    S8,
    /// [`crate::stages::broken::reduce_racy_last_warp`].
    BrokenRacyLastWarp,
    /// [`crate::stages::broken::reduce_missing_barrier`].
    BrokenMissingBarrier,
    /// [`crate::axis::segments::rows`]: one result per row.
    AxisRows,
    /// [`crate::axis::segments::segments`]: one result per `[begin[i], end[i])`.
    AxisSegments,
    /// [`crate::axis::columns::columns`]: one result per column.
    AxisColumns,
    /// [`crate::transform::one_pass::reduce`]: transform-reduce in one pass (norms, dot,
    /// moments).
    Transform,
    /// [`crate::stages::s8_shuffle_vectorized::reduce_wide`]: stage 8 summing 32-bit integers
    /// into a 64-bit result.
    S8Wide,
    /// Argmin / argmax on the device primitives ([`crate::argreduce`]).
    ArgReduce,
    /// [`crate::exact::kernel::sum`]: the correctly rounded sum.
    Exact,
    /// [`crate::exact::kernel::sum_fast`]: the correctly rounded sum with the one-addition fast
    /// path.
    ExactFast,
    /// [`crate::exact::kernel::sum_merge`]: the correctly rounded sum with the block merge.
    ExactMerge,
    /// [`crate::exact::kernel::sum_fast_merge`]: the fast path and the block merge.
    ExactFastMerge,
    /// [`crate::exact::lean::sum_lean`]: the correctly rounded sum, publish without per-thread
    /// fences.
    ExactLean,
    /// [`crate::exact::lean::sum_fast_lean`]: the fast path and the lean publish.
    ExactFastLean,
    /// [`crate::exact::lean::sum_lean_pipe`]: the lean publish with the rolling loads (the next
    /// tile's vector loaded as soon as the current one is read).
    ExactLeanPipe,
    /// [`crate::exact::lean::sum_fast_lean_pipe`]: the fast path, the lean publish, the rolling
    /// loads.
    ExactFastLeanPipe,
    /// [`crate::axis::columns::columns_deep`]: one result per column, 8 loads in flight.
    AxisColumnsDeep,
    /// [`crate::exact::words::sum_words`]: the exact sum's words, unrounded (multi-GPU).
    ExactWords,
    /// [`crate::exact::words::combine`]: R ranks' exact words added and rounded once.
    ExactCombine,
    /// [`crate::stages::s8_shuffle_vectorized::reduce_wide`] for `f16` / `bf16`: every stage-8
    /// operator, each half widened exactly to `f32` and combined there (an `f32` result).
    S8Half,
    /// [`crate::argreduce::entry_u8`]: argmin / argmax with 8 loads in flight (a candidate,
    /// `reduce arg --policy unroll=8`).
    ArgReduceU8,
    /// [`crate::argreduce::entry_lean`]: argmin / argmax, the lane found in the loop (a
    /// candidate, `--policy lane=loop`).
    ArgReduceLean,
    /// [`crate::argreduce::entry_lean8`]: both candidates' changes (`--policy unroll=8,lane=loop`).
    ArgReduceLean8,
    /// [`crate::axis::columns_once::columns_once`]: one result per column in one launch (the
    /// last block finishes).
    AxisColumnsOnce,
    /// [`crate::axis::segments::rows_deep`]: one result per row, 8 loads in flight per lane.
    AxisRowsDeep,
    /// [`crate::axis::columns_short::columns_vst`]: the column kernel with 16-byte result
    /// stores (a candidate, `col_vec_store=1`).
    AxisColumnsVst,
    /// [`crate::axis::columns_short::columns_short16`]: 16-byte stores and items of at most 16
    /// rows loaded at once (a candidate, `col_short_rows=16`).
    AxisColumnsShort16,
    /// [`crate::axis::columns_flat::columns_flat`]: a narrow matrix's columns in one launch,
    /// read as one flat run of 16-byte vectors (`col_once_flat=1`).
    AxisColumnsFlat,
    /// [`crate::axis::columns_flat::columns_flat_deep`]: the flat column kernel with 8 loads in
    /// flight per thread (`col_flat_unroll=8`).
    AxisColumnsFlatDeep,
    /// [`crate::exact::lean::sum_lean_async`]: the lean publish with the async loop (three
    /// tiles per thread in flight as `cp.async` copies into shared memory).
    ExactLeanAsync,
    /// [`crate::exact::lean::sum_fast_lean_async`]: the fast path, the lean publish, the async
    /// loop.
    ExactFastLeanAsync,
    /// [`crate::exact::probe::sum_probe`]: the default plain exact kernel with per-block phase
    /// stamps (a diagnostic).
    ExactProbe,
    /// [`crate::exact::probe::sum_fast_probe`]: the fast-path kernel with the stamps.
    ExactFastProbe,
    /// [`crate::exact::warp_finish::sum_warp`]: the lean plain kernel whose block finish is
    /// warp 0's alone (no shared atomics, one block barrier).
    ExactWarp,
    /// [`crate::exact::warp_finish::sum_fast_warp`]: the fast path with the warp finish.
    ExactFastWarp,
    /// [`crate::exact::warp_finish::sum_warp_probe`]: [`Family::ExactWarp`] with the probe's
    /// stamps.
    ExactWarpProbe,
    /// [`crate::exact::warp_finish::sum_fast_warp_probe`]: [`Family::ExactFastWarp`] with the
    /// probe's stamps.
    ExactFastWarpProbe,
    /// [`crate::exact::int_finish::sum_int`]: the lean plain kernel whose warps' expansions are
    /// reduced as integers in a window (no float merges, no shared atomics).
    ExactInt,
    /// [`crate::exact::int_finish::sum_fast_int`]: the fast path with the integer finish.
    ExactFastInt,
    /// [`crate::exact::int_finish::sum_int_probe`]: [`Family::ExactInt`] with the probe's stamps.
    ExactIntProbe,
    /// [`crate::exact::int_finish::sum_fast_int_probe`]: [`Family::ExactFastInt`] with the
    /// probe's stamps.
    ExactFastIntProbe,
    /// [`crate::exact::warm::sum_warm`]: the lean plain kernel whose non-last blocks run the
    /// rounding once (its code warm for the last block).
    ExactWarm,
    /// [`crate::exact::warm::sum_fast_warm`]: the fast path with the warm rounding.
    ExactFastWarm,
    /// [`crate::exact::warm::sum_warm_probe`]: [`Family::ExactWarm`] with the probe's stamps.
    ExactWarmProbe,
    /// [`crate::exact::warm::sum_fast_warm_probe`]: [`Family::ExactFastWarm`] with the probe's
    /// stamps.
    ExactFastWarmProbe,
    /// [`crate::transform::one_pass::reduce_shifted`]: the rolling-load transform kernel folding
    /// about one shift for the whole grid, its trees adding sums (the `f16`/`bf16` moments:
    /// [`crate::transform::grid_shift`]).
    TransformShifted,
}
