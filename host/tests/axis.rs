//! Reductions along an axis and over segments, on the emulator, against the CPU reference of
//! `axis_checks` (which `tests/gpu.rs` holds the GPU to as well).

#[macro_use]
mod common;
mod axis_checks;

use axis_checks::*;
use reduce_host::plan::PolicySettings;
use reduce_host::*;

fn emu() -> Backend {
    Backend::open(BackendChoice::Emu).unwrap()
}

test_each! {
    rows_and_cols_f32 => every_shape::<f32>(&emu()),
    rows_and_cols_f64 => every_shape::<f64>(&emu()),
    rows_and_cols_i32 => every_shape::<i32>(&emu()),
    rows_and_cols_u32 => every_shape::<u32>(&emu()),
    rows_and_cols_i64 => every_shape::<i64>(&emu()),
    rows_and_cols_u64 => every_shape::<u64>(&emu()),
}

#[test]
fn split_shapes_one_huge_row_and_a_tall_matrix() {
    // Long enough for the policy to split them across blocks (a second, combining launch).
    let b = emu();
    let caps = b.caps();
    let p = AxisPolicy::default();
    assert!(
        p.rows(ElemType::F32, Op::Sum, 1, 1 << 16, caps)
            .unwrap()
            .steps
            .len()
            == 2
    );
    // A tall narrow matrix: one launch of many blocks by default (`col_once_max_vcols`), two
    // launches without it.
    let once = p.cols(ElemType::F32, Op::Sum, 1 << 14, 3, caps).unwrap();
    assert!(once.steps.len() == 1 && once.steps[0].grid > 1);
    let two = p.with_settings("col_once_max_vcols=0").unwrap();
    assert!(
        two.cols(ElemType::F32, Op::Sum, 1 << 14, 3, caps)
            .unwrap()
            .steps
            .len()
            == 2
    );
    for op in [Op::Sum, Op::Max] {
        check_matrix::<f32>(&b, op, 1, 1 << 16);
        check_matrix::<i64>(&b, op, 2, 40_000);
        check_matrix::<u32>(&b, op, 1 << 14, 3);
        check_matrix::<f64>(&b, op, 1 << 13, 6); // 16-byte vector columns, split over rows
        check_matrix_policy::<u32>(&b, op, 1 << 14, 3, &two);
        check_matrix_policy::<f64>(&b, op, 1 << 13, 6, &two);
    }
}

#[test]
fn segments_f32_f64() {
    segments_every_op::<f32>(&emu(), 20_000);
    segments_every_op::<f64>(&emu(), 20_000);
}
#[test]
fn segments_integers() {
    segments_every_op::<i32>(&emu(), 20_000);
    segments_every_op::<u32>(&emu(), 20_000);
    segments_every_op::<i64>(&emu(), 20_000);
    segments_every_op::<u64>(&emu(), 20_000);
}

#[test]
fn few_long_segments_are_split() {
    let b = emu();
    let segs = Segments::new(&b, &[0, 5, 69_999], &[65_000, 70_000, 70_000], 70_000).unwrap();
    assert!(segs.pieces() > 3, "the 69995-element segment is cut");
    check_segments::<f32>(
        &b,
        Op::Sum,
        70_000,
        &[0, 5, 69_999],
        &[65_000, 70_000, 70_000],
    );
}

#[test]
fn float_sums_of_random_values_are_within_the_bound() {
    let b = emu();
    let (rows, cols) = (9, 3001);
    let x: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 7919 % 1000) as f32).sin() * 1e3)
        .collect();
    let input = b.upload(&x).unwrap();
    let got = Reducer::new(&b)
        .reduce_rows(Op::Sum, &input, rows, cols)
        .unwrap();
    let got = b.download(&got, rows).unwrap();
    for i in 0..rows {
        let r = reference(Op::Sum, &x[i * cols..(i + 1) * cols]).unwrap();
        assert!(matches_reference(Op::Sum, got[i], &r, cols), "row {i}");
    }
}

#[test]
fn results_are_bit_identical_run_to_run() {
    let b = emu();
    let x: Vec<f32> = (0..64 * 1500).map(|i| (i as f32 * 0.37).cos()).collect();
    let input = b.upload(&x).unwrap();
    let mut r = Reducer::new(&b);
    let once = b
        .download(&r.reduce_cols(Op::Sum, &input, 1500, 64).unwrap(), 64)
        .unwrap();
    let twice = b
        .download(&r.reduce_cols(Op::Sum, &input, 1500, 64).unwrap(), 64)
        .unwrap();
    assert_eq!(
        once.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        twice.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn means() {
    let b = emu();
    let x: Vec<i64> = vec![i64::MAX, i64::MAX, 1, 3];
    let input = b.upload(&x).unwrap();
    let mut r = Reducer::new(&b);
    let m = r.mean_axis(AxisKind::Rows, &input, 2, 2).unwrap();
    assert_eq!(m, vec![i64::MAX as f64, 2.0]);
    let m = r.mean_axis(AxisKind::Cols, &input, 2, 2).unwrap();
    assert_eq!(
        m,
        vec![(i64::MAX as f64 + 1.0) / 2.0, (i64::MAX as f64 + 3.0) / 2.0]
    );
    let f = b.upload(&[1.0f32, 2.0, 4.0, 8.0]).unwrap();
    assert_eq!(
        r.mean_axis(AxisKind::Cols, &f, 2, 2).unwrap(),
        vec![2.5, 5.0]
    );
    let segs = Segments::new(&b, &[0, 1], &[4, 2], 4).unwrap();
    assert_eq!(
        r.mean_segments(&f, &segs, &[0, 1], &[4, 2]).unwrap(),
        vec![3.75, 2.0]
    );
    assert!(matches!(
        r.mean_axis(AxisKind::Rows, &f, 2, 0),
        Err(ReduceError::EmptyInput { .. })
    ));
}

#[test]
fn bad_shapes_and_offsets_are_typed_errors() {
    let b = emu();
    let other = emu();
    let x = b.upload(&[1.0f32; 12]).unwrap();
    let mut r = Reducer::new(&b);
    let bad = |e: Result<Buffer<f32>>| matches!(e, Err(ReduceError::OutOfBounds { .. }));
    assert!(
        bad(r.reduce_rows(Op::Sum, &x, 4, 4)),
        "more than the buffer holds"
    );
    assert!(
        bad(r.reduce_cols(Op::Sum, &x, usize::MAX, 3)),
        "rows * cols overflows"
    );
    assert!(
        matches!(
            r.reduce_rows(Op::Mean, &x, 3, 4),
            Err(ReduceError::InvalidArgument(_))
        ),
        "mean is not a T"
    );
    let mut small = b.zeroed::<f32>(2).unwrap();
    assert!(
        r.reduce_rows_into(Op::Sum, &x, 3, 4, &mut small).is_err(),
        "output too small"
    );
    let y = other.upload(&[1.0f32; 12]).unwrap();
    assert!(matches!(
        r.reduce_rows(Op::Sum, &y, 3, 4),
        Err(ReduceError::ForeignBuffer { .. })
    ));
    let mut foreign_out = other.zeroed::<f32>(3).unwrap();
    assert!(matches!(
        r.reduce_rows_into(Op::Sum, &x, 3, 4, &mut foreign_out),
        Err(ReduceError::ForeignBuffer { .. })
    ));
    assert!(Segments::new(&b, &[3], &[2], 12).is_err(), "begin > end");
    assert!(Segments::new(&b, &[0], &[13], 12).is_err(), "end > len");
    assert!(
        Segments::new(&b, &[0, 1], &[1], 12).is_err(),
        "lengths differ"
    );
    let segs = Segments::new(&b, &[0], &[12], 12).unwrap();
    let short = b.upload(&[1.0f32; 5]).unwrap();
    assert!(
        bad(r.reduce_segments(Op::Sum, &short, &segs)),
        "input shorter than the segments"
    );
    let foreign_segs = Segments::new(&other, &[0], &[12], 12).unwrap();
    assert!(r.reduce_segments(Op::Sum, &x, &foreign_segs).is_err());
    // And the good cases still work, with the sums right.
    let rows = r.reduce_rows(Op::Sum, &x, 3, 4).unwrap();
    assert_eq!(b.download(&rows, 3).unwrap(), vec![4.0; 3]);
    let s = r.reduce_segments(Op::Sum, &x, &segs).unwrap();
    assert_eq!(b.download(&s, 1).unwrap(), vec![12.0]);
    let csr = Segments::from_offsets(&b, &[0, 2, 2, 12], 12).unwrap();
    let s = r.reduce_segments(Op::Sum, &x, &csr).unwrap();
    assert_eq!(b.download(&s, 3).unwrap(), vec![2.0, 0.0, 10.0]);
}

#[test]
fn tuned_policies_reach_every_kernel_shape() {
    let b = emu();
    for p in policies() {
        for &(r, c) in POLICY_SHAPES {
            check_matrix_policy::<f32>(&b, Op::Sum, r, c, &p);
        }
        check_matrix_policy::<f64>(&b, Op::Max, 1003, 16, &p);
        check_matrix_policy::<f64>(&b, Op::Sum, 9, 600, &p);
        check_matrix_policy::<i32>(&b, Op::Min, 777, 20, &p);
    }
}

#[test]
fn two_launch_columns_give_the_reference() {
    let b = emu();
    for &(r, c) in COL_SHAPES {
        for extra in ["", "col_tile=3", "min_piece_rows=3,max_col_parts=33"] {
            check_two_launch_cols::<f32>(&b, Op::Sum, r, c, extra);
        }
        check_two_launch_cols::<f64>(&b, Op::Sum, r, c, "");
        check_two_launch_cols::<i32>(&b, Op::Max, r, c, "");
        check_two_launch_cols::<u64>(&b, Op::Min, r, c, "col_tile=3");
    }
}

#[test]
fn short_column_kernel_agrees_bit_for_bit() {
    let b = emu();
    for &(r, c) in SHORT_COLUMN_SHAPES {
        for op in [Op::Sum, Op::Min, Op::Max] {
            check_short_columns::<f32>(&b, op, r, c, "");
            check_short_columns::<f64>(&b, op, r, c, "");
            check_short_columns::<i32>(&b, op, r, c, "");
            check_short_columns::<u32>(&b, op, r, c, "");
            check_short_columns::<i64>(&b, op, r, c, "");
            check_short_columns::<u64>(&b, op, r, c, "");
        }
        check_short_columns::<f32>(&b, Op::Sum, r, c, "min_piece_rows=3");
        check_short_columns::<f64>(&b, Op::Max, r, c, "col_tile=200");
    }
}

#[test]
fn one_launch_columns_match_the_reference_and_the_two_launch_plan() {
    let b = emu();
    let mut compared = 0;
    for (r, c) in once_shapes() {
        for extra in [
            "",
            "col_tile=3",
            "min_piece_rows=3",
            "col_tile=8,min_piece_rows=7",
            "col_once_blocks_per_sm=1,min_piece_rows=3",
        ] {
            for op in [Op::Sum, Op::Min, Op::Max] {
                compared += check_once::<f32>(&b, op, r, c, extra) as usize;
            }
            compared += check_once::<f64>(&b, Op::Sum, r, c, extra) as usize;
        }
        for op in [Op::Sum, Op::Min, Op::Max] {
            check_once::<f64>(&b, op, r, c, "col_once_blocks_per_sm=1");
            check_once::<i32>(&b, op, r, c, "min_piece_rows=5");
            check_once::<u32>(&b, op, r, c, "");
            check_once::<i64>(&b, op, r, c, "col_tile=3");
            check_once::<u64>(&b, op, r, c, "min_piece_rows=2");
        }
    }
    assert!(compared > 100, "only {compared} bit-for-bit comparisons");
}

#[test]
fn narrower_finishing_tiles_give_the_reference() {
    let b = emu();
    for &(r, c) in POLICY_SHAPES.iter().chain(COL_SHAPES) {
        for t in [
            "finish_col_tile=1",
            "finish_col_tile=8",
            "finish_col_tile=32,col_tile=256",
        ] {
            let p = AxisPolicy::default().with_settings(t).unwrap();
            check_matrix_policy::<f32>(&b, Op::Sum, r, c, &p);
            check_matrix_policy::<i64>(&b, Op::Max, r, c, &p);
            check_matrix_policy::<u32>(&b, Op::Min, r, c, &p);
        }
    }
}

#[test]
fn row_unroll_depths_agree_bit_for_bit() {
    let b = emu();
    for &(r, c) in &[
        (1, 1),
        (3, 5003),
        (13, 4099),
        (2, 40_000),
        (5, 2053),
        (40, 300),
    ] {
        for extra in [
            "block_run=1",
            "block_run=64,min_piece=1000",
            "block_run=1,long_row_blocks_per_sm=1",
        ] {
            check_row_unroll_depths::<f32>(&b, Op::Sum, r, c, extra);
            check_row_unroll_depths::<f64>(&b, Op::Max, r, c, extra);
            check_row_unroll_depths::<i32>(&b, Op::Min, r, c, extra);
            check_row_unroll_depths::<u64>(&b, Op::Sum, r, c, extra);
        }
    }
}
