//! criterion benchmarks of the transform-reduces (issue #14: norms, dot products, mean and
//! variance in one pass), timed on the GPU with CUDA events (the library's timing engine, as
//! `reduce transform` times them).
//!
//! Groups: `transform_{sumsq,l1,dot,moments}/2^<e>` — f32 ones at N = 2^20, 2^26 and 2^30 (the
//! dot product reads two such vectors). Throughput is the bytes read, so the reports show GB/s.
//! Each benchmark first checks its result (Σ1² = Σ|1| = Σ1·1 = N; mean 1, M2 0).
//!
//! No GPU: one line says so and the binary exits 0. `REDUCE_BENCH_BACKEND=emu` runs a tiny smoke
//! run on the CPU emulator (wall clock; it checks the code, not performance).

use criterion::{BenchmarkId, Criterion, Throughput};
use reduce_host::measure::{time_queued, TimingSpec};
use reduce_host::{Backend, BackendChoice, PreparedTransform, ReduceError, TransformKind};
use std::time::Duration;

fn main() {
    let emulate = std::env::var("REDUCE_BENCH_BACKEND").is_ok_and(|v| v == "emu");
    let choice = if emulate {
        BackendChoice::Emu
    } else {
        BackendChoice::Gpu
    };
    let b = match Backend::open(choice) {
        Ok(b) => b,
        Err(e @ (ReduceError::NoDriver(_) | ReduceError::NoDevice)) => {
            println!("reduce-benches (transform): no CUDA GPU ({e}): skipping (REDUCE_BENCH_BACKEND=emu runs a smoke test)");
            return;
        }
        Err(e) => {
            eprintln!("reduce-benches (transform): cannot open the GPU: {e}");
            std::process::exit(1);
        }
    };
    let exps: &[u32] = if b.is_emulator() {
        &[12]
    } else {
        &[20, 26, 30]
    };
    let mut c = Criterion::default().configure_from_args();
    if let Err(why) = reduce_benches::plot::register_system_font() {
        eprintln!("reduce-benches (transform): {why}: criterion's plots are off");
        c = c.without_plots();
    }
    if b.is_emulator() {
        c = c
            .warm_up_time(Duration::from_millis(50))
            .measurement_time(Duration::from_millis(200))
            .sample_size(10);
    }
    for &e in exps {
        let n = 1usize << e;
        let x = b.filled(n, 1.0f32).expect("input");
        let y = b.filled(n, 1.0f32).expect("second input");
        for op in TransformKind::ALL {
            let p = PreparedTransform::<f32>::new(&b, op, n).expect("plan");
            let other = (op == TransformKind::Dot).then_some((&y, 0));
            let words = p.run(&b, &x, 0, other).expect("first run");
            let want = match op {
                TransformKind::Moments => [n as f64, 1.0, 0.0],
                _ => [n as f64, 0.0, 0.0],
            };
            assert_eq!(words, want, "transform_{}/2^{e}", op.name());
            let mut g = c.benchmark_group(format!("transform_{}", op.name()));
            g.throughput(Throughput::BytesDecimal((n * 4 * op.inputs()) as u64));
            g.bench_function(BenchmarkId::from_parameter(format!("2^{e}")), |bench| {
                bench.iter_custom(|iters| {
                    let spec = TimingSpec::kernels(0, usize::try_from(iters).unwrap_or(1).max(1));
                    let t = time_queued(&b, &spec, || p.enqueue(&b, &x, 0, other)).expect("timing");
                    Duration::from_secs_f64(t.total() / 1e3)
                })
            });
            g.finish();
        }
    }
    c.final_summary();
}
