//! Reading results: the rows of one results directory, as [`reduce_host::measure::Record`] lines.

use crate::registry::{implementation, is_ceiling};
use reduce_host::measure::Protocol;
use reduce_host::measure::{Record, TimingRecord, TwinRecord};
use std::collections::BTreeMap;
use std::path::Path;

/// The protocol name of rows timed the usual way (host launch latency inside the window).
pub const PLAIN: &str = "plain";
/// The protocol name of rows timed behind the gate kernel (GPU time only).
pub const GATED: &str = "gated";
/// The files [`Results::load_dir`] reads, in order.
pub const INPUT_FILES: [&str; 4] = ["sweep.jsonl", "cub.jsonl", "python.jsonl", "twins.jsonl"];

/// One timed measurement: an implementation at one size.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// `impl` as written in the file (`rust_s8`, `cub`, `torch`, `memcpy_d2d` …).
    pub imp: String,
    /// Operator (`sum`, `min`, …; `copy` for `memcpy_d2d`). `sum` when absent.
    pub op: String,
    /// Element type (`f32` …). `f32` when absent.
    pub ty: String,
    /// Elements.
    pub n: u64,
    /// Fastest run, ms.
    pub min_ms: f64,
    /// Median run, ms.
    pub median_ms: f64,
    /// Bytes one run moves, when the row says (the ceilings: `memcpy_d2d` counts read + write).
    pub bytes: Option<u64>,
    /// Did the result match the reference (`reduce sweep` rows)?
    pub correct: Option<bool>,
    /// What the timing window holds, as `reduce sweep` writes it (`Kernels`,
    /// `KernelsAndResultCopy`).
    pub scope: Option<String>,
    /// How each run was queued: `plain` (the default when absent) or `gated` (behind the gate
    /// kernel: GPU time only; see `reduce_kernels::bench_gate`).
    pub protocol: String,
    /// The file it came from.
    pub source: String,
}

impl Row {
    /// Bytes one run must move: the row's own `bytes` if it has them, else every element read
    /// once (`size_of(type) · N`).
    pub fn bytes_moved(&self) -> u64 {
        self.bytes
            .unwrap_or_else(|| self.n.saturating_mul(type_size(&self.ty)))
    }

    /// Effective bandwidth of the fastest run, GB/s (10^9 bytes per second); `None` at N = 0.
    pub fn gbps(&self) -> Option<f64> {
        gbps(self.bytes_moved(), self.min_ms)
    }

    /// What the timing window holds, for the tables.
    pub fn timed(&self) -> &'static str {
        match (self.scope.as_deref(), self.imp.as_str()) {
            (Some("Kernels"), _) => "kernels",
            (_, "rust_s8") => implementation("rust_s8").timed,
            (Some("KernelsAndResultCopy"), _) => "kernel + result copy",
            (_, imp) => implementation(imp).timed,
        }
    }

    /// Is this an f32 sum (or a bandwidth ceiling measured on f32 data)?
    pub fn is_f32_sum_series(&self) -> bool {
        self.n > 0 && self.ty == "f32" && (self.op == "sum" || is_ceiling(&self.imp))
    }
}

/// GB/s for `bytes` in `ms` milliseconds; `None` when either is zero or the time is not finite.
pub fn gbps(bytes: u64, ms: f64) -> Option<f64> {
    (bytes > 0 && ms.is_finite() && ms > 0.0).then(|| bytes as f64 / (ms * 1e-3) / 1e9)
}

/// Bytes per element of a type name (4 for unknown names).
pub fn type_size(ty: &str) -> u64 {
    match ty {
        "f64" | "i64" | "u64" => 8,
        "f16" | "bf16" | "i16" | "u16" => 2,
        _ => 4,
    }
}

/// One Rust kernel against its CUDA C twin (a line of `reduce twins --format json`).
#[derive(Clone, Debug, PartialEq)]
pub struct Twin {
    /// Elements.
    pub n: u64,
    /// Element type.
    pub ty: String,
    /// Kernel symbol (the same in both PTX files).
    pub kernel: String,
    /// Rust kernel, median ms.
    pub rust_median_ms: f64,
    /// CUDA C twin, median ms.
    pub cuda_median_ms: f64,
    /// Rust kernel, fastest ms.
    pub rust_min_ms: Option<f64>,
    /// CUDA C twin, fastest ms.
    pub cuda_min_ms: Option<f64>,
    /// Both matched the reference.
    pub correct: Option<bool>,
}

/// A line that reported a failure instead of a timing (`{"impl":"torch","error":…}`).
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    /// The file.
    pub source: String,
    /// The implementation, if named.
    pub imp: Option<String>,
    /// The size, if it concerns one.
    pub n: Option<u64>,
    /// What went wrong.
    pub error: String,
}

/// Everything read from one results directory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    /// Timed rows, as read (duplicates included; see [`Results::best_rows`]).
    pub rows: Vec<Row>,
    /// Rust-vs-CUDA-C twin rows.
    pub twins: Vec<Twin>,
    /// Error lines.
    pub notes: Vec<Note>,
    /// Lines that were not JSON objects of a known shape (log lines, warnings …), per file.
    pub ignored: BTreeMap<String, usize>,
    /// The files that were read, with how many lines each held.
    pub files: Vec<(String, usize)>,
}

fn positive(x: Option<f64>) -> Option<f64> {
    x.filter(|t| t.is_finite() && *t > 0.0)
}

impl Results {
    /// Read the JSON lines of one file (named `source` in the output). Lines that are not JSON
    /// objects, and objects of an unknown shape, are counted in [`Results::ignored`].
    pub fn parse_str(&mut self, source: &str, content: &str) {
        let mut lines = 0;
        let mut ignored = 0;
        for line in content.lines() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            lines += 1;
            let parsed = match Record::parse_line(line) {
                Some(Record::Error(e)) => {
                    self.notes.push(Note {
                        source: source.to_string(),
                        imp: e.implementation,
                        n: e.n,
                        error: e.error,
                    });
                    continue;
                }
                Some(Record::Twin(t)) => Self::twin(t).map(|t| self.twins.push(t)),
                Some(Record::Timing(t)) => Self::row(t, source).map(|r| self.rows.push(r)),
                None => None,
            };
            if parsed.is_none() {
                ignored += 1;
            }
        }
        self.files.push((source.to_string(), lines));
        if ignored > 0 {
            *self.ignored.entry(source.to_string()).or_default() += ignored;
        }
    }

    fn twin(t: TwinRecord) -> Option<Twin> {
        Some(Twin {
            n: t.n,
            ty: t.ty.to_string(),
            kernel: t.kernel,
            rust_median_ms: positive(t.rust_median_ms)?,
            cuda_median_ms: positive(t.cuda_median_ms)?,
            rust_min_ms: positive(t.rust_min_ms),
            cuda_min_ms: positive(t.cuda_min_ms),
            correct: t.correct,
        })
    }

    fn row(t: TimingRecord, source: &str) -> Option<Row> {
        let min_ms = positive(t.min_ms)?;
        Some(Row {
            imp: t.implementation,
            op: t.op,
            ty: t.ty.to_string(),
            n: t.n,
            min_ms,
            median_ms: positive(t.median_ms).unwrap_or(min_ms),
            bytes: t.bytes,
            correct: t.correct,
            scope: t.scope.map(|s| format!("{s:?}")),
            protocol: match t.protocol.unwrap_or_default() {
                Protocol::Plain => PLAIN.into(),
                Protocol::Gated => GATED.into(),
            },
            source: source.to_string(),
        })
    }

    /// Read every file of [`INPUT_FILES`] that exists in `dir`. An error only if `dir` itself
    /// cannot be read or an existing file cannot be.
    pub fn load_dir(dir: &Path) -> std::io::Result<Self> {
        std::fs::read_dir(dir)?;
        let mut r = Results::default();
        for name in INPUT_FILES {
            let path = dir.join(name);
            if path.is_file() {
                let bytes = std::fs::read(&path)?;
                r.parse_str(name, &String::from_utf8_lossy(&bytes));
            }
        }
        Ok(r)
    }
}
