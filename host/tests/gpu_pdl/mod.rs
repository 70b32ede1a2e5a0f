//! The GPU suite's tests of stage 8's two-kernel form (`Combine::Pdl`: the grid's partials, then
//! one block launched with `cuLaunchKernelEx` as a programmatic dependent launch): the same bits
//! as the ticket form with the same grid, for every operator and type, at sizes from one wave to
//! many; bit-identical reruns; back-to-back launches without a synchronization between them.

use crate::common::*;
use crate::{gpu, Test};
use libtest_mimic::Failed;
use reduce_host::*;

/// This module's tests, in the order they run.
pub fn tests() -> Vec<(&'static str, Test)> {
    tests![
        pdl_matches_the_ticket_bits_every_op_and_type,
        pdl_reruns_and_back_to_back_launches,
    ]
}

fn o(combine: Combine, grid: Option<usize>) -> LaunchOverrides {
    LaunchOverrides {
        block: None,
        grid,
        combine: Some(combine),
    }
}

/// Run `op` on `input[offset..]` with `combine`; the value and the plan.
fn run<T: Scalar>(
    b: &Backend,
    op: Op,
    input: &Buffer<T>,
    offset: usize,
    combine: Combine,
    grid: Option<usize>,
    result_in: ResultIn,
) -> Result<(T, Plan), ReduceError> {
    let n = input.len() - offset;
    let p = plan(Stage::S8, T::TYPE, op, n, o(combine, grid), b.caps())?;
    let prepared = Prepared::<T>::with_result_in(b, p, result_in)?;
    Ok((prepared.run(b, input, offset)?, prepared.plan))
}

fn same_bits<T: Scalar>(
    b: &Backend,
    op: Op,
    d: &[T],
    offset: usize,
    grid: Option<usize>,
) -> Result<(), Failed> {
    let input = b.upload(d)?;
    let expected = Expected::of(op, &d[offset..]);
    let mut bits = Vec::new();
    for (combine, result_in) in [
        (Combine::Ticket, ResultIn::MappedHost),
        (Combine::Pdl, ResultIn::MappedHost),
        (Combine::Pdl, ResultIn::DeviceMemory),
    ] {
        let (v, p) = run(b, op, &input, offset, combine, grid, result_in)?;
        if expected.reference().is_some() && !expected.matches(v, &p) {
            return Err(format!("{combine} {op} {} n={}: {v} is wrong", T::TYPE, d.len()).into());
        }
        if combine == Combine::Pdl && p.passes[0].grid > 1 && p.passes.len() != 2 {
            return Err(format!("{op} {}: a PDL plan of one pass: {p:?}", T::TYPE).into());
        }
        bits.push(v.to_bits64());
    }
    if bits.iter().any(|&x| x != bits[0]) {
        return Err(format!(
            "{op} {} n={} offset={offset} grid={grid:?}: ticket / pdl / pdl (device memory) \
             bits {bits:x?}",
            T::TYPE,
            d.len()
        )
        .into());
    }
    Ok(())
}

/// Every operator and type of stage 8 at a one-wave size, a forced odd grid and a many-block
/// size (the policy's grid), misaligned; f32 sums at every even exponent 2^14..2^26.
pub fn pdl_matches_the_ticket_bits_every_op_and_type() -> Result<(), Failed> {
    let b = gpu();
    for &ty in Stage::S8.types() {
        for &op in Stage::S8.ops() {
            for (n, offset, grid) in [(20_011, 0, Some(3)), ((1 << 22) + 5, 1, None)] {
                with_elem_type!(ty, T => same_bits::<T>(&b, op, &data::<T>(n + offset, n as u64), offset, grid))?;
            }
        }
    }
    for e in (14..=26).step_by(2) {
        same_bits::<f32>(&b, Op::Sum, &data::<f32>(1 << e, e as u64), 0, None)?;
    }
    // The largest grid: 4096 blocks, most of them reading a tile or less.
    same_bits::<f64>(&b, Op::Sum, &data::<f64>(1 << 20, 3), 0, Some(4096))?;
    println!("ticket and PDL agree bit for bit: every op and type, f32 sums 2^14..2^26, grid 4096");
    Ok(())
}

/// 50 reruns of one prepared PDL reduction give the same bits; 20 different inputs queued
/// back to back (no synchronization between them, one prepared plan each) are each right.
pub fn pdl_reruns_and_back_to_back_launches() -> Result<(), Failed> {
    let b = gpu();
    let n = (1 << 24) + 3;
    let d = data::<f32>(n, 11);
    let input = b.upload(&d)?;
    let p = plan(
        Stage::S8,
        ElemType::F32,
        Op::Sum,
        n,
        o(Combine::Pdl, None),
        b.caps(),
    )?;
    let prepared = Prepared::<f32>::new(&b, p)?;
    let first = prepared.run(&b, &input, 0)?;
    for k in 0..50 {
        let again = prepared.run(&b, &input, 0)?;
        if again.to_bits() != first.to_bits() {
            return Err(format!("rerun {k}: {again} != {first}").into());
        }
    }
    // Back to back on one stream: each grid starts only after the combine before it (plain
    // stream order), each combine after its own grid (the dependent launch).
    let datas: Vec<Vec<f32>> = (0..20)
        .map(|k| data::<f32>((1 << 20) + k, k as u64))
        .collect();
    let mut queued = Vec::new();
    for d in &datas {
        let input = b.upload(d)?;
        let p = plan(
            Stage::S8,
            ElemType::F32,
            Op::Sum,
            d.len(),
            o(Combine::Pdl, None),
            b.caps(),
        )?;
        let prepared = Prepared::<f32>::with_result_in(&b, p, ResultIn::DeviceMemory)?;
        prepared.enqueue(&b, &input, 0)?;
        queued.push((input, prepared));
    }
    // The same partials workspace reused back to back, too.
    let shared_plan = plan(
        Stage::S8,
        ElemType::F32,
        Op::Sum,
        datas[0].len(),
        o(Combine::Pdl, None),
        b.caps(),
    )?;
    let reused = Prepared::<f32>::with_result_in(&b, shared_plan, ResultIn::DeviceMemory)?;
    for _ in 0..10 {
        reused.enqueue(&b, &queued[0].0, 0)?;
    }
    b.synchronize()?;
    for (d, (_, prepared)) in datas.iter().zip(&queued) {
        let v = prepared.read_result(&b)?;
        if !Expected::of(Op::Sum, d).matches(v, &prepared.plan) {
            return Err(format!("back-to-back n={}: {v} is wrong", d.len()).into());
        }
    }
    let v = reused.read_result(&b)?;
    if !Expected::of(Op::Sum, &datas[0]).matches(v, &reused.plan) {
        return Err(format!("reused workspace: {v} is wrong").into());
    }
    println!("PDL: 50 bit-identical reruns at 2^24 + 3; 30 back-to-back launches right");
    Ok(())
}
