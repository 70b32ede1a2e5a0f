//! # reduce-benches: benchmark results → markdown tables and PNG plots
//!
//! The criterion benchmarks live in `benches/reduce.rs`; the `report` binary
//! (`src/bin/report.rs`) turns one run's JSON-lines files into `results.md` and three PNG plots.
//! This library holds the rest, split by job: [`results`] reads the files
//! ([`Results::parse_str`], [`Results::load_dir`]), [`select`] picks the best row per measurement
//! ([`Results::best_rows`]) and the series, [`registry`] knows every implementation (label,
//! colour, what is timed, ceiling or not), [`mod@markdown`] writes `results.md`, [`plot`] draws the
//! PNGs and [`fonts`] finds the font they are labelled with. [`readme`] reads a whole
//! `benches/gpu.sh` run (every suite's records) and writes the README's performance tables
//! (`report RUN_DIR --readme OUT.md`).
//!
//! Input files (any subset, in one directory; lines that are not JSON objects are ignored):
//!
//! | file | written by | rows |
//! |---|---|---|
//! | `sweep.jsonl` | `reduce sweep` | `rust_s1` … `rust_s8` |
//! | `cub.jsonl` | `benches/cuda/cub_bench` | `cub`, `read_kernel`, `memcpy_d2d` (with `bytes`), `empty_launch_copy` |
//! | `python.jsonl` | `benches/python/baselines.py` | `torch`, `cupy` (or `{"impl":…, "error":…}`) |
//! | `twins.jsonl` | `reduce twins --format json` | Rust kernel vs its CUDA C twin |

pub mod fonts;
pub mod markdown;
pub mod plot;
pub mod readme;
pub mod registry;
pub mod results;
pub mod select;
#[cfg(test)]
mod tests;

pub use markdown::{fmt_n, markdown};
pub use registry::{impl_label, impl_rank, implementation, is_ceiling, Implementation};
pub use results::{gbps, type_size, Note, Results, Row, Twin, GATED, INPUT_FILES, PLAIN};
pub use select::{best_cub, Series};

/// The H200's datasheet memory bandwidth, GB/s (4.8 TB/s HBM3e).
pub const H200_PEAK_GBS: f64 = 4800.0;
/// The label of the peak line.
pub const H200_PEAK_LABEL: &str = "H200 peak (datasheet)";
/// The seed's N (the ladder bar chart's size).
pub const LADDER_N: u64 = 1 << 22;
