//! Bad input gets a clear, typed error — from the library and from the CLI — never a panic or a
//! wrong answer. (GPU-only cases — no device, N beyond device memory, PTX the driver rejects — are
//! in tests/gpu.rs.)

use cli_run::{assert_usage_error, code_and_output as cli, words};
use reduce_host::*;
mod cli_run;

fn emu() -> Backend {
    Backend::Emulator(Emulator::default())
}

#[test]
fn library_rejects_bad_arguments() {
    let b = emu();
    let input = b.upload(&[1.0f32; 100]).unwrap();
    let e = run_stage(
        &b,
        Stage::S3,
        Op::Sum,
        &input,
        101,
        LaunchOverrides::default(),
    )
    .unwrap_err();
    assert!(
        matches!(e, ReduceError::OutOfBounds { arg: "n", .. }),
        "{e}"
    );
    let e = run_stage(
        &b,
        Stage::S3,
        Op::Sum,
        &input,
        100,
        LaunchOverrides {
            block: Some(96),
            grid: None,
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("block size 96"), "{e}");
    let e = run_stage(
        &b,
        Stage::S8,
        Op::Min,
        &input,
        0,
        LaunchOverrides::default(),
    )
    .unwrap_err();
    assert!(matches!(e, ReduceError::EmptyInput { op: Op::Min }), "{e}");
    let mut r = Reducer::new(&b);
    let e = input
        .slice(90..90 + 20)
        .and_then(|view| r.reduce(Op::Sum, view))
        .unwrap_err();
    assert!(
        e.to_string().contains("outside the 100-element buffer"),
        "{e}"
    );
    assert!(Stage::from_number(0)
        .unwrap_err()
        .to_string()
        .contains("no stage 0"));
    assert!(Stage::from_number(9).is_err());
    assert!("f8"
        .parse::<ElemType>()
        .unwrap_err()
        .to_string()
        .contains("unknown element type"));
    assert!("avg"
        .parse::<Op>()
        .unwrap_err()
        .to_string()
        .contains("unknown operator"));
}

#[test]
fn missing_or_non_ptx_files_name_the_file_and_the_fix() {
    let e = Gpu::open_with_ptx_file(std::path::Path::new("/nonexistent/k.ptx"))
        .err()
        .unwrap();
    let m = e.to_string();
    assert!(
        m.contains("/nonexistent/k.ptx") && m.contains("cargo xtask build-ptx"),
        "{m}"
    );
    let path = std::env::temp_dir().join(format!("not-ptx-{}.ptx", std::process::id()));
    std::fs::write(&path, "this is not PTX").unwrap();
    let m = Gpu::open_with_ptx_file(&path).err().unwrap().to_string();
    std::fs::remove_file(&path).ok();
    assert!(
        m.contains("it is not PTX") && m.contains(&path.display().to_string()),
        "{m}"
    );
    let m = Backend::open_with_ptx(BackendChoice::Emu, Some(std::path::Path::new("x.ptx")))
        .err()
        .unwrap()
        .to_string();
    assert!(m.contains("only applies to the GPU"), "{m}");
}

#[test]
fn cli_reports_out_of_range_arguments() {
    // Each case: the arguments (split at spaces), and what the error must say.
    let cases: &[(&str, &str)] = &[
        ("--backend emu table --block 100 --n 1000", "block size 100"),
        (
            "--backend emu table --type f8",
            "invalid value 'f8' for '--type <TY>': unknown element type",
        ),
        (
            "--backend emu table --type f16",
            "f16 and bf16 inputs are reduced by the transform kernels",
        ),
        (
            "--backend emu transform --type bf16 --op nanmean --n 0 --runs 0",
            "nanmean of an empty input",
        ),
        (
            "--backend emu transform --type bf16 --op sum",
            "f16 and bf16 inputs are reduced by the transform kernels",
        ),
        (
            "--backend emu transform --n 4096 --block 128",
            "block size 128 is not built for the transform kernels",
        ),
        (
            "--backend emu transform --n 4096 --grid 0",
            "the transform kernels take 1..=",
        ),
        ("--backend emu table --stages 9", "no stage 9"),
        ("--backend emu table --runs 0", "0 is not in 1..=100000"),
        // More bytes than a 64-bit address space holds: an error, not an aborted process.
        (
            "--backend emu host --n 100000000000000",
            "could not be allocated",
        ),
        (
            "--backend emu table --type f64 --stages 3",
            "no kernel for f64",
        ),
        ("--backend emu run --op min --stages 3", "sums only"),
        ("--backend emu run --op max --stages 8 --n 0", "empty input"),
        ("--backend emu run --stages 8 --grid 0", "grid size 0"),
        ("--backend emu sweep --exps 40", "beyond any GPU"),
        (
            "--backend emu --ptx /nonexistent.ptx info",
            "only applies to the GPU",
        ),
        ("--backend warp-drive info", "invalid value 'warp-drive'"),
        // Deleted choices: stage 8's PDL combine, the transform loops no default reached.
        (
            "--backend emu run --stages 8 --combine pdl",
            "unexpected argument '--combine'",
        ),
        (
            "--backend emu transform --loop rolling",
            "there is no transform loop `rolling`",
        ),
    ];
    for (args, want) in cases {
        assert_usage_error(args, want);
    }
}

#[test]
fn cli_main_job_runs_every_stage_on_the_emulator() {
    let (code, out) = cli(&words("--backend emu table --n 3000 --runs 2 --warmup 1"));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("CPU EMULATION"), "{out}");
    for s in 1..=8 {
        assert!(
            out.contains(&format!("| {s}  |")),
            "stage {s} row missing:\n{out}"
        );
    }
    let ok_rows = out
        .lines()
        .filter(|l| l.starts_with("| ") && l.ends_with("| ok |") && !l.contains("stage "))
        .count();
    assert_eq!(ok_rows, 8, "{out}");
    assert!(!out.contains("WRONG"), "{out}");
}

#[test]
fn cli_transform_takes_a_forced_block_and_grid() {
    let (code, out) = cli(&words(
        "--backend emu transform --op norm2,nanmean --n 5000 --block 1024 --grid 3 --runs 1 \
         --format json",
    ));
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.matches("<<<3, 1024>>>").count(), 2, "{out}");
    assert!(!out.contains("\"ok\":false"), "{out}");
}
