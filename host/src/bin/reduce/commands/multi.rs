//! `reduce multi`: one reduction over shards on several GPUs (NCCL), or on emulated ranks;
//! checked against the CPU reference, timed per phase, the bits compared across every run.
//! With `--compare`, each GPU alone on its shard and one GPU on the whole input too.

use crate::args::{count, op_in, Data, Format};
use crate::data::make_data;
use reduce_host::measure::{time_single_pass, Protocol};
use reduce_host::multi::{InMemory, MultiResult, Nccl};
use reduce_host::reference::reference_mean;
use reduce_host::{
    reference, with_elem_type, Backend, BackendChoice, Buffer, Collective, ElemType, Gpu,
    LaunchOverrides, MultiReducer, Op, ReduceError, Reducer, Reference, Scalar,
};
use std::time::{Duration, Instant};

mod count;
mod exact;
mod report;

use report::Found;

#[derive(clap::Args, Clone)]
pub struct MultiArgs {
    /// Ranks: GPUs [default: every GPU], or emulated ranks with `--backend emu` [default: 2].
    #[arg(long, value_parser = count(1))]
    pub gpus: Option<usize>,
    /// Elements in all, split evenly [default: 2^22 per rank on a GPU, 2^16 in all emulated].
    #[arg(long)]
    pub n: Option<usize>,
    /// Operator.
    #[arg(long, default_value = "sum", value_parser = op_in(&Op::REDUCE, "a reduce op"))]
    pub op: Op,
    /// Element type.
    #[arg(long = "type", default_value = "f32")]
    pub ty: ElemType,
    /// Input values (made on the host and copied to the ranks).
    #[arg(long, value_enum, default_value_t = Data::Ones)]
    pub data: Data,
    /// Seed for `--data random`.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Fill each shard with ones on its device instead (4-byte types): inputs of 2^30 and more
    /// per GPU without a host copy; checked against the exact answer.
    #[arg(long)]
    pub on_device: bool,
    /// Untimed runs first.
    #[arg(long, value_parser = count(0), default_value_t = 3)]
    pub warmup: usize,
    /// Timed runs (all must give the same bits).
    #[arg(long, value_parser = count(1), default_value_t = 20)]
    pub runs: usize,
    /// Also time each rank alone on its shard (its read bandwidth, GPU time only) and rank 0 on
    /// the whole input (the single-GPU baseline, same clock as the multi-GPU runs).
    #[arg(long)]
    pub compare: bool,
    /// Give up (and abort NCCL) after this many milliseconds per reduction.
    #[arg(long, default_value_t = 60_000)]
    pub timeout_ms: u64,
    /// Output format (`json`: one object per line; `csv` prints JSON too).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The correctly rounded sum instead of `--op` (f32, f64): bit-identical to one device's
    /// exact sum for any rank count; checked against the host's exact sum, timed against the
    /// plain multi-rank sum.
    #[arg(long)]
    pub exact: bool,
    /// With `--exact`: an exact-sum input family (uniform, cancellation, binades, subnormals,
    /// ties, overflow) instead of `--data`.
    #[arg(long)]
    pub exact_data: Option<reduce_host::exact::ExactData>,
}

/// `--exact` for the element type `ty`.
fn run_exact<C: Collective>(m: MultiReducer<C>, a: &MultiArgs) -> Result<bool, ReduceError> {
    match a.ty {
        ElemType::F32 => exact::run::<f32, C>(m, a),
        ElemType::F64 => exact::run::<f64, C>(m, a),
        other => Err(ReduceError::InvalidArgument(format!(
            "exact sums are for f32 and f64, not {other}"
        ))),
    }
}

/// Run it on GPUs through NCCL, or on emulated ranks (`--backend emu`, or `auto` without a GPU).
pub fn run(choice: BackendChoice, custom_ptx: bool, a: &MultiArgs) -> Result<bool, ReduceError> {
    if custom_ptx {
        return Err(ReduceError::InvalidArgument(
            "reduce multi runs the embedded kernels on every GPU; --ptx does not apply".into(),
        ));
    }
    let timeout = Duration::from_millis(a.timeout_ms);
    let gpus = match choice {
        BackendChoice::Emu => false,
        BackendChoice::Gpu => true,
        BackendChoice::Auto => Gpu::count().map(|c| c > 0).unwrap_or(false),
    };
    if gpus {
        let m = MultiReducer::gpus(a.gpus)?.with_timeout(timeout);
        let lib = m.collective().library();
        if a.format == Format::Text {
            println!(
                "NCCL {} from {} over {} GPU(s): {}",
                lib.version_string(),
                lib.path,
                m.ranks(),
                (0..m.ranks())
                    .filter_map(|r| m.caps(r).map(|c| c.name.clone()))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if a.exact {
            return run_exact(m, a);
        }
        if matches!(a.op, Op::Count | Op::NanMean) {
            return with_elem_type!(a.ty, T => count::run::<T, Nccl>(m, a));
        }
        with_elem_type!(a.ty, T => run_typed::<T, Nccl>(m, a))
    } else {
        let m = MultiReducer::<InMemory>::emulated(a.gpus.unwrap_or(2))?.with_timeout(timeout);
        if a.format == Format::Text {
            println!("*** CPU EMULATION: {} emulated ranks, in-memory all-gather; times are the emulator's wall clock ***", m.ranks());
        }
        if a.exact {
            return run_exact(m, a);
        }
        if matches!(a.op, Op::Count | Op::NanMean) {
            return with_elem_type!(a.ty, T => count::run::<T, InMemory>(m, a));
        }
        with_elem_type!(a.ty, T => run_typed::<T, InMemory>(m, a))
    }
}

/// One buffer per rank, the CPU reference of their concatenation, and its mean.
type Shards<T> = (Vec<Buffer<T>>, Reference<T>, Option<f64>);

/// The shards, and the CPU reference of their concatenation.
fn make_shards<T: Scalar, C: Collective>(
    m: &MultiReducer<C>,
    a: &MultiArgs,
    n: usize,
) -> Result<Shards<T>, ReduceError> {
    if a.on_device {
        let one = T::from_f64(1.0);
        let shards = reduce_host::multi::split_even(n, m.ranks())
            .into_iter()
            .enumerate()
            .map(|(r, range)| m.with_rank(r, |b| b.filled(range.len(), one)))
            .collect::<Result<Vec<_>, _>>()?;
        // n ones: every sum is n (wrapping for integers), min = max = 1, mean 1.
        let r = Reference {
            value: if matches!(
                a.op,
                Op::Sum | Op::Mean | Op::NanSum | Op::NanMean | Op::Count
            ) {
                T::wrap_i128(n as i128)
            } else {
                one
            },
            sum_f64: if a.op == Op::Prod { 1.0 } else { n as f64 },
            sum_abs: n as f64,
            sum_exact: if T::TYPE.is_float() { 0 } else { n as i128 },
            // A product of ones is exact in any order.
            rel_bound: 0.0,
            order_dependent: false,
        };
        return Ok((shards, r, (n > 0).then_some(1.0)));
    }
    let data = make_data::<T>(n, a.data, a.seed)?;
    let shards = m.scatter(&data)?;
    let r = reference(a.op, &data).ok_or(ReduceError::EmptyInput { op: a.op })?;
    Ok((shards, r, reference_mean(&data)))
}

/// `--n`, or by default 2^16 elements on emulated ranks and 2^22 per GPU.
fn default_n<C: Collective>(m: &MultiReducer<C>, a: &MultiArgs) -> usize {
    let emulated = m.caps(0).is_some_and(|c| c.compute_capability == (0, 0));
    a.n.unwrap_or(if emulated { 1 << 16 } else { m.ranks() << 22 })
}

fn run_typed<T: Scalar, C: Collective>(
    mut m: MultiReducer<C>,
    a: &MultiArgs,
) -> Result<bool, ReduceError> {
    let n = default_n(&m, a);
    let (shards, r, mean) = make_shards::<T, C>(&m, a, n)?;
    let json = a.format != Format::Text;
    if json {
        println!(
            "{}",
            serde_json::json!({
                "kind": "multi_setup", "collective": m.collective().name(), "ranks": m.ranks(),
                "devices": (0..m.ranks()).filter_map(|q| m.caps(q).map(|c| c.name.clone())).collect::<Vec<_>>(),
                "n": n, "type": T::TYPE, "op": a.op, "shards": shards.iter().map(|s| s.len()).collect::<Vec<_>>(),
            })
        );
    }
    let bytes = (n * T::TYPE.size()) as f64;
    let mut results: Vec<MultiResult<T>> = Vec::new();
    let mut means = Vec::new();
    let mut wall_ms = Vec::new();
    for i in 0..a.warmup + a.runs {
        let t = Instant::now();
        if a.op == Op::Mean {
            means.push(m.mean(&shards)?);
        } else {
            results.push(m.reduce(a.op, &shards)?);
        }
        if i >= a.warmup {
            wall_ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    let (ok, shown, distinct) = if a.op == Op::Mean {
        let got = means[0];
        let good = if T::TYPE.is_float() {
            // The mean is the multi-GPU sum over n: judged by that sum's bound (one more
            // rounding for the division and the multiplication back).
            let depth = m.reduce(Op::Sum, &shards)?.depth + 2;
            let sum = T::from_f64(got * n as f64);
            reduce_host::matches_reference(Op::Sum, sum, &r, depth)
        } else {
            Some(got) == mean
        };
        let mut bits: Vec<u64> = means.iter().map(|v| v.to_bits()).collect();
        bits.sort();
        bits.dedup();
        (good, format!("{got}"), bits.len())
    } else {
        let last = results.last().expect("at least one run");
        let good = match last.value {
            Some(v) => reduce_host::matches_reference(a.op, v, &r, last.depth),
            None => false,
        };
        let mut bits: Vec<u64> = results
            .iter()
            .flat_map(|x| x.per_rank.iter().map(|v| v.to_bits64()))
            .collect();
        bits.sort();
        bits.dedup();
        let shown = last.value.map_or("none".into(), |v| v.to_string());
        (good, shown, bits.len())
    };
    let timed = &results[results.len().saturating_sub(a.runs)..];
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    let wall = median(wall_ms.clone());
    let per_rank = |f: &dyn Fn(&MultiResult<T>) -> &Vec<f64>| -> Vec<f64> {
        (0..m.ranks())
            .map(|q| median(timed.iter().map(|x| f(x)[q]).collect()))
            .collect()
    };
    let local = per_rank(&|x| &x.timing.local_ms);
    let combine = per_rank(&|x| &x.timing.combine_ms);
    let combine_min = combine.iter().copied().fold(f64::INFINITY, f64::min);
    let found = Found {
        n,
        shown: &shown,
        ok,
        distinct,
        wall_ms_median: wall,
    };
    if json {
        let extra = serde_json::json!({
            "wall_ms_min": wall_ms.iter().copied().fold(f64::INFINITY, f64::min),
            "local_ms": local, "combine_ms": combine, "combine_ms_min": combine_min,
            "gb_per_s": bytes / wall / 1e6,
        });
        println!("{}", found.record::<T, C>(&m, a, extra));
    } else {
        found.print_line::<T, C>(&m, a);
        println!(
            "same bits in all {} runs on every rank: {}",
            a.runs,
            if distinct == 1 { "yes" } else { "NO" }
        );
        println!(
            "median of {} runs: total {wall:.4} ms ({:.1} GB/s); local per rank {:?} ms; combine (all-gather + combine kernel) per rank {:?} ms, cost {combine_min:.4} ms",
            a.runs,
            bytes / wall / 1e6,
            round(&local),
            round(&combine)
        );
    }
    if a.compare && a.op != Op::Mean {
        compare::<T, C>(&m, a, &shards, n, json)?;
    }
    Ok(ok && distinct == 1)
}

fn round(v: &[f64]) -> Vec<f64> {
    v.iter().map(|x| (x * 1e4).round() / 1e4).collect()
}

/// Each rank alone on its shard (stage 8, GPU time only: its read bandwidth) and rank 0 on the
/// whole input through [`Reducer`], timed on the host clock like the multi-GPU runs.
fn compare<T: Scalar, C: Collective>(
    m: &MultiReducer<C>,
    a: &MultiArgs,
    shards: &[Buffer<T>],
    n: usize,
    json: bool,
) -> Result<(), ReduceError> {
    let size = T::TYPE.size() as f64;
    let mut sum_bw = 0.0;
    for (q, s) in shards.iter().enumerate() {
        let (_, t, _) = m.with_rank(q, |b| {
            time_single_pass(
                b,
                a.op,
                s,
                LaunchOverrides::default(),
                a.warmup,
                a.runs,
                Protocol::Gated,
            )
        })?;
        let bw = s.len() as f64 * size / t.median() / 1e6;
        sum_bw += bw;
        if json {
            println!(
                "{}",
                serde_json::json!({"kind": "rank_alone", "rank": q, "n": s.len(), "type": T::TYPE, "op": a.op, "gpu_ms_median": t.median(), "gb_per_s": bw})
            );
        } else {
            println!(
                "rank {q} alone: {} elements in {:.4} ms (GPU time, gated) = {bw:.1} GB/s",
                s.len(),
                t.median()
            );
        }
    }
    let (ms, value) = m.with_rank(0, |b| single_gpu::<T>(b, a, n))?;
    let bw = n as f64 * size / ms / 1e6;
    if json {
        println!(
            "{}",
            serde_json::json!({"kind": "single", "n": n, "type": T::TYPE, "op": a.op, "wall_ms_median": ms, "gb_per_s": bw, "value": value, "sum_rank_alone_gb_per_s": sum_bw})
        );
    } else {
        println!("rank 0 alone on all {n}: {ms:.4} ms (host clock) = {bw:.1} GB/s, value {value}; sum of the ranks' own bandwidths {sum_bw:.1} GB/s");
    }
    Ok(())
}

/// The median host-clock time of [`Reducer`] on all `n` elements on one backend.
fn single_gpu<T: Scalar>(
    b: &Backend,
    a: &MultiArgs,
    n: usize,
) -> Result<(f64, String), ReduceError> {
    let input = if a.on_device {
        b.filled(n, T::from_f64(1.0))?
    } else {
        b.upload(&make_data::<T>(n, a.data, a.seed)?)?
    };
    let mut reducer = Reducer::new(b);
    let mut times = Vec::new();
    let mut value = None;
    for i in 0..a.warmup + a.runs {
        let t = Instant::now();
        value = reducer.reduce(a.op, &input)?;
        if i >= a.warmup {
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    times.sort_by(f64::total_cmp);
    Ok((
        times[times.len() / 2],
        value.map_or("none".into(), |v| v.to_string()),
    ))
}
