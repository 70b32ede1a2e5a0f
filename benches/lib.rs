//! # reduce-benches: benchmark results → markdown tables and PNG plots
//!
//! The criterion benchmarks live in `benches/reduce.rs`; the `report` binary
//! (`src/bin/report.rs`) turns one run's JSON-lines files into `results.md` and three PNG plots.
//! This library holds the part that needs no GPU and no drawing: reading the files
//! ([`Results::parse_str`], [`Results::load_dir`]), picking the best row per measurement
//! ([`Results::best_rows`]), effective bandwidth ([`Row::gbps`]) and the markdown
//! ([`markdown`]). [`plot`] draws the PNGs.
//!
//! Input files (any subset, in one directory; lines that are not JSON objects are ignored):
//!
//! | file | written by | rows |
//! |---|---|---|
//! | `sweep.jsonl` | `reduce sweep` | `rust_s1` … `rust_s8` |
//! | `cub.jsonl` | `benches/cuda/cub_bench` | `cub`, `read_kernel`, `memcpy_d2d` (with `bytes`), `empty_launch_copy` |
//! | `python.jsonl` | `benches/python/baselines.py` | `torch`, `cupy` (or `{"impl":…, "error":…}`) |
//! | `twins.jsonl` | `reduce twins --format json` | Rust kernel vs its CUDA C twin |

use reduce_host::measure::Protocol;
use reduce_host::{Record, TimingRecord, TwinRecord};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

pub mod plot;

/// The H200's datasheet memory bandwidth, GB/s (4.8 TB/s HBM3e).
pub const H200_PEAK_GBS: f64 = 4800.0;
/// The label of the peak line.
pub const H200_PEAK_LABEL: &str = "H200 peak (datasheet)";
/// The seed's N (the ladder bar chart's size).
pub const LADDER_N: u64 = 1 << 22;
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
        match (self.imp.as_str(), self.scope.as_deref()) {
            (_, Some("Kernels")) => "kernels",
            ("rust_s8", _) => "kernel + result in host memory",
            (_, Some("KernelsAndResultCopy")) => "kernel + result copy",
            ("cub" | "torch" | "cupy", _) => "kernel + result copy",
            ("cub_mapped", _) => "kernels + result in host memory",
            ("read_kernel", _) => "kernel only",
            ("memcpy_d2d", _) => "copy only (R+W bytes)",
            ("empty_launch_copy", _) => "empty launch + copy",
            ("empty_kernel", _) => "empty kernel",
            (i, _) if i.starts_with("rust_s") => "kernels",
            _ => "?",
        }
    }

    /// Is this an f32 sum (or a bandwidth ceiling measured on f32 data)?
    pub fn is_f32_sum_series(&self) -> bool {
        self.n > 0
            && self.ty == "f32"
            && (self.op == "sum" || matches!(self.imp.as_str(), "read_kernel" | "memcpy_d2d"))
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

    /// One row per (protocol, implementation, op, type, N): of repeated measurements, the one
    /// with the fastest run. Sorted by protocol, implementation ([`impl_rank`]), op, type, N.
    pub fn best_rows(&self) -> Vec<Row> {
        let mut best: BTreeMap<(String, usize, String, String, String, u64), Row> = BTreeMap::new();
        for r in &self.rows {
            let key = (
                r.protocol.clone(),
                impl_rank(&r.imp),
                r.imp.clone(),
                r.op.clone(),
                r.ty.clone(),
                r.n,
            );
            match best.get(&key) {
                Some(b) if b.min_ms <= r.min_ms => {}
                _ => {
                    best.insert(key, r.clone());
                }
            }
        }
        best.into_values().collect()
    }

    /// The f32-sum series of the plain protocol (every stage and baseline, plus the bandwidth
    /// ceilings), one per implementation in [`impl_rank`] order, each sorted by N.
    pub fn f32_sum_series(&self) -> Vec<Series> {
        self.f32_sum_series_of(PLAIN)
    }

    /// [`Results::f32_sum_series`] of the rows timed with `protocol`.
    pub fn f32_sum_series_of(&self, protocol: &str) -> Vec<Series> {
        let mut out: Vec<Series> = Vec::new();
        for r in self.best_rows() {
            if !r.is_f32_sum_series() || r.protocol != protocol {
                continue;
            }
            match out.last_mut() {
                Some(s) if s.imp == r.imp => s.rows.push(r),
                _ => out.push(Series {
                    imp: r.imp.clone(),
                    label: impl_label(&r.imp),
                    rows: vec![r],
                }),
            }
        }
        out
    }

    /// The fixed cost of an empty launch + 4-byte result copy (`empty_launch_copy`), if measured
    /// with the plain protocol.
    pub fn empty_launch_copy(&self) -> Option<Row> {
        self.fixed_cost("empty_launch_copy", PLAIN)
    }

    /// A fixed-cost row (`empty_launch_copy`, `empty_kernel`) of `protocol`, if measured.
    pub fn fixed_cost(&self, imp: &str, protocol: &str) -> Option<Row> {
        self.best_rows()
            .into_iter()
            .find(|r| r.imp == imp && r.protocol == protocol)
    }

    /// Twin rows, deduplicated per (N, type, kernel) keeping the fastest Rust median, sorted.
    pub fn best_twins(&self) -> Vec<Twin> {
        let mut best: BTreeMap<(u64, String, String), Twin> = BTreeMap::new();
        for t in &self.twins {
            let key = (t.n, t.ty.clone(), t.kernel.clone());
            match best.get(&key) {
                Some(b) if b.rust_median_ms <= t.rust_median_ms => {}
                _ => {
                    best.insert(key, t.clone());
                }
            }
        }
        best.into_values().collect()
    }
}

/// CUB at its best: per N, the faster (by min) of `cub` (result copied back) and `cub_mapped`
/// (result stored into mapped pinned memory), from `series`. `None` if neither was measured.
pub fn best_cub(series: &[Series]) -> Option<Series> {
    let mut rows: BTreeMap<u64, Row> = BTreeMap::new();
    for s in series
        .iter()
        .filter(|s| s.imp == "cub" || s.imp == "cub_mapped")
    {
        for r in &s.rows {
            match rows.get(&r.n) {
                Some(b) if b.min_ms <= r.min_ms => {}
                _ => {
                    rows.insert(r.n, r.clone());
                }
            }
        }
    }
    (!rows.is_empty()).then(|| Series {
        imp: "cub".into(),
        label: "CUB (faster form)".into(),
        rows: rows.into_values().collect(),
    })
}

/// One implementation's rows, sorted by N.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// `impl` as in the files.
    pub imp: String,
    /// Human label ([`impl_label`]).
    pub label: String,
    /// The rows, by N.
    pub rows: Vec<Row>,
}

impl Series {
    /// The row at exactly `n`.
    pub fn at(&self, n: u64) -> Option<&Row> {
        self.rows.iter().find(|r| r.n == n)
    }
}

/// Sort key of an implementation: the ladder in order, then the libraries, then the ceilings.
pub fn impl_rank(imp: &str) -> usize {
    if let Some(k) = imp
        .strip_prefix("rust_s")
        .and_then(|s| s.parse::<usize>().ok())
    {
        return k.min(50);
    }
    match imp {
        "cub" => 60,
        "cub_mapped" => 63,
        "torch" => 61,
        "cupy" => 62,
        "read_kernel" => 70,
        "memcpy_d2d" => 71,
        "empty_launch_copy" => 72,
        "empty_kernel" => 73,
        _ => 80,
    }
}

/// Is this a bandwidth ceiling rather than a reduction?
pub fn is_ceiling(imp: &str) -> bool {
    matches!(imp, "read_kernel" | "memcpy_d2d")
}

/// Human name of an implementation.
pub fn impl_label(imp: &str) -> String {
    if let Some(k) = imp.strip_prefix("rust_s") {
        return format!("stage {k} (Rust)");
    }
    match imp {
        "cub" => "CUB DeviceReduce::Sum".into(),
        "cub_mapped" => "CUB DeviceReduce::Sum, result into mapped memory".into(),
        "torch" => "PyTorch sum()".into(),
        "cupy" => "CuPy sum()".into(),
        "read_kernel" => "read-only kernel (ceiling)".into(),
        "memcpy_d2d" => "D2D memcpy (ceiling, R+W)".into(),
        "empty_launch_copy" => "empty launch + 4 B copy".into(),
        "empty_kernel" => "empty kernel".into(),
        other => other.into(),
    }
}

/// `2^k` for powers of two, else the number.
pub fn fmt_n(n: u64) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

fn us(ms: f64) -> String {
    let u = ms * 1e3;
    if u < 100.0 {
        format!("{u:.2}")
    } else if u < 10_000.0 {
        format!("{u:.1}")
    } else {
        format!("{u:.0}")
    }
}

fn opt_gbps(g: Option<f64>) -> String {
    g.map(|g| format!("{g:.0}")).unwrap_or_else(|| "–".into())
}

fn ratio(r: f64) -> String {
    format!("{r:.2}×")
}

/// The stage-8-vs-CUB table, with a read-only-kernel column when `read` is given.
fn versus_cub(md: &mut String, s8: &Series, cub: &Series, read: Option<&Series>) {
    // The rows of `cub` keep their own `imp` (`cub` or `cub_mapped`): the "CUB form" column.
    let (rh, rs) = if read.is_some() {
        (" read-only kernel min µs |", "---:|")
    } else {
        ("", "")
    };
    let _ = writeln!(
        md,
        "| N | stage 8 min µs | stage 8 median µs | CUB min µs | CUB median µs | CUB form | \
         speedup (min) | speedup (median) | stage 8 GB/s | CUB GB/s |{rh}"
    );
    let _ = writeln!(md, "|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|{rs}");
    for a in &s8.rows {
        let Some(b) = cub.at(a.n) else { continue };
        let rc = match read {
            Some(s) => format!(
                " {} |",
                s.at(a.n)
                    .map(|x| us(x.min_ms))
                    .unwrap_or_else(|| "–".into())
            ),
            None => String::new(),
        };
        let form = if b.imp == "cub_mapped" {
            "mapped"
        } else {
            "copy"
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {form} | {} | {} | {} | {} |{rc}",
            fmt_n(a.n),
            us(a.min_ms),
            us(a.median_ms),
            us(b.min_ms),
            us(b.median_ms),
            ratio(b.min_ms / a.min_ms),
            ratio(b.median_ms / a.median_ms),
            opt_gbps(a.gbps()),
            opt_gbps(b.gbps()),
        );
    }
    let _ = writeln!(md);
}

/// `results.md`: the f32-sum table of every implementation with bandwidth and the ratio to CUB, a
/// stage-8-vs-CUB summary, stage 8's other ops/types, the twins, and notes. `plots` lists the
/// PNG files written next to it (linked at the end).
pub fn markdown(r: &Results, plots: &[&str]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Reduction benchmark results\n");
    if r.files.is_empty() {
        let _ = writeln!(
            md,
            "No input files found (looked for {}).\n",
            INPUT_FILES.join(", ")
        );
    } else {
        let files: Vec<String> = r
            .files
            .iter()
            .map(|(f, n)| format!("`{f}` ({n} lines)"))
            .collect();
        let _ = writeln!(md, "Read {}.\n", files.join(", "));
    }
    let _ = writeln!(
        md,
        "Times are GPU time between two CUDA events per run, in µs: the fastest (**min**) and the \
         **median** run. **GB/s** = bytes / min time, with bytes = 4·N (every f32 read once); the \
         ceilings use the bytes they report (the D2D copy counts read + write). **vs CUB** = CUB's \
         min time (its faster form, see below) / this row's min time at the same N (> 1: faster \
         than CUB). The stages 1–7 rows \
         time the kernels only; CUB, PyTorch and CuPy also copy the 4-byte result to pinned host \
         memory inside the window, and stage 8's last block stores it straight into mapped pinned \
         host memory (so its window ends when the result is in host RAM, as for the others). Unless \
         a section says *gated*, runs are queued the plain way (`start` event, work, `stop` event \
         on an idle stream), so the window also holds the host's launch latency.\n"
    );
    if let Some(e) = r.empty_launch_copy() {
        let _ = writeln!(
            md,
            "Fixed cost of an empty kernel launch + 4-byte result copy: {} µs (min), {} µs \
             (median).\n",
            us(e.min_ms),
            us(e.median_ms)
        );
    }

    let series = r.f32_sum_series();
    let best = best_cub(&series);
    let cub = best.as_ref();
    let s8 = series.iter().find(|s| s.imp == "rust_s8");

    if let (Some(s8), Some(cub)) = (s8, cub) {
        let _ = writeln!(md, "## f32 sum: stage 8 vs CUB\n");
        let _ = writeln!(
            md,
            "**CUB** is the faster, per N, of CUB + a 4-byte copy into pinned memory (`copy`) and CUB \
             writing its result straight into mapped pinned memory (`mapped`, as stage 8 does).\n"
        );
        versus_cub(&mut md, s8, cub, None);
    }

    let gated = r.f32_sum_series_of(GATED);
    let g_best = best_cub(&gated);
    let g_s8 = gated.iter().find(|s| s.imp == "rust_s8");
    if let (Some(s8), Some(cub)) = (g_s8, g_best.as_ref()) {
        let _ = writeln!(
            md,
            "## f32 sum: stage 8 vs CUB, GPU time only (gated protocol)\n"
        );
        let _ = writeln!(
            md,
            "The same measurement, but every timed run is queued behind a one-thread gate kernel \
             that holds the stream until the host has queued the whole run (`start` event, the \
             work, `stop` event) — NVIDIA nvbench's \"blocking kernel\". The window then holds \
             GPU time only, without the host's launch latency. Same data, same runs, same result \
             copy as above.\n"
        );
        let fixed: Vec<String> = [
            ("empty_kernel", "an empty kernel"),
            ("empty_launch_copy", "an empty kernel + 4-byte copy"),
        ]
        .iter()
        .filter_map(|(imp, what)| {
            r.fixed_cost(imp, GATED)
                .map(|e| format!("{what} {} µs", us(e.min_ms)))
        })
        .collect();
        if !fixed.is_empty() {
            let _ = writeln!(
                md,
                "Fixed costs in this protocol (min): {}.\n",
                fixed.join(", ")
            );
        }
        let read = gated.iter().find(|s| s.imp == "read_kernel");
        versus_cub(&mut md, s8, cub, read);
    }

    if !series.is_empty() {
        let _ = writeln!(md, "## f32 sum: every implementation\n");
        let _ = writeln!(
            md,
            "| N | implementation | timed | min µs | median µs | GB/s | vs CUB |"
        );
        let _ = writeln!(md, "|---:|---|---|---:|---:|---:|---:|");
        let mut ns: Vec<u64> = series
            .iter()
            .flat_map(|s| s.rows.iter().map(|r| r.n))
            .collect();
        ns.sort_unstable();
        ns.dedup();
        for n in ns {
            let cub_min = cub.and_then(|c| c.at(n)).map(|c| c.min_ms);
            for s in &series {
                let Some(row) = s.at(n) else { continue };
                let wrong = if row.correct == Some(false) {
                    " **(WRONG RESULT)**"
                } else {
                    ""
                };
                let vs = match cub_min {
                    Some(c) if !is_ceiling(&row.imp) => ratio(c / row.min_ms),
                    _ => "–".into(),
                };
                let _ = writeln!(
                    md,
                    "| {} | {}{} | {} | {} | {} | {} | {} |",
                    fmt_n(n),
                    s.label,
                    wrong,
                    row.timed(),
                    us(row.min_ms),
                    us(row.median_ms),
                    opt_gbps(row.gbps()),
                    vs
                );
            }
        }
        let _ = writeln!(md);
    }

    let others: Vec<Row> = r
        .best_rows()
        .into_iter()
        .filter(|x| x.n > 0 && !x.is_f32_sum_series() && x.protocol == PLAIN)
        .collect();
    if !others.is_empty() {
        let _ = writeln!(md, "## Other ops and types\n");
        let _ = writeln!(
            md,
            "GB/s here counts size_of(type) · N bytes.\n\n\
             | implementation | op | type | N | min µs | median µs | GB/s |"
        );
        let _ = writeln!(md, "|---|---|---|---:|---:|---:|---:|");
        for x in &others {
            let wrong = if x.correct == Some(false) {
                " **(WRONG RESULT)**"
            } else {
                ""
            };
            let _ = writeln!(
                md,
                "| {}{} | {} | {} | {} | {} | {} | {} |",
                impl_label(&x.imp),
                wrong,
                x.op,
                x.ty,
                fmt_n(x.n),
                us(x.min_ms),
                us(x.median_ms),
                opt_gbps(x.gbps())
            );
        }
        let _ = writeln!(md);
    }

    let twins = r.best_twins();
    if !twins.is_empty() {
        let _ = writeln!(md, "## Rust kernels vs their CUDA C twins\n");
        let _ = writeln!(
            md,
            "Same PTX entry names, launches and inputs; only the compiler differs. **Rust / C** = \
             Rust median / CUDA C median (< 1: the Rust kernel is faster).\n"
        );
        let _ = writeln!(
            md,
            "| N | type | kernel | Rust median µs | CUDA C median µs | Rust / C | Rust min µs | \
             CUDA C min µs | ok |"
        );
        let _ = writeln!(md, "|---:|---|---|---:|---:|---:|---:|---:|---|");
        for t in &twins {
            let _ = writeln!(
                md,
                "| {} | {} | `{}` | {} | {} | {:.3} | {} | {} | {} |",
                fmt_n(t.n),
                t.ty,
                t.kernel,
                us(t.rust_median_ms),
                us(t.cuda_median_ms),
                t.rust_median_ms / t.cuda_median_ms,
                t.rust_min_ms.map(us).unwrap_or_else(|| "–".into()),
                t.cuda_min_ms.map(us).unwrap_or_else(|| "–".into()),
                match t.correct {
                    Some(true) => "ok",
                    Some(false) => "**WRONG**",
                    None => "?",
                }
            );
        }
        let _ = writeln!(md);
    }

    let wrong: Vec<&Row> = r.rows.iter().filter(|x| x.correct == Some(false)).collect();
    if !r.notes.is_empty() || !r.ignored.is_empty() || !wrong.is_empty() {
        let _ = writeln!(md, "## Notes\n");
        for x in wrong {
            let _ = writeln!(
                md,
                "* `{}`: {} {} at N = {} did not match the reference.",
                x.source,
                impl_label(&x.imp),
                x.op,
                fmt_n(x.n)
            );
        }
        for n in &r.notes {
            let size =
                n.n.map(|n| format!(" at N = {}", fmt_n(n)))
                    .unwrap_or_default();
            let who = n
                .imp
                .as_deref()
                .map(impl_label)
                .unwrap_or_else(|| "?".into());
            let _ = writeln!(
                md,
                "* `{}`: {who}{size}: {}",
                n.source,
                n.error.replace('|', "\\|").replace('\n', " ")
            );
        }
        for (f, k) in &r.ignored {
            let _ = writeln!(
                md,
                "* `{f}`: {k} line(s) were not timing rows and were ignored."
            );
        }
        let _ = writeln!(md);
    }

    if !plots.is_empty() {
        let _ = writeln!(md, "## Plots\n");
        for p in plots {
            let _ = writeln!(md, "![{p}]({p})\n");
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    const SWEEP: &str = r#"{"impl":"rust_s8","op":"sum","type":"f32","n":4194304,"runs":50,"min_ms":0.010,"median_ms":0.012,"mean_ms":0.0125,"result":1.0,"reference":1.0,"correct":true,"grid":528,"block":512,"passes":1,"scope":"KernelsAndResultCopy"}
{"impl":"rust_s1","op":"sum","type":"f32","n":4194304,"runs":50,"min_ms":0.200,"median_ms":0.210,"mean_ms":0.21,"result":1.0,"reference":1.0,"correct":true,"grid":16384,"block":256,"passes":3,"scope":"Kernels"}
{"impl":"rust_s7","op":"sum","type":"f32","n":4194304,"runs":50,"min_ms":0.015,"median_ms":0.016,"mean_ms":0.016,"result":1.0,"reference":1.0,"correct":false,"grid":1056,"block":256,"passes":2,"scope":"Kernels"}
{"impl":"rust_s8","op":"sum","type":"f32","n":1073741824,"runs":50,"min_ms":0.9,"median_ms":0.95,"mean_ms":0.95,"correct":true,"grid":528,"block":512,"scope":"KernelsAndResultCopy"}
{"impl":"rust_s8","op":"max","type":"f64","n":1048576,"runs":50,"min_ms":0.008,"median_ms":0.009,"mean_ms":0.009,"correct":true,"grid":528,"block":512,"scope":"KernelsAndResultCopy"}
"#;
    const CUB: &str = r#"device: NVIDIA H200, 132 SMs
{"impl":"empty_launch_copy","op":"none","type":"f32","n":0,"runs":50,"min_ms":0.004,"median_ms":0.005,"mean_ms":0.005}
{"impl":"cub","op":"sum","type":"f32","n":4194304,"runs":50,"min_ms":0.020,"median_ms":0.024,"mean_ms":0.024,"result":2097152.5,"reference":2097152.4}
{"impl":"cub","op":"sum","type":"f32","n":1073741824,"runs":50,"min_ms":0.95,"median_ms":0.96,"mean_ms":0.96,"result":1,"reference":1}
{"impl":"memcpy_d2d","op":"copy","type":"f32","n":4194304,"runs":50,"min_ms":0.008,"median_ms":0.009,"mean_ms":0.009,"bytes":33554432}
{"impl":"read_kernel","op":"sum","type":"f32","n":4194304,"runs":50,"min_ms":0.005,"median_ms":0.006,"mean_ms":0.006,"result":1,"reference":1,"bytes":16778000}
"#;
    const PY: &str = r#"torch 2.5 on H200
{"impl":"torch","op":"sum","type":"f32","n":4194304,"runs":50,"min_ms":0.030,"median_ms":0.031,"mean_ms":0.031,"result":1.0,"reference":1.0,"copy":"async_pinned"}
{"impl":"cupy","error":"import cupy failed: ModuleNotFoundError('No module named cupy')"}
{"impl":"torch","n":1073741824,"error":"OutOfMemoryError('CUDA out of memory | tried')"}
[1, 2, 3]
{"impl":"torch","op":"sum","type":"f32","n":4194304,"runs":50,"min_ms":0.025,"median_ms":0.040,"mean_ms":0.04}
"#;
    const TWINS: &str = r#"{"n":4194304,"type":"f32","kernel":"reduce_s3_sequential_f32","rust_median_ms":0.050,"cuda_median_ms":0.040,"rust_min_ms":0.049,"cuda_min_ms":0.039,"correct":true}
{"n":4194304,"type":"i32","kernel":"reduce_s3_sequential_i32","rust_median_ms":0.030,"cuda_median_ms":0.060,"correct":false}
"#;

    fn all() -> Results {
        let mut r = Results::default();
        r.parse_str("sweep.jsonl", SWEEP);
        r.parse_str("cub.jsonl", CUB);
        r.parse_str("python.jsonl", PY);
        r.parse_str("twins.jsonl", TWINS);
        r
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn parses_every_kind_of_line() {
        let r = all();
        assert_eq!(r.rows.len(), 5 + 5 + 2);
        assert_eq!(r.twins.len(), 2);
        assert_eq!(r.notes.len(), 2);
        // The "device:" line, the torch banner and the JSON array; nothing else.
        assert_eq!(r.ignored.get("cub.jsonl"), Some(&1));
        assert_eq!(r.ignored.get("python.jsonl"), Some(&2));
        assert_eq!(r.ignored.get("sweep.jsonl"), None);
        assert_eq!(r.files[0], ("sweep.jsonl".to_string(), 5));

        let s7 = r.rows.iter().find(|x| x.imp == "rust_s7").unwrap();
        assert_eq!(s7.correct, Some(false));
        assert_eq!(s7.scope.as_deref(), Some("Kernels"));
        assert_eq!(s7.timed(), "kernels");
        let copy = r.rows.iter().find(|x| x.imp == "memcpy_d2d").unwrap();
        assert_eq!((copy.op.as_str(), copy.bytes), ("copy", Some(33554432)));
        assert_eq!(copy.timed(), "copy only (R+W bytes)");

        let oom = r.notes.iter().find(|x| x.n.is_some()).unwrap();
        assert_eq!(oom.imp.as_deref(), Some("torch"));
        assert_eq!(oom.n, Some(1 << 30));
        let t = r.twins.iter().find(|x| x.ty == "i32").unwrap();
        assert_eq!((t.rust_min_ms, t.correct), (None, Some(false)));
    }

    #[test]
    fn rejects_rows_without_usable_times() {
        let mut r = Results::default();
        r.parse_str(
            "x.jsonl",
            "{\"impl\":\"cub\",\"n\":4,\"min_ms\":0,\"median_ms\":1}\n\
             {\"impl\":\"cub\",\"n\":4,\"min_ms\":null}\n\
             {\"impl\":\"cub\",\"min_ms\":1.0}\n\
             {\"n\":4,\"min_ms\":1.0}\n\
             not json at all\n\
             \n\
             {\"impl\":\"cub\",\"n\":4.0,\"min_ms\":2.0}\n",
        );
        assert_eq!(r.rows.len(), 1);
        let row = &r.rows[0];
        // Defaults: op sum, type f32, median = min when absent.
        assert_eq!((row.op.as_str(), row.ty.as_str(), row.n), ("sum", "f32", 4));
        assert!(close(row.median_ms, 2.0));
        assert_eq!(r.ignored.get("x.jsonl"), Some(&5));
        assert_eq!(r.files[0].1, 6, "blank lines are not counted");
    }

    #[test]
    fn best_rows_pick_the_fastest_repeat() {
        let r = all();
        let best = r.best_rows();
        let torch: Vec<&Row> = best.iter().filter(|x| x.imp == "torch").collect();
        assert_eq!(torch.len(), 1);
        // Two torch rows at 2^22: min 0.030 and min 0.025 → the second, with its own median.
        assert!(close(torch[0].min_ms, 0.025));
        assert!(close(torch[0].median_ms, 0.040));
        // Ordered: ladder, libraries, ceilings.
        let order: Vec<&str> = best.iter().map(|x| x.imp.as_str()).collect();
        let pos = |s: &str| order.iter().position(|x| *x == s).unwrap();
        assert!(pos("rust_s1") < pos("rust_s7"));
        assert!(pos("rust_s7") < pos("rust_s8"));
        assert!(pos("rust_s8") < pos("cub"));
        assert!(pos("cub") < pos("torch"));
        assert!(pos("torch") < pos("read_kernel"));
        assert!(pos("read_kernel") < pos("memcpy_d2d"));
    }

    #[test]
    fn bandwidth_uses_4n_or_the_reported_bytes() {
        let r = all();
        let best = r.best_rows();
        let find = |imp: &str, n: u64| {
            best.iter()
                .find(|x| x.imp == imp && x.n == n && x.op != "max")
                .unwrap()
                .clone()
        };
        // 4·2^22 bytes in 10 µs = 1677.7216 GB/s.
        let s8 = find("rust_s8", 1 << 22);
        assert_eq!(s8.bytes_moved(), 4 << 22);
        assert!(close(s8.gbps().unwrap(), 1677.7216));
        // memcpy: its own 8·N bytes in 8 µs = 4194.304 GB/s.
        assert!(close(find("memcpy_d2d", 1 << 22).gbps().unwrap(), 4194.304));
        // f64: 8 bytes per element.
        let max = best.iter().find(|x| x.op == "max").unwrap();
        assert_eq!(max.bytes_moved(), 8 << 20);
        assert_eq!(gbps(0, 1.0), None);
        assert_eq!(gbps(4, 0.0), None);
        assert_eq!(gbps(4, f64::NAN), None);
        assert!(close(gbps(1_000_000_000, 1000.0).unwrap(), 1.0));
    }

    #[test]
    fn series_cover_f32_sums_and_ceilings_only() {
        let r = all();
        let s = r.f32_sum_series();
        let names: Vec<&str> = s.iter().map(|x| x.imp.as_str()).collect();
        assert_eq!(
            names,
            [
                "rust_s1",
                "rust_s7",
                "rust_s8",
                "cub",
                "torch",
                "read_kernel",
                "memcpy_d2d"
            ]
        );
        let s8 = &s[2];
        assert_eq!(s8.label, "stage 8 (Rust)");
        assert_eq!(
            s8.rows.iter().map(|x| x.n).collect::<Vec<_>>(),
            [1 << 22, 1 << 30],
            "sorted by N; the f64 max row is not an f32 sum"
        );
        assert!(r.empty_launch_copy().is_some());
    }

    #[test]
    fn markdown_has_the_tables_and_numbers() {
        let md = markdown(&all(), &["time_vs_n.png"]);
        // Stage 8 vs CUB: 20 µs / 10 µs at 2^22 and 0.95 / 0.9 at 2^30.
        assert!(md.contains("## f32 sum: stage 8 vs CUB"));
        assert!(
            md.contains(
                "| 2^22 | 10.00 | 12.00 | 20.00 | 24.00 | copy | 2.00× | 2.00× | 1678 | 839 |"
            ),
            "{md}"
        );
        assert!(
            md.contains(
                "| 2^30 | 900.0 | 950.0 | 950.0 | 960.0 | copy | 1.06× | 1.01× | 4772 | 4521 |"
            ),
            "{md}"
        );
        // Long table: one row per implementation and N, with the timing scope and vs CUB.
        assert!(
            md.contains("| 2^22 | stage 1 (Rust) | kernels | 200.0 | 210.0 | 84 | 0.10× |"),
            "{md}"
        );
        assert!(
            md.contains(
                "| 2^22 | PyTorch sum() | kernel + result copy | 25.00 | 40.00 | 671 | 0.80× |"
            ),
            "{md}"
        );
        assert!(md.contains("| 2^22 | D2D memcpy (ceiling, R+W) | copy only (R+W bytes) | 8.00 | 9.00 | 4194 | – |"), "{md}");
        assert!(md.contains("stage 7 (Rust) **(WRONG RESULT)**"));
        // The empty launch is a note, not a table row.
        assert!(md.contains("empty kernel launch + 4-byte result copy: 4.00 µs"));
        assert!(!md.contains("| empty launch"));
        // Other ops/types.
        assert!(
            md.contains("| stage 8 (Rust) | max | f64 | 2^20 | 8.00 | 9.00 | 1049 |"),
            "{md}"
        );
        // Twins.
        assert!(md.contains("| 2^22 | f32 | `reduce_s3_sequential_f32` | 50.00 | 40.00 | 1.250 | 49.00 | 39.00 | ok |"), "{md}");
        assert!(md.contains("| 0.500 | – | – | **WRONG** |"), "{md}");
        // Notes, with the pipe in the error escaped so the markdown stays intact.
        assert!(md.contains("CuPy sum(): import cupy failed"));
        assert!(md.contains(
            "PyTorch sum() at N = 2^30: OutOfMemoryError('CUDA out of memory \\| tried')"
        ));
        assert!(md.contains("`python.jsonl`: 2 line(s) were not timing rows"));
        assert!(md.contains("![time_vs_n.png](time_vs_n.png)"));

        // Every table row has as many cells as its header.
        let mut cols = None;
        for line in md.lines() {
            if !line.starts_with('|') {
                cols = None;
                continue;
            }
            let cells = line.trim_matches('|').split('|').count();
            match cols {
                None => cols = Some(cells),
                Some(k) => assert_eq!(k, cells, "ragged table row: {line}"),
            }
        }
    }

    #[test]
    fn gated_rows_get_their_own_table_and_stay_out_of_the_plain_ones() {
        let mut r = all();
        r.parse_str(
            "sweep.jsonl",
            r#"{"impl":"rust_s8","op":"sum","type":"f32","n":4194304,"runs":50,"min_ms":0.007,"median_ms":0.0075,"correct":true,"scope":"KernelsAndResultCopy","protocol":"gated"}"#,
        );
        r.parse_str(
            "cub.jsonl",
            r#"{"impl":"cub","op":"sum","type":"f32","n":4194304,"runs":50,"min_ms":0.014,"median_ms":0.015,"protocol":"gated"}
{"impl":"read_kernel","op":"sum","type":"f32","n":4194304,"runs":50,"min_ms":0.0058,"median_ms":0.006,"bytes":16778000,"protocol":"gated"}
{"impl":"empty_kernel","op":"none","type":"f32","n":0,"runs":50,"min_ms":0.0027,"median_ms":0.0027,"protocol":"gated"}
{"impl":"cub","op":"sum","type":"f32","n":4194304,"runs":50,"min_ms":0.001,"median_ms":0.001,"protocol":"plain"}"#,
        );
        // A faster plain CUB row replaces the plain best; the gated one does not.
        let plain_cub = r
            .f32_sum_series()
            .into_iter()
            .find(|s| s.imp == "cub")
            .unwrap();
        assert!(close(plain_cub.at(1 << 22).unwrap().min_ms, 0.001));
        assert!(close(
            r.f32_sum_series()
                .into_iter()
                .find(|s| s.imp == "rust_s8")
                .unwrap()
                .at(1 << 22)
                .unwrap()
                .min_ms,
            0.010
        ));
        let gated = r.f32_sum_series_of(GATED);
        let imps: Vec<&str> = gated.iter().map(|s| s.imp.as_str()).collect();
        assert_eq!(imps, ["rust_s8", "cub", "read_kernel"]);
        let md = markdown(&r, &[]);
        assert!(
            md.contains("## f32 sum: stage 8 vs CUB, GPU time only (gated protocol)"),
            "{md}"
        );
        assert!(
            md.contains("Fixed costs in this protocol (min): an empty kernel 2.70 µs."),
            "{md}"
        );
        assert!(
            md.contains(
                "| 2^22 | 7.00 | 7.50 | 14.00 | 15.00 | copy | 2.00× | 2.00× | 2397 | 1198 | 5.80 |"
            ),
            "{md}"
        );
        // The gated rows are not in the plain long table.
        assert!(
            !md.contains("| 2^22 | stage 8 (Rust) | kernel + result in host memory | 7.00 |"),
            "{md}"
        );
    }

    #[test]
    fn the_cub_column_takes_the_faster_form_per_size() {
        let mut r = all();
        // Mapped is faster at 2^22 (0.015 < 0.020 ms), slower at 2^30 (0.97 > 0.95 ms).
        r.parse_str(
            "cub.jsonl",
            r#"{"impl":"cub_mapped","op":"sum","type":"f32","n":4194304,"runs":50,"min_ms":0.015,"median_ms":0.016}
{"impl":"cub_mapped","op":"sum","type":"f32","n":1073741824,"runs":50,"min_ms":0.97,"median_ms":0.98}"#,
        );
        let best = best_cub(&r.f32_sum_series()).unwrap();
        assert_eq!(best.at(1 << 22).unwrap().imp, "cub_mapped");
        assert_eq!(best.at(1 << 30).unwrap().imp, "cub");
        let md = markdown(&r, &[]);
        assert!(
            md.contains("| 2^22 | 10.00 | 12.00 | 15.00 | 16.00 | mapped | 1.50× |"),
            "{md}"
        );
        assert!(
            md.contains("| 2^30 | 900.0 | 950.0 | 950.0 | 960.0 | copy |"),
            "{md}"
        );
        // The long table's "vs CUB" uses the faster form too.
        assert!(
            md.contains("| 2^22 | stage 8 (Rust) | kernel + result in host memory | 10.00 | 12.00 | 1678 | 1.50× |"),
            "{md}"
        );
    }

    #[test]
    fn markdown_without_inputs_says_so() {
        let md = markdown(&Results::default(), &[]);
        assert!(md.contains("No input files found"));
        assert!(!md.contains("## f32 sum"));
        // Only a sweep, no CUB: the long table, no summary, "–" in vs CUB.
        let mut r = Results::default();
        r.parse_str("sweep.jsonl", SWEEP);
        let md = markdown(&r, &[]);
        assert!(!md.contains("stage 8 vs CUB"));
        assert!(
            md.contains(
                "| 2^22 | stage 8 (Rust) | kernel + result in host memory | 10.00 | 12.00 | 1678 | – |"
            ),
            "{md}"
        );
        assert!(!md.contains("twins"));
    }

    #[test]
    fn labels_and_sizes() {
        assert_eq!(fmt_n(1 << 22), "2^22");
        assert_eq!(fmt_n(1000), "1000");
        assert_eq!(impl_label("rust_s3"), "stage 3 (Rust)");
        assert_eq!(impl_label("mystery"), "mystery");
        assert!(impl_rank("rust_s8") < impl_rank("cub"));
        assert!(impl_rank("rust_s2") < impl_rank("rust_s10"));
        assert_eq!(type_size("u64"), 8);
        assert_eq!(type_size("i32"), 4);
    }
}
