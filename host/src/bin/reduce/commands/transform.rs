//! `reduce transform`: norms, dot products, mean and variance in one pass
//! ([`reduce_host::transform`]): each op checked against the CPU reference and its error bound,
//! then timed (CUDA events on a GPU). Several ops share one input (`--op sumsq,dot,var`);
//! `--format json` prints one record per op for `benches/toolbox-transform-on-gpu.sh`.

use crate::args::{count, Data, Format};
use crate::data::make_data;
use crate::output::verdict;
use reduce_host::measure::{time_queued, TimingSpec};
use reduce_host::transform::reference::reference_transform;
use reduce_host::{
    with_elem_type, Backend, ElemType, Moments, Op, PreparedTransform, ReduceError, Scalar,
    TransformKind,
};

#[derive(clap::Args, Clone)]
pub struct TransformArgs {
    /// Ops, comma-separated: sumsq (Σx²), l1 (Σ|x|), norm2 (√Σx²), dot (Σxy, a second input),
    /// mean, var, std (one moments launch; var/std with --ddof).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "norm2")]
    pub op: Vec<TransformArg>,
    /// Elements (of each input).
    #[arg(long, default_value_t = 1 << 22)]
    pub n: usize,
    /// Element type (f32 or f64).
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
}

impl TransformArg {
    fn kind(self) -> TransformKind {
        match self {
            TransformArg::Sumsq | TransformArg::Norm2 => TransformKind::SumSq,
            TransformArg::L1 => TransformKind::L1,
            TransformArg::Dot => TransformKind::Dot,
            TransformArg::Mean | TransformArg::Var | TransformArg::Std => TransformKind::Moments,
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
        }
    }
    /// The value this op reports, from the kernel's words.
    fn value(self, w: [f64; 3], ddof: u64) -> Result<f64, ReduceError> {
        let moments = || Moments::new(w[0] as u64, w[1], w[2]);
        Ok(match self {
            TransformArg::Sumsq | TransformArg::L1 | TransformArg::Dot => w[0],
            TransformArg::Norm2 => w[0].sqrt(),
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
            *x = T::from_f64(x.to_f64() + a.shift);
        }
    }
    Ok(v)
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
    let mut all_ok = true;
    for &op in &a.op {
        let kind = op.kind();
        let p = PreparedTransform::<T>::new(backend, kind, n)?;
        let other = if kind == TransformKind::Dot {
            db.as_ref().map(|d| (d, 0))
        } else {
            None
        };
        let words = p.run(backend, &da, 0, other)?;
        let value = op.value(words, a.ddof)?;
        let ok = match reference_transform(kind, &ha, hb.as_deref()) {
            Some(r) => r.accepts(words, p.plan().depth),
            None => words[0] == 0.0,
        };
        all_ok &= ok;
        let timing = if a.runs > 0 {
            let spec = TimingSpec::kernels(3.min(a.runs), a.runs);
            Some(time_queued(backend, &spec, || {
                p.enqueue(backend, &da, 0, other)
            })?)
        } else {
            None
        };
        let bytes = (n * T::TYPE.size() * kind.inputs()) as f64;
        let (min_ms, median_ms) = timing
            .as_ref()
            .map_or((f64::NAN, f64::NAN), |t| (t.min(), t.median()));
        let gbps = bytes / (min_ms * 1e-3) / 1e9;
        match a.format {
            Format::Json => println!(
                "{}",
                serde_json::json!({
                    "record": "transform",
                    "impl": "ours",
                    "device": backend.caps().name,
                    "op": op.name(),
                    "type": T::TYPE.name(),
                    "n": n,
                    "ddof": a.ddof,
                    "shift": a.shift,
                    "value": value,
                    "bytes": bytes,
                    "min_ms": min_ms,
                    "median_ms": median_ms,
                    "gbps": gbps,
                    "runs": a.runs,
                    "plan": p.plan().describe(),
                    "depth": p.plan().depth,
                    "ok": ok,
                })
            ),
            _ => println!(
                "{} {} n={n}: {value:.9e}  {}   min {min_ms:.4} ms  median {median_ms:.4} ms  \
                 {gbps:.1} GB/s   [{}]",
                op.name(),
                T::TYPE,
                verdict(ok),
                p.plan().describe()
            ),
        }
    }
    Ok(all_ok)
}
