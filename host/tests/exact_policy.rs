//! The exact sum's policy (`ExactPolicy`, `reduce exact --policy`): its settings and errors, the
//! plans it gives (the fast-path kernels, fewer blocks at small N), and the fast-path kernels on
//! the CPU emulator — the same bits as the reference on adversarial data, every launch shape.

mod common;

use common::exact_edge_inputs;
use reduce_host::exact::ExactData;
use reduce_host::exact::{exact_plan, generate, ExactFloat, ExactPolicy, PreparedExact};
use reduce_host::*;
use reduce_kernels::table::{Family, KernelId, Op};

/// The exact-sum kernel of `family` for `ty` with `block` threads.
fn exact_kernel(family: Family, ty: ElemType, block: usize) -> KernelId {
    KernelId {
        family,
        ty,
        op: Op::Sum,
        block,
    }
}

fn emu() -> Backend {
    Backend::Emulator(Emulator::default())
}

const FAST: ExactPolicy = ExactPolicy {
    block: 256,
    blocks_per_sm: 3,
    min_tiles: 1,
    fast_f32: true,
    fast_f64: true,
};

/// Both paths off: the general path for f32 and f64.
const PLAIN: ExactPolicy = ExactPolicy {
    fast_f32: false,
    fast_f64: false,
    ..FAST
};

#[test]
fn settings_set_each_key_and_name_the_bad_one() {
    let p = ExactPolicy::default()
        .with_settings("fast_f32=1, blocks_per_sm=4,min_tiles=2^4,block=512")
        .unwrap();
    assert_eq!(
        p,
        ExactPolicy {
            block: 512,
            blocks_per_sm: 4,
            min_tiles: 16,
            fast_f32: true,
            fast_f64: false,
        }
    );
    let p = ExactPolicy::default()
        .with_settings("fast_f32=0,fast_f64=1,blocks_per_sm=6")
        .unwrap();
    assert!(!p.fast_f32 && p.fast_f64 && p.blocks_per_sm == 6);
    assert_eq!(
        ExactPolicy::default().with_settings("").unwrap(),
        ExactPolicy::default()
    );
    for (text, key) in [
        ("fast_f32=2", "fast_f32"),
        ("block=300", "block"),
        ("blocks_per_sm=0", "blocks_per_sm"),
        ("min_tiles=0", "min_tiles"),
        ("warp=1", "warp"),
        ("fast_f64", "fast_f64"),
        ("fast_f64=yes", "fast_f64"),
        ("max_regs=64", "max_regs"),
        ("prefetch=1", "prefetch"),
    ] {
        match ExactPolicy::default().with_settings(text) {
            Err(ReduceError::Policy { key: k, .. }) => assert_eq!(k, key, "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
    // The switches of the kernels that lost their measurements are gone: each is now an
    // unknown key, a typed error that names it and lists the keys there are.
    for key in [
        "block_merge",
        "lean_finish",
        "pipeline",
        "probe",
        "warp_finish",
        "int_finish",
        "warm_round",
    ] {
        for value in ["0", "1"] {
            let text = format!("fast_f32=1,{key}={value}");
            match ExactPolicy::default().with_settings(&text) {
                Err(ReduceError::Policy { key: k, why }) => {
                    assert_eq!(k, key, "{text}");
                    assert!(why.starts_with("unknown key"), "{text}: {why}");
                    assert!(why.contains("fast_f64"), "{text}: {why}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }
}

#[test]
fn plans_pick_the_variant_and_fewer_blocks_at_small_n() {
    let caps = emu().caps().clone();
    let o = LaunchOverrides::default();
    let d = ExactPolicy::default();
    // The defaults: the fast path for f32 (measured faster at every N), the plain kernel for
    // f64, both with the lean publish. `fast_f64=1` (in `FAST`): the fast path for f64 (data
    // whose additions are exact).
    let (fast, lean) = (Family::ExactFastLean, Family::ExactLean);
    for (ty, policy, family) in [
        (ElemType::F32, d, fast),
        (ElemType::F64, d, lean),
        (ElemType::F32, PLAIN, lean),
        (ElemType::F32, FAST, fast),
        (ElemType::F64, FAST, fast),
    ] {
        let p = exact_plan(ty, 1 << 20, o, &caps, policy).unwrap();
        assert_eq!(p.kernel, exact_kernel(family, ty, 256), "{ty} {policy:?}");
    }
    let p = exact_plan(ElemType::F32, 1 << 20, o, &caps, PLAIN).unwrap();
    assert_eq!(p.shared_bytes, 16 * (11 + 4 + 256 / 32));
    let p = exact_plan(ElemType::F64, 1 << 20, o, &caps, FAST).unwrap();
    assert_eq!(p.shared_bytes, 16 * (68 + 4 + 256 / 32));
    assert_eq!(p.slots, 68 + 4);
    // An input of exactly one tile (2^12 f64 = 2048 vectors = 512 threads × 4) is one block: no
    // global atomics, no ticket.
    let p = exact_plan(ElemType::F64, 1 << 12, o, &caps, d).unwrap();
    assert_eq!((p.grid, p.block), (1, 512));
    let p = exact_plan(ElemType::F32, 1 << 12, o, &caps, d).unwrap();
    assert_eq!(p.grid, 1);
    // min_tiles: 2^16 f64 is 32 tiles of 256 × 4 vectors.
    let p = exact_plan(ElemType::F64, 1 << 16, o, &caps, d).unwrap();
    let wide = ExactPolicy { min_tiles: 8, ..d };
    let q = exact_plan(ElemType::F64, 1 << 16, o, &caps, wide).unwrap();
    assert_eq!(q.grid, 4.min(caps.sm_count * 3));
    assert!(q.grid <= p.grid);
    let one = ExactPolicy {
        min_tiles: 1 << 20,
        ..d
    };
    assert_eq!(
        exact_plan(ElemType::F64, 1 << 16, o, &caps, one)
            .unwrap()
            .grid,
        1
    );
    // blocks_per_sm caps the grid of a large input.
    let big = exact_plan(ElemType::F32, 1 << 26, o, &caps, d).unwrap();
    assert_eq!(big.grid, caps.sm_count * 3);
    let four = ExactPolicy {
        blocks_per_sm: 4,
        ..d
    };
    let big4 = exact_plan(ElemType::F32, 1 << 26, o, &caps, four).unwrap();
    assert_eq!(big4.grid, caps.sm_count * 4);
}

fn check<T: ExactFloat>(b: &Backend, d: &[T], policy: ExactPolicy, o: LaunchOverrides) {
    let p = PreparedExact::<T>::with_policy(b, d.len(), o, policy).unwrap();
    let got = p.run(b, &b.upload(d).unwrap(), 0).unwrap();
    let want = reduce_host::exact::exact_sum(d);
    assert!(
        got.to_bits64() == want.to_bits64() || (got.to_f64().is_nan() && want.to_f64().is_nan()),
        "{} grid {} n={}: got {:e} ({:#x}), want {:e} ({:#x})",
        p.plan.kernel,
        p.plan.grid,
        d.len(),
        got.to_f64(),
        got.to_bits64(),
        want.to_f64(),
        want.to_bits64()
    );
}

#[test]
fn fast_kernels_match_the_reference_on_every_family() {
    let b = emu();
    for data in ExactData::ALL {
        for n in [1usize, 5, 4099] {
            for grid in [None, Some(1), Some(5)] {
                let o = LaunchOverrides { block: None, grid };
                for p in [FAST, PLAIN] {
                    check(&b, &generate::<f32>(data, n, n as u64), p, o);
                    check(&b, &generate::<f64>(data, n, n as u64 + 1), p, o);
                }
            }
        }
    }
}

#[test]
fn fast_kernels_on_inputs_that_defeat_the_fast_test() {
    let b = emu();
    let o = LaunchOverrides::default();
    // Every addition inexact: a running sum of 2^60 (cancelled by the last element) and
    // elements below its last bit (4500 vectors: whole tiles, the tile fast path and its redo);
    // then ties, subnormals and the IEEE specials.
    let mut d = vec![2f32.powi(60)];
    for i in 0..18_000 {
        d.push(if i % 2 == 0 {
            1.0 + 2f32.powi(-20)
        } else {
            3.0
        });
    }
    d.push(-(2f32.powi(60)));
    let d64: Vec<f64> = d.iter().map(|&x| x as f64 * 2f64.powi(40)).collect();
    // The default grid, then one block: four whole tiles (each redone on the general path),
    // then the partial tile.
    let one = LaunchOverrides { grid: Some(1), ..o };
    for p in [FAST, PLAIN] {
        for shape in [o, one] {
            check(&b, &d, p, shape);
            check(&b, &d64, p, shape);
        }
    }
    for c in exact_edge_inputs(70, 9, 33) {
        let c32: Vec<f32> = c.iter().map(|&x| x as f32).collect();
        for p in [FAST, PLAIN] {
            check(&b, &c, p, o);
            check(&b, &c32, p, o);
        }
    }
}

#[test]
fn cli_policy_records_are_checked_and_bad_policies_rejected() {
    let exe = env!("CARGO_BIN_EXE_reduce");
    let out = std::process::Command::new(exe)
        // 2250 vectors: more than one tile of the largest block, so the policy's block applies.
        .args(["--backend", "emu", "exact", "--n", "9000", "--type", "f32"])
        .args(["--data", "binades", "--runs", "0", "--format", "json"])
        .args([
            "--policy",
            "fast_f32=1",
            "--policy",
            "min_tiles=8,block=512",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let recs: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(recs.len(), 3, "{text}");
    let want = recs[0]["reference_bits"].clone();
    for (r, kernel) in recs[1..].iter().zip([
        "reduce_exact_fast_lean_sum_b256_f32",
        "reduce_exact_fast_lean_sum_b512_f32", // the default's fast path, in the policy's block
    ]) {
        assert_eq!(r["kind"], "exact_policy");
        assert_eq!(r["kernel"], kernel, "{r}");
        assert_eq!(r["exact_bits"], want, "{r}");
        assert_eq!(r["exact_matches_reference"], true);
    }
    let out = std::process::Command::new(exe)
        .args(["--backend", "emu", "exact", "--n", "10", "--runs", "0"])
        .args(["--policy", "fast_f32=maybe"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("fast_f32"),
        "{out:?}"
    );
}
