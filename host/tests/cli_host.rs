//! `reduce host` and the streamed rows of `reduce profile`, run as a user would, on the emulator.

mod cli_run;

/// Exit status and stdout followed by stderr.
fn cli(args: &[&str]) -> (i32, String) {
    let r = cli_run::reduce(args);
    (r.code, r.stdout + &r.stderr)
}

#[test]
fn host_command_reduces_pageable_and_pinned_input() {
    let (code, out) = cli(&[
        "--backend",
        "emu",
        "host",
        "--n",
        "70001",
        "--type",
        "i64",
        "--op",
        "max",
        "--data",
        "random",
        "--runs",
        "2",
        "--warmup",
        "0",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{out}");
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "{out}");
    for (row, input) in rows.iter().zip(["pageable", "pinned"]) {
        assert_eq!(row["input"], input, "{out}");
        assert_eq!(row["correct"], true, "{out}");
        assert_eq!(row["n"], 70001, "{out}");
        assert!(row["min_ms"].as_f64().unwrap() > 0.0, "{out}");
    }
}

#[test]
fn host_command_writes_a_timeline_and_checks_its_arguments() {
    let dir = std::env::temp_dir().join(format!("reduce-host-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("t.json");
    let (code, out) = cli(&[
        "--backend",
        "emu",
        "host",
        "--n",
        "5000",
        "--input",
        "pinned",
        "--runs",
        "1",
        "--timeline",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("| pinned") && out.contains("| ok |"), "{out}");
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(t[0]["n"], 5000, "{t}");
    assert_eq!(t[0]["input"], "pinned", "{t}");
    let _ = std::fs::remove_dir_all(&dir);
    for (args, want) in [
        (&["--n", "0", "--op", "max"][..], "empty"),
        (
            &["--n", "10", "--link-bytes", "64"][..],
            "measured on a GPU",
        ),
        (&["--n", "10", "--runs", "0"][..], "--runs"),
    ] {
        let mut all = vec!["--backend", "emu", "host"];
        all.extend(args);
        let (code, out) = cli(&all);
        assert_eq!(code, 2, "{args:?}: {out}");
        assert!(out.contains(want), "{args:?}: expected `{want}` in:\n{out}");
        assert!(!out.contains("panicked"), "{args:?}: {out}");
    }
}

#[test]
fn profile_shows_the_streamed_rows() {
    let (code, out) = cli(&[
        "--backend",
        "emu",
        "profile",
        "--n",
        "3000",
        "--stages",
        "8",
    ]);
    assert_eq!(code, 0, "{out}");
    for want in [
        "total ms",
        "streamed from pageable",
        "streamed from pinned",
        "reused",
    ] {
        assert!(out.contains(want), "`{want}` missing:\n{out}");
    }
    assert!(!out.contains("WRONG"), "{out}");
}

#[test]
fn host_command_times_each_policy_and_names_bad_settings() {
    let base = [
        "--backend",
        "emu",
        "host",
        "--n",
        "30001",
        "--input",
        "pageable",
        "--runs",
        "1",
        "--warmup",
        "0",
        "--format",
        "json",
        "--data",
        "random",
    ];
    let (code, out) = cli(&[
        &base[..],
        &[
            "--policy",
            "max_chunk_bytes=4K,min_chunk_bytes=1K,copy_threads=3",
            "--policy",
            "register_min_bytes=0",
        ],
    ]
    .concat());
    assert_eq!(code, 0, "{out}");
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert_eq!(rows[0]["chunks"], 30, "{out}");
    assert_eq!(rows[1]["policy_settings"]["register_min_bytes"], 0, "{out}");
    assert_eq!(rows[1]["route"], "emulated", "{out}");
    assert!(rows.iter().all(|r| r["correct"] == true), "{out}");
    let (code, out) = cli(&[&base[..], &["--policy", "slots=1"]].concat());
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("policy setting `slots`: 1 is outside 2..=64"),
        "{out}"
    );
}
