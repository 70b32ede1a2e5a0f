//! `cargo xtask bundle`: everything a GPU machine without Rust needs, in `bundle/`, laid out like
//! `benches/` so that `bash bundle/gpu.sh OUTDIR SUITE…` runs there — the GPU runner (`gpu.sh`,
//! `lib/`), the CUDA C and Python baselines, fonts for the plots, and in `bin/` the release CLI,
//! the examples, the criterion and GPU-test binaries, the custom-op example and its PTX, the
//! Python extension (`reduce.abi3.so`), and the CCCL headers of the exact sums' CUB baseline
//! (`cccl.tar.xz`). Copying `bundle/bin` to `benches/bin` stages the binaries for
//! `benches/gpu.sh` in the repository.

use crate::{build_ptx, cargo, ptx, status, Prebuilt};
use anyhow::Result;
use std::process::Command;

pub(crate) fn bundle() -> Result<()> {
    let root = ptx::workspace_root();
    build_ptx(Prebuilt::Refresh, true)?;
    // One feature set for every reduce-host artifact (the CLI's and cudarc's), so the library
    // compiles once.
    let features = ["--features", "reduce-host/cli,reduce-host/cudarc"];
    status(
        cargo()
            .current_dir(&root)
            .args(["build", "--release"])
            .args(features)
            .args([
                "--package",
                "reduce-host",
                "--package",
                "cudarc-interop",
                "--bin",
                "reduce",
                "--bin",
                "cudarc-interop",
                "--example",
                "cold_open",
                "--example",
                "quickstart",
                "--example",
                "interop_bench",
            ]),
    )?;
    let out = String::from_utf8(
        cargo()
            .current_dir(&root)
            .args([
                "bench",
                "--package",
                "reduce-benches",
                "--no-run",
                "--message-format=json",
            ])
            .output()?
            .stdout,
    )?;
    status(cargo().current_dir(&root).args([
        "build",
        "--release",
        "--package",
        "reduce-benches",
        "--bin",
        "report",
    ]))?;
    // The GPU test suite, so the tests can run where the GPU is.
    let tests = String::from_utf8(
        cargo()
            .current_dir(&root)
            .args([
                "test",
                "--release",
                "--package",
                "reduce-host",
                "--test",
                "gpu",
                "--test",
                "borrowed_gpu",
                "--features",
                "cli,cudarc",
                "--no-run",
                "--message-format=json",
            ])
            .output()?
            .stdout,
    )?;
    let dest = root.join("bundle");
    let _ = std::fs::remove_dir_all(&dest);
    std::fs::create_dir_all(dest.join("bin"))?;
    std::fs::copy(root.join("target/release/reduce"), dest.join("bin/reduce"))?;
    // `CUDA_CACHE_DISABLE=1 bin/cold-open` times a first Backend::open; `bin/quickstart` is the
    // library's example.
    std::fs::copy(
        root.join("target/release/cudarc-interop"),
        dest.join("bin/cudarc-interop"),
    )?;
    for (example, name) in [
        ("cold_open", "cold-open"),
        ("quickstart", "quickstart"),
        ("interop_bench", "interop-bench"),
    ] {
        std::fs::copy(
            root.join("target/release/examples").join(example),
            dest.join("bin").join(name),
        )?;
    }
    std::fs::copy(root.join("target/release/report"), dest.join("bin/report"))?;
    // The Python extension (`examples/python`, module `reduce`): one abi3 library for every
    // CPython from 3.9 on, named as Python imports it; `gpu.sh interop` puts it on PYTHONPATH.
    // (Its own build: a package's library is not built along with the `--bin` / `--example`
    // targets above. The same features, so reduce-host is not compiled again.)
    status(
        cargo()
            .current_dir(&root)
            .args(["build", "--release", "--package", "reduce-python"])
            .args(features),
    )?;
    std::fs::copy(
        root.join("target/release/libreduce.so"),
        dest.join("bin/reduce.abi3.so"),
    )?;
    // The GPU suite (`bin/gpu-tests`) and the borrowed-memory tests (`bin/borrowed-tests`).
    for (test, name) in [("gpu", "gpu-tests"), ("borrowed_gpu", "borrowed-tests")] {
        let target = format!("\"name\":\"{test}\"");
        if let Some(exe) = tests
            .lines()
            .filter(|l| l.contains("\"kind\":[\"test\"]") && l.contains(&target))
            .find_map(|l| l.split("\"executable\":\"").nth(1)?.split('"').next())
        {
            std::fs::copy(exe, dest.join("bin").join(name))?;
        }
    }
    std::fs::create_dir_all(dest.join("python"))?;
    for e in std::fs::read_dir(root.join("benches/python"))? {
        let e = e?;
        // Files only: running a report here leaves a `__pycache__/` beside them.
        if e.file_type()?.is_file() {
            std::fs::copy(e.path(), dest.join("python").join(e.file_name()))?;
        }
    }
    // GPU machines often have no fonts; gpu.sh uses bundle/fonts/*.ttf for the plots.
    let fonts = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
    ];
    match fonts.iter().map(std::path::Path::new).find(|p| p.is_file()) {
        Some(f) => {
            std::fs::create_dir_all(dest.join("fonts"))?;
            std::fs::copy(
                f,
                dest.join("fonts").join(f.file_name().unwrap_or_default()),
            )?;
        }
        None => println!(
            "no DejaVuSans.ttf here: the bundle's plots get text only if the GPU machine has fonts"
        ),
    }
    for line in out.lines() {
        if line.contains("\"executable\":\"") && line.contains("\"kind\":[\"bench\"]") {
            let exe = line
                .split("\"executable\":\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            let name = line
                .split("\"name\":\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            std::fs::copy(exe, dest.join("bin").join(format!("bench-{name}")))?;
        }
    }
    std::fs::copy(
        root.join(ptx::PTX_REL_PATH),
        dest.join("reduce_kernels.ptx"),
    )?;
    let cuda = root.join("benches/cuda");
    if cuda.exists() {
        std::fs::create_dir_all(dest.join("cuda"))?;
        for e in std::fs::read_dir(&cuda)? {
            let e = e?;
            std::fs::copy(e.path(), dest.join("cuda").join(e.file_name()))?;
        }
    }
    // The custom-operator example (a user's crate built to PTX by `build-ptx --crate`, launched
    // by its example binary): `gpu.sh toolbox` times it, `gpu.sh sanitizer` tests and sanitizes it.
    let custom_ptx = ptx::build_crate_ptx("custom-op", "custom_op", true)?;
    std::fs::copy(&custom_ptx, dest.join("bin/custom_op.ptx"))?;
    status(cargo().current_dir(&root).args([
        "build",
        "--release",
        "--package",
        "custom-op",
        "--example",
        "run",
    ]))?;
    std::fs::copy(
        root.join("target/release/examples/run"),
        dest.join("bin/custom-op-run"),
    )?;
    // The GPU runner, next to bin/, python/ and cuda/.
    std::fs::copy(root.join("benches/gpu.sh"), dest.join("gpu.sh"))?;
    std::fs::create_dir_all(dest.join("lib"))?;
    for e in std::fs::read_dir(root.join("benches/lib"))? {
        let e = e?;
        std::fs::copy(e.path(), dest.join("lib").join(e.file_name()))?;
    }
    bundle_exact(&root, &dest)?;
    println!(
        "bundle ready: {} (copy it to the GPU machine and run `bash gpu.sh OUTDIR all`)",
        dest.display()
    );
    Ok(())
}

/// The CCCL 3.5 headers the exact sums' CUB baseline compiles against (`.cccl/include`, fetched
/// by `.ci/fetch-cccl.sh`; ignored by git) as `bundle/bin/cccl.tar.xz` (1.4 MiB instead of 25:
/// the bundle must stay under 60 MiB; `gpu.sh exact` unpacks it on the GPU machine).
fn bundle_exact(root: &std::path::Path, dest: &std::path::Path) -> Result<()> {
    let cccl = root.join(".cccl/include");
    if !cccl.join("cub/version.cuh").is_file() {
        let fetched = Command::new("bash")
            .arg(root.join(".ci/fetch-cccl.sh"))
            .status()
            .is_ok_and(|s| s.success());
        if !fetched {
            println!(
                "no CCCL 3.5 headers (.ci/fetch-cccl.sh failed): `gpu.sh exact` will have no CUB rows"
            );
            return Ok(());
        }
    }
    status(
        Command::new("tar")
            .arg("cJf")
            .arg(dest.join("bin/cccl.tar.xz"))
            .arg("-C")
            .arg(&cccl)
            .args(["cub", "cuda", "nv", "thrust"]),
    )?;
    // The binaries' symbol tables are ~0.7 MiB each and nothing on the GPU machine reads them:
    // stripped, the bundle stays under 60 MiB with the headers (where `strip` exists).
    for e in std::fs::read_dir(dest.join("bin"))? {
        let path = e?.path();
        // The executables only (not custom_op.ptx, cccl.tar.xz).
        if path.extension().is_none() {
            let _ = Command::new("strip").arg(path).status();
        }
    }
    Ok(())
}
