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

mod common;

use criterion::measurement::WallTime;
use criterion::{
    AxisScale, BenchmarkGroup, BenchmarkId, Criterion, PlotConfiguration, SamplingMode, Throughput,
};
use reduce_host::measure::{self, Scope, Timing, TimingSpec};
use reduce_host::transfer::copy_device_to_device_async;
use reduce_host::{Backend, Buffer, Op, Prepared, ReduceError, Scalar, Stage};
use std::time::Duration;

/// Times `iters` runs for criterion with the library's timing engine ([`measure`]): CUDA events
/// on the GPU, the wall clock on the emulator.
struct Timer<'b> {
    backend: &'b Backend,
    /// Time all `iters` runs between one pair of events (back-to-back throughput) instead of
    /// each run between its own pair, synchronized (`REDUCE_BENCH_BATCHED=1`).
    batched: bool,
}

impl<'b> Timer<'b> {
    fn new(backend: &'b Backend, batched: bool) -> Self {
        Timer { backend, batched }
    }

    /// `iters` runs with `scope`: each in its own window and waited for, like `reduce sweep`,
    /// `cub_bench` and `baselines.py` time their runs (so criterion's numbers match the
    /// report's), or all in one window when batched.
    fn spec(&self, iters: u64, scope: Scope) -> TimingSpec {
        let iters = usize::try_from(iters).unwrap_or(usize::MAX).max(1);
        let spec = if self.batched {
            TimingSpec::kernels(0, 1).with_batch(iters)
        } else {
            TimingSpec::kernels(0, iters)
        };
        spec.with_scope(scope)
    }

    /// The total time of the timed windows, for `iter_custom`.
    fn total(timing: reduce_host::Result<Timing>) -> Duration {
        let ms = timing.expect("timing the runs").total();
        Duration::from_secs_f64(ms * 1e-3)
    }

    /// `iters` runs of a prepared plan on `input`.
    fn reductions<T: Scalar>(
        &self,
        p: &Prepared<T>,
        input: &Buffer<T>,
        iters: u64,
        scope: Scope,
    ) -> Duration {
        let spec = self.spec(iters, scope);
        Self::total(measure::time_prepared(self.backend, p, input, &spec))
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
    let buf = backend.zeroed::<T>(len)?;
    let seed_len = len.clamp(1, 1 << 16).min(len);
    let seed = backend.upload(&vec![value; seed_len])?;
    // SAFETY: `buf` and `seed` live until the end of this function, after the stream is
    // synchronized.
    let copied = unsafe {
        (|| {
            copy_device_to_device_async(gpu, &buf, 0, &seed, 0, seed_len)?;
            let mut done = seed_len;
            while done < len {
                let k = done.min(len - done);
                copy_device_to_device_async(gpu, &buf, done, &buf, 0, k)?;
                done += k;
            }
            Ok(())
        })()
    };
    backend.synchronize()?;
    copied.map(|()| buf)
}

/// Plan, run once and check the result against the all-ones input, then benchmark.
#[allow(clippy::too_many_arguments)]
fn bench_reduction<T: Scalar>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    timer: &Timer<'_>,
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

fn ladder_f32(c: &mut Criterion, timer: &Timer<'_>, sizes: &Sizes) {
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
    timer: &Timer<'_>,
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

fn single_pass(c: &mut Criterion, timer: &Timer<'_>, sizes: &Sizes) {
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
fn ceiling(c: &mut Criterion, timer: &Timer<'_>, sizes: &Sizes) {
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
    let mut group = c.benchmark_group("ceiling");
    group.sampling_mode(SamplingMode::Flat);
    group.plot_config(PlotConfiguration::default().summary_scale(AxisScale::Logarithmic));
    for &e in &sizes.late {
        let n = 1usize << e;
        // Read + write.
        group.throughput(Throughput::BytesDecimal(8 * n as u64));
        group.bench_with_input(BenchmarkId::new("memcpy_d2d", n), &n, |b, &n| {
            b.iter_custom(|iters| {
                let spec = timer.spec(iters, Scope::Kernels);
                Timer::total(measure::time_queued(backend, &spec, || {
                    // SAFETY: both buffers hold max_n >= n f32 and outlive the timing loop,
                    // which waits for every window before returning.
                    unsafe { copy_device_to_device_async(gpu, &dst, 0, &src, 0, n) }
                }))
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
    let batched = std::env::var("REDUCE_BENCH_BATCHED").is_ok_and(|v| v == "1");
    let backend = match Backend::open(common::backend_choice()) {
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
    let timer = Timer::new(&backend, batched);
    ladder_f32(&mut c, &timer, &sizes);
    single_pass(&mut c, &timer, &sizes);
    ceiling(&mut c, &timer, &sizes);
    c.final_summary();
}
