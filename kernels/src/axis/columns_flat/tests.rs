//! The flat column kernel on the emulator: both paths (16-byte vectors; scalar for rows that
//! are not whole vectors, a `vcols` that does not divide 32 or an input off a 16-byte boundary),
//! one block and several (the ticket, the finishing block), against a CPU reference, and the
//! same bits run to run.

use super::*;
use crate::emu::{launch, LaunchConfig};
use crate::ops::{Max, Min, Sum};
use std::vec;
use std::vec::Vec;

/// One emulated launch on `x[skip..]` as a `rows × cols` matrix, `grid` blocks of 512 (the
/// block the kernel is built for), shares of whole tiles.
fn run<T: Element, O: ReduceOp>(
    x: &[T],
    skip: usize,
    rows: usize,
    cols: usize,
    grid: usize,
) -> Vec<T> {
    run_on::<T, O>(x, (skip, 0), rows, cols, (grid, 0))
}

/// [`run`] with the partials at element `pskip` of a 16-byte aligned allocation (1: off a
/// 16-byte boundary, the finishing block's scalar path) and `share` as `p.group` (1: shares in
/// runs of 32 vectors).
fn run_on<T: Element, O: ReduceOp>(
    x: &[T],
    (skip, pskip): (usize, usize),
    rows: usize,
    cols: usize,
    (grid, share): (usize, usize),
) -> Vec<T> {
    const BLOCK: usize = 512;
    let input = &x[skip..skip + rows * cols];
    let mut room = vec![T::from_bits64(0); pskip + grid * cols];
    assert_eq!(
        room.as_ptr() as usize % 16,
        0,
        "the allocator aligns to 16 bytes"
    );
    let partials = room[pskip..].as_mut_ptr();
    let mut counter = 0u32;
    let out = vec![T::from_bits64(0); cols];
    let (i, p, c, o) = (
        input.as_ptr() as usize,
        partials as usize,
        &mut counter as *mut u32 as usize,
        out.as_ptr() as usize,
    );
    let cfg = LaunchConfig {
        grid_dim: grid,
        block_dim: BLOCK,
        shared_bytes: BLOCK * 16,
    };
    let p_len = grid * cols;
    launch(cfg, &|| {
        // SAFETY: the vectors outlive the launch, have these lengths, and are only accessed
        // through these views while it runs.
        let (input, partials, counter, out) = unsafe {
            (
                Global::from_raw(i as *const T, rows * cols),
                Coherent::from_raw(p as *mut T, p_len),
                Counter::from_raw(c as *mut u32),
                GlobalMut::from_raw(o as *mut T, cols),
            )
        };
        let params = AxisParams {
            count: rows,
            len: cols,
            parts: grid,
            group: share,
        };
        columns_flat_deep::<T, O, BLOCK>(input, partials, counter, out, params);
    })
    .unwrap();
    assert_eq!(counter, 0, "the last block resets the counter");
    out
}

/// Small integers as `f32`: every sum below is exact, so any order gives the same bits.
fn data(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7919 + 13) % 61) as f32 - 30.0)
        .collect()
}

fn reference(
    x: &[f32],
    rows: usize,
    cols: usize,
    f: impl Fn(f32, f32) -> f32,
    init: f32,
) -> Vec<f32> {
    (0..cols)
        .map(|c| (0..rows).fold(init, |a, r| f(a, x[r * cols + c])))
        .collect()
}

#[test]
fn both_paths_give_the_column_results_on_any_grid() {
    let x = data(4 + 3000 * 64);
    // (The allocator's 16-byte alignment: `skip` 0 takes the vector path, `skip` 1 cannot.)
    assert_eq!(x.as_ptr() as usize % 16, 0);
    // (rows, cols): vector rows of 1, 4, 16 and 32 vectors (the flat path), 3 and 5 vectors
    // and a scalar row (the scalar path), one row, no rows.
    for (rows, cols) in [
        (3000, 16),
        (2999, 4),
        (777, 64),
        (300, 128),
        (1000, 12),
        (801, 20),
        (513, 7),
        (1, 16),
        (0, 16),
    ] {
        // An input on a 16-byte boundary (`skip` 0: the vector path where it applies) and off
        // it (`skip` 1: the scalar path).
        for skip in [0, 1] {
            let m = &x[skip..skip + rows * cols];
            let sums = reference(m, rows, cols, |a, b| a + b, 0.0);
            let maxes = reference(m, rows, cols, f32::max, f32::NEG_INFINITY);
            let mins = reference(m, rows, cols, f32::min, f32::INFINITY);
            for grid in [1, 2, 7, 40] {
                let what = std::format!("{rows} x {cols}, skip {skip}, grid {grid}");
                let got = run::<f32, Sum>(&x, skip, rows, cols, grid);
                assert_eq!(got, sums, "sum {what}");
                assert_eq!(
                    run::<f32, Sum>(&x, skip, rows, cols, grid),
                    got,
                    "rerun {what}"
                );
                assert_eq!(
                    run::<f32, Max>(&x, skip, rows, cols, grid),
                    maxes,
                    "max {what}"
                );
                assert_eq!(
                    run::<f32, Min>(&x, skip, rows, cols, grid),
                    mins,
                    "min {what}"
                );
            }
        }
    }
}

#[test]
fn wide_types_and_integers() {
    let (rows, cols) = (1234, 8); // f64: 4 vectors per row; u32: 2
    let x: Vec<f64> = (0..rows * cols).map(|i| (i % 97) as f64).collect();
    let xu: Vec<u32> = (0..rows * cols)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761))
        .collect();
    for grid in [1, 5] {
        let got = run::<f64, Sum>(&x, 0, rows, cols, grid);
        let got_u = run::<u32, Sum>(&xu, 0, rows, cols, grid);
        for c in 0..cols {
            let want: f64 = (0..rows).map(|r| x[r * cols + c]).sum();
            assert_eq!(got[c], want, "f64 column {c}, grid {grid}");
            let want_u = (0..rows).fold(0u32, |a, r| a.wrapping_add(xu[r * cols + c]));
            assert_eq!(got_u[c], want_u, "u32 column {c}, grid {grid}");
        }
    }
}

#[test]
fn both_finishes_and_both_shares_agree() {
    // The finishing block reads the partials as vectors when they are on a 16-byte boundary
    // (`pskip` 0) and one by one when not (`pskip` 1); shares of whole tiles and of runs of 32
    // vectors (partial last tiles).
    let x = data(2999 * 32);
    for (rows, cols) in [(2999, 32), (1500, 16), (700, 8), (64, 4)] {
        let m = &x[..rows * cols];
        let sums = reference(m, rows, cols, |a, b| a + b, 0.0);
        let maxes = reference(m, rows, cols, f32::max, f32::NEG_INFINITY);
        let mins = reference(m, rows, cols, f32::min, f32::INFINITY);
        for grid in [2, 3, 33, 130] {
            for pskip in [0, 1] {
                let what = std::format!("{rows} x {cols}, grid {grid}, partials skip {pskip}");
                for share in [0, 1] {
                    let what = std::format!("{what}, share {share}");
                    let at = (0, pskip);
                    let s = run_on::<f32, Sum>(&x, at, rows, cols, (grid, share));
                    assert_eq!(s, sums, "sum, {what}");
                    let m = run_on::<f32, Max>(&x, at, rows, cols, (grid, share));
                    assert_eq!(m, maxes, "max, {what}");
                    let m = run_on::<f32, Min>(&x, at, rows, cols, (grid, share));
                    assert_eq!(m, mins, "min, {what}");
                }
            }
        }
    }
    // f64 partials as vectors: two elements each.
    let y: Vec<f64> = (0..333 * 8)
        .map(|i| ((i * 31) % 89) as f64 - 44.0)
        .collect();
    for pskip in [0, 1] {
        let got = run_on::<f64, Sum>(&y, (0, pskip), 333, 8, (9, 1));
        for (c, g) in got.iter().enumerate() {
            let want: f64 = (0..333).map(|r| y[r * 8 + c]).sum();
            assert_eq!(*g, want, "f64 column {c}, partials skip {pskip}");
        }
    }
}
