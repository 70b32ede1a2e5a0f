//! Every stage × element type on the CPU emulator, at every edge size, plus property tests and
//! proof that the emulator catches real kernel bugs. These run in CI, which has no GPU.

#[macro_use]
mod common;

use common::*;
use proptest::prelude::*;
use reduce_host::*;

fn emu() -> Backend {
    Backend::Emulator(Emulator::default())
}

fn multi_pass_edges(stage: Stage) {
    let b = emu();
    let mut failures = Vec::new();
    for &ty in stage.types() {
        for block in [stage.blocks()[0], 256] {
            for n in edge_sizes(block) {
                let o = LaunchOverrides {
                    block: Some(block),
                    grid: None,
                };
                let r = with_elem_type!(ty, T => check::<T>(&b, stage, Op::Sum, &data::<T>(n, n as u64), o));
                failures.extend(r.err());
            }
        }
        // A few hundred thousand elements: many blocks and (for stages 1–6) three passes.
        let r = with_elem_type!(ty, T => check::<T>(&b, stage, Op::Sum, &data::<T>(200_003, 9), LaunchOverrides::default()));
        failures.extend(r.err());
    }
    assert_no_failures(&failures);
}

// One test per multi-pass stage (they run in parallel): [`multi_pass_edges`].
test_each! {
    stage1_interleaved_divergent_edges => multi_pass_edges(Stage::S1),
    stage2_interleaved_strided_edges => multi_pass_edges(Stage::S2),
    stage3_sequential_edges => multi_pass_edges(Stage::S3),
    stage4_first_add_during_load_edges => multi_pass_edges(Stage::S4),
    stage5_unroll_last_warp_edges => multi_pass_edges(Stage::S5),
    stage6_complete_unroll_edges => multi_pass_edges(Stage::S6),
    stage7_grid_stride_edges => multi_pass_edges(Stage::S7),
}

#[test]
fn stage6_and_7_every_block_size() {
    let b = emu();
    for stage in [Stage::S6, Stage::S7] {
        for &block in stage.blocks() {
            for n in [block * 3 + 7, 10_000] {
                let o = LaunchOverrides {
                    block: Some(block),
                    grid: None,
                };
                check::<f32>(&b, stage, Op::Sum, &data(n, 1), o).unwrap();
                check::<i32>(&b, stage, Op::Sum, &data(n, 2), o).unwrap();
            }
        }
    }
}

#[test]
fn stage7_forced_grids() {
    let b = emu();
    for grid in [1, 2, 3, 7, 64] {
        check::<i32>(
            &b,
            Stage::S7,
            Op::Sum,
            &data(50_001, 3),
            LaunchOverrides {
                block: Some(64),
                grid: Some(grid),
            },
        )
        .unwrap();
    }
}

#[test]
fn stage8_every_op_and_type_edges() {
    let b = emu();
    let mut failures = Vec::new();
    for ty in ElemType::ALL {
        for op in Op::REDUCE {
            for n in edge_sizes(512).into_iter().chain([200_003]) {
                let r = with_elem_type!(ty, T => check_reducer::<T>(&b, op, &data::<T>(n + 3, n as u64), 3.min(n), LaunchOverrides::default()));
                failures.extend(r.err());
            }
        }
    }
    assert_no_failures(&failures);
}

#[test]
fn stage8_misaligned_starts_and_multi_block_grids() {
    let b = emu();
    for offset in 0..4 {
        for grid in [1, 2, 5] {
            for block in [256, 512, 1024] {
                let o = LaunchOverrides {
                    block: Some(block),
                    grid: Some(grid),
                };
                check_reducer::<f32>(&b, Op::Sum, &data(30_011, 5), offset, o).unwrap();
                check_reducer::<u64>(&b, Op::Max, &data(30_011, 6), offset, o).unwrap();
                check_reducer::<i32>(&b, Op::Min, &data(30_011, 7), offset, o).unwrap();
            }
        }
    }
}

#[test]
fn stage8_is_deterministic_across_runs() {
    let b = emu();
    let d = data::<f32>(123_457, 8);
    let input = b.upload(&d).unwrap();
    let o = LaunchOverrides {
        block: Some(256),
        grid: Some(7),
    };
    let mut r = Reducer::new(&b).with_overrides(o);
    let first = r.sum(&input).unwrap();
    for _ in 0..5 {
        assert_eq!(r.sum(&input).unwrap().to_bits(), first.to_bits());
    }
}

#[test]
fn empty_and_special_values() {
    let b = emu();
    let empty = b.upload::<f32>(&[]).unwrap();
    let mut r = Reducer::new(&b);
    assert_eq!(r.sum(&empty).unwrap(), 0.0);
    assert_eq!(r.min(&empty).unwrap(), None);
    assert_eq!(r.max(&empty).unwrap(), None);
    assert!(matches!(
        r.mean(&empty),
        Err(ReduceError::EmptyInput { op: Op::Mean })
    ));
    // The same-type integer sum wraps, exactly like the CPU reference.
    let big = b.upload(&[i32::MAX, 1, 5]).unwrap();
    assert_eq!(
        r.reduce(Op::Sum, &big).unwrap(),
        Some(i32::MIN.wrapping_add(5))
    );
    // `sum` of i32 is NumPy's: an i64.
    assert_eq!(r.sum(&big).unwrap(), i32::MAX as i64 + 6);
    // NaN propagates through sums and min/max (NumPy, PyTorch); nanmin/nanmax/nansum ignore it.
    let nan = b.upload(&[1.0f32, f32::NAN, -3.0]).unwrap();
    assert!(r.sum(&nan).unwrap().is_nan());
    assert!(r.min(&nan).unwrap().unwrap().is_nan());
    assert!(r.max(&nan).unwrap().unwrap().is_nan());
    assert_eq!(r.nanmin(&nan).unwrap(), Some(-3.0));
    assert_eq!(r.nanmax(&nan).unwrap(), Some(1.0));
    assert_eq!(r.nansum(&nan).unwrap(), -2.0);
    let m = b.upload(&[1u64, 2, 3, 4]).unwrap();
    assert_eq!(r.mean(&m).unwrap(), 2.5);
}

#[test]
fn a_reducer_over_many_lengths_keeps_a_bounded_cache() {
    let b = emu();
    let d = data::<i32>(100, 3);
    let input = b.upload(&d).unwrap();
    let mut r = Reducer::new(&b);
    for len in 1..=100 {
        let want = d[..len].iter().fold(0i32, |a, &x| a.wrapping_add(x));
        assert_eq!(
            input
                .slice(..len)
                .and_then(|view| r.reduce(Op::Sum, view))
                .unwrap(),
            Some(want)
        );
        assert!(r.cached_plans() <= Reducer::MAX_CACHED_PLANS);
    }
    assert!(r.cached_plans() > 0);
}

/// The timing helpers on the emulator: both protocols time every run (wall clock) and return the
/// right result; the GPU suite runs the same call on the device, where `Gated` queues the gate.
#[test]
fn timing_protocols_run_on_the_emulator() {
    use reduce_host::measure::{time_single_pass, Protocol};
    let b = emu();
    let input = b.upload(&vec![2i32; 3000]).unwrap();
    for protocol in [Protocol::Plain, Protocol::Gated] {
        let (v, t, plan) = time_single_pass(
            &b,
            Op::Sum,
            &input,
            LaunchOverrides::default(),
            1,
            3,
            protocol,
        )
        .unwrap();
        assert_eq!(v, 6000, "{protocol:?}");
        assert_eq!(t.runs_ms.len(), 3, "{protocol:?}");
        assert!(t.runs_ms.iter().all(|&ms| ms > 0.0), "{protocol:?}");
        assert_eq!(plan.stage, Stage::S8);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn every_stage_matches_the_reference(
        n in 0usize..6000,
        seed in any::<u64>(),
        stage in 1usize..=8,
        block_pick in 0usize..3,
        int in any::<bool>(),
    ) {
        let b = emu();
        let stage = Stage::from_number(stage).unwrap();
        let block = stage.blocks()[block_pick.min(stage.blocks().len() - 1)];
        let o = LaunchOverrides { block: Some(block), grid: None };
        let r = if int {
            check::<i32>(&b, stage, Op::Sum, &data(n, seed), o)
        } else {
            check::<f32>(&b, stage, Op::Sum, &data(n, seed), o)
        };
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }

    #[test]
    fn stage8_any_op_type_offset(
        n in 0usize..20_000,
        seed in any::<u64>(),
        ty in 0usize..6,
        op in 0usize..Op::REDUCE.len(),
        offset in 0usize..4,
        grid in proptest::option::of(1usize..9),
    ) {
        let b = emu();
        let o = LaunchOverrides { block: None, grid };
        let ty = ElemType::ALL[ty];
        let op = Op::REDUCE[op];
        let r = with_elem_type!(ty, T => check_reducer::<T>(&b, op, &data::<T>(n + offset, seed), offset, o));
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}
