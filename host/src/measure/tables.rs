//! The blog's two tables (every stage's result and kernel time; the per-stage profile), and
//! stage 8 timed with its result (the comparison with CUB), all on the [`engine`](super::engine).

use super::engine::{time_prepared, Protocol, Scope, Timing, TimingSpec};
use crate::backend::{Backend, Buffer};
use crate::error::Result;
use crate::plan::ResultIn;
use crate::plan::{LaunchOverrides, Plan};
use crate::prepared::Prepared;
use crate::reference::Expected;
use crate::stage::Stage;
use crate::types::{Op, Scalar};
use std::time::Instant;

/// The sum plan the tables use for `stage`. A `--block` given for the ladder does not apply to
/// stage 8, which has its own block sizes; its policy picks one.
fn sum_plan<T: Scalar>(
    backend: &Backend,
    stage: Stage,
    n: usize,
    overrides: LaunchOverrides,
) -> Result<Plan> {
    let o = if stage == Stage::S8 {
        LaunchOverrides {
            block: None,
            ..overrides
        }
    } else {
        overrides
    };
    crate::plan::plan(stage, T::TYPE, Op::Sum, n, o, backend.caps())
}

/// One row of the blog's benchmark table.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TableRow {
    /// Stage number.
    pub stage: usize,
    /// Title.
    pub title: String,
    /// Seed step.
    pub seed: String,
    /// Kernel symbol.
    pub kernel: String,
    /// Threads per block.
    pub block: usize,
    /// Blocks of the first pass.
    pub grid: usize,
    /// Kernel launches per reduction.
    pub passes: usize,
    /// The result, as text.
    pub result: String,
    /// Did it match the CPU reference?
    pub correct: bool,
    /// Kernel time.
    pub timing: Timing,
}

/// Run and time `stages` on `data` (the blog's table: every stage's result, and its time as
/// `spec` says).
pub fn table<T: Scalar>(
    backend: &Backend,
    stages: &[Stage],
    data: &[T],
    overrides: LaunchOverrides,
    spec: &TimingSpec,
) -> Result<Vec<TableRow>> {
    let input = backend.upload(data)?;
    let expected = Expected::of(Op::Sum, data);
    let mut rows = Vec::new();
    for &stage in stages {
        let plan = sum_plan::<T>(backend, stage, data.len(), overrides)?;
        let prepared = Prepared::<T>::new(backend, plan)?;
        let value = prepared.run(backend, &input, 0)?;
        let timing = time_prepared(backend, &prepared, &input, spec)?;
        let p = &prepared.plan;
        rows.push(TableRow {
            stage: stage.number(),
            title: stage.title().into(),
            seed: stage.seed().into(),
            kernel: p.kernel.to_string(),
            block: p.passes[0].block,
            grid: p.passes[0].grid,
            passes: p.passes.len(),
            result: value.to_string(),
            correct: expected.matches(value, p),
            timing,
        });
    }
    Ok(rows)
}

/// One row of the blog's profile table (milliseconds).
#[derive(Clone, Debug, serde::Serialize)]
pub struct ProfileRow {
    /// Stage number.
    pub stage: usize,
    /// Title.
    pub title: String,
    /// Allocating the input and the stage's workspace (host clock around synchronous calls).
    pub alloc_ms: f64,
    /// Copying the input to the device.
    pub h2d_ms: f64,
    /// All kernel launches of one reduction (events).
    pub kernel_ms: f64,
    /// Copying the one-element result back.
    pub d2h_ms: f64,
    /// Did it match the reference?
    pub correct: bool,
}

/// The blog's per-stage profile: allocation, host→device, kernel, device→host.
pub fn profile<T: Scalar>(
    backend: &Backend,
    stages: &[Stage],
    data: &[T],
    overrides: LaunchOverrides,
) -> Result<Vec<ProfileRow>> {
    let expected = Expected::of(Op::Sum, data);
    let mut rows = Vec::new();
    // Warm the context and the allocator so the first stage is not charged for them.
    drop(backend.zeroed::<T>(1)?);
    for &stage in stages {
        let plan = sum_plan::<T>(backend, stage, data.len(), overrides)?;
        let t0 = Instant::now();
        let input = backend.zeroed::<T>(data.len())?;
        let prepared = Prepared::<T>::new(backend, plan)?;
        backend.synchronize()?;
        let alloc_ms = t0.elapsed().as_secs_f64() * 1e3;

        let t1 = Instant::now();
        let mut input = input;
        backend.write(&mut input, data)?;
        backend.synchronize()?;
        let h2d_ms = t1.elapsed().as_secs_f64() * 1e3;

        prepared.enqueue(backend, &input, 0)?; // warm-up (module load, first launch)
        backend.synchronize()?;
        let kernel_ms =
            time_prepared(backend, &prepared, &input, &TimingSpec::kernels(0, 1))?.mean();

        let t3 = Instant::now();
        let value = prepared.read_result(backend)?;
        let d2h_ms = t3.elapsed().as_secs_f64() * 1e3;
        rows.push(ProfileRow {
            stage: stage.number(),
            title: stage.title().into(),
            alloc_ms,
            h2d_ms,
            kernel_ms,
            d2h_ms,
            correct: expected.matches(value, &prepared.plan),
        });
    }
    Ok(rows)
}

/// Run stage 8 with `op` and time it including the result copy (the comparison with CUB); the
/// result is left in mapped host memory, as [`crate::Reducer`] leaves it.
pub fn time_single_pass<T: Scalar>(
    backend: &Backend,
    op: Op,
    input: &Buffer<T>,
    overrides: LaunchOverrides,
    warmup: usize,
    runs: usize,
    protocol: Protocol,
) -> Result<(T, Timing, Plan)> {
    let spec = TimingSpec::kernels(warmup, runs)
        .with_scope(Scope::KernelsAndResultCopy)
        .with_protocol(protocol);
    time_single_pass_in(backend, op, input, overrides, ResultIn::MappedHost, &spec)
}

/// Stage 8 with `op` on all of `input`, its result left in device memory or in mapped host
/// memory (`result_in`), run once for the result and then timed as `spec` says.
pub fn time_single_pass_in<T: Scalar>(
    backend: &Backend,
    op: Op,
    input: &Buffer<T>,
    overrides: LaunchOverrides,
    result_in: ResultIn,
    spec: &TimingSpec,
) -> Result<(T, Timing, Plan)> {
    let plan = crate::plan::plan(
        Stage::S8,
        T::TYPE,
        op,
        input.len(),
        overrides,
        backend.caps(),
    )?;
    let prepared = Prepared::<T>::with_result_in(backend, plan, result_in)?;
    let value = prepared.run(backend, input, 0)?;
    let timing = time_prepared(backend, &prepared, input, spec)?;
    Ok((value, timing, prepared.plan))
}
