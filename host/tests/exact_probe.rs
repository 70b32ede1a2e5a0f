//! The exact sum's probe kernels (`ExactPolicy::probe`, `reduce exact --probe`) on the CPU
//! emulator: the default kernels' bits, and stamps that read back as one ordered record per
//! block with exactly one last block.

use reduce_host::exact::{
    exact_plan, exact_sum, generate, ExactData, ExactFloat, ExactPolicy, PreparedExact,
    ProbeSummary,
};
use reduce_host::*;

fn emu() -> Backend {
    Backend::Emulator(Emulator::default())
}

const PROBE: ExactPolicy = ExactPolicy {
    block: 256,
    blocks_per_sm: 3,
    min_tiles: 1,
    fast_f32: true,
    fast_f64: false,
    block_merge: false,
    lean_finish: true,
    pipeline: 0,
    probe: true,
    warp_finish: false,
    int_finish: false,
    warm_round: false,
};

#[test]
fn probe_plans_name_the_probe_kernels_and_hold_the_stamps() {
    let caps = emu().caps().clone();
    let o = LaunchOverrides::default();
    let p = exact_plan(ElemType::F32, 1 << 20, o, &caps, PROBE).unwrap();
    assert_eq!(p.kernel, "reduce_exact_fast_probe_r80_sum_b256_f32");
    assert_eq!(p.workspace, p.slots + 8 * p.grid);
    let p = exact_plan(ElemType::F64, 1 << 20, o, &caps, PROBE).unwrap();
    assert_eq!(p.kernel, "reduce_exact_probe_r80_sum_b256_f64");
    let plain = exact_plan(ElemType::F64, 1 << 20, o, &caps, ExactPolicy::default()).unwrap();
    assert_eq!(plain.workspace, plain.slots);
    assert_eq!(
        ExactPolicy::default().with_settings("probe=1").unwrap(),
        ExactPolicy {
            probe: true,
            ..ExactPolicy::default()
        }
    );
    for bad in [
        ExactPolicy {
            pipeline: 1,
            ..PROBE
        },
        ExactPolicy {
            lean_finish: false,
            ..PROBE
        },
        ExactPolicy {
            block_merge: true,
            lean_finish: false,
            ..PROBE
        },
    ] {
        match exact_plan(ElemType::F32, 1 << 20, o, &caps, bad) {
            Err(ReduceError::Policy { key, .. }) => assert_eq!(key, "probe"),
            other => panic!("{bad:?}: {other:?}"),
        }
    }
}

fn probe_run<T: ExactFloat>(b: &Backend, d: &[T], grid: Option<usize>) {
    let o = LaunchOverrides { block: None, grid };
    let p = PreparedExact::<T>::with_policy(b, d.len(), o, PROBE).unwrap();
    let input = b.upload(d).unwrap();
    let got = p.run(b, &input, 0).unwrap();
    assert_eq!(
        got.to_bits64(),
        exact_sum(d).to_bits64(),
        "{}",
        p.plan.kernel
    );
    let stamps = p.stamps(b).unwrap();
    assert_eq!(stamps.len(), p.plan.grid);
    assert_eq!(stamps.iter().filter(|s| s.last).count(), 1, "{stamps:?}");
    for s in &stamps {
        assert!(s.cycles.windows(2).all(|w| w[0] <= w[1]), "{s:?}");
        assert!(s.entry_ns <= s.exit_ns, "{s:?}");
    }
    let summary = ProbeSummary::of(&stamps);
    assert_eq!(summary.blocks, p.plan.grid);
    assert!(summary.stream.max >= summary.stream.median);
    // A second launch overwrites the stamps, and the grid's words were left zeroed.
    assert_eq!(
        p.run(b, &input, 0).unwrap().to_bits64(),
        got.to_bits64(),
        "rerun"
    );
}

#[test]
fn probe_kernels_keep_the_bits_and_stamp_every_block() {
    let b = emu();
    for data in [
        ExactData::Uniform,
        ExactData::Cancellation,
        ExactData::Binades,
    ] {
        for grid in [None, Some(1), Some(7)] {
            probe_run(&b, &generate::<f32>(data, 20_011, 3), grid);
            probe_run(&b, &generate::<f64>(data, 10_007, 4), grid);
        }
    }
    // A plan that is not a probe's has no stamps: a typed error.
    let p = PreparedExact::<f32>::new(&b, 100, LaunchOverrides::default()).unwrap();
    assert!(matches!(
        p.stamps(&b),
        Err(ReduceError::InvalidArgument(m)) if m.contains("probe")
    ));
}

#[test]
fn cli_probe_prints_a_checked_summary() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_reduce"))
        .args(["--backend", "emu", "exact", "--n", "9000", "--type", "f64"])
        .args([
            "--data", "binades", "--runs", "0", "--warmup", "1", "--grid", "5",
        ])
        .args(["--probe", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let probe: serde_json::Value = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|r| r["kind"] == "exact_probe")
        .unwrap_or_else(|| panic!("no exact_probe record: {text}"));
    assert_eq!(probe["kernel"], "reduce_exact_probe_r80_sum_b256_f64");
    assert_eq!(probe["exact_matches_reference"], true);
    assert_eq!(probe["summary"]["blocks"], 5);
}
