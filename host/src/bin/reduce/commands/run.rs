//! `reduce run`: reduce once with each chosen stage and check the result.

use crate::args::Common;
use crate::data::{default_n, make_data, stages_of};
use crate::output::verdict;
use reduce_host::{
    with_elem_type, Backend, Expected, LaunchOverrides, Op, ReduceError, Reference, Scalar,
};

pub fn run(backend: &Backend, common: &Common, op: Op) -> Result<bool, ReduceError> {
    with_elem_type!(common.ty, T => run_typed::<T>(backend, common, op))
}

fn run_typed<T: Scalar>(backend: &Backend, c: &Common, op: Op) -> Result<bool, ReduceError> {
    let n = default_n(backend, c.n);
    let stages = stages_of(&c.stages)?;
    let data = make_data::<T>(n, c.data, c.seed);
    let input = backend.upload(&data)?;
    let overrides = LaunchOverrides {
        block: c.block,
        grid: c.grid,
    };
    let expected = Expected::of(op, &data);
    let mut ok = true;
    for stage in stages {
        let plan = reduce_host::plan(stage, T::TYPE, op, n, overrides, backend.caps())?;
        let Some(r) = expected.reference() else {
            return Err(ReduceError::EmptyInput { op });
        };
        let got = reduce_host::run_stage(backend, stage, op, &input, n, overrides)?;
        let good = expected.matches(got, &plan);
        ok &= good;
        let shown = if op == Op::Mean {
            format!("{}", got.to_f64() / n as f64)
        } else {
            got.to_string()
        };
        println!(
            "{stage}: {op} of {n} {} = {shown}   reference {}   {}",
            T::TYPE,
            wanted(op, n, r),
            verdict(good)
        );
    }
    Ok(ok)
}

/// The reference as `run` shows it.
fn wanted<T: Scalar>(op: Op, n: usize, r: &Reference<T>) -> String {
    if op == Op::Mean {
        let sum = if T::TYPE.is_float() {
            r.sum_f64
        } else {
            r.value.to_f64()
        };
        format!("{}", sum / n as f64)
    } else if T::TYPE.is_float() && op == Op::Sum {
        format!("{} (f64 sum)", r.sum_f64)
    } else {
        r.value.to_string()
    }
}
