//! `reduce axis` on the emulator: results checked against the CPU reference (exit 0, `ok`), one
//! JSON record per shape, and bad shapes as clear errors (exit 2), never a panic.

mod cli_run;

fn reduce(args: &[&str]) -> (i32, String, String) {
    let r = cli_run::reduce(&[&["--backend", "emu", "axis", "--runs", "1"], args].concat());
    (r.code, r.stdout, r.stderr)
}

#[test]
fn every_axis_checks_out() {
    for args in [
        &[
            "--rows", "37", "--cols", "301", "--axis", "rows", "--data", "random",
        ][..],
        &[
            "--rows", "300", "--cols", "7", "--axis", "cols", "--op", "max", "--type", "i64",
        ],
        &[
            "--axis",
            "segments",
            "--segments",
            "40",
            "--max-len",
            "900",
            "--type",
            "u32",
            "--data",
            "random",
        ],
    ] {
        let (code, out, err) = reduce(args);
        assert_eq!(code, 0, "{args:?}: {out}{err}");
        assert!(out.contains(", ok "), "{args:?}: {out}");
    }
}

#[test]
fn json_has_one_record_per_shape() {
    let (code, out, err) = reduce(&[
        "--rows", "64", "--cols", "16", "--axis", "cols", "--format", "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["record"], "axis");
    assert_eq!(v["axis"], "cols");
    assert_eq!(v["ok"], true);
    assert_eq!(v["n"], 1024);
    // FNV-1a over the 16 results' bits (64.0f32 each, little-endian), as python computes it.
    assert_eq!(v["results_digest"], "0x806d2a273feaad25");
}

#[test]
fn bad_shapes_are_clear_errors() {
    let (code, _, err) = reduce(&["--rows", "18446744073709551615", "--cols", "3"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("more elements than memory can hold"), "{err}");
    let (code, _, err) = reduce(&["--rows", "4", "--cols", "0", "--op", "mean"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("mean of an empty input"), "{err}");
}

#[test]
fn each_policy_gets_a_checked_record_and_bad_settings_are_named() {
    let (code, out, err) = reduce(&[
        "--rows",
        "500",
        "--cols",
        "20",
        "--axis",
        "cols",
        "--format",
        "json",
        "--data",
        "random",
        "--policy",
        "",
        "--policy",
        "col_tile=4,finish_piece_rows=2,min_piece_rows=2",
    ]);
    assert_eq!(code, 0, "{err}");
    let recs = cli_run::json_lines(&out);
    assert_eq!(recs.len(), 2, "{out}");
    assert_eq!(recs[0]["policy"], "");
    assert_eq!(recs[1]["policy_settings"]["col_tile"], 4);
    assert!(recs.iter().all(|r| r["ok"] == true), "{out}");
    for (bad, named) in [
        ("colour=4", "`colour`: unknown key"),
        ("col_tile=0", "`col_tile`: 0 is outside 1..=256"),
    ] {
        let (code, out, err) = reduce(&["--policy", "", "--policy", bad]);
        assert_eq!(code, 2, "{bad}: {out}{err}");
        assert!(
            out.is_empty(),
            "nothing runs before every setting is checked: {out}"
        );
        assert!(err.contains(named), "{bad}: {err}");
    }
}
