//! The short-column kernel (`AxisColumnsShort16`: `wide_col_short_rows`, the default that runs
//! it on unsplit plans, and `col_short_rows`, which runs it on every plan): against the CPU
//! reference and bit for bit against the plain column kernel.

use super::*;

/// The policies that run the short-column kernel, each on top of the two-launch column plan.
pub const SHORT_COLUMN_POLICIES: &[&str] = &["col_short_rows=16", "wide_col_short_rows=16"];

/// Shapes for [`check_short_columns`]: a single row lane (at least 129 vector columns) with
/// items of 1, 3, 7, 15, 16 and 17 rows (the short path's edge), tiles wider than half the block
/// (threads without a column), a split into pieces of a few rows (`min_piece_rows=3` in the
/// test), a scalar row (not whole vectors) and the narrow shapes of several row lanes.
pub const SHORT_COLUMN_SHAPES: &[(usize, usize)] = &[
    (1, 1024),
    (3, 1028),
    (7, 804),
    (15, 2048),
    (16, 1024),
    (17, 1024),
    (40, 1024),
    (16, 1030),
    (2, 5003),
    (0, 1024),
    (5, 0),
    (1003, 16),
    (97, 5),
];

/// Column results of `rows × cols` under each of [`SHORT_COLUMN_POLICIES`] (on top of `extra`,
/// the one-launch kernel and the wide rule off): against the CPU reference on [`data`], and on
/// [`order_sensitive`] data bit for bit against the plain column kernel with the same `extra`.
pub fn check_short_columns<T: Scalar>(b: &Backend, op: Op, rows: usize, cols: usize, extra: &str) {
    let base = format!("{extra},col_once_max_vcols=0,wide_col_short_rows=0");
    let default = AxisPolicy::default().with_settings(&base).unwrap();
    let x = data::<T>(rows * cols, (rows * 7 + cols) as u64);
    let y = order_sensitive::<T>(rows * cols);
    let bits = |v: &[T]| v.iter().map(|x| x.to_f64().to_bits()).collect::<Vec<_>>();
    let (want_bits, _) = cols_bits(b, &default, op, &y, rows, cols);
    for knob in SHORT_COLUMN_POLICIES {
        let p = AxisPolicy::default()
            .with_settings(&format!("{base},{knob}"))
            .unwrap();
        let (got, what) = cols_bits(b, &p, op, &x, rows, cols);
        check_col_results(
            op,
            &x,
            rows,
            cols,
            &got,
            &format!("{knob} {extra} [{what}]"),
        );
        let (a, what) = cols_bits(b, &p, op, &y, rows, cols);
        assert_eq!(
            bits(&a),
            bits(&want_bits),
            "{op} {} {rows}x{cols} {knob} {extra} [{what}]: differs from the default kernel",
            T::TYPE
        );
    }
}
