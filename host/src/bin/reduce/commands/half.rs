//! `reduce half`: stage 8's operators on `f16` / `bf16` inputs (each half widened exactly,
//! combined in `f32`, an `f32` result: `reduce_host::halves`), each checked against the CPU
//! reference of the same values in `f32` and its bound, then timed (CUDA events on a GPU; the
//! emulator: the wall clock). `--format json` prints one record per (type, N, op) for
//! `benches/gpu.sh toolbox`.
//!
//! Inputs: uniform in [0, 1) rounded to the type; `prod` reads `1 + (x − 0.5) / 32` (no
//! underflow, as the torch baseline); `nan*` ops read the same data with a NaN at `N / 2`.

use crate::args::{exponent, Data, Format};
use crate::data::{generated, make_data};
use crate::output::verdict;
use reduce_host::measure::{time_queued, Timing, TimingSpec};
use reduce_host::reference::reference_nanmean;
use reduce_host::transform::reference::reference_transform;
use reduce_host::{
    matches_reference, reference, Backend, Bf16, Buffer, ElemType, HalfFloat, LaunchOverrides, Op,
    PreparedTransform, PreparedWide, ReduceError, F16,
};
use reduce_kernels::table::KernelId;

#[derive(clap::Args, Clone)]
pub struct HalfArgs {
    /// Operators: sum, min, max, prod, nansum, nanmin, nanmax, count, nanmean (the NaN-ignoring
    /// sum and its count, in f64, in one launch: `Reducer::nanmean` of halves).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "sum,min,max,prod,nanmax,nanmean"
    )]
    pub ops: Vec<Op>,
    /// Element types (f16, bf16).
    #[arg(long, value_delimiter = ',', default_value = "f16,bf16")]
    pub types: Vec<ElemType>,
    /// Exponents: N = 2^e.
    #[arg(long, value_delimiter = ',', value_parser = exponent(), default_values_t = [12u32, 20])]
    pub exps: Vec<u32>,
    /// Input values (random: uniform in [0, 1); ones).
    #[arg(long, value_enum, default_value_t = Data::Random)]
    pub data: Data,
    /// Seed for random data.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Untimed runs first.
    #[arg(long, default_value_t = 5)]
    pub warmup: usize,
    /// Timed runs (0: check only).
    #[arg(long, default_value_t = 20)]
    pub runs: usize,
    /// Output format (text or json).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Threads per block (256, 512, 1024; default: stage 8's policy for the same bytes).
    #[arg(long)]
    pub block: Option<usize>,
    /// Blocks (1..=4096; default: the policy's, enough to fill every SM).
    #[arg(long)]
    pub grid: Option<usize>,
}

pub fn run(backend: &Backend, a: &HalfArgs) -> Result<bool, ReduceError> {
    let mut ok = true;
    for &ty in &a.types {
        for &e in &a.exps {
            ok &= match ty {
                ElemType::F16 => one::<F16>(backend, a, 1 << e)?,
                ElemType::BF16 => one::<Bf16>(backend, a, 1 << e)?,
                _ => {
                    return Err(ReduceError::InvalidArgument(format!(
                        "reduce half takes f16 and bf16, not {ty} (stage 8's own types: reduce \
                         sweep / table)"
                    )))
                }
            };
        }
    }
    Ok(ok)
}

/// The three inputs: plain, near one (for `prod`), with a NaN at `n / 2` (for the `nan*` ops).
struct Inputs<H: HalfFloat> {
    host: [Vec<H>; 3],
    device: [Buffer<H>; 3],
}

impl<H: HalfFloat> Inputs<H> {
    fn new(backend: &Backend, a: &HalfArgs, n: usize) -> Result<Self, ReduceError> {
        let plain = make_data::<H>(n, a.data, a.seed)?;
        let near_one: Vec<H> = plain
            .iter()
            .map(|x| generated::<H>(1.0 + (x.to_f64() - 0.5) / 32.0))
            .collect();
        let mut nan = plain.clone();
        if n > 0 {
            nan[n / 2] = H::from_f64(f64::NAN);
        }
        let device = [
            backend.upload(&plain)?,
            backend.upload(&near_one)?,
            backend.upload(&nan)?,
        ];
        Ok(Inputs {
            host: [plain, near_one, nan],
            device,
        })
    }
    fn which(op: Op) -> usize {
        match op {
            Op::Prod => 1,
            Op::NanSum | Op::NanMin | Op::NanMax | Op::NanMean => 2,
            _ => 0,
        }
    }
}

/// What one (type, N, op) row reports.
struct Row {
    op: Op,
    n: usize,
    value: f64,
    want: f64,
    good: bool,
    timing: Option<Timing>,
    /// Kernel, grid, block.
    shape: (KernelId, usize, usize),
}

fn one<H: HalfFloat>(backend: &Backend, a: &HalfArgs, n: usize) -> Result<bool, ReduceError> {
    let inputs = Inputs::<H>::new(backend, a, n)?;
    // Each input widened to f32 once (exact), for the references.
    let mut widened: [Option<Vec<f32>>; 3] = [None, None, None];
    let mut ok = true;
    let o = LaunchOverrides {
        block: a.block,
        grid: a.grid,
    };
    let spec = TimingSpec::kernels(a.warmup, a.runs);
    for &op in &a.ops {
        let k = Inputs::<H>::which(op);
        let (host, input) = (&inputs.host[k], &inputs.device[k]);
        let wide: &[f32] =
            widened[k].get_or_insert_with(|| host.iter().map(|h| h.to_f64() as f32).collect());
        if op == Op::NanMean {
            // One launch: the NaN-ignoring sum and its count, in f64 (`Reducer::nanmean` of halves).
            let p = PreparedTransform::<H>::with_overrides(backend, Op::NanTotal, n, o)?;
            let words = p.run(backend, input, 0, None)?;
            let good = reference_transform(Op::NanTotal, host, None)
                .is_some_and(|r| r.accepts(words, p.plan()));
            let timing = (a.runs > 0)
                .then(|| time_queued(backend, &spec, || p.enqueue(backend, input, 0, None)))
                .transpose()?;
            let plan = p.plan();
            ok &= good;
            print_row::<H>(
                backend,
                a,
                &Row {
                    op,
                    n,
                    value: words[0] / words[1],
                    want: reference_nanmean(wide).unwrap_or(f64::NAN),
                    good,
                    timing,
                    shape: (plan.kernel, plan.grid, plan.block),
                },
            );
            continue;
        }
        let main = PreparedWide::<H>::for_op(backend, n, op, o)?;
        let got = main.run(backend, input, 0)?;
        let r = reference(op, wide).ok_or(ReduceError::EmptyInput { op })?;
        let good = matches_reference(op, got, &r, main.depth());
        let want = if matches!(op, Op::Sum | Op::NanSum | Op::Count | Op::Prod) {
            r.sum_f64
        } else {
            r.value as f64
        };
        ok &= good;
        let timing = (a.runs > 0)
            .then(|| time_queued(backend, &spec, || main.enqueue(backend, input, 0)))
            .transpose()?;
        print_row::<H>(
            backend,
            a,
            &Row {
                op,
                n,
                value: got as f64,
                want,
                good,
                timing,
                shape: main.launch_shape(),
            },
        );
    }
    Ok(ok)
}

fn print_row<H: HalfFloat>(backend: &Backend, a: &HalfArgs, r: &Row) {
    let (min_ms, median_ms) = r
        .timing
        .as_ref()
        .map_or((f64::NAN, f64::NAN), |t| (t.min(), t.median()));
    let (op, n, value, want, good) = (r.op, r.n, r.value, r.want, r.good);
    let bytes = (n * 2) as f64;
    let gbps = bytes / (min_ms * 1e-3) / 1e9;
    let (kernel, grid, block) = r.shape;
    match a.format {
        Format::Json => println!(
            "{}",
            serde_json::json!({
                "record": "toolbox", "impl": "ours", "case": format!("half_{op}_{}", H::TYPE),
                "op": op.name(), "type": H::TYPE.name(), "n": n, "bytes": n * 2,
                "min_ms": min_ms, "median_ms": median_ms, "gbps": gbps,
                "result": value, "reference": want, "ok": good,
                "kernel": kernel.to_string(), "grid": grid, "block": block,
                "overrides": overrides(a),
                "device": backend.caps().name,
            })
        ),
        _ => println!(
            "{op} of 2^{} {}: {value} (reference {want}) {}   min {:.2} us  median {:.2} us  {gbps:.1} GB/s  {kernel} grid {grid}",
            n.trailing_zeros(),
            H::TYPE,
            verdict(good),
            min_ms * 1e3,
            median_ms * 1e3,
        ),
    }
}

/// The launch overrides as the records spell them (`default`, `block=1024`, `grid=264` …).
fn overrides(a: &HalfArgs) -> String {
    let parts: Vec<String> = a
        .block
        .map(|b| format!("block={b}"))
        .into_iter()
        .chain(a.grid.map(|g| format!("grid={g}")))
        .collect();
    if parts.is_empty() {
        "default".into()
    } else {
        parts.join(",")
    }
}
