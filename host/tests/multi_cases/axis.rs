//! Columns and rows of a matrix split by rows across emulated ranks.

use crate::multi_checks;
use reduce_host::*;

/// A row-major matrix split by rows across 3 ranks (2, 0 and 5 rows of 7): the column results on
/// every rank and the row results per rank equal the single reducer's over the whole matrix
/// (small integers: exact in every type, so bit for bit).
fn check_axis<T: Scalar>(op: Op) -> Result<(), String> {
    let (cols, blocks) = (7usize, [2usize, 0, 5]);
    let e = |e: ReduceError| format!("{op} {}: {e}", T::TYPE);
    let mut m = MultiReducer::emulated(3).map_err(e)?;
    let parts: Vec<Vec<T>> = blocks
        .iter()
        .enumerate()
        .map(|(r, &rows)| multi_checks::axis_data::<T>(rows * cols, r as u64))
        .collect();
    let all = parts.concat();
    let shards = multi_checks::upload(&m, &parts).map_err(e)?;
    let single = Backend::open(BackendChoice::Emu).map_err(e)?;
    let x = single.upload(&all).map_err(e)?;
    let mut reducer = Reducer::new(&single);
    let rows = all.len() / cols;
    let want_cols = reducer.reduce_cols(op, &x, rows, cols).map_err(e)?;
    let want_cols = single.download(&want_cols, cols).map_err(e)?;
    let want_rows = reducer.reduce_rows(op, &x, rows, cols).map_err(e)?;
    let want_rows = single.download(&want_rows, rows).map_err(e)?;
    let got_cols = m.reduce_cols(op, &shards, cols).map_err(e)?;
    for (r, g) in got_cols.iter().enumerate() {
        let g = m.with_rank(r, |b| b.download(g, cols)).map_err(e)?;
        if g.iter()
            .zip(&want_cols)
            .any(|(a, b)| !multi_checks::same(*a, *b))
        {
            return Err(format!(
                "{op} {}: rank {r}'s columns {g:?} vs {want_cols:?}",
                T::TYPE
            ));
        }
    }
    let got_rows = m.reduce_rows(op, &shards, cols).map_err(e)?;
    let mut rows_seen = Vec::new();
    for (r, g) in got_rows.iter().enumerate() {
        rows_seen.extend(m.with_rank(r, |b| b.download(g, blocks[r])).map_err(e)?);
    }
    if rows_seen
        .iter()
        .zip(&want_rows)
        .any(|(a, b)| !multi_checks::same(*a, *b))
        || rows_seen.len() != want_rows.len()
    {
        return Err(format!(
            "{op} {}: rows {rows_seen:?} vs {want_rows:?}",
            T::TYPE
        ));
    }
    Ok(())
}

#[test]
fn columns_and_rows_of_a_matrix_split_by_rows() {
    let mut failures = Vec::new();
    for &ty in &ElemType::ALL {
        for op in [Op::Sum, Op::Min, Op::Max] {
            if let Err(f) = with_elem_type!(ty, T => check_axis::<T>(op)) {
                failures.push(f);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let mut m = MultiReducer::emulated(2).unwrap();
    let a = m.with_rank(0, |b| b.upload(&[1i32; 6])).unwrap();
    let b = m.with_rank(1, |b| b.upload(&[1i32; 5])).unwrap();
    let Err(e) = m.reduce_cols(Op::Sum, &[&a, &b], 3) else {
        panic!("5 elements taken for rows of 3");
    };
    assert!(
        e.to_string()
            .contains("shard 1 holds 5 elements, not whole rows of 3"),
        "{e}"
    );
    assert!(m.reduce_cols(Op::Sum, &[&a, &a], 3).is_err());
    assert!(m.reduce_rows(Op::Mean, &[&a, &b], 1).is_err());
    assert!(m.reduce_cols(Op::Sum, &[&a, &b], 0).is_err());
}
