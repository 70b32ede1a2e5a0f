//! criterion benchmarks of the reductions along an axis and over segments (issue #13), timed on
//! the GPU with CUDA events (the library's timing engine, as `reduce axis` times them).
//!
//! Groups: `axis_rows/<R>x<C>` and `axis_cols/<R>x<C>` — f32 sum of a row-major matrix of ones
//! for the six shapes; `axis_segments/ragged_<K>` — K segments with lengths log-uniform
//! in 1..=2^20. Throughput is the input's bytes, so the reports show GB/s. Each benchmark first
//! checks one result.
//!
//! No GPU: one line says so and the binary exits 0. `REDUCE_BENCH_BACKEND=emu` runs a tiny smoke
//! run on the CPU emulator (wall clock; it checks the code, not performance).

mod common;

use criterion::{BenchmarkId, Criterion, Throughput};
use reduce_host::axis_plan::log_uniform_segments;
use reduce_host::{AxisKind, AxisPolicy, Backend, Op, PreparedAxis, Segments};

#[allow(clippy::too_many_arguments)] // one benchmark's whole description
fn time(
    c: &mut Criterion,
    b: &Backend,
    group: &str,
    id: String,
    n: usize,
    p: &PreparedAxis<f32>,
    segs: Option<&Segments>,
    want: impl Fn(usize) -> f32,
) {
    let input = b.filled(n, 1.0f32).expect("input");
    let mut out = b.zeroed::<f32>(p.results()).expect("output");
    p.enqueue(b, &input, segs, &mut out).expect("first run");
    let got = b.download(&out, p.results()).expect("download");
    if let Some(i) = got.iter().enumerate().position(|(i, &g)| g != want(i)) {
        panic!(
            "{group}/{id}: result {i} is {} instead of {}",
            got[i],
            want(i)
        );
    }
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::BytesDecimal((n * 4) as u64));
    g.bench_function(BenchmarkId::from_parameter(id), |bench| {
        bench.iter_custom(|iters| common::queued(b, iters, || p.enqueue(b, &input, segs, &mut out)))
    });
    g.finish();
}

fn main() {
    let Some(b) = common::open_backend("axis") else {
        return;
    };
    let (shapes, segments, max_len): (Vec<(usize, usize)>, usize, usize) = if b.is_emulator() {
        (vec![(64, 16), (4, 1000)], 8, 1000)
    } else {
        let shapes = [(20, 4), (16, 10), (12, 14), (8, 20), (4, 24), (14, 14)];
        (
            shapes.iter().map(|&(r, c)| (1 << r, 1 << c)).collect(),
            2000,
            1 << 20,
        )
    };
    // Plots need a font (plotters with `ab_glyph`): without one they are off, as in reduce.rs.
    let mut c = common::criterion("axis", &b);
    let policy = AxisPolicy::default();
    for &(rows, cols) in &shapes {
        for (axis, group) in [(AxisKind::Rows, "axis_rows"), (AxisKind::Cols, "axis_cols")] {
            let p =
                PreparedAxis::<f32>::matrix(&b, &policy, axis, Op::Sum, rows, cols).expect("plan");
            let len = if axis == AxisKind::Rows { cols } else { rows };
            time(
                &mut c,
                &b,
                group,
                format!("{rows}x{cols}"),
                rows * cols,
                &p,
                None,
                |_| len as f32,
            );
        }
    }
    let (begin, end) = log_uniform_segments(segments, max_len, 42);
    let n = *end.last().expect("segments") as usize;
    let segs = Segments::new(&b, &begin, &end, n).expect("segments");
    let p = PreparedAxis::<f32>::segments(&b, &policy, Op::Sum, &segs, n).expect("plan");
    time(
        &mut c,
        &b,
        "axis_segments",
        format!("ragged_{segments}"),
        n,
        &p,
        Some(&segs),
        |i| (end[i] - begin[i]) as f32,
    );
    c.final_summary();
}
