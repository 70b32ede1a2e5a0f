//! The result records: one JSON object per line, written by `reduce sweep` and `reduce twins`
//! (and, in the same schema, by `benches/cuda/cub_bench.cu` and `benches/python/baselines.py`),
//! read back by the benches' `report`.
//!
//! [`Record::parse_line`] reads any line those programs print. Writing goes through
//! [`Record::to_json_line`], which emits the keys in sorted order (the order the files in
//! `benches/results/` have).

use super::{Protocol, Scope, Timing};
use crate::plan::Plan;
use crate::types::{ElemType, Op};
use serde::{Deserialize, Serialize};

/// One timed measurement: an implementation, an operator, a type, a size and its times. A
/// missing optional field reads as `None`; `None` is left out when written (but for the times,
/// written as `null`).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimingRecord {
    /// What was timed: `rust_s8`, `rust_s3`, `cub`, `torch`, `memcpy_d2d`, `empty_kernel` …
    #[serde(rename = "impl")]
    pub implementation: String,
    /// Operator: `sum`, `min`, `max`, `mean`; `copy` or `none` for the ceilings and fixed costs.
    #[serde(default = "default_op")]
    pub op: String,
    /// Element type.
    #[serde(rename = "type", default = "default_type")]
    pub ty: ElemType,
    /// Elements.
    #[serde(deserialize_with = "whole_number")]
    pub n: u64,
    /// Timed runs.
    #[serialize_always]
    pub runs: Option<u64>,
    /// Fastest run, ms (`null` when there was none).
    #[serialize_always]
    pub min_ms: Option<f64>,
    /// Median run, ms.
    #[serialize_always]
    pub median_ms: Option<f64>,
    /// Mean run, ms.
    #[serialize_always]
    pub mean_ms: Option<f64>,
    /// The result, as `f64`.
    pub result: Option<f64>,
    /// The reference it was checked against, as `f64`.
    pub reference: Option<f64>,
    /// Did the result match the reference (Rust rows)?
    pub correct: Option<bool>,
    /// Blocks of the first launch (Rust rows).
    pub grid: Option<usize>,
    /// Threads per block (Rust rows).
    pub block: Option<usize>,
    /// Launches per reduction (Rust rows).
    pub passes: Option<usize>,
    /// What the timing window holds (Rust rows).
    pub scope: Option<Scope>,
    /// How each run was queued; `plain` when absent.
    pub protocol: Option<Protocol>,
    /// Bytes one run moves, when not `size_of(type) · n` (the copy ceiling counts read + write).
    pub bytes: Option<u64>,
    /// How the Python baselines copied the result (`async_pinned`, `get_sync`).
    pub copy: Option<String>,
}

/// A count written as an integer or as a float with no fraction (`4096.0`).
fn whole_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = f64::deserialize(d)?;
    if v >= 0.0 && v.fract() == 0.0 && v < u64::MAX as f64 {
        Ok(v as u64)
    } else {
        Err(serde::de::Error::custom(format!("{v} is not a count")))
    }
}

fn default_op() -> String {
    "sum".into()
}

fn default_type() -> ElemType {
    ElemType::F32
}

impl TimingRecord {
    /// A Rust row of `reduce sweep`: `plan`, run with `op`, timed as `timing` (`scope`,
    /// `protocol`); its result and reference are added by [`TimingRecord::checked`].
    pub fn rust(
        implementation: impl Into<String>,
        op: Op,
        plan: &Plan,
        timing: &Timing,
        scope: Scope,
        protocol: Protocol,
    ) -> Self {
        TimingRecord {
            implementation: implementation.into(),
            op: op.name().into(),
            ty: plan.ty,
            n: plan.passes[0].n as u64,
            runs: Some(timing.runs_ms.len() as u64),
            min_ms: Some(timing.min()),
            median_ms: Some(timing.median()),
            mean_ms: Some(timing.mean()),
            result: None,
            reference: None,
            correct: None,
            grid: Some(plan.passes[0].grid),
            block: Some(plan.passes[0].block),
            passes: Some(plan.passes.len()),
            scope: Some(scope),
            protocol: Some(protocol),
            bytes: None,
            copy: None,
        }
    }

    /// The same with the result, the reference it was checked against and the verdict.
    pub fn checked(self, result: f64, reference: f64, correct: bool) -> Self {
        TimingRecord {
            result: Some(result),
            reference: Some(reference),
            correct: Some(correct),
            ..self
        }
    }
}

/// A Rust kernel against its CUDA C twin (a line of `reduce twins --format json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TwinRecord {
    /// Elements.
    #[serde(deserialize_with = "whole_number")]
    pub n: u64,
    /// Element type.
    #[serde(rename = "type", default = "default_type")]
    pub ty: ElemType,
    /// Kernel symbol (the same in both PTX files).
    pub kernel: String,
    /// Rust kernel, median ms.
    pub rust_median_ms: Option<f64>,
    /// CUDA C twin, median ms.
    pub cuda_median_ms: Option<f64>,
    /// Rust kernel, fastest ms.
    #[serde(default)]
    pub rust_min_ms: Option<f64>,
    /// CUDA C twin, fastest ms.
    #[serde(default)]
    pub cuda_min_ms: Option<f64>,
    /// Both matched the reference.
    #[serde(default)]
    pub correct: Option<bool>,
}

/// A line that reports a failure instead of a timing (`{"impl":"torch","error":…}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorRecord {
    /// The implementation, if named.
    #[serde(rename = "impl", default, skip_serializing_if = "Option::is_none")]
    pub implementation: Option<String>,
    /// The size, if it concerns one.
    pub n: Option<u64>,
    /// What went wrong.
    pub error: String,
}

/// Any line of a results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Record {
    /// A failure report (tried first: it may also carry `impl` and `n`).
    Error(ErrorRecord),
    /// A twin comparison.
    Twin(TwinRecord),
    /// A timed measurement.
    Timing(TimingRecord),
}

impl Record {
    /// Parse one line; `None` for anything that is not a record (log lines, warnings, other JSON).
    pub fn parse_line(line: &str) -> Option<Record> {
        serde_json::from_str(line.trim()).ok()
    }

    /// The record as one line of JSON, keys sorted.
    pub fn to_json_line(&self) -> String {
        // Through `Value`, whose map is ordered by key: the files in benches/results/ were
        // written that way, and the order does not depend on the field order above.
        serde_json::to_value(self)
            .map(|v| v.to_string())
            .unwrap_or_default()
    }
}

impl From<TimingRecord> for Record {
    fn from(r: TimingRecord) -> Self {
        Record::Timing(r)
    }
}

impl From<TwinRecord> for Record {
    fn from(r: TwinRecord) -> Self {
        Record::Twin(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Lines as the baselines print them, from benches/results/h200-2026-11-30-ladder.
    const CUB: &str = r#"{"impl":"cub","op":"sum","type":"f32","n":4096,"runs":50,"min_ms":0.007744,"median_ms":0.008720,"mean_ms":0.008812,"protocol":"plain","result":2045.81848,"reference":2045.8183480501175}"#;
    const CUB_EMPTY: &str = r#"{"impl":"empty_launch_copy","op":"none","type":"f32","n":0,"runs":50,"min_ms":0.007168,"median_ms":0.008320,"mean_ms":0.008452,"protocol":"plain"}"#;
    const CUB_COPY: &str = r#"{"impl":"memcpy_d2d","op":"copy","type":"f32","n":1048576,"runs":50,"min_ms":0.007072,"median_ms":0.008512,"mean_ms":0.008713,"protocol":"plain","bytes":8388608}"#;
    const PYTHON: &str = r#"{"impl": "torch", "op": "sum", "type": "f32", "n": 4096, "runs": 50, "min_ms": 0.034144, "median_ms": 0.036384, "mean_ms": 0.038461, "result": 2004.430908203125, "reference": 2004.4308718212415, "copy": "async_pinned"}"#;
    const SWEEP: &str = r#"{"block":256,"correct":true,"grid":1,"impl":"rust_s8","mean_ms":0.007921919971704484,"median_ms":0.007727999938651919,"min_ms":0.006399999838322401,"n":4096,"op":"sum","passes":1,"protocol":"plain","reference":2047.0169677734375,"result":2047.0169677734375,"runs":50,"scope":"KernelsAndResultCopy","type":"f32"}"#;
    const TWIN: &str = r#"{"correct":true,"cuda_median_ms":0.05252800136804581,"cuda_min_ms":0.05119999870657921,"kernel":"reduce_s1_interleaved_divergent_f32","n":4194304,"rust_median_ms":0.029632000252604485,"rust_min_ms":0.028255999088287354,"type":"f32"}"#;

    fn timing(line: &str) -> TimingRecord {
        match Record::parse_line(line) {
            Some(Record::Timing(t)) => t,
            other => panic!("not a timing record: {other:?}"),
        }
    }

    #[test]
    fn reads_cub_lines() {
        let t = timing(CUB);
        assert_eq!((t.implementation.as_str(), t.op.as_str()), ("cub", "sum"));
        assert_eq!((t.ty, t.n, t.runs), (ElemType::F32, 4096, Some(50)));
        assert_eq!((t.min_ms, t.median_ms), (Some(0.007744), Some(0.008720)));
        assert_eq!(t.protocol, Some(Protocol::Plain));
        assert_eq!(t.reference, Some(2045.8183480501175));
        let e = timing(CUB_EMPTY);
        assert_eq!((e.op.as_str(), e.n, e.result), ("none", 0, None));
        let c = timing(CUB_COPY);
        assert_eq!((c.op.as_str(), c.bytes), ("copy", Some(8388608)));
    }

    #[test]
    fn reads_python_lines() {
        let t = timing(PYTHON);
        assert_eq!(t.implementation, "torch");
        assert_eq!(t.copy.as_deref(), Some("async_pinned"));
        assert_eq!(t.mean_ms, Some(0.038461));
        assert_eq!((t.scope, t.protocol), (None, None));
        let err = r#"{"impl": "cupy", "error": "import cupy failed: ModuleNotFoundError('cupy')"}"#;
        match Record::parse_line(err) {
            Some(Record::Error(e)) => {
                assert_eq!(e.implementation.as_deref(), Some("cupy"));
                assert_eq!(e.n, None);
                assert!(e.error.starts_with("import cupy failed"));
            }
            other => panic!("not an error record: {other:?}"),
        }
        let oom = r#"{"impl": "torch", "n": 1073741824, "error": "OutOfMemoryError()"}"#;
        assert!(matches!(Record::parse_line(oom), Some(Record::Error(e)) if e.n == Some(1 << 30)));
    }

    #[test]
    fn sweep_and_twin_lines_round_trip_byte_for_byte() {
        for line in [SWEEP, TWIN] {
            let r = Record::parse_line(line).expect("a record");
            assert_eq!(r.to_json_line(), line);
        }
        let t = timing(SWEEP);
        assert_eq!(t.scope, Some(Scope::KernelsAndResultCopy));
        assert_eq!(
            (t.grid, t.block, t.passes, t.correct),
            (Some(1), Some(256), Some(1), Some(true))
        );
        assert!(matches!(Record::parse_line(TWIN), Some(Record::Twin(w)) if w.n == 1 << 22));
    }

    #[test]
    fn other_lines_are_not_records() {
        for line in [
            "device: NVIDIA H200, 132 SMs",
            "[1, 2]",
            "{}",
            r#"{"impl":"cub"}"#,
            r#"{"impl":"cub","n":-4}"#,
            r#"{"impl":"cub","n":4.5}"#,
        ] {
            assert_eq!(Record::parse_line(line), None, "{line}");
        }
        assert_eq!(timing(r#"{"impl":"cub","n":4.0}"#).n, 4);
    }
}
