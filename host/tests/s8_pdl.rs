//! Stage 8's two-kernel form (`--combine pdl`: a grid of partials, then one block launched as a
//! programmatic dependent launch) on the CPU emulator: the same bits as the ticket form with the
//! same grid and block, for every operator and type stage 8 has, at edge sizes, odd grids, the
//! largest grid, misaligned starts; the plan checks; and `reduce sweep --combine ticket,pdl`.

mod common;

use common::*;
use reduce_host::*;

fn emu() -> Backend {
    Backend::Emulator(Emulator::default())
}

fn overrides(block: Option<usize>, grid: Option<usize>, combine: Combine) -> LaunchOverrides {
    LaunchOverrides {
        block,
        grid,
        combine: Some(combine),
    }
}

/// `data` with NaNs at every 17th element for the float types (the NaN-aware operators' case).
fn with_nans<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    let mut d = data::<T>(n, seed);
    if T::TYPE.is_float() {
        for x in d.iter_mut().step_by(17) {
            *x = T::from_f64(f64::NAN);
        }
    }
    d
}

/// Reduce `d[offset..]` with both combines on the same shape; both must be right (the reference
/// check) and the bits the same. Returns what the PDL plan was.
fn same_bits<T: Scalar>(
    b: &Backend,
    op: Op,
    d: &[T],
    offset: usize,
    block: Option<usize>,
    grid: Option<usize>,
) -> Result<Plan, String> {
    let input = b.upload(d).map_err(|e| e.to_string())?;
    let n = d.len() - offset;
    let mut got = Vec::new();
    let mut plans = Vec::new();
    for combine in Combine::ALL {
        let p = plan(
            Stage::S8,
            T::TYPE,
            op,
            n,
            overrides(block, grid, combine),
            b.caps(),
        )
        .map_err(|e| e.to_string())?;
        let prepared = Prepared::<T>::new(b, p).map_err(|e| e.to_string())?;
        let v = prepared.run(b, &input, offset).map_err(|e| e.to_string())?;
        let expected = Expected::of(op, &d[offset..]);
        // Min and max of nothing have no reference (the kernels return the identity).
        if expected.reference().is_some() && !expected.matches(v, &prepared.plan) {
            return Err(format!(
                "{combine} {op} {} n={n} {grid:?}: {v} is wrong",
                T::TYPE
            ));
        }
        got.push(v.to_bits64());
        plans.push(prepared.plan);
    }
    if got[0] != got[1] {
        return Err(format!(
            "{op} {} n={n} offset={offset} block={block:?} grid={grid:?}: ticket {:#x}, pdl {:#x}",
            T::TYPE,
            got[0],
            got[1]
        ));
    }
    Ok(plans.pop().expect("two plans"))
}

fn assert_none(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn pdl_gives_the_tickets_bits_for_every_op_and_type() {
    let b = emu();
    let mut failures = Vec::new();
    for &ty in Stage::S8.types() {
        for &op in Stage::S8.ops() {
            for (n, grid) in [(0, 2), (1, 2), (3, 3), (1001, 2), (4099, 3), (20_011, 7)] {
                let r = with_elem_type!(ty, T => same_bits::<T>(&b, op, &with_nans::<T>(n, n as u64), 0, Some(512), Some(grid)));
                match r {
                    Ok(p) if p.combine != Combine::Pdl => {
                        failures.push(format!("{op} {ty} n={n}: {:?}", p.combine))
                    }
                    Ok(_) => {}
                    Err(e) => failures.push(e),
                }
            }
        }
    }
    assert_none(failures);
}

#[test]
fn pdl_misaligned_starts_the_policys_grid_and_unbuilt_blocks() {
    let b = emu();
    let mut failures = Vec::new();
    for offset in 0..4 {
        let d = data::<f32>(30_011, 5);
        if let Err(e) = same_bits::<f32>(&b, Op::Sum, &d, offset, Some(512), Some(5)) {
            failures.push(e);
        }
        let d = data::<u64>(30_011, 6);
        if let Err(e) = same_bits::<u64>(&b, Op::Max, &d, offset, Some(512), Some(2)) {
            failures.push(e);
        }
    }
    // The policy's own grid (no override): 200k f64 on the emulated 4-SM device.
    match same_bits::<f64>(&b, Op::Sum, &data(200_003, 9), 0, None, None) {
        Ok(p) => assert_eq!(p.passes.len(), 2, "{p:?}"),
        Err(e) => failures.push(e),
    }
    assert_none(failures);
    // The pair is built for 512-thread blocks (the policy's for more than one block): other
    // blocks on more than one block are a typed error, on one block the one-kernel form.
    for block in [256, 1024] {
        let p = |grid| {
            plan(
                Stage::S8,
                ElemType::F32,
                Op::Sum,
                30_011,
                overrides(Some(block), Some(grid), Combine::Pdl),
                b.caps(),
            )
        };
        let e = p(3).unwrap_err();
        assert!(matches!(e, ReduceError::InvalidArgument(_)), "{e}");
        assert!(e.to_string().contains("--block 512"), "{e}");
        assert_eq!(p(1).unwrap().combine, Combine::Ticket);
    }
}

#[test]
fn pdl_with_the_largest_grid_most_blocks_empty() {
    // 4096 blocks (the partials workspace's limit) over 5000 elements: almost every block reads
    // nothing and stores the identity; the combine folds 4096 partials.
    let b = emu();
    let mut failures = Vec::new();
    let g = Some(plan::MAX_SINGLE_PASS_GRID);
    for r in [
        same_bits::<f32>(&b, Op::Sum, &data(5000, 1), 0, Some(512), g),
        same_bits::<i32>(&b, Op::Min, &data(5000, 2), 0, Some(512), g),
        same_bits::<f64>(&b, Op::NanMax, &with_nans(4097, 3), 1, Some(512), g),
    ] {
        if let Err(e) = r {
            failures.push(e);
        }
    }
    assert_none(failures);
}

#[test]
fn one_block_has_nothing_to_combine() {
    // Asked for PDL, a one-block input runs stage 8's one kernel (which writes the result
    // itself; a second launch would only add its cost): the ticket's plan.
    let b = emu();
    for n in [0, 1, 4096] {
        let p = |c| {
            plan(
                Stage::S8,
                ElemType::F32,
                Op::Sum,
                n,
                overrides(None, None, c),
                b.caps(),
            )
        };
        assert_eq!(
            p(Combine::Pdl).unwrap(),
            p(Combine::Ticket).unwrap(),
            "n = {n}"
        );
    }
}

#[test]
fn the_reducer_and_its_cache_take_the_combine() {
    let b = emu();
    let mut failures = Vec::new();
    for op in [Op::Sum, Op::Mean, Op::NanMean, Op::Count, Op::Prod] {
        for n in [7, 10_007] {
            let o = overrides(Some(512), Some(3), Combine::Pdl);
            let d = if matches!(op, Op::NanMean | Op::Count) {
                with_nans(n + 2, 4)
            } else {
                data(n + 2, 4)
            };
            if let Err(e) = check_reducer::<f32>(&b, op, &d, 2, o) {
                failures.push(e);
            }
        }
    }
    // An integer mean is exact through the wide kernels, which keep the ticket: the PDL
    // override must not stop it.
    for (n, grid) in [(9, 2), (70_001, 5)] {
        let o = overrides(Some(512), Some(grid), Combine::Pdl);
        if let Err(e) = check_reducer::<i32>(&b, Op::Mean, &data(n, 12), 0, o) {
            failures.push(e);
        }
    }
    assert_none(failures);
    let d = data::<f32>(123_457, 8);
    let input = b.upload(&d).unwrap();
    let mut r = Reducer::new(&b).with_overrides(overrides(Some(512), Some(7), Combine::Pdl));
    let first = r.sum(&input).unwrap();
    for _ in 0..3 {
        assert_eq!(
            r.sum(&input).unwrap().to_bits(),
            first.to_bits(),
            "deterministic"
        );
    }
}

#[test]
fn hand_edited_pdl_plans_are_rejected() {
    let b = emu();
    let ticket = plan(
        Stage::S8,
        ElemType::F32,
        Op::Sum,
        10_000,
        overrides(Some(512), Some(5), Combine::Ticket),
        b.caps(),
    )
    .unwrap();
    let pdl = plan(
        Stage::S8,
        ElemType::F32,
        Op::Sum,
        10_000,
        overrides(Some(512), Some(5), Combine::Pdl),
        b.caps(),
    )
    .unwrap();
    // The ticket's one pass labelled PDL, a PDL plan without its combine pass, a combine pass
    // with another block size: each is an error, not a launch.
    let mut relabelled = ticket.clone();
    relabelled.combine = Combine::Pdl;
    let mut one_pass = pdl.clone();
    one_pass.passes.truncate(1);
    let mut other_block = pdl.clone();
    other_block.passes[1].block = 256;
    for bad in [relabelled, one_pass, other_block] {
        let e = Prepared::<f32>::new(&b, bad).err().expect("rejected");
        assert!(matches!(e, ReduceError::InvalidArgument(_)), "{e}");
    }
    assert!(Prepared::<f32>::new(&b, pdl).is_ok());
}

#[test]
fn sweep_times_both_combines_in_one_process() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_reduce"))
        .args([
            "--backend",
            "emu",
            "sweep",
            "--exps",
            "12,15",
            "--grid",
            "3",
            "--block",
            "512",
            "--runs",
            "2",
            "--warmup",
            "1",
            "--combine",
            "ticket,pdl",
            "--protocol",
            "gated",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let pick = |name: &str, n: u64| {
        rows.iter()
            .find(|r| r["impl"] == name && r["n"] == n)
            .unwrap_or_else(|| panic!("no {name} row at n = {n} in:\n{text}"))
    };
    for n in [1 << 12, 1 << 15] {
        let (t, p) = (pick("rust_s8", n), pick("rust_s8_pdl", n));
        assert_eq!(t["correct"], true);
        assert_eq!(p["correct"], true);
        assert_eq!(t["result"], p["result"], "same bits at n = {n}");
        assert_eq!(
            (t["passes"].as_u64(), p["passes"].as_u64()),
            (Some(1), Some(2))
        );
    }
    // Another stage cannot take the option.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_reduce"))
        .args([
            "--backend",
            "emu",
            "run",
            "--stages",
            "7",
            "--combine",
            "pdl",
            "--n",
            "100",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("stage 8"));
}
