//! `reduce host` and the streamed rows of `reduce profile`, run as a user would, on the emulator.

mod cli_run;

use cli_run::{code_and_output as cli, json_lines, words};

#[test]
fn host_command_reduces_pageable_and_pinned_input() {
    let args = "--backend emu host --n 70001 --type i64 --op max --data random --runs 2 \
                --warmup 0 --format json";
    let (code, out) = cli(&words(args));
    assert_eq!(code, 0, "{out}");
    let rows = json_lines(&out);
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
    let mut args = words("--backend emu host --n 5000 --input pinned --runs 1 --timeline");
    args.push(file.to_str().unwrap());
    let (code, out) = cli(&args);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("| pinned") && out.contains("| ok |"), "{out}");
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(t[0]["n"], 5000, "{t}");
    assert_eq!(t[0]["input"], "pinned", "{t}");
    let _ = std::fs::remove_dir_all(&dir);
    for (args, want) in [
        ("--n 0 --op max", "empty"),
        ("--n 10 --link-bytes 64", "measured on a GPU"),
        ("--n 10 --runs 0", "--runs"),
        (
            "--n 10 --op argmax",
            "`argmax` is not a reduce op (expected one of sum, min",
        ),
        ("--n 10 --op avg", "`avg` is not a reduce op"),
    ] {
        cli_run::assert_usage_error(&format!("--backend emu host {args}"), want);
    }
    cli_run::assert_usage_error(
        "--backend emu arg --exps 10 --ops argmax,sum",
        "`sum` is not an arg-reduction (expected one of argmin, argmax, nanargmin, nanargmax)",
    );
}

#[test]
fn profile_shows_the_streamed_rows() {
    let (code, out) = cli(&words("--backend emu profile --n 3000 --stages 8"));
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
    let base = words(
        "--backend emu host --n 30001 --input pageable --runs 1 --warmup 0 --format json \
         --data random",
    );
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
    let rows = json_lines(&out);
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
