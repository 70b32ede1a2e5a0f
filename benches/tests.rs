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

/// Every one of `wants` is in `md` (which a failure prints).
fn assert_has_all(md: &str, wants: &[&str]) {
    for want in wants {
        assert!(md.contains(want), "`{want}` is missing from:\n{md}");
    }
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
    assert_has_all(
        &md,
        &[
            "## f32 sum: stage 8 vs CUB",
            "| 2^22 | 10.00 | 12.00 | 20.00 | 24.00 | copy | 2.00× | 2.00× | 1678 | 839 |",
            "| 2^30 | 900.0 | 950.0 | 950.0 | 960.0 | copy | 1.06× | 1.01× | 4772 | 4521 |",
        ],
    );
    // Long table: one row per implementation and N, with the timing scope and vs CUB.
    assert_has_all(
        &md,
        &[
            "| 2^22 | stage 1 (Rust) | kernels | 200.0 | 210.0 | 84 | 0.10× |",
            "| 2^22 | PyTorch sum() | kernel + result copy | 25.00 | 40.00 | 671 | 0.80× |",
            "| 2^22 | D2D memcpy (ceiling, R+W) | copy only (R+W bytes) | 8.00 | 9.00 | 4194 | – |",
        ],
    );
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
    assert!(
        md.contains("PyTorch sum() at N = 2^30: OutOfMemoryError('CUDA out of memory \\| tried')")
    );
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
    assert_has_all(
        &md,
        &[
            "## f32 sum: stage 8 vs CUB, GPU time only (gated protocol)",
            "Fixed costs in this protocol (min): an empty kernel 2.70 µs.",
            "| 2^22 | 7.00 | 7.50 | 14.00 | 15.00 | copy | 2.00× | 2.00× | 2397 | 1198 | 5.80 |",
        ],
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
    assert_has_all(
        &md,
        &[
            "| 2^22 | 10.00 | 12.00 | 15.00 | 16.00 | mapped | 1.50× |",
            "| 2^30 | 900.0 | 950.0 | 950.0 | 960.0 | copy |",
            // The long table's "vs CUB" uses the faster form too.
            "| 2^22 | stage 8 (Rust) | kernel + result in host memory | 10.00 | 12.00 | 1678 | 1.50× |",
        ],
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
