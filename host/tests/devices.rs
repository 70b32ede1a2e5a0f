//! Every family's plans computed for GPUs other than the H200 the defaults were tuned on — a T4,
//! an RTX 4090, an A100, an H200 and a B200, from their published attributes
//! ([`DeviceCaps::preset`]) — run on the CPU emulator and give the reference results. The
//! launches are the ones those GPUs would get (grids from their SM counts and per-SM limits).

use reduce_host::*;

/// Deterministic data with negative values, a spread of magnitudes and a known extreme.
fn data(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let x = (i as u64).wrapping_mul(2_654_435_761) % 10_007;
            (x as f32 - 5003.0) / 97.0
        })
        .collect()
}

/// `a` within `rel` of `b`, relative to `scale` (the sum of the magnitudes, for sums).
fn close_to(a: f64, b: f64, rel: f64, scale: f64) -> bool {
    (a - b).abs() <= rel * scale.max(b.abs()).max(1.0)
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    close_to(a, b, rel, 0.0)
}

fn run_on(name: &str) {
    let caps = DeviceCaps::preset(name).expect("a preset");
    let backend = Backend::Emulator(Emulator::with_caps(caps.clone()));
    assert_eq!(backend.caps(), &caps);
    let mut r = Reducer::new(&backend);
    for n in [1usize, 1000, 70_001] {
        let h = data(n);
        let x = backend.upload(&h).unwrap();
        let sum64: f64 = h.iter().map(|&v| v as f64).sum();
        let mag: f64 = h.iter().map(|&v| (v as f64).abs()).sum();
        let what = format!("{name} n={n}");
        // Stage 8.
        let s: f32 = r.sum(&x).unwrap();
        assert!(
            close_to(s as f64, sum64, 1e-6, mag),
            "{what}: sum {s} vs {sum64}"
        );
        let lo = h.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = h.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(r.min(&x).unwrap(), Some(lo), "{what}: min");
        assert_eq!(r.max(&x).unwrap(), Some(hi), "{what}: max");
        // An offset view.
        if n > 10 {
            let part: f64 = h[3..n - 5].iter().map(|&v| v as f64).sum();
            let s: f32 = r.sum(x.slice(3..n - 5).unwrap()).unwrap();
            assert!(close_to(s as f64, part, 1e-6, mag), "{what}: sum of a view");
        }
        // Arg: the first index of the extreme (NumPy).
        let first_hi = h.iter().position(|&v| v == hi).unwrap();
        assert_eq!(r.argmax(&x).unwrap(), (first_hi, hi), "{what}: argmax");
        // Transform.
        let norm = h.iter().map(|&v| (v as f64).powi(2)).sum::<f64>().sqrt();
        assert!(close(r.norm2(&x).unwrap(), norm, 1e-12), "{what}: norm2");
        // Exact: the correctly rounded sum of the f32 values.
        let exact: f32 = r.sum_exact(&x).unwrap();
        assert_eq!(exact, exact::exact_sum(&h), "{what}: sum_exact");
        // Halves.
        let halves: Vec<F16> = h.iter().map(|&v| F16::from_f32(v)).collect();
        let hsum: f64 = halves.iter().map(|v| v.to_f32() as f64).sum();
        let hs: f32 = r.sum(&backend.upload(&halves).unwrap()).unwrap();
        assert!(close_to(hs as f64, hsum, 1e-6, mag), "{what}: f16 sum");
        // Integers: an exact 64-bit sum.
        let ints: Vec<i32> = (0..n as i32).map(|i| i * 7 - 3000).collect();
        let isum: i64 = ints.iter().map(|&v| v as i64).sum();
        assert_eq!(
            r.sum(&backend.upload(&ints).unwrap()).unwrap(),
            isum,
            "{what}: i32"
        );
    }
    // Axis: rows, columns and segments of a 300 × 257 matrix.
    let (rows, cols) = (300, 257);
    let h = data(rows * cols);
    let m = backend.upload(&h).unwrap();
    let by_rows = backend
        .download(&r.reduce_rows(Op::Sum, &m, rows, cols).unwrap(), rows)
        .unwrap();
    let by_cols = backend
        .download(&r.reduce_cols(Op::Max, &m, rows, cols).unwrap(), cols)
        .unwrap();
    for i in 0..rows {
        let row = &h[i * cols..(i + 1) * cols];
        let want: f64 = row.iter().map(|&v| v as f64).sum();
        let mag: f64 = row.iter().map(|&v| (v as f64).abs()).sum();
        assert!(
            close_to(by_rows[i] as f64, want, 1e-6, mag),
            "{name}: row {i}"
        );
    }
    for j in 0..cols {
        let want = (0..rows)
            .map(|i| h[i * cols + j])
            .fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(by_cols[j], want, "{name}: column {j}");
    }
    let total = rows * cols;
    let t = total as u64;
    let (begins, ends): ([u64; 5], [u64; 5]) = ([0, 1, 500, 7, 40_000], [1, 500, 40_000, t, t]);
    let segs = Segments::new(&backend, &begins, &ends, total).unwrap();
    let got = backend
        .download(
            &r.reduce_segments(Op::Min, &m, &segs).unwrap(),
            begins.len(),
        )
        .unwrap();
    for s in 0..begins.len() {
        let (a, b) = (begins[s] as usize, ends[s] as usize);
        let want = h[a..b].iter().copied().fold(f32::INFINITY, f32::min);
        assert_eq!(got[s], want, "{name}: segment {s}");
    }
}

#[test]
fn a_t4_plans_and_reduces() {
    run_on("t4");
}

#[test]
fn an_rtx_4090_plans_and_reduces() {
    run_on("rtx4090");
}

#[test]
fn an_a100_plans_and_reduces() {
    run_on("a100");
}

#[test]
fn an_h200_plans_and_reduces() {
    run_on("h200");
}

#[test]
fn a_b200_plans_and_reduces() {
    run_on("b200");
}

#[test]
fn the_presets_get_their_own_grids() {
    // The same input gets a grid from each device's SM count: more SMs, more blocks.
    let grids: Vec<usize> = PRESETS
        .iter()
        .map(|p| {
            let caps = DeviceCaps::preset(p).unwrap();
            plan(
                Stage::S8,
                ElemType::F32,
                Op::Sum,
                1 << 26,
                Default::default(),
                &caps,
            )
            .unwrap()
            .passes[0]
                .grid
        })
        .collect();
    // t4 40 SMs × 2 blocks of 512, rtx4090 128 × 3, a100 108 × 4, h200 132 × 4, b200 148 × 4.
    assert_eq!(grids, [80, 384, 432, 528, 592]);
}
