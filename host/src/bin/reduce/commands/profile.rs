//! `reduce profile`: the blog's per-stage profile (allocation, host→device, kernel, device→host,
//! and their total), then the streamed host-input path ([`HostReducer`]) from pageable and from
//! pinned memory, where the copies overlap the kernels so the total is less than the sum.

use crate::args::{Common, Format};
use crate::data::{default_n, make_data, stages_of};
use crate::output::{banner, csv, text_table, verdict, Column};
use reduce_host::measure::{self, ProfileRow};
use reduce_host::streaming::timeline::{Lane, Timeline};
use reduce_host::{
    matches_reference, reference, with_elem_type, Backend, HostInput, HostReducer, Op,
    PinnedBuffer, ReduceError, Scalar,
};

const COLUMNS: [Column; 8] = [
    Column::left("#", 2),
    Column::left("stage", 40),
    Column::right("alloc ms", 12),
    Column::right("H->D ms", 12),
    Column::right("kernel ms", 12),
    Column::right("D->H ms", 12),
    Column::right("total ms", 12),
    Column::left("ok", 2),
];

const CSV_HEADER: [&str; 8] = [
    "stage",
    "title",
    "alloc_ms",
    "h2d_ms",
    "kernel_ms",
    "d2h_ms",
    "total_ms",
    "correct",
];

/// One row: a ladder stage (its parts one after the other) or a streamed call (H→D and kernel
/// are busy times of the copy and compute streams, which overlap; total is the wall clock).
#[derive(serde::Serialize)]
struct Row {
    stage: String,
    title: String,
    /// `None` for the streamed path: its buffers are allocated once, by the first call.
    alloc_ms: Option<f64>,
    h2d_ms: f64,
    kernel_ms: f64,
    d2h_ms: f64,
    total_ms: f64,
    correct: bool,
}

impl From<&ProfileRow> for Row {
    fn from(r: &ProfileRow) -> Self {
        Row {
            stage: r.stage.to_string(),
            title: r.title.clone(),
            alloc_ms: Some(r.alloc_ms),
            h2d_ms: r.h2d_ms,
            kernel_ms: r.kernel_ms,
            d2h_ms: r.d2h_ms,
            total_ms: r.alloc_ms + r.h2d_ms + r.kernel_ms + r.d2h_ms,
            correct: r.correct,
        }
    }
}

pub fn run(backend: &Backend, common: &Common) -> Result<bool, ReduceError> {
    with_elem_type!(common.ty, T => profile::<T>(backend, common))
}

/// The streamed rows: one warm call, then one recorded call, per input kind.
fn streamed<T: Scalar>(backend: &Backend, data: &[T]) -> Result<Vec<Row>, ReduceError> {
    let mut h = HostReducer::new(backend);
    let pinned = PinnedBuffer::from_slice(backend, data)?;
    let want = reference(Op::Sum, data);
    let mut rows = Vec::new();
    for (name, input) in [
        ("pageable", HostInput::Pageable(data)),
        ("pinned", HostInput::Pinned(&pinned)),
    ] {
        h.sum_host(input)?;
        let (got, t) = h.reduce_host_timeline(Op::Sum, input)?;
        let busy = |lanes: &[Lane]| -> f64 {
            t.spans
                .iter()
                .filter(|s| lanes.contains(&s.lane))
                .fold(0.0, |sum, s| sum + (s.end_ms - s.start_ms))
        };
        let last_gpu = t
            .spans
            .iter()
            .filter(|s| s.lane != Lane::Host)
            .map(|s| s.end_ms)
            .fold(0.0, f64::max);
        let correct = match (got, &want) {
            (Some(g), Some(w)) => matches_reference(Op::Sum, g, w, depth(&t)),
            _ => data.is_empty(),
        };
        rows.push(Row {
            stage: "host".into(),
            title: format!("streamed from {name} memory, {} chunks", t.chunks),
            alloc_ms: None,
            h2d_ms: busy(&[Lane::Copy]),
            kernel_ms: busy(&[Lane::Compute, Lane::Combine]),
            d2h_ms: (t.total_ms - last_gpu).max(0.0),
            total_ms: t.total_ms,
            correct,
        });
    }
    Ok(rows)
}

/// The rounding bound's depth of a streamed sum: the chunks' and the combine's trees.
fn depth(t: &Timeline) -> usize {
    let log = |n: usize| n.max(2).next_power_of_two().trailing_zeros() as usize;
    log(t.chunk_elems) + log(t.chunks) + 2
}

fn profile<T: Scalar>(backend: &Backend, c: &Common) -> Result<bool, ReduceError> {
    let n = default_n(backend, c.n);
    let stages = stages_of(&c.stages)?;
    let data = make_data::<T>(n, c.data, c.seed)?;
    let overrides = c.overrides();
    let mut rows: Vec<Row> = measure::profile(backend, &stages, &data, overrides)?
        .iter()
        .map(Row::from)
        .collect();
    rows.extend(streamed(backend, &data)?);
    let times = |r: &Row| {
        let mut v = vec![r.alloc_ms.map_or("reused".into(), |ms| format!("{ms:.6}"))];
        v.extend([r.h2d_ms, r.kernel_ms, r.d2h_ms, r.total_ms].map(|ms| format!("{ms:.6}")));
        v
    };
    match c.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        ),
        Format::Csv => {
            let lines: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    let mut line = vec![r.stage.clone(), r.title.clone()];
                    line.extend(times(r));
                    line.push(r.correct.to_string());
                    line
                })
                .collect();
            println!("{}", csv(&CSV_HEADER, &lines));
        }
        Format::Text => {
            banner(backend, "Per-stage profile");
            println!(
                "N = {n} {} ({:?} data); allocation, H2D and D2H by host clock around \
                 synchronous calls, kernel by CUDA events. Streamed rows (data in host memory): \
                 H2D and kernel are the busy times of the copy and compute streams from CUDA \
                 events, overlapping; D2H is the time after the last GPU interval; total is the \
                 wall clock of the call",
                T::TYPE,
                c.data
            );
            let lines: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    let mut line = vec![r.stage.clone(), r.title.clone()];
                    line.extend(times(r));
                    line.push(verdict(r.correct).into());
                    line
                })
                .collect();
            println!("{}", text_table(&COLUMNS, &lines));
        }
    }
    Ok(rows.iter().all(|r| r.correct))
}
