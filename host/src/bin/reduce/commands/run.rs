//! `reduce run`: reduce once with each chosen stage and check the result.

use crate::args::Common;
use crate::data::{default_n, make_data, stages_of};
use crate::output::verdict;
use reduce_host::plan::Plan;
use reduce_host::reference::{reference_mean, reference_nanmean, Expected};
use reduce_host::{
    with_elem_type, Backend, Buffer, LaunchOverrides, Op, ReduceError, Reducer, Reference, Scalar,
    Stage,
};

pub fn run(backend: &Backend, common: &Common, op: Op) -> Result<bool, ReduceError> {
    with_elem_type!(common.ty, T => run_typed::<T>(backend, common, op))
}

fn run_typed<T: Scalar>(backend: &Backend, c: &Common, op: Op) -> Result<bool, ReduceError> {
    let n = default_n(backend, c.n);
    let stages = stages_of(&c.stages)?;
    let data = make_data::<T>(n, c.data, c.seed)?;
    let input = backend.upload(&data)?;
    let overrides = c.overrides();
    let expected = Expected::of(op, &data);
    let mut ok = true;
    for stage in stages {
        let plan = reduce_host::plan(stage, T::TYPE, op, n, overrides, backend.caps())?;
        let Some(r) = expected.reference() else {
            return Err(ReduceError::EmptyInput { op });
        };
        let one = StageRun {
            backend,
            stage,
            input: &input,
            data: &data,
            overrides,
            plan: &plan,
        };
        let (good, shown) = if op == Op::Mean {
            one.mean()?
        } else if op == Op::NanMean {
            one.nanmean()?
        } else {
            let got = reduce_host::run_stage(backend, stage, op, &input, n, overrides)?;
            (expected.matches(got, &plan), got.to_string())
        };
        ok &= good;
        println!(
            "{stage}: {op} of {n} {} = {shown}   reference {}   {}",
            T::TYPE,
            wanted(op, &data, r),
            verdict(good)
        );
    }
    Ok(ok)
}

/// One stage's run over the input, for the means: each gives whether its result is right and
/// the result as `run` shows it.
struct StageRun<'a, T: Scalar> {
    backend: &'a Backend,
    stage: Stage,
    input: &'a Buffer<T>,
    data: &'a [T],
    overrides: LaunchOverrides,
    plan: &'a Plan,
}

impl<T: Scalar> StageRun<'_, T> {
    /// The mean with `stage`: a float mean is the device sum (judged by the sum's error bound)
    /// over `n`; an integer mean is [`Reducer::mean`]'s exact one, which must equal NumPy's to
    /// the last bit.
    fn mean(&self) -> Result<(bool, String), ReduceError> {
        let (backend, stage, input, data) = (self.backend, self.stage, self.input, self.data);
        let n = data.len();
        if T::TYPE.is_float() {
            let sum = reduce_host::run_stage(backend, stage, Op::Sum, input, n, self.overrides)?;
            let good = Expected::of(Op::Sum, data).matches(sum, self.plan);
            return Ok((good, format!("{}", sum.to_f64() / n as f64)));
        }
        if stage != Stage::S8 {
            return Err(ReduceError::UnsupportedOp {
                stage,
                op: Op::Mean,
            });
        }
        let got = Reducer::new(backend)
            .with_overrides(self.overrides)
            .mean(input)?;
        Ok((Some(got) == reference_mean(data), format!("{got}")))
    }

    /// `nanmean` with stage 8: the device's `nansum` (judged by the sum's error bound) over the
    /// exact count of numbers ([`Reducer::nanmean`]).
    fn nanmean(&self) -> Result<(bool, String), ReduceError> {
        let (backend, input, data, overrides) =
            (self.backend, self.input, self.data, self.overrides);
        if self.stage != Stage::S8 {
            return Err(ReduceError::UnsupportedOp {
                stage: self.stage,
                op: Op::NanMean,
            });
        }
        let n = data.len();
        let mut r = Reducer::new(backend).with_overrides(overrides);
        let got = r.nanmean(input)?;
        // Stage 8's `nansum` in `T`: the kernel and plan `nanmean` ran.
        let sum = reduce_host::run_stage(backend, Stage::S8, Op::NanSum, input, n, overrides)?;
        let count = r.count(input)?;
        let numbers = data.iter().filter(|x| !x.to_f64().is_nan()).count() as u64;
        let good = Expected::of(Op::NanSum, data).matches(sum, self.plan) && count == numbers;
        Ok((good, format!("{got}")))
    }
}

/// The reference as `run` shows it.
fn wanted<T: Scalar>(op: Op, data: &[T], r: &Reference<T>) -> String {
    let n = data.len();
    if op == Op::Mean {
        let sum = if T::TYPE.is_float() {
            r.sum_f64
        } else {
            r.sum_exact as f64
        };
        format!("{}", sum / n as f64)
    } else if op == Op::NanMean {
        format!("{}", reference_nanmean(data).unwrap_or(f64::NAN))
    } else if T::TYPE.is_float() && op == Op::Sum {
        format!("{} (f64 sum)", r.sum_f64)
    } else {
        r.value.to_string()
    }
}
