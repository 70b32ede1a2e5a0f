//! `reduce axis`: one result per row, column or ragged segment; every result checked against the
//! CPU reference, then timed (CUDA events on a GPU). `--format json` prints one record per shape
//! for the benchmark (`benches/gpu.sh axis`).

use crate::args::{count, op_in, parse_policies, Data, Format};
use crate::data::make_data;
use crate::output::verdict;

use reduce_host::axis_plan::log_uniform_segments;
use reduce_host::measure::{time_queued, TimingSpec};
use reduce_host::reference::reference_mean;

use reduce_host::{
    matches_reference, reference, with_elem_type, AxisKind, AxisPolicy, Backend, ElemType, Op,
    PreparedAxis, ReduceError, Reducer, Reference, Scalar, Segments,
};
use std::cell::RefCell;
use std::collections::HashMap;

#[derive(clap::Args, Clone)]
pub struct AxisArgs {
    /// Rows of the matrix.
    #[arg(long, default_value_t = 1024)]
    pub rows: usize,
    /// Columns of the matrix.
    #[arg(long, default_value_t = 64)]
    pub cols: usize,
    /// `rows`: one result per row (the last axis); `cols`: per column; `segments`: per ragged
    /// segment (`--segments`, `--max-len`).
    #[arg(long, value_enum, default_value_t = AxisArg::Rows)]
    pub axis: AxisArg,
    /// Segments, for `--axis segments`.
    #[arg(long, default_value_t = 1000)]
    pub segments: usize,
    /// Longest segment; lengths are log-uniform in 1..=max-len (seeded by `--seed`).
    #[arg(long, default_value_t = 1 << 12)]
    pub max_len: usize,
    /// Operator (sum, min, max, mean; a mean is the device sum divided on the host — exact
    /// integer means from the input — so the timing is the sum's).
    #[arg(long, default_value = "sum", value_parser = op_in(&Op::REDUCE, "a reduce op"))]
    pub op: Op,
    /// Element type.
    #[arg(long = "type", default_value = "f32")]
    pub ty: ElemType,
    /// Input values.
    #[arg(long, value_enum, default_value_t = Data::Ones)]
    pub data: Data,
    /// Seed for random data and segment lengths.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Timed runs (0: check only).
    #[arg(long, default_value_t = 20, value_parser = count(0))]
    pub runs: usize,
    /// Output format (text or json).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Tuning policy: `key=value,...` over the default AxisPolicy (keys: blocks_per_sm,
    /// vectors_per_lane, block_run, min_piece, min_piece_rows, segment_piece, col_tile,
    /// max_col_parts, finish_piece_rows, row_waves, col_blocks_per_sm, segment_blocks_per_sm,
    /// long_row_blocks_per_sm, min_col_tiles, row_unroll, col_once_max_vcols,
    /// col_once_blocks_per_sm, finish_col_tile, col_short_rows, wide_col_short_rows,
    /// wide_col_blocks_per_sm, col_once_flat, col_flat_blocks_per_sm, col_flat_fine;
    /// values are counts, `16K`/`2M`/`2^16` allowed). The defaults (H200 measurements, see
    /// `AxisPolicy`): row_unroll=8, long_row_blocks_per_sm=32, col_once_max_vcols=32,
    /// col_once_blocks_per_sm=2, finish_col_tile=16, wide_col_short_rows=16,
    /// wide_col_blocks_per_sm=3, col_once_flat=1, col_flat_blocks_per_sm=2, col_flat_fine=1.
    /// Repeat to check and time several policies on the same input: one result line (record)
    /// each.
    #[arg(long = "policy", value_name = "SETTINGS")]
    pub policies: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AxisArg {
    Rows,
    Cols,
    Segments,
}

pub fn run(backend: &Backend, a: &AxisArgs) -> Result<bool, ReduceError> {
    with_elem_type!(a.ty, T => run_typed::<T>(backend, a))
}

fn run_typed<T: Scalar>(backend: &Backend, a: &AxisArgs) -> Result<bool, ReduceError> {
    let (kind, rows, cols) = match a.axis {
        AxisArg::Rows => (AxisKind::Rows, a.rows, a.cols),
        AxisArg::Cols => (AxisKind::Cols, a.rows, a.cols),
        AxisArg::Segments => (AxisKind::Segments, 0, 0),
    };
    let (begin, end) = log_uniform_segments(a.segments, a.max_len, a.seed);
    let n = match kind {
        AxisKind::Segments => end.last().copied().unwrap_or(0) as usize,
        _ => reduce_host::axis_plan::check_shape(rows, cols)?,
    };
    // Ones are filled on the device (fast for the benchmark's 2^28 elements); random data is
    // generated here.
    let host: Option<Vec<T>> = match a.data {
        Data::Ones => None,
        Data::Random => Some(make_data::<T>(n, a.data, a.seed)?),
    };
    let one = T::from_f64(1.0);
    let input = match &host {
        Some(h) => backend.upload(h)?,
        None if T::TYPE.size() == 4 => backend.filled(n, one)?,
        None => backend.upload(&vec![one; n])?,
    };
    let (texts, policies) = parse_policies::<AxisPolicy>(&a.policies)?;
    let mut ok = true;
    let ones_refs = RefCell::new(HashMap::new());
    for (text, policy) in texts.iter().zip(&policies) {
        let run = Run {
            kind,
            rows,
            cols,
            n,
            begin: &begin,
            end: &end,
            host: &host,
            input: &input,
            ones_refs: &ones_refs,
        };
        ok &= run_policy::<T>(backend, a, &run, text, policy)?;
    }
    Ok(ok)
}

/// What every policy of one `reduce axis` call runs on.
struct Run<'a, T: Scalar> {
    kind: AxisKind,
    rows: usize,
    cols: usize,
    n: usize,
    begin: &'a [u64],
    end: &'a [u64],
    host: &'a Option<Vec<T>>,
    input: &'a reduce_host::Buffer<T>,
    /// With ones every run of one length has the same reference: computed once per length (from
    /// a run of ones built here), for all the policies.
    ones_refs: &'a RefCell<HashMap<usize, Reference<T>>>,
}

/// Check and time one policy; print its line or record.
fn run_policy<T: Scalar>(
    backend: &Backend,
    a: &AxisArgs,
    r: &Run<'_, T>,
    text: &str,
    policy: &AxisPolicy,
) -> Result<bool, ReduceError> {
    let op = a.op.device_op();
    let Run {
        kind,
        rows,
        cols,
        n,
        begin,
        end,
        host,
        input,
        ..
    } = *r;
    let one = T::from_f64(1.0);
    let segs = match kind {
        AxisKind::Segments => Some(Segments::with_piece(
            backend,
            begin,
            end,
            n,
            policy.segment_piece,
        )?),
        _ => None,
    };
    let p = match &segs {
        Some(s) => PreparedAxis::<T>::segments(backend, policy, op, s, n)?,
        None => PreparedAxis::<T>::matrix(backend, policy, kind, op, rows, cols)?,
    };
    let mut out = backend.zeroed::<T>(p.results())?;
    p.enqueue(backend, input, segs.as_ref(), &mut out)?;
    let got = backend.download(&out, p.results())?;

    // The reference, one run at a time (with ones: once per length, for every policy).
    let span = |i: usize| -> (usize, usize, usize) {
        match kind {
            AxisKind::Rows => (i * cols, cols, 1),
            AxisKind::Cols => (i, rows, cols),
            AxisKind::Segments => (begin[i] as usize, (end[i] - begin[i]) as usize, 1),
        }
    };
    let mut ok = true;
    let mut cache = r.ones_refs.borrow_mut();
    for (i, &g) in got.iter().enumerate() {
        let (lo, len, stride) = span(i);
        if len == 0 {
            continue; // an empty run's identity is tested in tests/axis.rs
        }
        let want = match host {
            None => *cache.entry(len).or_insert_with(|| {
                reference(op, &vec![one; len]).expect("a run of at least one element")
            }),
            Some(h) => {
                let run: Vec<T> = (0..len).map(|k| h[lo + k * stride]).collect();
                reference(op, &run).expect("a run of at least one element")
            }
        };
        ok &= matches_reference(op, g, &want, len);
    }
    drop(cache);

    if a.op == Op::Mean {
        ok &= means_match::<T>(
            backend,
            a,
            kind,
            input,
            segs.as_ref(),
            (begin, end),
            host,
            &span,
        )?;
    }

    let timing = if a.runs > 0 {
        let spec = TimingSpec::kernels(3.min(a.runs), a.runs);
        Some(time_queued(backend, &spec, || {
            p.enqueue(backend, input, segs.as_ref(), &mut out)
        })?)
    } else {
        None
    };
    let bytes = (n * T::TYPE.size()) as f64;
    let (min_ms, median_ms) = timing
        .as_ref()
        .map_or((f64::NAN, f64::NAN), |t| (t.min(), t.median()));
    let gbps = bytes / (min_ms * 1e-3) / 1e9;
    let shape = match kind {
        AxisKind::Segments => format!("{} segments (1..={}), {n} elements", a.segments, a.max_len),
        _ => format!("{rows} x {cols}"),
    };
    match a.format {
        Format::Json => println!(
            "{}",
            serde_json::json!({
                "record": "axis",
                "device": backend.caps().name,
                "axis": kind.name(),
                "rows": rows,
                "cols": cols,
                "segments": if kind == AxisKind::Segments { a.segments } else { 0 },
                "n": n,
                "type": T::TYPE.name(),
                "op": a.op.name(),
                "bytes": bytes,
                "min_ms": min_ms,
                "median_ms": median_ms,
                "gbps": gbps,
                "runs": a.runs,
                "plan": p.plan().describe(),
                "policy": text,
                "policy_settings": policy,
                "ok": ok,
                "results_digest": format!("{:#018x}", digest(&got)),
            })
        ),
        _ => println!(
            "{} {} {} over {shape}: {} results, {}   min {min_ms:.4} ms  median {median_ms:.4} ms  {gbps:.1} GB/s   [{}]{}",
            kind.name(),
            a.op,
            T::TYPE,
            got.len(),
            verdict(ok),
            p.plan().describe(),
            if text.is_empty() { String::new() } else { format!("  policy {text}") }
        ),
    }
    Ok(ok)
}

/// FNV-1a (64-bit) over every result's bits, in order: one number that tells whether two runs or
/// two builds computed the same results, bit for bit (the JSON record's `results_digest`).
fn digest<T: Scalar>(results: &[T]) -> u64 {
    results.iter().fold(0xcbf2_9ce4_8422_2325, |h, r| {
        r.to_bits64().to_le_bytes()[..T::TYPE.size()]
            .iter()
            .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    })
}

/// `--op mean`: [`Reducer::mean_axis`] / [`Reducer::mean_segments`] against the reference mean of
/// each run: integers exactly (both divide the exact sum), floats within the sum's error bound
/// divided by the length.
#[allow(clippy::too_many_arguments)]
fn means_match<T: Scalar>(
    backend: &Backend,
    a: &AxisArgs,
    kind: AxisKind,
    input: &reduce_host::Buffer<T>,
    segs: Option<&Segments>,
    (begin, end): (&[u64], &[u64]),
    host: &Option<Vec<T>>,
    span: &dyn Fn(usize) -> (usize, usize, usize),
) -> Result<bool, ReduceError> {
    let mut r = Reducer::new(backend);
    let means = match segs {
        Some(s) => r.mean_segments(input, s, begin, end)?,
        None => r.mean_axis(kind, input, a.rows, a.cols)?,
    };
    let u = if T::TYPE == ElemType::F32 {
        f32::EPSILON as f64 / 2.0
    } else {
        f64::EPSILON / 2.0
    };
    let mut ok = true;
    for (i, &m) in means.iter().enumerate() {
        let (lo, len, stride) = span(i);
        let run: Vec<T> = match host {
            Some(h) => (0..len).map(|k| h[lo + k * stride]).collect(),
            None => vec![T::from_f64(1.0); len.min(1)], // the mean of ones is 1
        };
        let (Some(want), Some(sum)) = (reference_mean(&run), reference(Op::Sum, &run)) else {
            continue;
        };
        ok &= if T::TYPE.is_float() {
            let scale = if host.is_some() {
                sum.sum_abs / len as f64
            } else {
                1.0
            };
            (m - want).abs() <= u * (len as f64 * scale + 2.0 * want.abs())
        } else {
            m == want
        };
    }
    Ok(ok)
}
