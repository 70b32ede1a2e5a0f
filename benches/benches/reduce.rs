//! criterion benchmarks of the reduction ladder, timed on the GPU with CUDA events.
//!
//! Groups (filter with criterion's usual `cargo bench -- <regex>`):
//!
//! * `ladder_f32/<stage slug>/<N>` — stages 1–7, f32 sum, kernels only (every pass of the
//!   multi-pass ladder). Stages 1–4 run N = 2^12 … 2^28, stages 5–7 up to 2^30.
//! * `single_pass/<op>_<type>/<N>` — stage 8 (one launch): sum of f32, f64, i32, u32, i64, u64 and
//!   min, max, mean of f32, N = 2^12 … 2^30, timed with the copy of the 4-byte result into pinned
//!   host memory (what a caller of `Reducer::sum` waits for, and what the CUB baseline times).
//! * `ceiling/memcpy_d2d/<N>` — a device-to-device copy of 4·N bytes: the bandwidth ceiling
//!   (throughput counts read + write, 8·N bytes).
//!
//! Every timing is `iter_custom` with CUDA events: each of the `iters` runs is bracketed by two
//! events and waited for (the protocol of `reduce sweep`, `cub_bench` and `baselines.py`, so the
//! numbers match the report's tables), and the summed GPU time goes to criterion.
//! `REDUCE_BENCH_BATCHED=1` instead brackets all `iters` runs, queued back to back, by one pair:
//! throughput rather than the latency of one reduction. `Throughput::BytesDecimal` is the input
//! size, so the reports show GB/s (10^9 bytes, like the datasheet's 4.8 TB/s). Inputs are all
//! ones, filled on the device; each benchmark first checks one result.
//!
//! No GPU: one line says so and the binary exits 0. `REDUCE_BENCH_BACKEND=emu` instead runs a
//! tiny smoke run (N = 2^12) on the CPU emulator, timed by the wall clock: it checks the
//! benchmark code, not performance.

use criterion::measurement::WallTime;
use criterion::{
    AxisScale, BenchmarkGroup, BenchmarkId, Criterion, PlotConfiguration, SamplingMode, Throughput,
};
use cust::event::{Event, EventFlags};
use reduce_host::{
    Backend, BackendChoice, Buffer, Op, Prepared, ReduceError, ResultIn, Scalar, Stage,
};
use std::ffi::c_void;
use std::time::{Duration, Instant};

/// What one timed reduction includes.
#[derive(Clone, Copy, PartialEq)]
enum Scope {
    /// The kernel launches only.
    Kernels,
    /// The launches plus an async copy of the result into pinned host memory.
    KernelsAndResultCopy,
}

fn driver(r: cust::sys::CUresult, what: &str) {
    assert!(
        r == cust::sys::CUresult::CUDA_SUCCESS,
        "CUDA error while {what}: {r:?}"
    );
}

/// Times `iters` runs: CUDA events on the GPU, the wall clock on the emulator.
struct Timer<'b> {
    backend: &'b Backend,
    gpu: Option<GpuTimer>,
    /// Time all `iters` runs between one pair of events (back-to-back throughput) instead of
    /// each run between its own pair, synchronized (`REDUCE_BENCH_BATCHED=1`).
    batched: bool,
}

struct GpuTimer {
    start: Event,
    end: Event,
    /// 8 bytes of pinned host memory: the result copy's destination (any element type).
    pinned: cust::memory::LockedBuffer<u64>,
}

impl<'b> Timer<'b> {
    fn new(backend: &'b Backend, batched: bool) -> Self {
        let gpu = backend.gpu().map(|_| GpuTimer {
            start: Event::new(EventFlags::DEFAULT).expect("creating a CUDA event"),
            end: Event::new(EventFlags::DEFAULT).expect("creating a CUDA event"),
            pinned: cust::memory::LockedBuffer::new(&0u64, 1).expect("allocating pinned memory"),
        });
        Timer {
            backend,
            gpu,
            batched,
        }
    }

    /// Run `body` `iters` times and return the GPU time (the emulator: wall-clock time).
    ///
    /// By default each run is bracketed by its own two events and waited for, like
    /// `reduce sweep`, `cub_bench` and `baselines.py` time their runs, so criterion's numbers
    /// match the report's; the sum over the runs goes to criterion. Batched, one pair of events
    /// brackets all runs queued back to back.
    fn time(&mut self, iters: u64, mut body: impl FnMut(*mut c_void)) -> Duration {
        let backend = self.backend;
        match (&mut self.gpu, backend.gpu()) {
            (Some(t), Some(gpu)) => {
                let stream = gpu.stream();
                let pinned = t.pinned.as_mut_ptr() as *mut c_void;
                let mut ms = 0.0;
                let (per_window, windows) = if self.batched { (iters, 1) } else { (1, iters) };
                for _ in 0..windows {
                    t.start.record(stream).expect("recording an event");
                    for _ in 0..per_window {
                        body(pinned);
                    }
                    t.end.record(stream).expect("recording an event");
                    t.end.synchronize().expect("running the timed work");
                    ms += f64::from(t.end.elapsed_time_f32(&t.start).expect("reading an event"));
                }
                Duration::from_secs_f64(ms * 1e-3)
            }
            _ => {
                let mut host = 0u64;
                let s = Instant::now();
                for _ in 0..iters {
                    body(&mut host as *mut u64 as *mut c_void);
                }
                backend.synchronize().expect("waiting for the device");
                s.elapsed()
            }
        }
    }

    /// `iters` runs of a prepared plan on `input`.
    fn reductions<T: Scalar>(
        &mut self,
        p: &Prepared<T>,
        input: &Buffer<T>,
        iters: u64,
        scope: Scope,
    ) -> Duration {
        let backend = self.backend;
        self.time(iters, |pinned| {
            p.enqueue(backend, input, 0)
                .expect("launching the reduction");
            // Stage 8 on a GPU leaves its result in mapped host memory: nothing to copy.
            if scope == Scope::KernelsAndResultCopy && p.result_in() == ResultIn::DeviceMemory {
                match backend.gpu() {
                    Some(gpu) => driver(
                        // SAFETY: `pinned` is 8 bytes of pinned memory owned by the timer, the
                        // result buffer holds at least one T (≤ 8 bytes), and the stream is
                        // synchronized before either is dropped.
                        unsafe {
                            cust::sys::cuMemcpyDtoHAsync_v2(
                                pinned,
                                p.result_buffer().addr(0),
                                std::mem::size_of::<T>(),
                                gpu.stream().as_inner(),
                            )
                        },
                        "copying the result",
                    ),
                    None => {
                        backend
                            .download(p.result_buffer(), 1)
                            .expect("reading the result");
                    }
                }
            }
        })
    }
}

/// `len` copies of `value` on the device. 4-byte types: `cuMemsetD32`; 8-byte types on a GPU: a
/// small upload, then doubling device-to-device copies (no multi-GiB host buffer).
fn filled<T: Scalar>(backend: &Backend, len: usize, value: T) -> reduce_host::Result<Buffer<T>> {
    if T::TYPE.size() == 4 {
        return backend.filled(len, value);
    }
    let Some(gpu) = backend.gpu() else {
        return backend.upload(&vec![value; len]);
    };
    let size = T::TYPE.size();
    let buf = backend.zeroed::<T>(len)?;
    let seed_len = len.clamp(1, 1 << 16);
    let seed = backend.upload(&vec![value; seed_len])?;
    let stream = gpu.stream().as_inner();
    // SAFETY: every copy stays inside `buf` (len elements) and `seed` (seed_len elements); the
    // stream is synchronized before `seed` is dropped.
    unsafe {
        driver(
            cust::sys::cuMemcpyDtoDAsync_v2(buf.addr(0), seed.addr(0), seed_len * size, stream),
            "filling an input",
        );
        let mut done = seed_len;
        while done < len {
            let k = done.min(len - done);
            driver(
                cust::sys::cuMemcpyDtoDAsync_v2(buf.addr(done), buf.addr(0), k * size, stream),
                "filling an input",
            );
            done += k;
        }
    }
    backend.synchronize()?;
    Ok(buf)
}

/// Plan, run once and check the result against the all-ones input, then benchmark.
#[allow(clippy::too_many_arguments)]
fn bench_reduction<T: Scalar>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    timer: &mut Timer<'_>,
    function: &str,
    stage: Stage,
    op: Op,
    input: &Buffer<T>,
    n: usize,
    scope: Scope,
) {
    let backend = timer.backend;
    let plan = match reduce_host::plan(stage, T::TYPE, op, n, Default::default(), backend.caps()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("reduce-benches: skipping {function} at N = {n}: {e}");
            return;
        }
    };
    let prepared = Prepared::<T>::new(backend, plan).expect("allocating the workspace");
    let got = prepared
        .run(backend, input, 0)
        .expect("running the reduction")
        .to_f64();
    // All ones: sums (and the sum behind mean) are N, min and max are 1.
    let want = match op {
        Op::Min | Op::Max => 1.0,
        _ => n as f64,
    };
    let tolerance = if T::TYPE.is_float() { 1e-6 * want } else { 0.0 };
    if (got - want).abs() > tolerance {
        eprintln!("reduce-benches: WARNING: {function} at N = {n} returned {got}, expected {want}");
    }
    group.throughput(Throughput::BytesDecimal((n * T::TYPE.size()) as u64));
    group.bench_with_input(BenchmarkId::new(function, n), &n, |b, _| {
        b.iter_custom(|iters| timer.reductions(&prepared, input, iters, scope));
    });
}

struct Sizes {
    /// Exponents of stages 1–4 (the slow ones).
    early: Vec<u32>,
    /// Exponents of stages 5–8 and the ceiling.
    late: Vec<u32>,
}

fn ladder_f32(c: &mut Criterion, timer: &mut Timer<'_>, sizes: &Sizes) {
    let backend = timer.backend;
    let max_n = 1usize
        << sizes
            .late
            .iter()
            .chain(&sizes.early)
            .max()
            .copied()
            .unwrap_or(12);
    let input = match filled::<f32>(backend, max_n, 1.0) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("reduce-benches: skipping ladder_f32: {e}");
            return;
        }
    };
    let mut group = c.benchmark_group("ladder_f32");
    group.sampling_mode(SamplingMode::Flat);
    group.plot_config(PlotConfiguration::default().summary_scale(AxisScale::Logarithmic));
    for stage in &Stage::ALL[..7] {
        let exps = if stage.number() <= 4 {
            &sizes.early
        } else {
            &sizes.late
        };
        for &e in exps {
            bench_reduction::<f32>(
                &mut group,
                timer,
                stage.slug(),
                *stage,
                Op::Sum,
                &input,
                1 << e,
                Scope::Kernels,
            );
        }
    }
    group.finish();
}

fn single_pass_type<T: Scalar>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    timer: &mut Timer<'_>,
    exps: &[u32],
    ops: &[Op],
) {
    let max_n = 1usize << exps.iter().max().copied().unwrap_or(12);
    let input = match filled::<T>(timer.backend, max_n, T::from_f64(1.0)) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("reduce-benches: skipping single_pass for {}: {e}", T::TYPE);
            return;
        }
    };
    for &op in ops {
        let function = format!("{op}_{}", T::TYPE);
        for &e in exps {
            bench_reduction::<T>(
                group,
                timer,
                &function,
                Stage::S8,
                op,
                &input,
                1 << e,
                Scope::KernelsAndResultCopy,
            );
        }
    }
}

fn single_pass(c: &mut Criterion, timer: &mut Timer<'_>, sizes: &Sizes) {
    let mut group = c.benchmark_group("single_pass");
    group.sampling_mode(SamplingMode::Flat);
    group.plot_config(PlotConfiguration::default().summary_scale(AxisScale::Logarithmic));
    let e = &sizes.late;
    single_pass_type::<f32>(&mut group, timer, e, &[Op::Sum, Op::Min, Op::Max, Op::Mean]);
    single_pass_type::<f64>(&mut group, timer, e, &[Op::Sum]);
    single_pass_type::<i32>(&mut group, timer, e, &[Op::Sum]);
    single_pass_type::<u32>(&mut group, timer, e, &[Op::Sum]);
    single_pass_type::<i64>(&mut group, timer, e, &[Op::Sum]);
    single_pass_type::<u64>(&mut group, timer, e, &[Op::Sum]);
    group.finish();
}

/// Device-to-device copy of 4·N bytes: the memory-bandwidth ceiling (GPU only).
fn ceiling(c: &mut Criterion, timer: &mut Timer<'_>, sizes: &Sizes) {
    let backend = timer.backend;
    let Some(gpu) = backend.gpu() else { return };
    let max_n = 1usize << sizes.late.iter().max().copied().unwrap_or(12);
    let (src, dst) = match (
        backend.filled::<f32>(max_n, 1.0),
        backend.zeroed::<f32>(max_n),
    ) {
        (Ok(s), Ok(d)) => (s, d),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("reduce-benches: skipping ceiling/memcpy_d2d: {e}");
            return;
        }
    };
    let stream = gpu.stream().as_inner();
    let mut group = c.benchmark_group("ceiling");
    group.sampling_mode(SamplingMode::Flat);
    group.plot_config(PlotConfiguration::default().summary_scale(AxisScale::Logarithmic));
    for &e in &sizes.late {
        let n = 1usize << e;
        // Read + write.
        group.throughput(Throughput::BytesDecimal(8 * n as u64));
        group.bench_with_input(BenchmarkId::new("memcpy_d2d", n), &n, |b, &n| {
            b.iter_custom(|iters| {
                timer.time(iters, |_| {
                    // SAFETY: both buffers hold max_n ≥ n f32 and outlive the synchronized stream.
                    driver(
                        unsafe {
                            cust::sys::cuMemcpyDtoDAsync_v2(dst.addr(0), src.addr(0), 4 * n, stream)
                        },
                        "copying device to device",
                    )
                })
            });
        });
    }
    group.finish();
}

/// Fonts for criterion's plots (plotters is built with `ab_glyph`, which needs one registered).
/// Without a font and without gnuplot the plots, and with them criterion's HTML report, are
/// turned off rather than failing.
fn configure_plots(c: Criterion) -> Criterion {
    match reduce_benches::plot::register_system_font() {
        Ok(_) => c,
        Err(why) => {
            let gnuplot = std::process::Command::new("gnuplot")
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success());
            if gnuplot {
                c
            } else {
                eprintln!(
                    "reduce-benches: {why}, and no gnuplot: criterion's HTML reports are off \
                     (the numbers are still printed and saved under target/criterion)"
                );
                c.without_plots()
            }
        }
    }
}

fn main() {
    let emulate = std::env::var("REDUCE_BENCH_BACKEND").is_ok_and(|v| v == "emu");
    let batched = std::env::var("REDUCE_BENCH_BATCHED").is_ok_and(|v| v == "1");
    let choice = if emulate {
        BackendChoice::Emu
    } else {
        BackendChoice::Gpu
    };
    let backend = match Backend::open(choice) {
        Ok(b) => b,
        Err(ReduceError::NoDriver(e)) => {
            println!(
                "reduce-benches: no CUDA GPU (cuInit failed: {e}): skipping all benchmarks \
                 (REDUCE_BENCH_BACKEND=emu runs a smoke test on the CPU emulator)"
            );
            return;
        }
        Err(ReduceError::NoDevice) => {
            println!(
                "reduce-benches: no CUDA GPU (the driver reports no device): skipping all \
                 benchmarks (REDUCE_BENCH_BACKEND=emu runs a smoke test on the CPU emulator)"
            );
            return;
        }
        Err(e) => {
            eprintln!("reduce-benches: cannot open the GPU: {e}");
            std::process::exit(1);
        }
    };
    let caps = backend.caps();
    let (sizes, warm_up, measure) = if backend.is_emulator() {
        println!(
            "reduce-benches: *** CPU EMULATOR smoke run (REDUCE_BENCH_BACKEND=emu): wall-clock \
             times of emulated kernels, not GPU timings ***"
        );
        let s = Sizes {
            early: vec![12],
            late: vec![12],
        };
        (s, Duration::from_millis(100), Duration::from_millis(300))
    } else {
        println!(
            "reduce-benches: {} (sm_{}{}, {} SMs); GPU time from CUDA events, {}",
            caps.name,
            caps.compute_capability.0,
            caps.compute_capability.1,
            caps.sm_count,
            if batched {
                "all iterations back to back between one pair (REDUCE_BENCH_BATCHED=1)"
            } else {
                "each run between its own pair"
            }
        );
        let s = Sizes {
            early: (12..=28).step_by(2).collect(),
            late: (12..=30).step_by(2).collect(),
        };
        (s, Duration::from_millis(300), Duration::from_secs(1))
    };
    // ~170 benchmarks: 10 samples in 1 s each, and 10k bootstrap resamples instead of 100k (the
    // bootstrap plots dominate the run time otherwise) keep `cargo bench` to about 5 minutes on
    // an H200. Every setting can still be overridden on the command line.
    let c = Criterion::default()
        .sample_size(10)
        .nresamples(10_000)
        .warm_up_time(warm_up)
        .measurement_time(measure)
        .configure_from_args();
    let mut c = configure_plots(c);
    let mut timer = Timer::new(&backend, batched);
    ladder_f32(&mut c, &mut timer, &sizes);
    single_pass(&mut c, &mut timer, &sizes);
    ceiling(&mut c, &mut timer, &sizes);
    c.final_summary();
}
