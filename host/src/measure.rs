//! Timing with CUDA events (wall clock under the emulator), and the blog's two tables.

use crate::error::{CudaContext, Result};
use crate::{Backend, Buffer, LaunchOverrides, Op, Prepared, Scalar, Stage};
use cust::event::{Event, EventFlags};
use cust::memory::CopyDestination;
use std::time::Instant;

/// Summary of repeated timings, in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Timing {
    /// Each run.
    pub runs_ms: Vec<f64>,
}

impl Timing {
    /// Fastest run.
    pub fn min(&self) -> f64 {
        self.runs_ms.iter().copied().fold(f64::INFINITY, f64::min)
    }
    /// Mean.
    pub fn mean(&self) -> f64 {
        self.runs_ms.iter().sum::<f64>() / self.runs_ms.len().max(1) as f64
    }
    /// Median.
    pub fn median(&self) -> f64 {
        let mut v = self.runs_ms.clone();
        v.sort_by(|a, b| a.total_cmp(b));
        if v.is_empty() {
            return f64::NAN;
        }
        let m = v.len() / 2;
        if v.len() % 2 == 1 {
            v[m]
        } else {
            (v[m - 1] + v[m]) / 2.0
        }
    }
}

/// What one timed run includes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Scope {
    /// The kernel launches only (the blog's "kernel execution time").
    Kernels,
    /// The launches plus the copy of the result into pinned host memory: what a caller of
    /// `reducer.sum()` waits for, and what the CUB baseline measures.
    KernelsAndResultCopy,
}

/// How a timed run is queued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// `record(start)`, the launches, `record(stop)` on an idle stream, as most benchmarks do:
    /// the GPU passes `start` at once and then waits for the host to submit the launch, so the
    /// window also holds the host's launch latency (a few µs; more in a virtual machine).
    #[default]
    Plain,
    /// The same, queued behind a gate kernel that holds the stream until the whole run is queued
    /// (NVIDIA nvbench's "blocking kernel"; see `reduce_kernels::bench_gate`): the window holds
    /// GPU time only. On the emulator both protocols time the same wall clock.
    Gated,
}

/// How long the gate waits for the host to queue one run before it gives up.
const GATE_TIMEOUT_MS: u64 = 1000;

/// The gate of [`Protocol::Gated`]: two `u32` in mapped pinned memory, `[open, timed_out]`.
struct Gate(crate::backend::Mapped<u32>);

/// A closed gate; dropping it opens the gate (also when queuing the run failed half-way).
struct Closed<'a>(&'a mut Gate);

impl Gate {
    fn new() -> Result<Self> {
        Ok(Gate(crate::backend::Mapped::new(2)?))
    }

    /// Queue the gate kernel on `gpu`'s stream; the stream stops there until the guard drops.
    fn close<'a>(&'a mut self, gpu: &crate::backend::Gpu) -> Result<Closed<'a>> {
        self.0.write(0, 0);
        self.0.write(1, 0);
        // SAFETY: the flag words live in `self`, which outlives the stream's wait on them (the
        // caller synchronizes before the gate is dropped).
        unsafe { gpu.launch_gate(self.0.device_addr(), GATE_TIMEOUT_MS * 1_000_000)? };
        Ok(Closed(self))
    }

    /// Did the last run's gate give up waiting? (Read after the run has finished.)
    fn timed_out(&self) -> bool {
        self.0.read(1) != 0
    }
}

impl Drop for Closed<'_> {
    fn drop(&mut self) {
        self.0 .0.write(0, 1);
    }
}

/// Time `warmup + runs` executions of a prepared plan on `input`; keeps the last `runs`.
#[allow(clippy::too_many_arguments)]
pub fn time_prepared<T: Scalar>(
    backend: &Backend,
    prepared: &Prepared<T>,
    input: &Buffer<T>,
    warmup: usize,
    runs: usize,
    scope: Scope,
    protocol: Protocol,
) -> Result<Timing> {
    let mut t = Timing::default();
    match backend.gpu() {
        Some(gpu) => {
            let stream = gpu.stream();
            let start = Event::new(EventFlags::DEFAULT).during("creating an event")?;
            let end = Event::new(EventFlags::DEFAULT).during("creating an event")?;
            let mut pinned = cust::memory::LockedBuffer::new(&T::default(), 1)
                .during("allocating pinned memory")?;
            let mut gate = match protocol {
                Protocol::Gated => Some(Gate::new()?),
                Protocol::Plain => None,
            };
            for i in 0..warmup + runs {
                let closed = gate.as_mut().map(|g| g.close(gpu)).transpose()?;
                let queued = (|| -> Result<()> {
                    start.record(stream).during("recording an event")?;
                    prepared.enqueue(backend, input, 0)?;
                    // A mapped-memory result is in host RAM when the kernel ends: nothing to copy.
                    if scope == Scope::KernelsAndResultCopy
                        && prepared.result_in() == crate::ResultIn::DeviceMemory
                    {
                        // SAFETY: `pinned` holds one `T` and outlives the copy (synchronized
                        // below before it is dropped); the source is the plan's result buffer.
                        let r = unsafe {
                            cust::sys::cuMemcpyDtoHAsync_v2(
                                pinned.as_mut_ptr() as *mut std::ffi::c_void,
                                prepared.result_buffer().addr(0),
                                std::mem::size_of::<T>(),
                                stream.as_inner(),
                            )
                        };
                        crate::backend::driver_result(r, "copying the result")?;
                    }
                    end.record(stream).during("recording an event")
                })();
                drop(closed); // the whole run is queued (or failed): let the GPU go on
                if queued.is_err() && gate.is_some() {
                    // The gate kernel must have finished with its flag before `gate` is freed.
                    let _ = stream.synchronize();
                }
                queued?;
                end.synchronize().during("running the timed kernels")?;
                if gate.as_ref().is_some_and(Gate::timed_out) {
                    return Err(crate::ReduceError::GateTimedOut {
                        timeout_ms: GATE_TIMEOUT_MS,
                    });
                }
                if i >= warmup {
                    t.runs_ms
                        .push(end.elapsed_time_f32(&start).during("reading an event")? as f64);
                }
            }
        }
        None => {
            for i in 0..warmup + runs {
                let s = Instant::now();
                prepared.enqueue(backend, input, 0)?;
                if scope == Scope::KernelsAndResultCopy {
                    prepared.read_result(backend)?;
                }
                if i >= warmup {
                    t.runs_ms.push(s.elapsed().as_secs_f64() * 1e3);
                }
            }
        }
    }
    Ok(t)
}

/// The sum plan the tables use for `stage`. A `--block` given for the ladder does not apply to
/// stage 8, which has its own block sizes; its policy picks one.
fn sum_plan<T: Scalar>(
    backend: &Backend,
    stage: Stage,
    n: usize,
    overrides: LaunchOverrides,
) -> Result<crate::Plan> {
    let o = if stage == Stage::S8 {
        LaunchOverrides {
            block: None,
            ..overrides
        }
    } else {
        overrides
    };
    crate::plan(stage, T::TYPE, Op::Sum, n, o, backend.caps())
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

/// Run and time `stages` on `data` (the blog's table: every stage's result, and its kernel time
/// over `runs` runs after `warmup`).
pub fn table<T: Scalar>(
    backend: &Backend,
    stages: &[Stage],
    data: &[T],
    overrides: LaunchOverrides,
    warmup: usize,
    runs: usize,
    protocol: Protocol,
) -> Result<Vec<TableRow>> {
    let input = backend.upload(data)?;
    let reference = crate::reference(Op::Sum, data).expect("a sum always has a reference");
    let mut rows = Vec::new();
    for &stage in stages {
        let plan = sum_plan::<T>(backend, stage, data.len(), overrides)?;
        let depth = plan.depth;
        let prepared = Prepared::<T>::new(backend, plan)?;
        let value = prepared.run(backend, &input, 0)?;
        let timing = time_prepared(
            backend,
            &prepared,
            &input,
            warmup,
            runs,
            Scope::Kernels,
            protocol,
        )?;
        let p = &prepared.plan;
        rows.push(TableRow {
            stage: stage.number(),
            title: stage.title().into(),
            seed: stage.seed().into(),
            kernel: p.kernel.clone(),
            block: p.passes[0].block,
            grid: p.passes[0].grid,
            passes: p.passes.len(),
            result: value.to_string(),
            correct: crate::matches_reference(Op::Sum, value, &reference, depth),
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
    let reference = crate::reference(Op::Sum, data).expect("a sum always has a reference");
    let mut rows = Vec::new();
    // Warm the context and the allocator so the first stage is not charged for them.
    drop(backend.zeroed::<T>(1)?);
    for &stage in stages {
        let plan = sum_plan::<T>(backend, stage, data.len(), overrides)?;
        let depth = plan.depth;
        let t0 = Instant::now();
        let input = backend.zeroed::<T>(data.len())?;
        let prepared = Prepared::<T>::new(backend, plan)?;
        backend.synchronize()?;
        let alloc_ms = t0.elapsed().as_secs_f64() * 1e3;

        let t1 = Instant::now();
        let input = match (backend, input) {
            (Backend::Gpu(_), Buffer::Gpu(mut b)) if !data.is_empty() => {
                b.copy_from(data)
                    .during("copying the input to the device")?;
                Buffer::Gpu(b)
            }
            (_, _) => backend.upload(data)?,
        };
        backend.synchronize()?;
        let h2d_ms = t1.elapsed().as_secs_f64() * 1e3;

        prepared.enqueue(backend, &input, 0)?; // warm-up (module load, first launch)
        backend.synchronize()?;
        let kernel_ms = time_prepared(
            backend,
            &prepared,
            &input,
            0,
            1,
            Scope::Kernels,
            Protocol::Plain,
        )?
        .mean();

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
            correct: crate::matches_reference(Op::Sum, value, &reference, depth),
        });
    }
    Ok(rows)
}

/// Run stage 8 with `op` and time it including the result copy (the comparison with CUB).
pub fn time_single_pass<T: Scalar>(
    backend: &Backend,
    op: Op,
    input: &Buffer<T>,
    overrides: LaunchOverrides,
    warmup: usize,
    runs: usize,
    protocol: Protocol,
) -> Result<(T, Timing, crate::Plan)> {
    time_single_pass_in(
        backend,
        op,
        input,
        overrides,
        warmup,
        runs,
        crate::ResultIn::MappedHost,
        Scope::KernelsAndResultCopy,
        protocol,
    )
}

/// [`time_single_pass`] with the result left in device memory or in mapped host memory, timed
/// with or without reading it back (`scope`; a mapped result needs no copy either way).
#[allow(clippy::too_many_arguments)]
pub fn time_single_pass_in<T: Scalar>(
    backend: &Backend,
    op: Op,
    input: &Buffer<T>,
    overrides: LaunchOverrides,
    warmup: usize,
    runs: usize,
    result_in: crate::ResultIn,
    scope: Scope,
    protocol: Protocol,
) -> Result<(T, Timing, crate::Plan)> {
    let plan = crate::plan(
        Stage::S8,
        T::TYPE,
        op,
        input.len(),
        overrides,
        backend.caps(),
    )?;
    let prepared = Prepared::<T>::with_result_in(backend, plan, result_in)?;
    let value = prepared.run(backend, input, 0)?;
    let timing = time_prepared(backend, &prepared, input, warmup, runs, scope, protocol)?;
    Ok((value, timing, prepared.plan))
}
