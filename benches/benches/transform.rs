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

mod common;

use criterion::{BenchmarkId, Throughput};
use reduce_host::{Op, PreparedTransform};

fn main() {
    let Some(b) = common::open_backend("transform") else {
        return;
    };
    let exps: &[u32] = if b.is_emulator() {
        &[12]
    } else {
        &[20, 26, 30]
    };
    let mut c = common::criterion("transform", &b);
    for &e in exps {
        let n = 1usize << e;
        let x = b.filled(n, 1.0f32).expect("input");
        let y = b.filled(n, 1.0f32).expect("second input");
        for op in Op::TRANSFORM {
            let p = PreparedTransform::<f32>::new(&b, op, n).expect("plan");
            let other = (op == Op::Dot).then_some((&y, 0));
            let words = p.run(&b, &x, 0, other).expect("first run");
            let want = match op {
                Op::Moments => [n as f64, 1.0, 0.0],
                _ => [n as f64, 0.0, 0.0],
            };
            assert_eq!(words, want, "transform_{}/2^{e}", op.name());
            let mut g = c.benchmark_group(format!("transform_{}", op.name()));
            g.throughput(Throughput::BytesDecimal((n * 4 * op.inputs()) as u64));
            g.bench_function(BenchmarkId::from_parameter(format!("2^{e}")), |bench| {
                bench.iter_custom(|iters| common::queued(&b, iters, || p.enqueue(&b, &x, 0, other)))
            });
            g.finish();
        }
    }
    c.final_summary();
}
