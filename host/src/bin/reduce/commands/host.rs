//! `reduce host`: data that starts in host memory, reduced by the streamed path
//! ([`HostReducer`]), timed end to end (wall clock from the call until the result is on the
//! host), from pageable memory (a `Vec`) and from pinned memory ([`PinnedBuffer`]).

use crate::args::{count, op_in, parse_policies, Data, Format, HostInputArg};
use crate::data::make_data;
use crate::output::{banner, text_table, verdict, Column};
use reduce_host::reference::reference_mean;
use reduce_host::streaming::link::link_seconds;
use reduce_host::streaming::timeline::Timeline;

use reduce_host::{
    matches_reference, reference, with_elem_type, Backend, ElemType, HostInput, HostReducer, Op,
    PinnedBuffer, ReduceError, Scalar, StreamPolicy,
};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What `reduce host` was asked for.
#[derive(clap::Args, Clone)]
pub struct HostCmd {
    /// Elements.
    #[arg(long, default_value_t = 1 << 22)]
    n: usize,
    /// Element type.
    #[arg(long = "type", default_value = "f32")]
    ty: ElemType,
    /// Operator.
    #[arg(long, default_value = "sum", value_parser = op_in(&Op::REDUCE, "a reduce op"))]
    op: Op,
    /// Host memory to reduce from.
    #[arg(long, value_enum, default_value_t = HostInputArg::Both)]
    input: HostInputArg,
    /// Input values.
    #[arg(long, value_enum, default_value_t = Data::Ones)]
    data: Data,
    /// Seed for `--data random`.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Untimed calls first.
    #[arg(long, value_parser = count(0), default_value_t = 3)]
    warmup: usize,
    /// Timed calls.
    #[arg(long, value_parser = count(1), default_value_t = 10)]
    runs: usize,
    /// Output format (`json`: one object per line; `csv` prints JSON too).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Also record one call per input with CUDA events and write the timelines (JSON) here.
    #[arg(long)]
    timeline: Option<PathBuf>,
    /// First measure the link: pinned host->device copies of this many bytes.
    #[arg(long)]
    link_bytes: Option<usize>,
    /// Tuning policy: `key=value,...` over the default StreamPolicy (keys: max_chunk_bytes,
    /// min_chunk_bytes, target_chunks, slots, copy_threads, min_bytes_per_thread,
    /// zero_copy_max_bytes, register_min_bytes; values are counts, `16K`/`2M`/`2^26`
    /// allowed, `register_min_bytes=off`). Repeat to time several policies on the same
    /// input: one row each.
    #[arg(long = "policy", value_name = "SETTINGS")]
    policies: Vec<String>,
}

/// One measured input kind (one JSON line).
#[derive(serde::Serialize)]
struct Row {
    kind: &'static str,
    device: String,
    ty: String,
    op: String,
    n: usize,
    input: &'static str,
    value: String,
    correct: bool,
    runs: usize,
    min_ms: f64,
    median_ms: f64,
    /// Input bytes over the minimum time.
    gbps: f64,
    chunk_elems: usize,
    chunks: usize,
    copy_threads: usize,
    /// How the last timed call moved the data (staged, registered, pinned, zero-copy, emulated).
    route: Option<reduce_host::streaming::Route>,
    /// The `--policy` settings (empty: the default policy) and the whole policy they give.
    policy: String,
    policy_settings: StreamPolicy,
}

const COLUMNS: [Column; 8] = [
    Column::left("input", 9),
    Column::right("value", 16),
    Column::right("min ms", 10),
    Column::right("median ms", 10),
    Column::right("GB/s", 8),
    Column::right("chunks", 6),
    Column::left("ok", 2),
    Column::left("policy", 6),
];

pub fn run(backend: &Backend, cmd: &HostCmd) -> Result<bool, ReduceError> {
    with_elem_type!(cmd.ty, T => run_typed::<T>(backend, cmd))
}

/// The input of kind `kind` (`pageable`, `pinned`, `zero-copy`).
fn host_input<'a, T: Scalar>(
    kind: &str,
    data: &'a [T],
    pinned: Option<&'a PinnedBuffer<T>>,
) -> HostInput<'a, T> {
    match (kind, pinned) {
        ("pinned", Some(p)) => HostInput::Pinned(p),
        ("zero-copy", Some(p)) => HostInput::ZeroCopy(p),
        _ => HostInput::Pageable(data),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run_typed<T: Scalar>(backend: &Backend, cmd: &HostCmd) -> Result<bool, ReduceError> {
    let data = make_data::<T>(cmd.n, cmd.data, cmd.seed)?;
    if cmd.op != Op::Sum && data.is_empty() {
        return Err(ReduceError::EmptyInput { op: cmd.op });
    }
    let (texts, policies) = parse_policies::<StreamPolicy>(&cmd.policies)?;
    let pinned = match cmd.input {
        HostInputArg::Pageable => None,
        _ => Some(PinnedBuffer::from_slice(backend, &data)?),
    };
    let mut rows = Vec::new();
    let mut timelines = Vec::new();
    if let Some(bytes) = cmd.link_bytes {
        let secs = link_seconds(backend, bytes, cmd.runs)?;
        let (min, med) = (secs.iter().copied().fold(f64::MAX, f64::min), median(secs));
        let line = serde_json::json!({
            "kind": "link", "device": backend.caps().name, "bytes": bytes / 4 * 4,
            "runs": cmd.runs, "min_ms": min * 1e3, "median_ms": med * 1e3,
            "gbps": (bytes / 4 * 4) as f64 / min / 1e9,
        });
        match cmd.format {
            Format::Json => println!("{line}"),
            _ => println!(
                "link: pinned host->device copy of {bytes} bytes: {:.2} GB/s (min of {})",
                (bytes / 4 * 4) as f64 / min / 1e9,
                cmd.runs
            ),
        }
    }
    let kinds: &[&'static str] = match cmd.input {
        HostInputArg::Pageable => &["pageable"],
        HostInputArg::Pinned => &["pinned"],
        HostInputArg::Both => &["pageable", "pinned"],
        HostInputArg::ZeroCopy => &["zero-copy"],
    };
    for (text, policy) in texts.iter().zip(policies) {
        let mut reducer = HostReducer::new(backend).with_policy(policy.clone())?;
        for &kind in kinds {
            rows.push(measure(
                backend,
                cmd,
                &mut reducer,
                kind,
                &data,
                pinned.as_ref(),
                text,
                &mut timelines,
            )?);
        }
    }
    if let Some(path) = &cmd.timeline {
        write_timelines(path, &timelines)?;
    }
    print_rows(backend, cmd, &rows);
    Ok(rows.iter().all(|r| r.correct))
}

/// Time the calls from `kind` input with `reducer`'s policy (`text` its settings).
#[allow(clippy::too_many_arguments)]
fn measure<T: Scalar>(
    backend: &Backend,
    cmd: &HostCmd,
    reducer: &mut HostReducer<'_>,
    kind: &'static str,
    data: &[T],
    pinned: Option<&PinnedBuffer<T>>,
    text: &str,
    timelines: &mut Vec<Timeline>,
) -> Result<Row, ReduceError> {
    let policy = reducer.policy().clone();
    {
        let once = |r: &mut HostReducer| -> Result<Got<T>, ReduceError> {
            let input = host_input(kind, data, pinned);
            Ok(if cmd.op == Op::Mean {
                Got::Mean(r.mean_host(input)?)
            } else {
                Got::Value(r.reduce_host(cmd.op, input)?)
            })
        };
        for _ in 0..cmd.warmup {
            once(reducer)?;
        }
        let mut secs = Vec::with_capacity(cmd.runs);
        let mut value = Got::Value(None);
        for _ in 0..cmd.runs {
            let t = Instant::now();
            value = once(reducer)?;
            secs.push(t.elapsed().as_secs_f64());
        }
        if cmd.timeline.is_some() && cmd.op != Op::Mean {
            let input = host_input(kind, data, pinned);
            timelines.push(reducer.reduce_host_timeline(cmd.op, input)?.1);
        }
        let min = secs.iter().copied().fold(f64::MAX, f64::min);
        // A pinned input the policy sends down the zero-copy route is one launch, not chunks.
        let whole =
            kind == "zero-copy" || (kind == "pinned" && policy.zero_copy(cmd.n * T::TYPE.size()));
        let chunk = if whole {
            cmd.n.max(1)
        } else {
            policy.chunk_elems(cmd.n, T::TYPE)
        };
        Ok(Row {
            kind: "host",
            device: backend.caps().name.clone(),
            ty: T::TYPE.to_string(),
            op: cmd.op.to_string(),
            n: cmd.n,
            input: kind,
            correct: correct(backend, &policy, cmd.op, data, &value)?,
            value: value.to_string(),
            runs: cmd.runs,
            min_ms: min * 1e3,
            median_ms: median(secs) * 1e3,
            gbps: (cmd.n * T::TYPE.size()) as f64 / min / 1e9,
            chunk_elems: chunk,
            chunks: cmd.n.div_ceil(chunk),
            copy_threads: policy.copy_threads,
            route: reducer.last_route(),
            policy: text.to_string(),
            policy_settings: policy,
        })
    }
}

/// A result: `op`'s value, or a mean.
enum Got<T> {
    Value(Option<T>),
    Mean(f64),
}

impl<T: Scalar> std::fmt::Display for Got<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Got::Value(Some(v)) => write!(f, "{v}"),
            Got::Value(None) => write!(f, "none"),
            Got::Mean(m) => write!(f, "{m}"),
        }
    }
}

/// Is `got` right (within the chunked reduction's rounding bound; integers exactly)?
fn correct<T: Scalar>(
    backend: &Backend,
    policy: &StreamPolicy,
    op: Op,
    data: &[T],
    got: &Got<T>,
) -> Result<bool, ReduceError> {
    let value = match got {
        Got::Mean(m) => {
            let want = reference_mean(data).unwrap_or(f64::NAN);
            return Ok((m - want).abs() <= 1e-5 * want.abs().max(1.0));
        }
        Got::Value(v) => v,
    };
    let (Some(want), Some(value)) = (reference(op, data), value) else {
        return Ok(data.is_empty());
    };
    let depth = policy.error_depth(data.len(), T::TYPE, op, backend.caps())?;
    Ok(matches_reference(op, *value, &want, depth))
}

fn write_timelines(path: &Path, timelines: &[Timeline]) -> Result<(), ReduceError> {
    let text = serde_json::to_string_pretty(timelines)
        .map_err(|e| ReduceError::InvalidArgument(format!("timeline JSON: {e}")))?;
    std::fs::write(path, text)
        .map_err(|e| ReduceError::InvalidArgument(format!("cannot write {}: {e}", path.display())))
}

fn print_rows(backend: &Backend, cmd: &HostCmd, rows: &[Row]) {
    match cmd.format {
        Format::Json | Format::Csv => {
            for r in rows {
                println!("{}", serde_json::to_string(r).unwrap_or_default());
            }
        }
        Format::Text => {
            banner(backend, "Host data, streamed");
            println!(
                "{} of N = {} {} in host memory; wall clock until the result is on the host, {} runs",
                cmd.op, cmd.n, cmd.ty, cmd.runs
            );
            let lines: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        r.input.to_string(),
                        r.value.clone(),
                        format!("{:.4}", r.min_ms),
                        format!("{:.4}", r.median_ms),
                        format!("{:.2}", r.gbps),
                        r.chunks.to_string(),
                        verdict(r.correct).into(),
                        if r.policy.is_empty() {
                            "default".into()
                        } else {
                            r.policy.clone()
                        },
                    ]
                })
                .collect();
            println!("{}", text_table(&COLUMNS, &lines));
        }
    }
}
