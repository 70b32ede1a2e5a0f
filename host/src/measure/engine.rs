//! The timing engine: what one timed run includes ([`Scope`]), how it is queued ([`Protocol`]),
//! how many runs ([`TimingSpec`]), and the loop that times them ([`time_queued`],
//! [`time_prepared`]): CUDA events on a GPU, the wall clock under the emulator.

use super::gate::{Gate, GATE_TIMEOUT_MS};
use crate::backend::{Backend, Buffer};
use crate::error::{CudaContext, ReduceError, Result};
use crate::plan::ResultIn;
use crate::prepared::Prepared;
use crate::types::Scalar;
use cust::event::{Event, EventFlags};
use std::time::Instant;

/// Summary of repeated timings, in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Timing {
    /// Each timing window (one run, or [`TimingSpec::batch`] runs back to back).
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
    /// All runs together.
    pub fn total(&self) -> f64 {
        self.runs_ms.iter().sum()
    }
}

/// What one timed run includes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Scope {
    /// The kernel launches only (the blog's "kernel execution time").
    Kernels,
    /// The launches plus the copy of the result into pinned host memory: what a caller of
    /// `reducer.sum()` waits for, and what the CUB baseline measures.
    KernelsAndResultCopy,
}

/// How a timed run is queued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// How to time: warm-ups, timed runs, what a run includes and how it is queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimingSpec {
    /// Untimed runs first.
    pub warmup: usize,
    /// Timing windows kept (each one entry of [`Timing::runs_ms`]).
    pub runs: usize,
    /// What a run includes (applied by [`time_prepared`]).
    pub scope: Scope,
    /// How a window is queued.
    pub protocol: Protocol,
    /// Runs queued back to back in one window: 1 (the default) times each run alone and waits
    /// for it; more measures throughput instead of the latency of one reduction.
    pub batch: usize,
}

impl TimingSpec {
    /// `runs` kernel-only runs after `warmup`, each in its own window, queued plainly.
    pub fn kernels(warmup: usize, runs: usize) -> Self {
        TimingSpec {
            warmup,
            runs,
            scope: Scope::Kernels,
            protocol: Protocol::Plain,
            batch: 1,
        }
    }
    /// The same with another scope.
    pub fn with_scope(self, scope: Scope) -> Self {
        TimingSpec { scope, ..self }
    }
    /// The same with another protocol.
    pub fn with_protocol(self, protocol: Protocol) -> Self {
        TimingSpec { protocol, ..self }
    }
    /// The same with `batch` runs per window.
    pub fn with_batch(self, batch: usize) -> Self {
        TimingSpec { batch, ..self }
    }
}

/// Time `spec.warmup + spec.runs` windows, each holding `spec.batch` calls of `queue` (which
/// queues one run on the backend's stream); keeps the last `spec.runs`. `spec.scope` is not
/// applied here: `queue` queues whatever is to be timed.
pub fn time_queued(
    backend: &Backend,
    spec: &TimingSpec,
    mut queue: impl FnMut() -> Result<()>,
) -> Result<Timing> {
    if spec.runs == 0 || spec.batch == 0 {
        return Err(ReduceError::InvalidArgument(format!(
            "timing needs at least one run of at least one reduction (runs = {}, batch = {})",
            spec.runs, spec.batch
        )));
    }
    let mut t = Timing::default();
    let Some(gpu) = backend.gpu() else {
        for i in 0..spec.warmup + spec.runs {
            let s = Instant::now();
            for _ in 0..spec.batch {
                queue()?;
            }
            backend.synchronize()?;
            if i >= spec.warmup {
                t.runs_ms.push(s.elapsed().as_secs_f64() * 1e3);
            }
        }
        return Ok(t);
    };
    let stream = gpu.stream();
    let start = Event::new(EventFlags::DEFAULT).during("creating an event")?;
    let end = Event::new(EventFlags::DEFAULT).during("creating an event")?;
    let mut gate = match spec.protocol {
        Protocol::Gated => Some(Gate::new()?),
        Protocol::Plain => None,
    };
    for i in 0..spec.warmup + spec.runs {
        let closed = gate.as_mut().map(|g| g.close(gpu)).transpose()?;
        let queued = (|| -> Result<()> {
            start.record(stream).during("recording an event")?;
            for _ in 0..spec.batch {
                queue()?;
            }
            end.record(stream).during("recording an event")
        })();
        drop(closed); // the whole window is queued (or failed): let the GPU go on
        if queued.is_err() {
            // Whatever was queued (the gate kernel reading its flag, copies into memory the
            // caller may free next) must finish before we return.
            let _ = stream.synchronize();
        }
        queued?;
        end.synchronize().during("running the timed kernels")?;
        if gate.as_ref().is_some_and(Gate::timed_out) {
            return Err(ReduceError::GateTimedOut {
                timeout_ms: GATE_TIMEOUT_MS,
            });
        }
        if i >= spec.warmup {
            t.runs_ms
                .push(end.elapsed_time_f32(&start).during("reading an event")? as f64);
        }
    }
    Ok(t)
}

/// Time a prepared plan on `input` as `spec` says; with [`Scope::KernelsAndResultCopy`] each run
/// also brings the result to the host (a copy into pinned memory on a GPU; nothing to copy when
/// the plan writes it into mapped host memory).
pub fn time_prepared<T: Scalar>(
    backend: &Backend,
    prepared: &Prepared<T>,
    input: &Buffer<T>,
    spec: &TimingSpec,
) -> Result<Timing> {
    let copy = spec.scope == Scope::KernelsAndResultCopy;
    match backend.gpu() {
        Some(gpu) => {
            let mut pinned = cust::memory::LockedBuffer::new(&T::default(), 1)
                .during("allocating pinned memory")?;
            let copy = copy && prepared.result_in() == ResultIn::DeviceMemory;
            time_queued(backend, spec, || {
                prepared.enqueue(backend, input, 0)?;
                if copy {
                    // SAFETY: `pinned` and the result buffer outlive the timing loop, which
                    // waits for every window (and for the stream when queuing fails) before
                    // returning; the host does not touch `pinned` meanwhile.
                    unsafe {
                        crate::transfer::copy_element_to_pinned_async(
                            gpu,
                            prepared.result_buffer(),
                            0,
                            &mut pinned,
                        )?;
                    }
                }
                Ok(())
            })
        }
        None => time_queued(backend, spec, || {
            prepared.enqueue(backend, input, 0)?;
            if copy {
                prepared.read_result(backend)?;
            }
            Ok(())
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::BackendChoice;
    use crate::plan::{plan, LaunchOverrides};
    use crate::stage::Stage;
    use crate::types::Op;

    #[test]
    fn windows_batches_and_bad_specs_on_the_emulator() {
        let b = Backend::open(BackendChoice::Emu).unwrap();
        let input = b.upload(&[1.0f32; 3000]).unwrap();
        let p = plan(
            Stage::S8,
            crate::types::ElemType::F32,
            Op::Sum,
            3000,
            LaunchOverrides::default(),
            b.caps(),
        )
        .unwrap();
        let prepared = Prepared::<f32>::new(&b, p).unwrap();
        let mut queued = 0;
        let spec = TimingSpec::kernels(1, 2).with_batch(3);
        let t = time_queued(&b, &spec, || {
            queued += 1;
            prepared.enqueue(&b, &input, 0)
        })
        .unwrap();
        assert_eq!(
            (t.runs_ms.len(), queued),
            (2, 9),
            "1 + 2 windows of 3 runs each"
        );
        assert!(t.runs_ms.iter().all(|&ms| ms > 0.0) && t.total() >= t.min());
        let copy = spec.with_batch(1).with_scope(Scope::KernelsAndResultCopy);
        assert_eq!(
            time_prepared(&b, &prepared, &input, &copy)
                .unwrap()
                .runs_ms
                .len(),
            2
        );
        assert_eq!(prepared.read_result(&b).unwrap(), 3000.0);
        for bad in [
            TimingSpec::kernels(0, 0),
            TimingSpec::kernels(1, 1).with_batch(0),
        ] {
            let e = time_prepared(&b, &prepared, &input, &bad).unwrap_err();
            assert!(matches!(e, ReduceError::InvalidArgument(_)), "{e}");
        }
    }
}
