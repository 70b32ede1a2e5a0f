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
    /// [`crate::exact::lean::sum_lean`]: the correctly rounded sum, publish without per-thread
    /// fences.
    ExactLean,
    /// [`crate::exact::lean::sum_fast_lean`]: the fast path and the lean publish.
    ExactFastLean,
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
    /// [`crate::axis::columns_short::columns_short16`]: the column kernel with 16-byte result
    /// stores and items of at most 16 rows loaded at once (unsplit wide plans,
    /// `wide_col_short_rows=16`).
    AxisColumnsShort16,
    /// [`crate::axis::columns_flat::columns_flat_deep`]: a narrow matrix's columns in one
    /// launch, read as one flat run of 16-byte vectors, 8 loads in flight per thread
    /// (`col_once_flat=1`).
    AxisColumnsFlatDeep,
    /// [`crate::transform::one_pass::reduce_shifted`]: the rolling-load transform kernel folding
    /// about one shift for the whole grid, its trees adding sums (the `f16`/`bf16` moments:
    /// [`crate::transform::grid_shift`]).
    TransformShifted,
}
