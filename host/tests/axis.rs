//! Reductions along an axis and over segments, on the emulator, against a CPU reference written
//! independently of the kernels (per-run slices through `reduce_host::reference`, identities
//! spelled out by hand).

use reduce_host::*;

fn emu() -> Backend {
    Backend::open(BackendChoice::Emu).unwrap()
}

/// Deterministic data: small integers (exact float sums), some negative, for every type.
fn data<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = (x % 201) as f64
                - if T::TYPE.is_float() || T::TYPE.name().starts_with('i') {
                    100.0
                } else {
                    0.0
                };
            T::from_f64(v)
        })
        .collect()
}

/// What an empty run gives: 0 for a sum; for integers the type's largest value (min) or smallest
/// (max), as CUB; for floats NaN, "no number" (the identity of IEEE minNum/maxNum).
fn identity<T: Scalar>(op: Op) -> T {
    match op {
        _ if op != Op::Sum && T::TYPE.is_float() => T::from_f64(f64::NAN),
        Op::Min => T::from_f64(f64::INFINITY), // integers: `as` saturates to MAX
        Op::Max => T::from_f64(f64::NEG_INFINITY),
        _ => T::from_f64(0.0),
    }
}

/// Equal, or both NaN.
fn same<T: Scalar>(a: T, b: T) -> bool {
    a == b || (a.to_f64().is_nan() && b.to_f64().is_nan())
}

fn expect<T: Scalar>(op: Op, run: &[T]) -> T {
    match reference(op, run) {
        Some(r) if !run.is_empty() => r.value,
        _ => identity(op),
    }
}

fn check_matrix<T: Scalar>(b: &Backend, op: Op, rows: usize, cols: usize) {
    let x = data::<T>(rows * cols, (rows * 31 + cols) as u64);
    let input = b.upload(&x).unwrap();
    let mut r = Reducer::new(b);
    let got = r.reduce_rows(op, &input, rows, cols).unwrap();
    let got = b.download(&got, rows).unwrap();
    for i in 0..rows {
        let want = expect(op, &x[i * cols..(i + 1) * cols]);
        assert!(
            same(got[i], want),
            "{op} {} row {i} of {rows}x{cols}: {} vs {want}",
            T::TYPE,
            got[i]
        );
    }
    let got = r.reduce_cols(op, &input, rows, cols).unwrap();
    let got = b.download(&got, cols).unwrap();
    for c in 0..cols {
        let col: Vec<T> = (0..rows).map(|i| x[i * cols + c]).collect();
        let want = expect(op, &col);
        assert!(
            same(got[c], want),
            "{op} {} col {c} of {rows}x{cols}",
            T::TYPE
        );
    }
}

const SHAPES: &[(usize, usize)] = &[
    (0, 7),
    (7, 0),
    (0, 0),
    (1, 1),
    (1, 1000),
    (1000, 1),
    (13, 17),
    (97, 5),
    (3, 31),
    (37, 300),
    (5, 2053),
];

fn every_shape<T: Scalar>() {
    let b = emu();
    for op in [Op::Sum, Op::Min, Op::Max] {
        for &(r, c) in SHAPES {
            check_matrix::<T>(&b, op, r, c);
        }
    }
}

#[test]
fn rows_and_cols_f32() {
    every_shape::<f32>()
}
#[test]
fn rows_and_cols_f64() {
    every_shape::<f64>()
}
#[test]
fn rows_and_cols_i32() {
    every_shape::<i32>()
}
#[test]
fn rows_and_cols_u32() {
    every_shape::<u32>()
}
#[test]
fn rows_and_cols_i64() {
    every_shape::<i64>()
}
#[test]
fn rows_and_cols_u64() {
    every_shape::<u64>()
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
    assert!(
        p.cols(ElemType::F32, Op::Sum, 1 << 14, 3, caps)
            .unwrap()
            .steps
            .len()
            == 2
    );
    for op in [Op::Sum, Op::Max] {
        check_matrix::<f32>(&b, op, 1, 1 << 16);
        check_matrix::<i64>(&b, op, 2, 40_000);
        check_matrix::<u32>(&b, op, 1 << 14, 3);
    }
}

fn check_segments<T: Scalar>(b: &Backend, op: Op, n: usize, begin: &[u64], end: &[u64]) {
    let x = data::<T>(n, n as u64 + 5);
    let input = b.upload(&x).unwrap();
    let segs = Segments::new(b, begin, end, n).unwrap();
    let mut r = Reducer::new(b);
    let got = r.reduce_segments(op, &input, &segs).unwrap();
    let got = b.download(&got, begin.len()).unwrap();
    for i in 0..begin.len() {
        let want = expect(op, &x[begin[i] as usize..end[i] as usize]);
        assert!(
            same(got[i], want),
            "{op} {} segment {i}: {} vs {want}",
            T::TYPE,
            got[i]
        );
    }
}

fn ragged(n: usize) -> (Vec<u64>, Vec<u64>) {
    // Lengths 0, 1, 2, 0, 33, 300, 0, 7, … cycling, then the rest of the input; plus one segment
    // overlapping others and one out of order.
    let lens = [0u64, 1, 2, 0, 33, 300, 0, 7, 1000, 31, 32];
    let (mut begin, mut end, mut at) = (vec![], vec![], 0u64);
    for l in lens.iter().cycle() {
        if at + l > n as u64 {
            break;
        }
        begin.push(at);
        end.push(at + l);
        at += l;
    }
    begin.push(at);
    end.push(n as u64);
    begin.push(3);
    end.push(n as u64 / 2);
    begin.push(0);
    end.push(0);
    (begin, end)
}

fn segments_every_op<T: Scalar>() {
    let b = emu();
    let (begin, end) = ragged(20_000);
    for op in [Op::Sum, Op::Min, Op::Max] {
        check_segments::<T>(&b, op, 20_000, &begin, &end);
        check_segments::<T>(&b, op, 10, &[], &[]);
        check_segments::<T>(&b, op, 0, &[0, 0], &[0, 0]);
    }
}

#[test]
fn segments_f32_f64() {
    segments_every_op::<f32>();
    segments_every_op::<f64>();
}
#[test]
fn segments_integers() {
    segments_every_op::<i32>();
    segments_every_op::<u32>();
    segments_every_op::<i64>();
    segments_every_op::<u64>();
}

#[test]
fn few_long_segments_are_split() {
    let b = emu();
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
    let got = Reducer::new(&b).sum_rows(&input, rows, cols).unwrap();
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
        .download(&r.sum_cols(&input, 1500, 64).unwrap(), 64)
        .unwrap();
    let twice = b
        .download(&r.sum_cols(&input, 1500, 64).unwrap(), 64)
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
    let bad = |e: Result<Buffer<f32>>| matches!(e, Err(ReduceError::InvalidArgument(_)));
    assert!(bad(r.sum_rows(&x, 4, 4)), "more than the buffer holds");
    assert!(bad(r.sum_cols(&x, usize::MAX, 3)), "rows * cols overflows");
    assert!(bad(r.reduce_rows(Op::Mean, &x, 3, 4)), "mean is not a T");
    let mut small = b.zeroed::<f32>(2).unwrap();
    assert!(
        r.reduce_rows_into(Op::Sum, &x, 3, 4, &mut small).is_err(),
        "output too small"
    );
    let y = other.upload(&[1.0f32; 12]).unwrap();
    assert!(matches!(
        r.sum_rows(&y, 3, 4),
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
    let rows = r.sum_rows(&x, 3, 4).unwrap();
    assert_eq!(b.download(&rows, 3).unwrap(), vec![4.0; 3]);
    let s = r.reduce_segments(Op::Sum, &x, &segs).unwrap();
    assert_eq!(b.download(&s, 1).unwrap(), vec![12.0]);
    let csr = Segments::from_offsets(&b, &[0, 2, 2, 12], 12).unwrap();
    let s = r.reduce_segments(Op::Sum, &x, &csr).unwrap();
    assert_eq!(b.download(&s, 3).unwrap(), vec![2.0, 0.0, 10.0]);
}
