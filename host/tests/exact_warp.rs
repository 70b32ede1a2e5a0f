//! The exact sum's warp finish (`ExactPolicy::warp_finish`, `reduce_kernels::exact::warp_finish`),
//! integer finish (`ExactPolicy::int_finish`, `reduce_kernels::exact::int_finish`) and warm
//! rounding (`ExactPolicy::warm_round`, `reduce_kernels::exact::warm`) on the CPU emulator: their
//! plans and typed errors, the same bits as the reference on every data family, launch shape and
//! edge case, the probe's stamps, and `reduce exact --probe=…`.

use reduce_host::exact::{
    exact_plan, exact_sum, generate, ExactData, ExactFloat, ExactPolicy, PreparedExact,
};
use reduce_host::*;

fn emu() -> Backend {
    Backend::Emulator(Emulator::default())
}

fn warp() -> ExactPolicy {
    ExactPolicy::default()
        .with_settings("warp_finish=1")
        .unwrap()
}

fn int() -> ExactPolicy {
    ExactPolicy::default()
        .with_settings("int_finish=1")
        .unwrap()
}

fn warm() -> ExactPolicy {
    ExactPolicy::default()
        .with_settings("warm_round=1")
        .unwrap()
}

/// Both finishes and the warm rounding, each on the fast and the plain f32 kernel.
fn finishes() -> Vec<ExactPolicy> {
    [warp(), int(), warm()]
        .into_iter()
        .flat_map(|p| {
            [
                p,
                ExactPolicy {
                    fast_f32: false,
                    ..p
                },
            ]
        })
        .collect()
}

/// Each of `bad` is refused with a typed policy error naming `key` (an f32 plan of 2^20).
fn rejects(caps: &DeviceCaps, bad: &[ExactPolicy], key: &str) {
    for policy in bad {
        match exact_plan(
            ElemType::F32,
            1 << 20,
            LaunchOverrides::default(),
            caps,
            *policy,
        ) {
            Err(ReduceError::Policy { key: k, .. }) => assert_eq!(k, key, "{policy:?}"),
            other => panic!("{policy:?}: {other:?}"),
        }
    }
}

#[test]
fn plans_name_the_warp_kernels_and_reject_other_combinations() {
    let caps = emu().caps().clone();
    let o = LaunchOverrides::default();
    let w = warp();
    assert!(w.warp_finish && w.lean_finish && w.fast_f32 && !w.fast_f64);
    for (policy, ty, kernel) in [
        (w, ElemType::F32, "reduce_exact_fast_warp_sum_b256_f32"),
        (w, ElemType::F64, "reduce_exact_warp_sum_b256_f64"),
        (
            ExactPolicy {
                fast_f32: false,
                ..w
            },
            ElemType::F32,
            "reduce_exact_warp_sum_b256_f32",
        ),
        (
            ExactPolicy { probe: true, ..w },
            ElemType::F32,
            "reduce_exact_fast_warp_probe_r80_sum_b256_f32",
        ),
        (
            ExactPolicy { probe: true, ..w },
            ElemType::F64,
            "reduce_exact_warp_probe_r80_sum_b256_f64",
        ),
    ] {
        let p = exact_plan(ty, 1 << 20, o, &caps, policy).unwrap();
        assert_eq!(p.kernel, kernel);
        // The same shared memory as the default: the words, their carries, one expansion per
        // warp; a probe's stamps after the grid's words.
        assert_eq!(p.shared_bytes, 16 * (p.slots + 256 / 32));
        let stamps = if policy.probe { 8 * p.grid } else { 0 };
        assert_eq!(p.workspace, p.slots + stamps);
    }
    rejects(
        &caps,
        &[
            ExactPolicy {
                block_merge: true,
                lean_finish: false,
                ..w
            },
            ExactPolicy {
                lean_finish: false,
                ..w
            },
            ExactPolicy { pipeline: 1, ..w },
            ExactPolicy { pipeline: 2, ..w },
        ],
        "warp_finish",
    );
    match ExactPolicy::default().with_settings("warp_finish=2") {
        Err(ReduceError::Policy { key, .. }) => assert_eq!(key, "warp_finish"),
        other => panic!("{other:?}"),
    }
    // The integer finish: its kernels, a slot of 11 words per warp after the words, its errors.
    let i = int();
    for (policy, ty, kernel, block) in [
        (i, ElemType::F32, "reduce_exact_fast_int_sum_b256_f32", 256),
        (i, ElemType::F64, "reduce_exact_int_sum_b512_f64", 512),
        (
            ExactPolicy { probe: true, ..i },
            ElemType::F64,
            "reduce_exact_int_probe_r80_sum_b256_f64",
            256,
        ),
    ] {
        let ob = LaunchOverrides {
            block: Some(block),
            ..o
        };
        let p = exact_plan(ty, 1 << 20, ob, &caps, policy).unwrap();
        assert_eq!(p.kernel, kernel);
        assert_eq!(p.shared_bytes, 8 * (p.slots + 11 * block / 32));
    }
    let m = warm();
    let p = exact_plan(ElemType::F32, 1 << 20, o, &caps, m).unwrap();
    assert_eq!(p.kernel, "reduce_exact_fast_warm_sum_b256_f32");
    let p = exact_plan(
        ElemType::F64,
        1 << 20,
        o,
        &caps,
        ExactPolicy { probe: true, ..m },
    )
    .unwrap();
    assert_eq!(p.kernel, "reduce_exact_warm_probe_r80_sum_b256_f64");
    rejects(
        &caps,
        &[
            ExactPolicy {
                int_finish: true,
                ..m
            },
            ExactPolicy { pipeline: 2, ..m },
        ],
        "warm_round",
    );
    rejects(
        &caps,
        &[
            ExactPolicy {
                warp_finish: true,
                ..i
            },
            ExactPolicy {
                lean_finish: false,
                ..i
            },
            ExactPolicy { pipeline: 1, ..i },
        ],
        "int_finish",
    );
}

fn check<T: ExactFloat>(b: &Backend, d: &[T], policy: ExactPolicy, o: LaunchOverrides) {
    let p = PreparedExact::<T>::with_policy(b, d.len(), o, policy).unwrap();
    let input = b.upload(d).unwrap();
    let want = exact_sum(d);
    for run in 0..2 {
        // The second run checks that the first left the grid's words and the ticket zeroed.
        let got = p.run(b, &input, 0).unwrap();
        assert!(
            got.to_bits64() == want.to_bits64(),
            "{} grid {} block {} n={} run {run}: got {:e} ({:#x}), want {:e} ({:#x})",
            p.plan.kernel,
            p.plan.grid,
            p.plan.block,
            d.len(),
            got.to_f64(),
            got.to_bits64(),
            want.to_f64(),
            want.to_bits64()
        );
    }
}

#[test]
fn warp_finish_matches_the_reference_on_every_family_and_shape() {
    let b = emu();
    let w = warp();
    let plain = ExactPolicy {
        fast_f32: false,
        ..w
    };
    let fast64 = ExactPolicy {
        fast_f64: true,
        ..w
    };
    for data in ExactData::ALL {
        for n in [1usize, 5, 4099, 20_011] {
            for (block, grid) in [(None, None), (None, Some(1)), (Some(512), Some(5))] {
                let o = LaunchOverrides { block, grid };
                let ints = [
                    int(),
                    ExactPolicy {
                        fast_f64: true,
                        ..int()
                    },
                    warm(),
                    ExactPolicy {
                        fast_f32: false,
                        ..warm()
                    },
                ];
                for p in [w, plain, fast64].into_iter().chain(ints) {
                    check(&b, &generate::<f32>(data, n, n as u64), p, o);
                    check(&b, &generate::<f64>(data, n, n as u64 + 1), p, o);
                }
            }
        }
    }
}

#[test]
fn warp_finish_edge_cases_and_inexact_merges() {
    let b = emu();
    let shapes = [None, Some(1), Some(3)].map(|grid| LaunchOverrides { block: None, grid });
    let cases: Vec<Vec<f64>> = vec![
        vec![],
        vec![-0.0],
        vec![-0.0; 70],
        vec![0.0, -0.0],
        vec![1e300, 1.0, -1e300],
        vec![f64::MAX; 9],
        vec![f64::MAX, f64::MAX, -f64::MAX],
        vec![-f64::MAX, -f64::MAX, f64::MAX],
        vec![f64::INFINITY, 1.0],
        vec![f64::NEG_INFINITY, 5.0, f64::INFINITY],
        vec![f64::NEG_INFINITY; 4],
        vec![f64::NAN; 3],
        vec![f64::from_bits(1); 33],
        vec![1.0, 2f64.powi(-53)],
        vec![1.0, 2f64.powi(-53), 2f64.powi(-106)],
    ];
    for c in cases {
        let c32: Vec<f32> = c.iter().map(|&x| x as f32).collect();
        for o in shapes {
            for p in finishes() {
                check(&b, &c, p, o);
                check(&b, &c32, p, o);
            }
        }
    }
    // Warps whose sums differ by many binades, so that warp 0's merges of the warps'
    // expansions are inexact and spill into the words: each warp's 128 elements (one tile of
    // four vectors per thread: 4 · 32 · 4 f32) are one value, 2^(40 - 9·warp) plus 2^-60.
    let d: Vec<f32> = (0..4 * 256 * 4usize)
        .map(|i| {
            let warp = (i % 1024) / 128;
            2f32.powi(40 - 9 * warp as i32) + 2f32.powi(-60) * (i % 3) as f32
        })
        .collect();
    let d64: Vec<f64> = d.iter().map(|&x| x as f64 * 2f64.powi(600)).collect();
    for o in shapes {
        for p in finishes() {
            check(&b, &d, p, o);
            check(&b, &d64, p, o);
        }
    }
    // Values 2^-600 … 2^600 apart inside every warp: most of a warp's digits fall below its
    // window and take the integer finish's spill path; ± pairs cancel across warps.
    let wide: Vec<f64> = (0..6000usize)
        .map(|i| {
            let v = 2f64.powi(600 - 37 * (i % 33) as i32) * (1.0 + (i % 7) as f64 / 8.0);
            if i % 5 == 0 {
                -v
            } else {
                v
            }
        })
        .collect();
    let wide32: Vec<f32> = wide.iter().map(|&x| (x * 2f64.powi(-560)) as f32).collect();
    for o in shapes {
        for p in finishes() {
            check(&b, &wide, p, o);
            check(&b, &wide32, p, o);
        }
    }
}

#[test]
fn warp_probe_keeps_the_bits_and_stamps_every_block_in_order() {
    let b = emu();
    for probe in [warp(), int(), warm()].map(|p| ExactPolicy { probe: true, ..p }) {
        for grid in [None, Some(1), Some(7)] {
            let o = LaunchOverrides { block: None, grid };
            let d = generate::<f32>(ExactData::Cancellation, 20_011, 9);
            let p = PreparedExact::<f32>::with_policy(&b, d.len(), o, probe).unwrap();
            let got = p.run(&b, &b.upload(&d).unwrap(), 0).unwrap();
            assert_eq!(got.to_bits(), exact_sum(&d).to_bits(), "{}", p.plan.kernel);
            let stamps = p.stamps(&b).unwrap();
            assert_eq!(stamps.len(), p.plan.grid);
            assert_eq!(stamps.iter().filter(|s| s.last).count(), 1, "{stamps:?}");
            for s in &stamps {
                assert!(s.cycles.windows(2).all(|w| w[0] <= w[1]), "{s:?}");
            }
        }
    }
}

#[test]
fn cli_probe_takes_a_policy() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_reduce"))
        .args(["--backend", "emu", "exact", "--n", "9000", "--type", "f64"])
        .args(["--data", "binades", "--runs", "0", "--grid", "5"])
        .args(["--probe=warp_finish=1", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let probe: serde_json::Value = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|r| r["kind"] == "exact_probe")
        .unwrap_or_else(|| panic!("no exact_probe record: {text}"));
    assert_eq!(probe["kernel"], "reduce_exact_warp_probe_r80_sum_b256_f64");
    assert_eq!(probe["exact_matches_reference"], true);
    assert_eq!(probe["summary"]["blocks"], 5);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_reduce"))
        .args(["--backend", "emu", "exact", "--n", "90", "--runs", "0"])
        .args(["--probe=warp_finish=1,pipeline=1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("warp_finish"),
        "{out:?}"
    );
}
