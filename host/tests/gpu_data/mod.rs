//! The GPU suite's tests of data layouts and sources: input streamed from host memory, rows,
//! columns and segments. Split from `gpu.rs`; each calls the checks the emulator suites share
//! (`host_stream/`, `axis_checks/`).

use crate::common::*;
use crate::{axis_checks, gpu, host_stream, Test};
use libtest_mimic::Failed;
use reduce_host::plan::PolicySettings;
use reduce_host::*;

/// This module's tests, in the order they run.
pub fn tests() -> Vec<(&'static str, Test)> {
    tests![
        streamed_host_input,
        axis_rows_cols_segments_every_op_and_type,
        axis_results_are_bit_identical,
        axis_tuned_policies_and_registered_host_input,
        axis_two_launch_columns,
        axis_one_launch_columns_and_finishing_tiles,
        axis_short_columns_agree,
    ]
}

/// The streamed host-input path: every op and type across chunk boundaries (small chunks), a
/// large input with the default policy from pageable and pinned memory (bit-equal to the chunked
/// device-resident reduction), determinism, and a foreign pinned buffer refused.
pub fn streamed_host_input() -> Result<(), Failed> {
    let b = gpu();
    let small = host_stream::small_chunks(1 << 12);
    host_stream::check_type::<f32>(&b, &small, 1)?;
    host_stream::check_type::<f64>(&b, &small, 2)?;
    host_stream::check_type::<i32>(&b, &small, 3)?;
    host_stream::check_type::<u64>(&b, &small, 4)?;
    let policy = StreamPolicy::default();
    for (n, offset) in [((1 << 24) + 3, 1), (1 << 26, 0), (100_000, 1)] {
        let d = data::<f32>(n + offset, 8);
        for op in [Op::Sum, Op::Max] {
            host_stream::check_streamed(&b, &policy, op, &d, offset)?;
        }
    }
    host_stream::check_deterministic(&b, &policy, (1 << 25) + 17)?;
    let mut h = HostReducer::new(&b);
    let ones = PinnedBuffer::from_slice(&b, &vec![1.0f32; 1 << 24])?;
    let (v, t) = h.reduce_host_timeline(Op::Sum, &ones)?;
    if v != Some((1 << 24) as f32) || t.spans.is_empty() || !ones.is_page_locked() {
        return Err(format!("pinned 2^24 ones: {v:?}, {} spans", t.spans.len()).into());
    }
    let other = Backend::Emulator(Emulator::default());
    let foreign = PinnedBuffer::from_slice(&other, &[1.0f32])?;
    if !matches!(h.sum_host(&foreign), Err(ReduceError::ForeignBuffer { .. })) {
        return Err("a pinned buffer of another backend was accepted".into());
    }
    Ok(())
}

/// The emulator's axis checks (`tests/axis.rs`) on the GPU, plus the shapes the policy splits
/// (few long rows, tall matrices, long segments) at sizes the emulator cannot reach.
pub fn axis_rows_cols_segments_every_op_and_type() -> Result<(), Failed> {
    let b = gpu();
    axis_checks::every_shape::<f32>(&b);
    axis_checks::every_shape::<f64>(&b);
    axis_checks::every_shape::<i32>(&b);
    axis_checks::every_shape::<u32>(&b);
    axis_checks::every_shape::<i64>(&b);
    axis_checks::every_shape::<u64>(&b);
    axis_checks::segments_every_op::<f32>(&b, 1 << 20);
    axis_checks::segments_every_op::<u64>(&b, 1 << 20);
    for (r, c) in [
        (16, 1 << 22),
        (1 << 20, 16),
        (1 << 22, 3),
        (3, 1 << 22),
        (4096, 4097),
    ] {
        axis_checks::check_matrix::<f32>(&b, Op::Sum, r, c);
        axis_checks::check_matrix::<i64>(&b, Op::Max, r, c);
    }
    axis_checks::check_segments::<f32>(
        &b,
        Op::Sum,
        1 << 24,
        &[0, 5, 1 << 23],
        &[1 << 24, 6, 1 << 24],
    );
    Ok(())
}

/// The same row and column sums twice give the same bits (no atomics, fixed order).
pub fn axis_results_are_bit_identical() -> Result<(), Failed> {
    let b = gpu();
    let (rows, cols) = (1 << 12, 1 << 12);
    let x: Vec<f32> = (0..rows * cols)
        .map(|i| ((i % 9973) as f32).sin())
        .collect();
    let input = b.upload(&x)?;
    let mut r = Reducer::new(&b);
    for axis in [AxisKind::Rows, AxisKind::Cols] {
        let run = |r: &mut Reducer| -> Result<Vec<u32>, Failed> {
            let out = match axis {
                AxisKind::Rows => r.reduce_rows(Op::Sum, &input, rows, cols)?,
                _ => r.reduce_cols(Op::Sum, &input, rows, cols)?,
            };
            Ok(b.download(&out, 1 << 12)?
                .iter()
                .map(|v| v.to_bits())
                .collect())
        };
        if run(&mut r)? != run(&mut r)? {
            return Err(format!("{axis:?}: two runs differ").into());
        }
    }
    Ok(())
}

/// The kernel shapes only non-default policies reach (narrow column tiles with and without the
/// shuffle fold, column splits finished in several passes, row splits in more waves), at the
/// emulator's shapes and at sizes only a GPU reaches; and pageable input page-locked in place.
pub fn axis_tuned_policies_and_registered_host_input() -> Result<(), Failed> {
    let b = gpu();
    for p in axis_checks::policies() {
        for &(r, c) in axis_checks::POLICY_SHAPES {
            axis_checks::check_matrix_policy::<f32>(&b, Op::Sum, r, c, &p);
        }
        for (r, c) in [(1 << 20, 16), (1 << 16, 1024), (16, 1 << 22), (1 << 22, 3)] {
            axis_checks::check_matrix_policy::<f32>(&b, Op::Sum, r, c, &p);
        }
        axis_checks::check_matrix_policy::<i64>(&b, Op::Max, 1 << 18, 16, &p);
    }
    host_stream::check_registered(&b, &host_stream::small_chunks(1 << 12))?;
    host_stream::check_registered(&b, &StreamPolicy::default())?;
    Ok(())
}

/// The two-launch column plan (the plain column kernel and its finishing passes) on the
/// awkward shapes and on the narrow and wide benchmark shapes, against the CPU reference.
pub fn axis_two_launch_columns() -> Result<(), Failed> {
    let b = gpu();
    for &(r, c) in axis_checks::COL_SHAPES {
        axis_checks::check_two_launch_cols::<f32>(&b, Op::Sum, r, c, "");
        axis_checks::check_two_launch_cols::<f64>(&b, Op::Max, r, c, "col_tile=3");
    }
    for (r, c) in [
        (1 << 20, 16),
        (1 << 12, 1 << 14),
        (16, 1 << 22),
        (1 << 18, 12),
    ] {
        axis_checks::check_two_launch_cols::<f32>(&b, Op::Sum, r, c, "");
    }
    Ok(())
}

/// The one-launch column kernel (`col_once_max_vcols`) on the emulator's shapes and on the
/// narrow benchmark shapes at full size: against the CPU reference, run twice (the ticket counter is
/// back at 0), and bit for bit against the two-launch plan with as many pieces; and finishing
/// passes with their own, narrower tiles (`finish_col_tile`); and the deeper block-per-row
/// kernel (`row_unroll=8`) bit for bit against the default one.
pub fn axis_one_launch_columns_and_finishing_tiles() -> Result<(), Failed> {
    let b = gpu();
    let mut compared = 0;
    for (r, c) in axis_checks::once_shapes() {
        for op in [Op::Sum, Op::Min, Op::Max] {
            compared += axis_checks::check_once::<f32>(&b, op, r, c, "") as usize;
            axis_checks::check_once::<f64>(&b, op, r, c, "col_tile=3");
            axis_checks::check_once::<i32>(&b, op, r, c, "min_piece_rows=3");
            axis_checks::check_once::<u64>(&b, op, r, c, "");
        }
    }
    for (r, c) in [
        (1 << 20, 16),
        (1 << 16, 1024),
        (1 << 22, 3),
        (1 << 18, 12),
        (1 << 20, 20),
    ] {
        for extra in ["", "col_once_blocks_per_sm=2", "min_piece_rows=1024"] {
            compared += axis_checks::check_once::<f32>(&b, Op::Sum, r, c, extra) as usize;
        }
        axis_checks::check_once::<i64>(&b, Op::Max, r, c, "");
    }
    if compared < 10 {
        return Err(
            format!("only {compared} bit-for-bit comparisons with the two-launch plan").into(),
        );
    }
    for (r, c) in [(4096, 16384), (3, 1 << 22), (1000, 8195), (16, 1 << 20)] {
        axis_checks::check_row_unroll_depths::<f32>(&b, Op::Sum, r, c, "");
        axis_checks::check_row_unroll_depths::<i64>(&b, Op::Max, r, c, "block_run=1");
    }
    for t in [
        "finish_col_tile=8",
        "finish_col_tile=32",
        "finish_col_tile=64",
    ] {
        let p = AxisPolicy::default().with_settings(t)?;
        for (r, c) in [
            (1 << 12, 1 << 12),
            (2048, 8192),
            (1 << 16, 1024),
            (1 << 20, 16),
        ] {
            axis_checks::check_matrix_policy::<f32>(&b, Op::Sum, r, c, &p);
        }
        axis_checks::check_matrix_policy::<i64>(&b, Op::Max, 1 << 14, 1000, &p);
    }
    Ok(())
}

/// The short-column kernel (`col_short_rows=16`, `wide_col_short_rows=16`):
/// on the emulator's awkward shapes in every op and type, and on wide matrices of 16 and fewer
/// rows (the short path) and a split tall one, each against the CPU reference and bit for bit
/// against the plain column kernel; and the one-launch kernel on one block per SM
/// (`col_once_blocks_per_sm=1`) bit for bit against the two-launch plan where both cut the
/// rows alike.
pub fn axis_short_columns_agree() -> Result<(), Failed> {
    let b = gpu();
    for &(r, c) in axis_checks::SHORT_COLUMN_SHAPES {
        for op in [Op::Sum, Op::Min, Op::Max] {
            axis_checks::check_short_columns::<f32>(&b, op, r, c, "");
            axis_checks::check_short_columns::<f64>(&b, op, r, c, "");
            axis_checks::check_short_columns::<i32>(&b, op, r, c, "");
            axis_checks::check_short_columns::<u32>(&b, op, r, c, "");
            axis_checks::check_short_columns::<i64>(&b, op, r, c, "");
            axis_checks::check_short_columns::<u64>(&b, op, r, c, "");
        }
        axis_checks::check_short_columns::<f32>(&b, Op::Sum, r, c, "min_piece_rows=3");
    }
    for (r, c) in [
        (16, 1 << 22),
        (7, 1 << 20),
        (17, 1 << 20),
        (1 << 20, 16),
        (1 << 16, 1024),
    ] {
        axis_checks::check_short_columns::<f32>(&b, Op::Sum, r, c, "");
        axis_checks::check_short_columns::<f64>(&b, Op::Max, r, c, "");
    }
    for (r, c) in [(1 << 20, 16), (1 << 18, 12), (3001, 4)] {
        axis_checks::check_once::<f32>(&b, Op::Sum, r, c, "col_once_blocks_per_sm=1");
        axis_checks::check_once::<i64>(&b, Op::Max, r, c, "col_once_blocks_per_sm=1");
    }
    Ok(())
}
