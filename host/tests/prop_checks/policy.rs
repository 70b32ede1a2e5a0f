//! Tuning policies built field by field (their fields are public, so nothing but the plan checks
//! them): `AxisPolicy` through `PreparedAxis`, `ArgPolicy` through `PreparedArg::with_policy`,
//! `ExactPolicy` through `PreparedExact::with_policy` — zeros, odd and huge values included.
//! Each gives the reference result or a typed error.

use super::reduce::pad;
use super::*;
use reduce_host::exact::{exact_blocks, ExactPolicy};

/// A policy count other than the default: 0, 1, small, a non-power of two, huge.
fn bent() -> BoxedStrategy<usize> {
    prop_oneof![
        1 => Just(0usize),
        1 => Just(1usize),
        1 => 2usize..40,
        1 => prop::sample::select(vec![3usize, 48, 100, 257, 1000]),
        1 => prop::sample::select(vec![1usize << 20, 1 << 40, usize::MAX]),
    ]
    .boxed()
}

/// Field `k` (of nine) of an axis policy.
fn axis_field(k: usize, p: &mut AxisPolicy) -> &mut usize {
    match k % 9 {
        0 => &mut p.blocks_per_sm,
        1 => &mut p.vectors_per_lane,
        2 => &mut p.segment_piece,
        3 => &mut p.col_tile,
        4 => &mut p.min_col_tiles,
        5 => &mut p.min_piece,
        6 => &mut p.row_unroll,
        7 => &mut p.col_blocks_per_sm,
        _ => &mut p.segment_blocks_per_sm,
    }
}

/// A policy count: mostly the default, else [`bent`].
fn knob(default: usize) -> BoxedStrategy<usize> {
    prop_oneof![6 => Just(default), 4 => bent()].boxed()
}

#[derive(Clone, Debug)]
pub struct AxisPolicyCase {
    policy: AxisPolicy,
    axis: AxisKind,
    op: Op,
    rows: usize,
    cols: usize,
    seed: u64,
}

/// `PreparedAxis::matrix` and `::segments` under a policy with any field values.
pub fn axis_policies(b: &Backend, cases: u32) -> Result<Ran, String> {
    // The default with up to two fields bent (more would nearly always hit one out of range).
    let policy = prop::collection::vec((any::<usize>(), bent()), 0..3).prop_map(|bends| {
        let mut p = AxisPolicy::default();
        for (k, v) in bends {
            *axis_field(k, &mut p) = v;
        }
        p
    });
    let strategy = (
        policy,
        prop::sample::select(vec![AxisKind::Rows, AxisKind::Cols, AxisKind::Segments]),
        prop::sample::select(vec![Op::Sum, Op::Min, Op::Max]),
        prop_oneof![1 => Just(0usize), 3 => 1usize..70, 1 => Just(257usize)],
        prop_oneof![1 => Just(0usize), 3 => 1usize..70, 1 => Just(513usize)],
        any::<u64>(),
    )
        .prop_map(fields!(AxisPolicyCase: policy, axis, op, rows, cols, seed));
    run("axis_policies", cases, strategy, |c| {
        let x: Vec<f32> = Data {
            len: c.rows * c.cols,
            seed: c.seed,
            scale: 0,
            specials: vec![],
        }
        .exact_values();
        let input = b.upload(&x).map_err(|e| e.to_string())?;
        let (prepared, segments, runs) = if c.axis == AxisKind::Segments {
            // Rows as segments, each cut into pieces of `segment_piece` (the policy's) elements.
            let begin: Vec<u64> = (0..c.rows).map(|i| (i * c.cols) as u64).collect();
            let end: Vec<u64> = (0..c.rows).map(|i| ((i + 1) * c.cols) as u64).collect();
            let s = Segments::with_piece(b, &begin, &end, x.len(), c.policy.segment_piece)
                .map_err(|e| e.to_string())?;
            let runs: Vec<Vec<f32>> = (0..c.rows)
                .map(|i| x[i * c.cols..(i + 1) * c.cols].to_vec())
                .collect();
            let p = PreparedAxis::<f32>::segments(b, &c.policy, c.op, &s, x.len());
            (p, Some(s), runs)
        } else {
            let runs: Vec<Vec<f32>> = if c.axis == AxisKind::Rows {
                (0..c.rows)
                    .map(|i| x[i * c.cols..(i + 1) * c.cols].to_vec())
                    .collect()
            } else {
                (0..c.cols)
                    .map(|k| (0..c.rows).map(|i| x[i * c.cols + k]).collect())
                    .collect()
            };
            let p = PreparedAxis::<f32>::matrix(b, &c.policy, c.axis, c.op, c.rows, c.cols);
            (p, None, runs)
        };
        let p = match prepared {
            Ok(p) => p,
            Err(ReduceError::Policy { .. }) => return typed_ok(),
            Err(e) => return Err(format!("a policy gave `{e}`, not ReduceError::Policy")),
        };
        let mut out = b.zeroed::<f32>(runs.len()).map_err(|e| e.to_string())?;
        p.enqueue(b, &input, segments.as_ref(), &mut out)
            .map_err(|e| format!("{e} (plan {})", p.plan().describe()))?;
        let got = b.download(&out, runs.len()).map_err(|e| e.to_string())?;
        for (k, (g, run)) in got.iter().zip(&runs).enumerate() {
            let want = match reference(c.op, run) {
                Some(r) if !run.is_empty() => r.value,
                _ if c.op == Op::Min => f32::INFINITY,
                _ if c.op == Op::Max => f32::NEG_INFINITY,
                _ => 0.0,
            };
            if !same(*g, want) {
                return Err(format!("{:?} {k}: {g}, want {want}", c.axis));
            }
        }
        Ok(())
    })
}

#[derive(Clone, Debug)]
pub struct ArgPolicyCase {
    policy: ArgPolicy,
    op: Op,
    double: bool,
    data: Data,
}

/// `PreparedArg::with_policy` under any block, blocks per SM and loads in flight.
pub fn arg_policies(b: &Backend, cases: u32) -> Result<Ran, String> {
    let d = ArgPolicy::default();
    let policy = (
        prop_oneof![4 => prop::sample::select(ArgPolicy::BLOCKS.to_vec()), 1 => knob(d.block)],
        knob(d.blocks_per_sm),
        prop_oneof![4 => prop::sample::select(vec![4usize, 8]), 1 => knob(d.unroll)],
        any::<bool>(),
    )
        .prop_map(fields!(ArgPolicy: block, blocks_per_sm, unroll, lane_in_loop));
    let strategy = (
        policy,
        prop::sample::select(Op::ARG.to_vec()),
        any::<bool>(),
        data(20_000),
    )
        .prop_map(fields!(ArgPolicyCase: policy, op, double, data));
    run_float!("arg_policies", cases, strategy, arg_policy_check(b))
}

fn arg_policy_check<T: Scalar>(b: &Backend, c: &ArgPolicyCase) -> Check {
    let x: Vec<T> = c.data.values();
    let input = b.upload(&x).map_err(|e| e.to_string())?;
    let p = PreparedArg::<T>::with_policy(b, c.op, x.len(), c.policy);
    if x.is_empty() {
        return expect_err(&p, &ReduceError::EmptyArgInput { op: "" });
    }
    let p = match p {
        Ok(p) => p,
        Err(ReduceError::Policy { .. }) => return typed_ok(),
        Err(e) => return Err(format!("a policy gave `{e}`, not ReduceError::Policy")),
    };
    match (p.run(b, &input, 0), reference_arg(c.op, &x)) {
        (Ok((i, v)), Some((j, w))) if i == j && same(v, w) => Ok(()),
        (Err(ReduceError::AllNanArg { .. }), None) => typed_ok(),
        (got, want) => Err(format!("{:?}: {got:?}, want {want:?}", c.op)),
    }
}

#[derive(Clone, Debug)]
pub struct ExactPolicyCase {
    policy: ExactPolicy,
    double: bool,
    data: Data,
}

/// `PreparedExact::with_policy` under any block, blocks per SM, tiles per block and fast paths.
pub fn exact_policies(b: &Backend, cases: u32) -> Result<Ran, String> {
    let d = ExactPolicy::default();
    let policy = (
        prop_oneof![4 => prop::sample::select(exact_blocks().to_vec()), 1 => knob(d.block)],
        // Grids of more than a few hundred blocks are slow to emulate: the huge values only
        // where they make the grid smaller or are errors.
        prop_oneof![6 => 1usize..5, 1 => Just(0usize), 1 => Just(65usize)],
        knob(d.min_tiles),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(fields!(ExactPolicy: block, blocks_per_sm, min_tiles, fast_f32, fast_f64));
    let strategy = (policy, any::<bool>(), data(4_100))
        .prop_map(fields!(ExactPolicyCase: policy, double, data));
    run_float!("exact_policies", cases, strategy, exact_policy_check(b))
}

fn exact_policy_check<T: ExactFloat>(b: &Backend, c: &ExactPolicyCase) -> Check {
    let x = pad(
        c.data.values::<T>(),
        Span {
            offset: 0,
            extra: 0,
            past: 0,
        },
    );
    let input = b.upload(&x).map_err(|e| e.to_string())?;
    let p = match PreparedExact::<T>::with_policy(b, x.len(), LaunchOverrides::default(), c.policy)
    {
        Ok(p) => p,
        Err(ReduceError::Policy { .. } | ReduceError::InvalidBlockSize { .. }) => {
            return typed_ok()
        }
        Err(e) => return Err(format!("a policy gave `{e}`, not a policy error")),
    };
    let want = exact_sum(&x);
    match p.run(b, &input, 0) {
        Ok(v) if v.to_bits64() == want.to_bits64() || same(v, want) => Ok(()),
        other => Err(format!("{other:?}, want {want}")),
    }
}
