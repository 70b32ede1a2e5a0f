//! Rows, columns and segments: `reduce_rows`/`reduce_cols` (and `_into`),
//! `mean_axis`, `Segments::new`/`from_offsets`, `reduce_segments` (and `_into`),
//! `mean_segments` — shapes, offsets and output buffers that do not fit included. The data are
//! small integers and special values, so every sum is exact and results compare exactly.

use super::*;

/// What an empty row, column or segment gives: the op's identity (as CUB).
fn identity<T: Scalar>(op: Op) -> T {
    match op {
        Op::Min => T::from_f64(f64::INFINITY),
        Op::Max => T::from_f64(f64::NEG_INFINITY),
        _ => T::default(),
    }
}

fn expect_run<T: Scalar>(op: Op, run: &[T]) -> T {
    match reference(op, run) {
        Some(r) if !run.is_empty() => r.value,
        _ => identity(op),
    }
}

/// The exact mean of a run: `i128` for integers, an exact `f64` sum for these floats.
fn mean_of<T: Scalar>(run: &[T]) -> f64 {
    reference_mean(run).unwrap_or(f64::NAN)
}

const AXIS_TYPES: [ElemType; 4] = [ElemType::F32, ElemType::F64, ElemType::I32, ElemType::U64];

#[derive(Clone, Debug)]
pub struct MatrixCase {
    ty: ElemType,
    op: Op,
    rows: usize,
    cols: usize,
    short: usize,
    out_delta: i8,
    into: bool,
    data: Data,
}

/// Rows and columns of a matrix (sometimes with fewer elements than the shape needs, or an output
/// buffer too small), every op (those the axis kernels do not compute are typed errors).
pub fn matrix_ops(b: &Backend, cases: u32) -> Result<Ran, String> {
    let dim = |max: usize| {
        prop_oneof![
            1 => Just(0usize),
            2 => 1usize..8,
            2 => prop::sample::select(vec![31usize, 32, 33, 255, 256, 257, 511, 513]),
            1 => 0..max,
        ]
    };
    let strategy = (
        elem_type(&AXIS_TYPES),
        prop_oneof![
            4 => prop::sample::select(vec![Op::Sum, Op::Min, Op::Max]),
            1 => prop::sample::select(Op::REDUCE.to_vec()),
        ],
        dim(300),
        dim(1200),
        prop_oneof![8 => Just(0usize), 1 => 1usize..3],
        prop_oneof![6 => Just(0i8), 1 => -2i8..=2],
        any::<bool>(),
        data_of(Just(0usize).boxed()),
    )
        .prop_filter("at most 40,000 elements", |(_, _, r, c, ..)| {
            r * c <= 40_000
        })
        .prop_map(fields!(MatrixCase: ty, op, rows, cols, short, out_delta, into, data));
    run_typed!("matrix_ops", cases, strategy, matrix_check(b))
}

fn matrix_check<T: Scalar>(b: &Backend, c: &MatrixCase) -> Check {
    let mut r = Reducer::new(b);
    let n = c.rows * c.cols;
    let len = n.saturating_sub(c.short);
    let x: Vec<T> = Data {
        len,
        ..c.data.clone()
    }
    .exact_values();
    let input = b.upload(&x).map_err(|e| e.to_string())?;
    let short = len < n;
    for axis in [AxisKind::Rows, AxisKind::Cols] {
        let results = if axis == AxisKind::Rows {
            c.rows
        } else {
            c.cols
        };
        let out_len = (results as isize + c.out_delta as isize).max(0) as usize;
        let got = match (c.into, axis) {
            (true, _) => {
                let mut out = b.zeroed::<T>(out_len).map_err(|e| e.to_string())?;
                let done = if axis == AxisKind::Rows {
                    r.reduce_rows_into(c.op, &input, c.rows, c.cols, &mut out)
                } else {
                    r.reduce_cols_into(c.op, &input, c.rows, c.cols, &mut out)
                };
                done.map(|()| out)
            }
            (false, AxisKind::Rows) => r.reduce_rows(c.op, &input, c.rows, c.cols),
            (false, _) => r.reduce_cols(c.op, &input, c.rows, c.cols),
        };
        if !matches!(c.op, Op::Sum | Op::Min | Op::Max) {
            expect_err(&got, &ReduceError::InvalidArgument(String::new()))?;
            continue;
        }
        if short || (c.into && out_len < results) {
            expect_bounds(&got)?;
            continue;
        }
        let got = got.map_err(|e| format!("{axis:?}: {e}"))?;
        let got = b.download(&got, results).map_err(|e| e.to_string())?;
        for (k, g) in got.iter().enumerate() {
            let run: Vec<T> = if axis == AxisKind::Rows {
                x[k * c.cols..(k + 1) * c.cols].to_vec()
            } else {
                (0..c.rows).map(|i| x[i * c.cols + k]).collect()
            };
            let want = expect_run(c.op, &run);
            if !same(*g, want) {
                return Err(format!("{axis:?} {k}: {g}, want {want}"));
            }
        }
    }
    // The means, on the host.
    for axis in [AxisKind::Rows, AxisKind::Cols] {
        let got = r.mean_axis(axis, &input, c.rows, c.cols);
        let (results, run_len) = if axis == AxisKind::Rows {
            (c.rows, c.cols)
        } else {
            (c.cols, c.rows)
        };
        if short {
            expect_bounds(&got)?;
            continue;
        }
        if run_len == 0 && results > 0 {
            expect_err(&got, &ReduceError::EmptyInput { op: Op::Mean })?;
            continue;
        }
        let got = got.map_err(|e| format!("mean {axis:?}: {e}"))?;
        for (k, g) in got.iter().enumerate() {
            let run: Vec<T> = if axis == AxisKind::Rows {
                x[k * c.cols..(k + 1) * c.cols].to_vec()
            } else {
                (0..c.rows).map(|i| x[i * c.cols + k]).collect()
            };
            let want = mean_of(&run);
            if !(g == &want || (g.is_nan() && want.is_nan())) {
                return Err(format!("mean {axis:?} {k}: {g}, want {want}"));
            }
        }
    }
    Ok(())
}

#[derive(Clone, Debug)]
pub struct SegmentCase {
    ty: ElemType,
    op: Op,
    csr: bool,
    bounds: Vec<(u16, u16)>,
    input_len: usize,
    shorter_input: usize,
    piece: usize,
    bad_host: Option<(usize, u64)>,
    data: Data,
}

/// Segments from pairs of offsets (any order, some past the input) or from CSR offsets; their
/// sums, minima, maxima and means; host offsets for `mean_segments` that are not the segments'
/// (the reported case: past the data); an input shorter than the segments.
pub fn segment_ops(b: &Backend, cases: u32) -> Result<Ran, String> {
    let strategy = (
        elem_type(&AXIS_TYPES),
        prop_oneof![
            8 => prop::sample::select(vec![Op::Sum, Op::Min, Op::Max]),
            1 => Just(Op::Prod),
        ],
        any::<bool>(),
        // In order (begin ≤ end), but for one pair now and then.
        (
            prop::collection::vec((0u16..1100, 0u16..1100), 0..24),
            prop_oneof![8 => Just(None), 1 => any::<usize>().prop_map(Some)],
        )
            .prop_map(|(pairs, swapped)| {
                let mut pairs: Vec<(u16, u16)> =
                    pairs.iter().map(|&(a, e)| (a.min(e), a.max(e))).collect();
                if let Some(i) = swapped.filter(|_| !pairs.is_empty()) {
                    let k = i % pairs.len();
                    pairs[k] = (pairs[k].1, pairs[k].0);
                }
                pairs
            }),
        // Mostly long enough for every segment, sometimes not.
        prop_oneof![12 => Just(1100usize), 1 => Just(1000), 1 => 0usize..1100],
        prop_oneof![8 => Just(0usize), 1 => 1usize..50],
        prop_oneof![Just(1usize << 14), Just(1), 2usize..300],
        prop_oneof![6 => Just(None), 1 => (any::<usize>(), 1u64..2000).prop_map(Some)],
        data_of(Just(0usize).boxed()),
    )
        .prop_map(fields!(
            SegmentCase: ty, op, csr, bounds, input_len, shorter_input, piece, bad_host, data
        ));
    run_typed!("segment_ops", cases, strategy, segment_check(b))
}

fn segment_check<T: Scalar>(b: &Backend, c: &SegmentCase) -> Check {
    let mut r = Reducer::new(b);
    let (begin, end): (Vec<u64>, Vec<u64>) = if c.csr {
        let mut offsets: Vec<u64> = c.bounds.iter().map(|&(a, _)| a as u64).collect();
        offsets.sort_unstable();
        // Sometimes out of order: the first two swapped.
        if c.bounds.first().is_some_and(|&(_, k)| k % 7 == 0) && offsets.len() > 1 {
            offsets.swap(0, 1);
        }
        let made = Segments::from_offsets(b, &offsets, c.input_len);
        let monotone = offsets.windows(2).all(|w| w[0] <= w[1]);
        let inside = offsets.last().is_none_or(|&l| l <= c.input_len as u64);
        if !(monotone && inside) {
            return expect_bounds(&made);
        }
        let n = offsets.len().saturating_sub(1);
        (
            offsets[..n].to_vec(),
            offsets[offsets.len().min(1)..].to_vec(),
        )
    } else {
        c.bounds.iter().map(|&(a, e)| (a as u64, e as u64)).unzip()
    };
    let valid = begin
        .iter()
        .zip(&end)
        .all(|(&s, &e)| s <= e && e <= c.input_len as u64);
    let made = Segments::with_piece(b, &begin, &end, c.input_len, c.piece);
    if !valid {
        return expect_bounds(&made);
    }
    let segments = made.map_err(|e| e.to_string())?;
    let x: Vec<T> = Data {
        len: c.input_len.saturating_sub(c.shorter_input),
        ..c.data.clone()
    }
    .exact_values();
    let input = b.upload(&x).map_err(|e| e.to_string())?;
    let short = x.len() < segments.max_end();
    let got = r.reduce_segments(c.op, &input, &segments);
    if c.op == Op::Prod {
        expect_err(&got, &ReduceError::InvalidArgument(String::new()))?;
    } else if short {
        expect_bounds(&got)?;
    } else {
        let got = got.map_err(|e| e.to_string())?;
        let got = b.download(&got, begin.len()).map_err(|e| e.to_string())?;
        for (i, g) in got.iter().enumerate() {
            let want = expect_run(c.op, &x[begin[i] as usize..end[i] as usize]);
            if !same(*g, want) {
                return Err(format!(
                    "segment {i} {:?}: {g}, want {want}",
                    begin[i]..end[i]
                ));
            }
        }
    }
    // The means, given host offsets that may not be the segments'.
    let (mut hb, mut he) = (begin.clone(), end.clone());
    let mut foreign = false;
    if let Some((at, v)) = c.bad_host {
        if !hb.is_empty() {
            let i = at % hb.len();
            let side = if at % 2 == 0 { &mut hb } else { &mut he };
            foreign = side[i] != v;
            side[i] = v;
        }
    }
    let got = r.mean_segments(&input, &segments, &hb, &he);
    if foreign || short {
        return expect_bounds(&got);
    }
    if begin.iter().zip(&end).any(|(s, e)| s >= e) {
        return expect_err(&got, &ReduceError::EmptyInput { op: Op::Mean });
    }
    let got = got.map_err(|e| e.to_string())?;
    for (i, g) in got.iter().enumerate() {
        let want = mean_of(&x[begin[i] as usize..end[i] as usize]);
        if !(g == &want || (g.is_nan() && want.is_nan())) {
            return Err(format!("mean of segment {i}: {g}, want {want}"));
        }
    }
    Ok(())
}
