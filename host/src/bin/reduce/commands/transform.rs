//! `reduce transform`: norms, dot products, mean and variance in one pass
//! ([`reduce_host::transform`]): each op checked against the CPU reference and its error bound,
//! then timed (CUDA events on a GPU). Several ops share one input (`--op sumsq,dot,var`);
//! `--format json` prints one record per op for `benches/gpu.sh toolbox`.

use crate::args::{count, Data, Format};
use crate::data::{generated, make_data};
use crate::output::verdict;
use reduce_host::measure::{time_queued, TimingSpec};
use reduce_host::plan::ResultIn;
use reduce_host::transform::reference::reference_transform;
use reduce_host::transform::reference::TransformReference;
use reduce_host::transform::TransformLoop;
use reduce_host::{
    matches_reference, reference, with_elem_type, Backend, ElemType, LaunchOverrides, Moments, Op,
    PreparedTransform, ReduceError, Reducer, Scalar,
};
use std::collections::HashMap;

#[derive(clap::Args, Clone)]
pub struct TransformArgs {
    /// Ops, comma-separated: sumsq (Σx²), l1 (Σ|x|), norm2 (√Σx²), dot (Σxy, a second input),
    /// mean, var, std (one moments launch; var/std with --ddof); total (Σx in f64, the sum for
    /// f16/bf16); nanmean (Σx over the non-NaN elements and their count, one launch); sum: stage
    /// 8's plain sum of the same input, for comparison (not built for
    /// f16/bf16: a typed error).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "norm2")]
    pub op: Vec<TransformArg>,
    /// Elements (of each input).
    #[arg(long, default_value_t = 1 << 22)]
    pub n: usize,
    /// Element type (f32, f64, f16 or bf16).
    #[arg(long = "type", default_value = "f32")]
    pub ty: ElemType,
    /// Delta degrees of freedom for var and std (0: population, 1: sample).
    #[arg(long, default_value_t = 1)]
    pub ddof: u64,
    /// Input values (random: uniform in [0, 1)).
    #[arg(long, value_enum, default_value_t = Data::Random)]
    pub data: Data,
    /// Added to every input value (e.g. 1e6: a large mean over a small spread, the hard case for
    /// a variance).
    #[arg(long, default_value_t = 0.0)]
    pub shift: f64,
    /// Seed for random data.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Timed runs (0: check only).
    #[arg(long, default_value_t = 20, value_parser = count(0))]
    pub runs: usize,
    /// Output format (text or json).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Force the transform kernel's block size (256, 512 or 1024; default: stage 8's policy).
    #[arg(long)]
    pub block: Option<usize>,
    /// Force the transform kernel's grid (1..=4096 blocks; default: stage 8's policy).
    #[arg(long)]
    pub grid: Option<usize>,
    /// Force the transform kernel's loop: plain (every op and type; on the f16/bf16 moments it
    /// keeps Chan's merges) or shifted (f16/bf16 moments about one grid-wide shift, rolling
    /// loads: the default for them over more than one tile). Default: the plan's.
    #[arg(long = "loop")]
    pub looping: Option<TransformLoop>,
}

/// What `--op` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TransformArg {
    Sumsq,
    L1,
    Norm2,
    Dot,
    Mean,
    Var,
    Std,
    /// Stage 8's plain sum (not a transform): the bandwidth the others are compared with.
    Sum,
    /// Σx in `f64` (a transform launch): the sum of `f16` / `bf16` inputs.
    Total,
    /// The mean of the non-NaN elements (`np.nanmean`): their sum and count in one launch.
    Nanmean,
}

impl TransformArg {
    fn kind(self) -> Op {
        match self {
            TransformArg::Sumsq | TransformArg::Norm2 | TransformArg::Sum => Op::SumSq,
            TransformArg::L1 => Op::L1,
            TransformArg::Total => Op::Total,
            TransformArg::Nanmean => Op::NanTotal,
            TransformArg::Dot => Op::Dot,
            TransformArg::Mean | TransformArg::Var | TransformArg::Std => Op::Moments,
        }
    }
    fn name(self) -> &'static str {
        match self {
            TransformArg::Sumsq => "sumsq",
            TransformArg::L1 => "l1",
            TransformArg::Norm2 => "norm2",
            TransformArg::Dot => "dot",
            TransformArg::Mean => "mean",
            TransformArg::Var => "var",
            TransformArg::Std => "std",
            TransformArg::Sum => "sum",
            TransformArg::Total => "total",
            TransformArg::Nanmean => "nanmean",
        }
    }
    /// The value this op reports, from the kernel's words.
    fn value(self, w: [f64; 3], ddof: u64) -> Result<f64, ReduceError> {
        let moments = || Moments::new(w[0] as u64, w[1], w[2]);
        Ok(match self {
            TransformArg::Sumsq
            | TransformArg::L1
            | TransformArg::Dot
            | TransformArg::Sum
            | TransformArg::Total => w[0],
            TransformArg::Norm2 => w[0].sqrt(),
            // All NaN: 0 / 0, NaN (NumPy's answer, with a warning there).
            TransformArg::Nanmean => w[0] / w[1],
            TransformArg::Mean if w[0] == 0.0 => {
                return Err(ReduceError::EmptyInput { op: Op::Mean })
            }
            TransformArg::Mean => w[1],
            TransformArg::Var => moments().var(ddof)?,
            TransformArg::Std => moments().std(ddof)?,
        })
    }
}

pub fn run(backend: &Backend, a: &TransformArgs) -> Result<bool, ReduceError> {
    with_elem_type!(a.ty, T => run_typed::<T>(backend, a))
}

fn input<T: Scalar>(a: &TransformArgs, seed: u64) -> Result<Vec<T>, ReduceError> {
    let mut v = make_data::<T>(a.n, a.data, seed)?;
    if a.shift != 0.0 {
        for x in &mut v {
            *x = generated::<T>(x.to_f64() + a.shift);
        }
    }
    Ok(v)
}

/// One op's outcome, as printed.
struct Row<'a> {
    op: &'a str,
    value: f64,
    /// The host reference of the same quantity.
    reference: f64,
    ok: bool,
    bytes: f64,
    timing: Option<reduce_host::measure::Timing>,
    plan: String,
    depth: usize,
}

fn print_row<T: Scalar>(backend: &Backend, a: &TransformArgs, r: &Row<'_>) {
    let (min_ms, median_ms) = r
        .timing
        .as_ref()
        .map_or((f64::NAN, f64::NAN), |t| (t.min(), t.median()));
    let gbps = r.bytes / (min_ms * 1e-3) / 1e9;
    match a.format {
        Format::Json => println!(
            "{}",
            serde_json::json!({
                "record": "transform",
                "impl": "ours",
                "device": backend.caps().name,
                "op": r.op,
                "type": T::TYPE.name(),
                "n": a.n,
                "ddof": a.ddof,
                "shift": a.shift,
                "value": r.value,
                "reference": r.reference,
                "bytes": r.bytes,
                "min_ms": min_ms,
                "median_ms": median_ms,
                "gbps": gbps,
                "runs": a.runs,
                "plan": r.plan,
                "depth": r.depth,
                "ok": r.ok,
            })
        ),
        _ => println!(
            "{} {} n={}: {:.9e}  {}   min {min_ms:.4} ms  median {median_ms:.4} ms  {gbps:.1} GB/s   [{}]",
            r.op,
            T::TYPE,
            a.n,
            r.value,
            verdict(r.ok),
            r.plan
        ),
    }
}

fn run_typed<T: Scalar>(backend: &Backend, a: &TransformArgs) -> Result<bool, ReduceError> {
    let n = a.n;
    let ha = input::<T>(a, a.seed)?;
    let da = backend.upload(&ha)?;
    let hb = if a.op.contains(&TransformArg::Dot) {
        Some(input::<T>(a, a.seed.wrapping_add(1))?)
    } else {
        None
    };
    let db = hb.as_ref().map(|h| backend.upload(h)).transpose()?;
    let spec = TimingSpec::kernels(3.min(a.runs), a.runs);
    // Plans and references by kernel op (norm2 and sumsq share one, as do mean, var and std).
    let mut prepared: HashMap<Op, PreparedTransform<T>> = HashMap::new();
    let mut references: HashMap<Op, Option<TransformReference>> = HashMap::new();
    let mut all_ok = true;
    for &op in &a.op {
        if op == TransformArg::Nanmean && n == 0 {
            // As `Reducer::nanmean` of halves (NumPy: NaN and "Mean of empty slice").
            return Err(ReduceError::EmptyInput { op: Op::NanMean });
        }
        let row = if op == TransformArg::Sum {
            // Stage 8's sum in the element type: the bandwidth these ops are measured against.
            let mut reducer = Reducer::new(backend);
            let p = reducer.prepared::<T>(Op::Sum, n)?;
            let got = p.run(backend, &da, 0)?;
            let want = reference(Op::Sum, &ha);
            let ok = want
                .as_ref()
                .is_none_or(|r| matches_reference(Op::Sum, got, r, p.plan.depth));
            let timing = (a.runs > 0)
                .then(|| time_queued(backend, &spec, || p.enqueue(backend, &da, 0)))
                .transpose()?;
            Row {
                op: op.name(),
                value: got.to_f64(),
                reference: want.map_or(0.0, |r| r.sum_f64),
                ok,
                bytes: (n * T::TYPE.size()) as f64,
                timing,
                plan: format!(
                    "{} <<<{}, {}>>>",
                    p.plan.kernel, p.plan.passes[0].grid, p.plan.passes[0].block
                ),
                depth: p.plan.depth,
            }
        } else {
            let kind = op.kind();
            if let std::collections::hash_map::Entry::Vacant(e) = prepared.entry(kind) {
                let o = LaunchOverrides {
                    block: a.block,
                    grid: a.grid,
                };
                e.insert(PreparedTransform::<T>::with_loop(
                    backend,
                    kind,
                    n,
                    o,
                    ResultIn::MappedHost,
                    a.looping,
                )?);
            }
            let p = &prepared[&kind];
            let other = if kind == Op::Dot {
                db.as_ref().map(|d| (d, 0))
            } else {
                None
            };
            let words = p.run(backend, &da, 0, other)?;
            let value = op.value(words, a.ddof)?;
            let r = references
                .entry(kind)
                .or_insert_with(|| reference_transform(kind, &ha, hb.as_deref()));
            let ok = match r {
                Some(r) => r.accepts(words, p.plan()),
                None => words[0] == 0.0,
            };
            let reference = match *r {
                Some(TransformReference::Sum { value, .. }) => {
                    op.value([value, 0.0, 0.0], a.ddof)?
                }
                Some(TransformReference::NanSum { value, count, .. }) => {
                    op.value([value, count as f64, 0.0], a.ddof)?
                }
                Some(TransformReference::Moments { n, mean, m2, .. }) => {
                    op.value([n as f64, mean, m2], a.ddof)?
                }
                None => 0.0,
            };
            let timing = (a.runs > 0)
                .then(|| time_queued(backend, &spec, || p.enqueue(backend, &da, 0, other)))
                .transpose()?;
            Row {
                op: op.name(),
                value,
                reference,
                ok,
                bytes: (n * T::TYPE.size() * kind.inputs()) as f64,
                timing,
                plan: p.plan().describe(),
                depth: p.plan().depth,
            }
        };
        all_ok &= row.ok;
        print_row::<T>(backend, a, &row);
    }
    Ok(all_ok)
}
