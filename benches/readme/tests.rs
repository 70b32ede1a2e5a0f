use super::*;
use std::path::PathBuf;

/// A small run: every suite's records but multi's (`benches/fixtures/run/`).
fn fixture() -> Run {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/run");
    Run::load(&dir).expect("the fixture run")
}

/// The table of the family titled `title`.
fn table(run: &Run, title: &str) -> Option<Table> {
    let f = FAMILIES
        .iter()
        .find(|f| f.title == title)
        .expect("a family");
    (f.table)(run)
}

/// The cells after the label of the row whose first cell is `label`.
fn cells<'a>(t: &'a Table, label: &str) -> &'a [String] {
    &t.rows
        .iter()
        .find(|r| r[0] == label)
        .unwrap_or_else(|| panic!("no row {label} in {:?}", t.rows))[1..]
}

#[test]
fn reads_the_device_and_the_date() {
    let run = fixture();
    assert_eq!(run.date.as_deref(), Some("2026-12-06"));
    assert_eq!(run.device.as_deref(), Some("NVIDIA H200"));
    assert_eq!(run.stamp(), "NVIDIA H200, 2026-12-06");
    // Without environment.txt: the first record that names a device.
    let run = Run::parse("", [("axis/axis.jsonl", r#"{"device":"NVIDIA H100"}"#)]);
    assert_eq!(run.stamp(), "NVIDIA H100, undated");
}

#[test]
fn stage8_against_the_faster_cub_gated() {
    let t = table(&fixture(), "Stage 8 against CUB").unwrap();
    assert_eq!(t.header, ["N", "2^12", "2^30"]);
    // The faster of two gated runs; the plain one and other ops/types are not in it.
    assert_eq!(cells(&t, "stage 8, µs"), ["3.87", "940.2"]);
    // CUB mapped at 2^12, CUB copied at 2^30.
    assert_eq!(cells(&t, "CUB, µs"), ["3.42", "941.5"]);
    assert_eq!(cells(&t, "CUB / stage 8"), ["0.88×", "1.00×"]);
}

#[test]
fn axis_with_its_share_of_the_roof() {
    let t = table(&fixture(), "Along an axis").unwrap();
    assert_eq!(t.rows.len(), 2);
    assert_eq!(
        cells(&t, "2^20 × 16"),
        ["23.8 (95%) / 134.5 / 1225.6", "23.0 (93%) / 51.2"]
    );
    assert_eq!(cells(&t, "2000 segments"), ["152.4 (85%) / – / 280.5", "–"]);
}

#[test]
fn transform_arg_and_ops_ours_against_theirs() {
    let run = fixture();
    let t = table(&run, "Norms, dot products, variance").unwrap();
    assert_eq!(t.header, ["op", "2^20", "2^26"]);
    // torch's fastest call; no dot or f32 var in the fixture: no rows for them.
    assert_eq!(cells(&t, "`norm2`, `f32`"), ["8.0 / 25.2", "65.9 / –"]);
    assert_eq!(cells(&t, "`var`, `f16`"), ["7.8 / 18.8", "–"]);
    assert_eq!(t.rows.len(), 2);

    let t = table(&run, "Argmax").unwrap();
    assert_eq!(cells(&t, "`f32`"), ["9.0 / 11.9 / 18.2"]);
    assert_eq!(cells(&t, "`bf16`"), ["8.9 / 11.5 / –"]);
    assert_eq!(t.rows.len(), 2);

    let t = table(&run, "Other operators and types").unwrap();
    assert_eq!(cells(&t, "`f32` sum"), ["7.6 / 27.6"]);
    assert_eq!(cells(&t, "`i32` sum into `i64`"), ["8.3 / 38.9"]);
    assert_eq!(cells(&t, "`bf16` sum"), ["37.9 / 49.4"]);
    assert_eq!(t.rows.len(), 3);
}

#[test]
fn exact_and_host() {
    let run = fixture();
    let t = table(&run, "Exact sums").unwrap();
    assert_eq!(t.header, ["", "2^20", "2^24"]);
    assert_eq!(cells(&t, "exact (ours), `f32`"), ["9.2", "25.9"]);
    assert_eq!(cells(&t, "stage 8, `f32`"), ["5.9", "20.4"]);
    assert_eq!(cells(&t, "CUB `gpu_to_gpu`, `f32`"), ["16.6", "51.5"]);
    assert_eq!(t.rows.len(), 3, "no f64 records: no f64 rows");

    let t = table(&run, "From host memory").unwrap();
    assert!(t.caption.contains("55.0 GB/s"), "{}", t.caption);
    assert_eq!(
        cells(&t, "2^22"),
        ["743 µs, 41%", "341 µs, 89%", "1,241 µs", "347 µs"]
    );
}

const MULTI: &str = r#"{"kind":"multi_setup","collective":"nccl","ranks":2,"devices":["NVIDIA H200","NVIDIA H200"],"n":2147483648,"type":"f32","op":"sum","shards":[1073741824,1073741824]}
{"kind":"single","n":2147483648,"type":"f32","op":"sum","wall_ms_median":1.8892,"gb_per_s":4546.9,"value":2147483648.0,"sum_rank_alone_gb_per_s":4600.0}
{"kind":"multi","collective":"nccl","ranks":2,"n":2147483648,"type":"f32","op":"sum","value":"2147483648","ok":true,"runs":100,"distinct_bits":1,"wall_ms_median":0.9871,"wall_ms_min":0.98,"local_ms":[0.95,0.96],"combine_ms":[0.0132,0.0140],"combine_ms_min":0.0132,"gb_per_s":8702.5}
{"kind":"multi","collective":"nccl","ranks":2,"n":1000003,"type":"f64","op":"mean","value":"0.5","ok":true,"runs":3,"distinct_bits":1,"wall_ms_median":0.1,"wall_ms_min":0.1,"local_ms":[0.05,0.05],"combine_ms":[0.01,0.01],"combine_ms_min":0.01,"gb_per_s":80.0}
{"kind": "torch_distributed", "world": 2, "n": 2147483648, "type": "f32", "op": "sum", "value": 2147483648.0, "ok": true, "runs": 100, "distinct_bits": 1, "min_ms": 1.0, "median_ms": 1.0131, "gb_per_s": 8483.9, "nccl": "2.28.9"}
{"kind": "torch_single", "n": 2147483648, "type": "f32", "op": "sum", "value": 2147483648.0, "ok": true, "runs": 100, "min_ms": 1.97, "median_ms": 1.9795, "gb_per_s": 4339.5}
"#;

#[test]
fn multi_across_two_gpus() {
    let run = Run::parse(
        "date: 2026-12-07T01:00:00Z\n",
        [("multi/multi.jsonl", MULTI)],
    );
    let t = table(&run, "Across GPUs").unwrap();
    assert_eq!(t.device.as_deref(), Some("2 × NVIDIA H200"));
    assert!(t.caption.starts_with("2^31 `f32` in all"), "{}", t.caption);
    assert_eq!(t.rows[0][1..], ["2", "0.987", "8,702", "1.91"]);
    assert_eq!(t.rows[1][1..], ["2", "1.013", "8,484", "1.87"]);
    assert_eq!(cells(&t, "ours, 1 GPU"), ["1", "1.889", "4,547", "1.00"]);
    assert_eq!(t.rows.len(), 4);
    let md = tables(&run);
    assert!(md.contains("**Across GPUs**, 2^31 `f32` in all"), "{md}");
    assert!(
        md.contains("; 2 × NVIDIA H200, 2026-12-07 (`multi/multi.jsonl`):"),
        "{md}"
    );

    // One GPU only: no table.
    let one: String = MULTI
        .lines()
        .filter(|l| !l.contains("\"ranks\":2"))
        .collect::<Vec<_>>()
        .join("\n");
    let run = Run::parse("", [("multi/multi.jsonl", one.as_str())]);
    assert!(table(&run, "Across GPUs").is_none());
}

#[test]
fn a_family_without_records_is_one_line() {
    let md = tables(&fixture());
    assert!(md.starts_with("<!-- generated by `report RUN --readme`: NVIDIA H200, 2026-12-06 -->"));
    assert!(
        md.contains("\n*Across GPUs: no records in this run (`multi/multi.jsonl`).*\n"),
        "{md}"
    );
    assert_eq!(md.matches("no records in this run").count(), 1, "{md}");
    assert!(md.contains(
        "**Stage 8 against CUB**, `f32` sum, gated protocol (GPU time only), result in host memory \
         for both (CUB: the faster of copied and mapped), min µs; NVIDIA H200, 2026-12-06 \
         (`stage8/sweep.jsonl`, `stage8/cub.jsonl`):\n\n| N | 2^12 | 2^30 |\n|---|---|---|\n"
    ));
    // An empty run: every family is one line.
    let md = tables(&Run::default());
    assert_eq!(md.matches("no records in this run").count(), FAMILIES.len());
}

#[test]
fn python_nan_reads_as_null() {
    let line = r#"{"impl": "torch", "case": "max_f32_nan", "n": 4096, "min_us": 24.9, "result": NaN, "reference": -Infinity}"#;
    let run = Run::parse("", [("toolbox/toolbox-ops.jsonl", line)]);
    let r = &run.records("toolbox/toolbox-ops.jsonl")[0];
    assert_eq!(
        (min_us(r), r.get("result")),
        (Some(24.9), Some(&Value::Null))
    );
    assert_eq!(r.get("reference"), Some(&Value::Null));
}

#[test]
fn formats() {
    assert_eq!(
        (size(4096), size(16), size(1024), size(1000003)),
        ("2^12".into(), "16".into(), "1024".into(), "1000003".into())
    );
    assert_eq!(
        (thousands(35000.4), thousands(743.0), thousands(1234567.0)),
        ("35,000".into(), "743".into(), "1,234,567".into())
    );
    assert_eq!((us(Some(23.84)), us(None)), ("23.8".into(), "–".into()));
}
