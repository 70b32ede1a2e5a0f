//! `reduce multi` on emulated ranks.

use crate::cli_run;

#[test]
fn the_cli_checks_and_times_emulated_ranks() {
    let r = cli_run::reduce(&[
        "--backend",
        "emu",
        "multi",
        "--gpus",
        "3",
        "--n",
        "10001",
        "--data",
        "random",
        "--type",
        "f64",
        "--runs",
        "3",
        "--warmup",
        "0",
        "--compare",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let lines: Vec<serde_json::Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let multi = lines
        .iter()
        .find(|l| l["kind"] == "multi")
        .expect("a multi record");
    assert_eq!(multi["ok"], true);
    assert_eq!(multi["distinct_bits"], 1);
    assert_eq!(multi["ranks"], 3);
    assert_eq!(multi["local_ms"].as_array().unwrap().len(), 3);
    assert_eq!(
        lines.iter().filter(|l| l["kind"] == "rank_alone").count(),
        3
    );
    assert!(lines.iter().any(|l| l["kind"] == "single"));
    let r = cli_run::reduce(&[
        "--backend",
        "emu",
        "multi",
        "--gpus",
        "2",
        "--n",
        "999",
        "--op",
        "mean",
        "--type",
        "i32",
        "--data",
        "random",
        "--runs",
        "2",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("ok"), "{}", r.stdout);
}

#[test]
fn the_cli_reports_bad_requests_as_errors() {
    for (args, wanted) in [
        (&["--ptx", "x.ptx", "multi"][..], "--ptx does not apply"),
        (
            &["--backend", "emu", "multi", "--n", "0", "--op", "min"],
            "empty input",
        ),
        (&["--backend", "emu", "multi", "--gpus", "0"], "--gpus"),
        (
            &[
                "--backend",
                "emu",
                "multi",
                "--on-device",
                "--type",
                "f64",
                "--n",
                "8",
            ],
            "4-byte types",
        ),
    ] {
        let r = cli_run::reduce(args);
        assert_eq!(r.code, 2, "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(wanted), "{args:?}: {}", r.stderr);
    }
}
