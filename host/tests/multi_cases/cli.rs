//! `reduce multi` on emulated ranks.

use crate::cli_run;

#[test]
fn the_cli_checks_and_times_emulated_ranks() {
    let r = cli_run::reduce_line(
        "--backend emu multi --gpus 3 --n 10001 --data random --type f64 --runs 3 --warmup 0 \
         --compare --format json",
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let lines = cli_run::json_lines(&r.stdout);
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
    let r = cli_run::reduce_line(
        "--backend emu multi --gpus 2 --n 999 --op mean --type i32 --data random --runs 2",
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("ok"), "{}", r.stdout);
}

#[test]
fn the_cli_reports_bad_requests_as_errors() {
    for (args, wanted) in [
        ("--ptx x.ptx multi", "--ptx does not apply"),
        ("--backend emu multi --n 0 --op min", "empty input"),
        ("--backend emu multi --gpus 0", "--gpus"),
        (
            "--backend emu multi --on-device --type f64 --n 8",
            "4-byte types",
        ),
    ] {
        let r = cli_run::reduce_line(args);
        assert_eq!(r.code, 2, "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(wanted), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn the_cli_runs_exact_sums_counts_and_nanmeans_across_ranks() {
    let r = cli_run::reduce_line(
        "--backend emu multi --gpus 3 --n 5001 --exact --exact-data cancellation --type f64 \
         --runs 2 --warmup 0 --compare --format json",
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let rec = cli_run::json_lines(&r.stdout)
        .into_iter()
        .find(|l| l["kind"] == "multi_exact")
        .expect("a multi_exact record");
    assert_eq!(rec["ok"], true);
    assert_eq!(rec["distinct_bits"], 1);
    assert_eq!(rec["single_equal"], true);
    assert_eq!(rec["bits"], rec["reference_bits"]);
    assert_eq!(rec["bits"], rec["single_exact_bits"]);
    for op in ["count", "nanmean"] {
        let r = cli_run::reduce_line(&format!(
            "--backend emu multi --gpus 2 --n 999 --op {op} --data random --runs 2 --warmup 0"
        ));
        assert_eq!(r.code, 0, "{op}: {}{}", r.stdout, r.stderr);
        assert!(r.stdout.contains("ok"), "{op}: {}", r.stdout);
    }
    let r = cli_run::reduce_line("--backend emu multi --exact --type i32");
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("f32 and f64"), "{}", r.stderr);
}
