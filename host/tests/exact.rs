//! Exact sums: the host reference against independent oracles (proptest), the IEEE edge cases,
//! and the kernels on the CPU emulator — the same bits for every grid × block × input split, equal
//! to the reference, on adversarial data. These run in CI, which has no GPU.

mod common;

use common::exact_edge_inputs;
use proptest::prelude::*;
use reduce_host::exact::exact_sum;
use reduce_host::exact::{
    exact_blocks, exact_mean, exact_plan, generate, repro_grids, repro_matrix_with, repro_variants,
    ulps, ExactData, ExactPolicy, ExactSum, PreparedExact,
};
use reduce_host::*;

fn emu() -> Backend {
    Backend::Emulator(Emulator::default())
}

/// `Σ m_i · 2^(e_i)` exactly in `i128` units of 2^-60 (|m| < 2^30, e < 20, 200 terms: < 2^118), rounded once by Rust's (correctly
/// rounding) integer-to-float conversion, then scaled by a power of two (exact here).
fn oracle_f64(terms: &[(i32, i32)]) -> f64 {
    let s: i128 = terms
        .iter()
        .map(|&(m, e)| (m as i128) << (e + 60) as u32)
        .sum();
    s as f64 * 2f64.powi(-60)
}

fn oracle_f32(terms: &[(i32, i32)]) -> f32 {
    let s: i128 = terms
        .iter()
        .map(|&(m, e)| (m as i128) << (e + 60) as u32)
        .sum();
    ((s as f32) as f64 * 2f64.powi(-60)) as f32
}

proptest! {
    #[test]
    fn reference_matches_an_integer_oracle_f64(
        terms in proptest::collection::vec((-(1i32 << 30)..(1 << 30), -60i32..20), 0..200)
    ) {
        let data: Vec<f64> = terms.iter().map(|&(m, e)| m as f64 * 2f64.powi(e)).collect();
        let want = oracle_f64(&terms);
        let got = exact_sum(&data);
        prop_assert_eq!(got.to_bits(), want.to_bits(), "{:?}", data);
    }

    #[test]
    fn reference_matches_an_integer_oracle_f32(
        terms in proptest::collection::vec((-(1i32 << 23)..(1 << 23), -60i32..20), 0..200)
    ) {
        let data: Vec<f32> = terms.iter().map(|&(m, e)| (m as f64 * 2f64.powi(e)) as f32).collect();
        let want = oracle_f32(&terms);
        let got = exact_sum(&data);
        prop_assert_eq!(got.to_bits(), want.to_bits(), "{:?}", data);
    }

    #[test]
    fn reference_subnormal_sums_are_exact(ks in proptest::collection::vec(-(1i64 << 30)..(1 << 30), 1..100)) {
        let data: Vec<f32> = ks.iter().map(|&k| ((k % (1 << 23)) as f64 * 2f64.powi(-149)) as f32).collect();
        let total: i128 = ks.iter().map(|&k| (k % (1 << 23)) as i128).sum();
        let want = ((total as f32) as f64 * 2f64.powi(-149)) as f32;
        prop_assert_eq!(exact_sum(&data).to_bits(), want.to_bits());
    }

    #[test]
    fn reference_is_order_independent(seed in any::<u64>(), n in 1usize..300) {
        let mut d = generate::<f64>(ExactData::Binades, n, seed);
        let a = exact_sum(&d);
        d.reverse();
        prop_assert_eq!(a.to_bits(), exact_sum(&d).to_bits());
    }
}

#[test]
fn reference_edge_cases() {
    assert_eq!(exact_sum::<f64>(&[]).to_bits(), 0);
    assert_eq!(exact_sum(&[-0.0f64, -0.0]).to_bits(), (-0.0f64).to_bits());
    assert_eq!(exact_sum(&[-0.0f32, 0.0]).to_bits(), 0);
    assert_eq!(exact_sum(&[1.0f64, -1.0]).to_bits(), 0);
    assert_eq!(exact_sum(&[1e30f64, 1.0, -1e30]), 1.0);
    assert_eq!(exact_sum(&[f64::MAX, f64::MAX, -f64::MAX]), f64::MAX);
    assert_eq!(exact_sum(&[f64::MAX, f64::MAX]), f64::INFINITY);
    assert_eq!(exact_sum(&[-f32::MAX, -f32::MAX]), f32::NEG_INFINITY);
    assert!(exact_sum(&[f32::INFINITY, 1.0, f32::NEG_INFINITY]).is_nan());
    assert!(exact_sum(&[f64::NAN, 1.0]).is_nan());
    assert_eq!(exact_sum(&[f32::INFINITY, -f32::MAX]), f32::INFINITY);
    // Halfway: 1 + 2^-24 is a tie between 1 and 1 + 2^-23: to even.
    assert_eq!(exact_sum(&[1.0f32, 2f32.powi(-24)]), 1.0);
    assert_eq!(
        exact_sum(&[1.0f32 + 2f32.powi(-23), 2f32.powi(-24)]),
        1.0 + 2.0 * 2f32.powi(-23)
    );
    // f32 max + half an ulp rounds to even, i.e. up: overflow.
    assert_eq!(
        exact_sum(&[f32::MAX, 2f32.powi(103)]),
        f32::INFINITY,
        "a tie at the top rounds to 2^128"
    );
    assert_eq!(exact_sum(&[f32::MAX, 2f32.powi(102)]), f32::MAX);
    // The smallest subnormals.
    assert_eq!(
        exact_sum(&[f64::from_bits(1), f64::from_bits(1)]),
        f64::from_bits(2)
    );
    assert_eq!(exact_mean(&[1.0f32, 2.0]), Some(1.5));
    assert_eq!(exact_mean::<f64>(&[]), None);
}

#[test]
fn ties_family_is_a_tie_and_cancellation_defeats_naive_sums() {
    let d = generate::<f32>(ExactData::Ties, 1000, 1);
    assert_eq!(exact_sum(&d), 1.0);
    let d = generate::<f32>(ExactData::Cancellation, 4000, 2);
    let mut acc = ExactSum::new();
    acc.extend(&d);
    let exact: f32 = acc.round();
    let naive: f32 = d.iter().sum();
    assert!(ulps(naive, exact) > 0, "naive {naive} exact {exact}");
}

#[test]
fn ulps_counts_representable_values() {
    assert_eq!(ulps(1.0f32, 1.0), 0);
    assert_eq!(ulps(1.0f32 + f32::EPSILON, 1.0), 1);
    assert_eq!(ulps(-0.0f64, 0.0), 0);
    assert_eq!(ulps(f64::from_bits(1), -f64::from_bits(1)), 2);
    assert_eq!(ulps(f32::NAN, 1.0), u64::MAX);
}

fn emulator_matrix<T: ExactFloat>(data: ExactData, n: usize, seed: u64) {
    let b = emu();
    let d = generate::<T>(data, n, seed);
    let want = exact_sum(&d).to_bits64();
    let grids = repro_grids(&b, T::TYPE, n).unwrap();
    // Both kernel variants (the general and the fast path) on every family.
    let policies = repro_variants();
    let cells = repro_matrix_with(&b, &d, &grids, &[0, 1, 3], &policies).unwrap();
    let bad: Vec<_> = cells.iter().filter(|c| c.bits != want).collect();
    assert!(
        bad.is_empty(),
        "{} {} n={n}: want {want:#x}, {} of {} cells differ: {bad:?}",
        T::TYPE,
        data.name(),
        bad.len(),
        cells.len()
    );
}

#[test]
fn emulator_same_bits_every_launch_f32() {
    for data in ExactData::ALL {
        emulator_matrix::<f32>(data, 6001, 11);
    }
}

#[test]
fn emulator_same_bits_every_launch_f64() {
    for data in ExactData::ALL {
        emulator_matrix::<f64>(data, 3001, 12);
    }
}

#[test]
fn emulator_edge_cases_match_the_reference() {
    let b = emu();
    let mut r = Reducer::new(&b);
    let mut cases = exact_edge_inputs(70, 9, 33);
    cases.push(vec![-0.0]);
    for c in cases {
        let want = exact_sum(&c);
        let input = b.upload(&c).unwrap();
        let got = r.sum_exact(&input).unwrap();
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{c:?}: got {got:e} ({:#x}), want {want:e}",
            got.to_bits()
        );
        let c32: Vec<f32> = c.iter().map(|&x| x as f32).collect();
        let want = exact_sum(&c32);
        let input = b.upload(&c32).unwrap();
        let got = r.sum_exact(&input).unwrap();
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{c32:?}: got {got:e}, want {want:e}"
        );
    }
}

#[test]
fn emulator_mean_and_ranges() {
    let b = emu();
    let d = generate::<f32>(ExactData::Uniform, 5000, 3);
    let input = b.upload(&d).unwrap();
    let mut r = Reducer::new(&b);
    assert_eq!(r.mean_exact(&input).unwrap(), exact_mean(&d).unwrap());
    let got = input
        .slice(17..17 + 3000)
        .and_then(|view| r.sum_exact(view))
        .unwrap();
    assert_eq!(got.to_bits(), exact_sum(&d[17..3017]).to_bits());
    assert!(matches!(
        input
            .slice(4000..4000 + 2000)
            .and_then(|view| r.sum_exact(view)),
        Err(ReduceError::OutOfBounds { arg: "range", .. })
    ));
    let empty = b.upload::<f32>(&[]).unwrap();
    assert!(matches!(
        r.mean_exact(&empty),
        Err(ReduceError::EmptyInput { .. })
    ));
}

#[test]
fn bad_launches_are_typed_errors() {
    let b = emu();
    let caps = b.caps();
    let p = ExactPolicy::default();
    let bad_block = LaunchOverrides {
        block: Some(100),
        grid: None,
    };
    assert!(matches!(
        exact_plan(ElemType::F32, 10, bad_block, caps, p),
        Err(ReduceError::InvalidBlockSize { .. })
    ));
    for grid in [0, (1 << 24) + 1] {
        let o = LaunchOverrides {
            block: None,
            grid: Some(grid),
        };
        assert!(matches!(
            exact_plan(ElemType::F64, 10, o, caps, p),
            Err(ReduceError::InvalidGridSize { .. })
        ));
    }
    // 2^31 f32 in one block: more than a block's integer headroom.
    let one = LaunchOverrides {
        block: Some(256),
        grid: Some(1),
    };
    assert!(matches!(
        exact_plan(ElemType::F32, 1 << 31, one, caps, p),
        Err(ReduceError::InvalidGridSize { .. })
    ));
    assert!(matches!(
        exact_plan(ElemType::I32, 10, LaunchOverrides::default(), caps, p),
        Err(ReduceError::InvalidArgument(_))
    ));
    // The default plan for 2^31 elements picks a grid that respects it.
    let plan = exact_plan(ElemType::F32, 1 << 31, LaunchOverrides::default(), caps, p).unwrap();
    assert!(exact_blocks().contains(&plan.block));
    // A plan's launch on another backend's buffer is refused.
    let other = emu();
    let input = other.upload(&[1.0f32; 8]).unwrap();
    let prepared = PreparedExact::<f32>::new(&b, 8, LaunchOverrides::default()).unwrap();
    assert!(matches!(
        prepared.run(&b, &input, 0),
        Err(ReduceError::ForeignBuffer { .. })
    ));
}

use reduce_host::exact::ExactFloat;

#[test]
fn parallel_reference_is_the_reference() {
    for data in ExactData::ALL {
        let d = generate::<f64>(data, 300_001, 5);
        assert_eq!(
            reduce_host::exact::exact_sum_parallel(&d).to_bits(),
            exact_sum(&d).to_bits(),
            "{}",
            data.name()
        );
    }
}

#[test]
fn cli_checks_the_reference_and_rejects_integers() {
    let exe = env!("CARGO_BIN_EXE_reduce");
    let out = std::process::Command::new(exe)
        .args(["--backend", "emu", "exact", "--n", "1000", "--type", "f64"])
        .args(["--data", "cancellation", "--runs", "0", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let line = String::from_utf8(out.stdout).unwrap();
    let r: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(r["exact_matches_reference"], true, "{line}");
    assert_eq!(r["exact_bits"], r["reference_bits"], "{line}");
    let out = std::process::Command::new(exe)
        .args(["--backend", "emu", "exact", "--n", "10", "--type", "i32"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exact sums are for f32 and f64"));
}
