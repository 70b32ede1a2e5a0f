//! Selection: the best row per measurement, the f32-sum series, the fixed costs, the twins,
//! CUB at its best.

use crate::registry::{impl_label, impl_rank};
use crate::results::{Results, Row, Twin, PLAIN};
use std::collections::BTreeMap;

impl Results {
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
