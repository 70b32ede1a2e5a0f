//! The checks of the axis reductions, shared by `tests/axis.rs` (emulator) and `tests/gpu.rs`:
//! every result against a CPU reference written independently of the kernels (per-run slices
//! through `reduce_host::reference`, the identities of empty runs spelled out by hand).
#![allow(dead_code)]

use reduce_host::plan::PolicySettings;
use reduce_host::reference::XorShift64;
use reduce_host::*;

mod once;
mod short;
pub use once::*;
pub use short::*;

/// Deterministic data: small integers (exact float sums), some negative, for every type.
pub fn data<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    XorShift64::new(seed)
        .take(n)
        .map(|x| {
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

/// What an empty run gives: 0 for a sum; the type's largest value (min) or smallest (max), as
/// CUB — for floats ±inf, the identity of the NaN-propagating min/max.
pub fn identity<T: Scalar>(op: Op) -> T {
    match op {
        Op::Min => T::from_f64(f64::INFINITY), // integers: `as` saturates to MAX
        Op::Max => T::from_f64(f64::NEG_INFINITY),
        _ => T::from_f64(0.0),
    }
}

/// Equal, or both NaN.
pub fn same<T: Scalar>(a: T, b: T) -> bool {
    a == b || (a.to_f64().is_nan() && b.to_f64().is_nan())
}

pub fn expect<T: Scalar>(op: Op, run: &[T]) -> T {
    match reference(op, run) {
        Some(r) if !run.is_empty() => r.value,
        _ => identity(op),
    }
}

pub fn check_matrix<T: Scalar>(b: &Backend, op: Op, rows: usize, cols: usize) {
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

/// The awkward edges that every list of shapes has: no rows, no columns, neither, one element,
/// one row, one column, primes.
pub const EDGE_SHAPES: &[(usize, usize)] = &[
    (0, 7),
    (7, 0),
    (0, 0),
    (1, 1),
    (1, 1000),
    (1000, 1),
    (13, 17),
    (97, 5),
];

/// Shapes with every awkward edge ([`EDGE_SHAPES`]), rows shorter than a warp, a row long enough
/// for a block.
pub fn shapes() -> impl Iterator<Item = (usize, usize)> {
    EDGE_SHAPES
        .iter()
        .chain(&[(3, 31), (37, 300), (5, 2053)])
        .copied()
}

/// [`check_matrix`] on every shape of [`shapes`] and every device operator.
pub fn every_shape<T: Scalar>(b: &Backend) {
    for op in [Op::Sum, Op::Min, Op::Max] {
        for (r, c) in shapes() {
            check_matrix::<T>(b, op, r, c);
        }
    }
}

pub fn check_segments<T: Scalar>(b: &Backend, op: Op, n: usize, begin: &[u64], end: &[u64]) {
    check_segments_cut::<T>(b, op, n, begin, end, AxisPolicy::default().segment_piece)
}

/// [`check_segments`] with segments longer than `piece` cut into pieces (a second launch
/// combines them per segment).
pub fn check_segments_cut<T: Scalar>(
    b: &Backend,
    op: Op,
    n: usize,
    begin: &[u64],
    end: &[u64],
    piece: usize,
) {
    let x = data::<T>(n, n as u64 + 5);
    let input = b.upload(&x).unwrap();
    let segs = Segments::with_piece(b, begin, end, n, piece).unwrap();
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

/// Ragged segments over `n` elements: lengths 0, 1, 2, 0, 33, 300, … back to back, the rest of
/// the input, one segment overlapping others, one out of order and one empty at 0.
pub fn ragged(n: usize) -> (Vec<u64>, Vec<u64>) {
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

/// Every device operator over [`ragged`] segments, no segments, and empty ones over nothing.
pub fn segments_every_op<T: Scalar>(b: &Backend, n: usize) {
    let (begin, end) = ragged(n);
    for op in [Op::Sum, Op::Min, Op::Max] {
        check_segments::<T>(b, op, n, &begin, &end);
        check_segments_cut::<T>(b, op, n, &begin, &end, 100); // most long segments cut
        check_segments_cut::<T>(b, op, n, &begin, &end, 1); // every element its own piece
        check_segments::<T>(b, op, 10, &[], &[]);
        check_segments::<T>(b, op, 0, &[0, 0], &[0, 0]);
    }
}

/// Row and column results of a `rows × cols` matrix under `policy` (a [`PreparedAxis`] per
/// axis) against the CPU reference, and the same bits on a second run.
pub fn check_matrix_policy<T: Scalar>(
    b: &Backend,
    op: Op,
    rows: usize,
    cols: usize,
    policy: &AxisPolicy,
) {
    let x = data::<T>(rows * cols, (rows * 7 + cols) as u64);
    let input = b.upload(&x).unwrap();
    for axis in [AxisKind::Rows, AxisKind::Cols] {
        let p = PreparedAxis::<T>::matrix(b, policy, axis, op, rows, cols).unwrap();
        let mut out = b.zeroed::<T>(p.results().max(1)).unwrap();
        p.enqueue(b, &input, None, &mut out).unwrap();
        let got = b.download(&out, p.results()).unwrap();
        for (i, &g) in got.iter().enumerate() {
            let run: Vec<T> = match axis {
                AxisKind::Rows => x[i * cols..(i + 1) * cols].to_vec(),
                _ => (0..rows).map(|r| x[r * cols + i]).collect(),
            };
            let want = expect(op, &run);
            assert!(
                same(g, want),
                "{op} {} {axis:?} {i} of {rows}x{cols} [{}]: {g} vs {want}",
                T::TYPE,
                p.plan().describe()
            );
        }
        p.enqueue(b, &input, None, &mut out).unwrap();
        let again = b.download(&out, p.results()).unwrap();
        assert!(
            got.iter()
                .zip(&again)
                .all(|(a, c)| a.to_f64().to_bits() == c.to_f64().to_bits()),
            "{axis:?} {rows}x{cols}: a second run differs"
        );
    }
}

/// Policies that reach every kernel shape the defaults may not: column tiles narrower than the
/// matrix (dividing the warp — the shuffle fold — or not), column splits finished in several
/// passes, capped splits, and row splits with more waves.
pub fn policies() -> Vec<AxisPolicy> {
    [
        "",
        "min_col_tiles=1",
        "col_tile=1",
        "col_tile=3",
        "col_tile=4,finish_piece_rows=2,min_piece_rows=2",
        "col_tile=8,max_col_parts=3",
        "col_tile=32,finish_piece_rows=3,min_piece_rows=5",
        "row_waves=4,min_piece=64,blocks_per_sm=1",
        "min_piece=100,blocks_per_sm=2,vectors_per_lane=1",
        "col_once_max_vcols=300",
        "col_once_max_vcols=300,col_tile=3,min_piece_rows=3",
        "finish_col_tile=2,min_piece_rows=3",
        // Two column launches with one finishing tile, `AxisRows` for rows of a block each.
        "col_once_max_vcols=0,finish_col_tile=0,row_unroll=4,long_row_blocks_per_sm=16",
        "col_once_max_vcols=0,min_piece_rows=3",
        "col_once_max_vcols=0,col_short_rows=16,min_piece_rows=3",
        "col_once_blocks_per_sm=1,min_piece_rows=3",
        "wide_col_short_rows=0",
        "col_once_flat=0",
        "col_flat_blocks_per_sm=1",
        "col_flat_blocks_per_sm=64,col_once_max_vcols=8",
        "col_flat_fine=0",
        "col_flat_fine=0,col_flat_blocks_per_sm=64",
        "col_flat_blocks_per_sm=64",
        "wide_col_blocks_per_sm=1,min_col_tiles=1",
    ]
    .iter()
    .map(|t| AxisPolicy::default().with_settings(t).unwrap())
    .collect()
}

/// Shapes for [`policies`]: tall and narrow (1, 3, 4, 16, 20 columns), a prime width, rows
/// long enough to split, and tiles of a single row lane (as wide as the block, or wider than
/// half of it, so that some threads have no column: 201, 257 columns; 200 and 257 vector
/// columns).
pub const POLICY_SHAPES: &[(usize, usize)] = &[
    (3001, 1),
    (2000, 3),
    (1500, 4),
    (1003, 16),
    (777, 20),
    (129, 257),
    (3, 5003),
    (50, 201),
    (33, 800),
    (7, 1028),
];

/// Column results of a `rows × cols` matrix in two launches (`col_once_max_vcols=0`, on top
/// of `extra`: the plain column kernel and its finishing passes) against the CPU reference.
pub fn check_two_launch_cols<T: Scalar>(
    b: &Backend,
    op: Op,
    rows: usize,
    cols: usize,
    extra: &str,
) {
    let x = data::<T>(rows * cols, (rows * 13 + cols) as u64);
    let policy = AxisPolicy::default()
        .with_settings(&format!("{extra},col_once_max_vcols=0"))
        .unwrap();
    let (got, what) = cols_bits(b, &policy, op, &x, rows, cols);
    check_col_results(op, &x, rows, cols, &got, &format!("{extra} [{what}]"));
}

/// Shapes for [`check_two_launch_cols`]: the awkward edges of [`SHAPES`] plus columns not a
/// multiple of 4 (the scalar path), narrow tall matrices (a split and its finishing pass on a
/// partials offset that is not 16-byte aligned: 33 · 12 floats) and a wide short one.
pub const COL_SHAPES: &[(usize, usize)] = &[
    (0, 7),
    (7, 0),
    (1, 1),
    (1, 1000),
    (1000, 1),
    (13, 17),
    (97, 5),
    (4099, 12),
    (2003, 16),
    (9, 4096),
    (8, 1031),
];

/// Data whose float sums depend on the order of the adds (unlike [`data`]'s small integers):
/// bit-for-bit comparisons of two kernels mean something. Integers get [`data`].
pub fn order_sensitive<T: Scalar>(n: usize) -> Vec<T> {
    if T::TYPE.is_float() {
        (0..n)
            .map(|i| T::from_f64((i as f64 * 0.37).cos() * 1e3 + 1e-3 * i as f64))
            .collect()
    } else {
        data::<T>(n, n as u64 + 11)
    }
}

/// `got` holds the column results of the `rows × cols` matrix `x` (the CPU reference of each
/// column); `what` names the run in the message.
pub fn check_col_results<T: Scalar>(
    op: Op,
    x: &[T],
    rows: usize,
    cols: usize,
    got: &[T],
    what: &str,
) {
    assert_eq!(got.len(), cols, "{what}");
    for (c, &g) in got.iter().enumerate() {
        let col: Vec<T> = (0..rows).map(|r| x[r * cols + c]).collect();
        let want = expect(op, &col);
        assert!(
            same(g, want),
            "{op} {} col {c} of {rows}x{cols} {what}: {g} vs {want}",
            T::TYPE
        );
    }
}

/// Column results of `plan` on `x` (twice: the second run must give the same bits — the
/// one-launch kernel's counter is back at 0).
fn cols_bits<T: Scalar>(
    b: &Backend,
    policy: &AxisPolicy,
    op: Op,
    x: &[T],
    rows: usize,
    cols: usize,
) -> (Vec<T>, String) {
    let input = b.upload(x).unwrap();
    let p = PreparedAxis::<T>::matrix(b, policy, AxisKind::Cols, op, rows, cols).unwrap();
    let mut out = b.zeroed::<T>(p.results().max(1)).unwrap();
    p.enqueue(b, &input, None, &mut out).unwrap();
    let got = b.download(&out, p.results()).unwrap();
    p.enqueue(b, &input, None, &mut out).unwrap();
    let again = b.download(&out, p.results()).unwrap();
    let bits = |v: &[T]| v.iter().map(|x| x.to_f64().to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(&got),
        bits(&again),
        "{rows}x{cols}: a second run differs"
    );
    (got, p.plan().describe())
}

/// Row results of a `rows × cols` matrix with the block-per-row kernel's two unroll depths
/// (`row_unroll` 4 and 8, on top of `extra`): against the CPU reference on [`data`], and bit
/// for bit against each other on [`order_sensitive`] data (a lane adds its vectors in the same
/// order either way). `extra` should make rows long enough for a block (`block_run`).
pub fn check_row_unroll_depths<T: Scalar>(
    b: &Backend,
    op: Op,
    rows: usize,
    cols: usize,
    extra: &str,
) {
    let mut bits = Vec::new();
    for unroll in ["row_unroll=4", "row_unroll=8"] {
        let policy = AxisPolicy::default()
            .with_settings(&format!("{extra},{unroll},col_once_max_vcols=0"))
            .unwrap();
        check_matrix_policy::<T>(b, op, rows, cols, &policy);
        let x = order_sensitive::<T>(rows * cols);
        let input = b.upload(&x).unwrap();
        let p = PreparedAxis::<T>::matrix(b, &policy, AxisKind::Rows, op, rows, cols).unwrap();
        // Where the default depth gives a row a block, the deep kernel runs instead.
        let what = p.plan().describe();
        let block_rows = what.starts_with("rows g=256") || what.starts_with("rows-deep");
        assert_eq!(
            what.starts_with("rows-deep"),
            block_rows && unroll.ends_with('8'),
            "{what}"
        );
        let mut out = b.zeroed::<T>(p.results().max(1)).unwrap();
        p.enqueue(b, &input, None, &mut out).unwrap();
        let got = b.download(&out, p.results()).unwrap();
        bits.push(got.iter().map(|v| v.to_f64().to_bits()).collect::<Vec<_>>());
    }
    assert_eq!(
        bits[0], bits[1],
        "{rows}x{cols} {extra}: row unroll 4 and 8 differ"
    );
}
