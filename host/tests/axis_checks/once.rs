//! The one-launch column kernel's checks (`col_once_max_vcols`).

use super::*;

/// The one-launch column kernel (`col_once_max_vcols=2^40` on top of `extra`): against the CPU
/// reference on [`data`], and on [`order_sensitive`] data bit for bit against the two-launch
/// plan of the same settings (and the first pass's tile in its finishing pass) whenever that plan cuts the rows into as many pieces as the
/// one-launch kernel has blocks (then both visit every column in the same order). Returns
/// whether the bits were compared.
pub fn check_once<T: Scalar>(b: &Backend, op: Op, rows: usize, cols: usize, extra: &str) -> bool {
    let once = AxisPolicy::default()
        .with_settings(&format!("col_once_flat=0,{extra},col_once_max_vcols=2^40"))
        .unwrap();
    let two = AxisPolicy::default()
        .with_settings(&format!(
            "col_once_flat=0,{extra},col_once_max_vcols=0,finish_col_tile=0"
        ))
        .unwrap();
    let x = data::<T>(rows * cols, (rows * 17 + cols) as u64);
    let (got, what) = cols_bits(b, &once, op, &x, rows, cols);
    assert!(cols == 0 || what.starts_with("cols-once"), "{what}");
    check_col_results(op, &x, rows, cols, &got, &format!("{extra} [{what}]"));
    let plan = |p: &AxisPolicy| p.cols(T::TYPE, op, rows, cols, b.caps()).unwrap();
    let blocks = plan(&once).steps.first().map(|s| s.grid);
    let pieces = plan(&two).steps.first().map(|s| s.parts);
    if blocks != pieces {
        return false;
    }
    let x = order_sensitive::<T>(rows * cols);
    let (a, wa) = cols_bits(b, &once, op, &x, rows, cols);
    let (t, wt) = cols_bits(b, &two, op, &x, rows, cols);
    let bits = |v: &[T]| v.iter().map(|x| x.to_f64().to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(&a),
        bits(&t),
        "{op} {} {rows}x{cols} {extra}: [{wa}] vs [{wt}]",
        T::TYPE
    );
    true
}

/// Shapes for [`check_once`]: the awkward edges ([`EDGE_SHAPES`]: no rows, no columns, 1 × N,
/// N × 1, primes), columns not a multiple of 4 (the scalar path), tall narrow matrices split
/// over many blocks (16 and 12 columns: whole vectors; 3, 5 and 20), rows of 1, 2, 8, 16 and 32
/// vectors of `f32` in one tile (the kernel's compile-time widths; `f64`: 2, 4, …), and rows
/// wider than a tile (several tiles per block: 1031, 1000 columns).
pub fn once_shapes() -> impl Iterator<Item = (usize, usize)> {
    EDGE_SHAPES.iter().chain(ONCE_SHAPES).copied()
}

/// The shapes of [`once_shapes`] beyond [`EDGE_SHAPES`].
const ONCE_SHAPES: &[(usize, usize)] = &[
    (3001, 4),
    (1500, 8),
    (999, 32),
    (700, 64),
    (333, 128),
    (4099, 12),
    (2003, 16),
    (5000, 3),
    (777, 20),
    (8, 1031),
    (300, 1000),
];
