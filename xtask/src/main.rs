//! Project tasks: `cargo xtask <command>`.
//!
//! * `build-ptx` — kernels/ → `target/ptx/reduce_kernels.ptx`, assembled by ptxas into an `sm_90`
//!   cubin (printing every kernel's registers, spills and shared memory), both copied into
//!   `host/prebuilt/`, the committed images the host crate embeds. `build-ptx --check` builds the
//!   same but only compares: it fails if a committed file differs from the fresh build.
//! * `test` — the test suite: `build-ptx --check`, then `cargo test --workspace`.
//! * `bundle` — release CLI, examples (`cold-open`, `quickstart`), benchmark and GPU-test
//!   binaries, PTX, CUDA and Python baselines and the GPU runner (`gpu.sh`) in `bundle/`, ready to
//!   copy to a GPU machine that has no Rust toolchain.
//! * `ptx <stage>` — a stage's Rust source beside its PTX, the ptxas resource line and (with
//!   `--sass`, where `nvdisasm` is found) the SASS; see `show.rs`. No GPU needed.
//! * anything else is passed to the host CLI (`cargo xtask table`, `cargo xtask profile` …).

#[cfg(test)]
mod architecture;
#[path = "../../host/build_env.rs"]
mod build_env;
mod bundle;
mod directives;
mod linker;
mod prebuilt;
mod ptx;
mod show;

use anyhow::{bail, Context, Result};
use std::process::Command;

fn main() {
    // rustc calls us as the nvptx linker (see linker.rs).
    if std::env::var_os("XTASK_PTX_LINKER").is_some() {
        let args: Vec<String> = std::env::args().skip(1).collect();
        if let Err(e) = linker::main(&args) {
            eprintln!("xtask ptx linker: {e:#}");
            std::process::exit(1);
        }
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn run(args: &[String]) -> Result<()> {
    let (cmd, rest) = args
        .split_first()
        .map(|(c, r)| (c.as_str(), r))
        .unwrap_or(("help", &[]));
    match cmd {
        "build-ptx" => match rest {
            [] => build_ptx(Prebuilt::Refresh, false),
            [flag] if flag == "--check" => build_ptx(Prebuilt::Check, false),
            [flag, dir] if flag == "--crate" => build_crate_ptx(dir),
            _ => bail!("usage: cargo xtask build-ptx [--check | --crate <dir>] (got {rest:?})"),
        },
        "test" => test(rest),
        "bundle" => bundle::bundle(),
        "ptx" => {
            let show_args = show::ShowArgs::parse(rest)?;
            // Show what the kernels' source compiles to now (this refreshes host/prebuilt/).
            build_ptx(Prebuilt::Refresh, true)?;
            let root = ptx::workspace_root();
            let out = show::render(
                &root,
                &root.join(ptx::PTX_REL_PATH),
                ptx::find_ptxas().as_deref(),
                show::find_tool("nvdisasm").as_deref(),
                &show_args,
            )?;
            print!("{out}");
            Ok(())
        }
        "help" | "--help" | "-h" => {
            println!(
                "cargo xtask build-ptx                     kernels -> PTX + sm_90 cubin, refreshes host/prebuilt/\n\
                 cargo xtask build-ptx --check             the same build; fails if host/prebuilt/ differs from it\n\
                 cargo xtask build-ptx --crate <dir>       a user's kernel crate (examples/custom-op) -> target/ptx/<lib>.ptx + cubin\n\
                 cargo xtask test [cargo test args]        build-ptx --check, then every test\n\
                 cargo xtask bundle                        binaries + PTX + run script in bundle/ for a GPU machine\n\
                 cargo xtask ptx <stage> [options]         a stage's Rust beside its PTX, ptxas registers, SASS\n\
                 \x20                                         (--type T --op O --block N --stacked --sass)\n\
                 cargo xtask <cli command> [args]          run the host CLI: table, profile, run, stress, report …"
            );
            Ok(())
        }
        _ => cli(args),
    }
}

/// What `build-ptx` does with the fresh build.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prebuilt {
    /// Copy it into `host/prebuilt/` (the files to commit).
    Refresh,
    /// Compare it with `host/prebuilt/`, byte for byte (CI).
    Check,
}

/// Build the PTX, assemble the sm_90 cubin (ptxas is required: `host/prebuilt/` ships both, and a
/// new PTX next to an old cubin would be a mismatch), then refresh or check `host/prebuilt/`.
/// `quiet`: no cargo output and no ptxas table (for the commands that build it on the way).
fn build_ptx(mode: Prebuilt, quiet: bool) -> Result<()> {
    let path = ptx::build_ptx(quiet)?;
    let Some(ptxas) = ptx::find_ptxas() else {
        bail!(
            "ptxas not found (looked at $PTXAS, PATH, /usr/local/cuda/bin and python3's nvidia-cuda-nvcc-cu12); \
             it assembles the sm_90 cubin that {} ships next to the PTX.\n\
             Fix: bash .ci/install-deps.sh   (or set PTXAS=/path/to/ptxas)",
            prebuilt::PREBUILT_DIR
        );
    };
    let version = ptx::ptxas_version(&ptxas)?;
    std::fs::write(
        path.with_file_name("ptxas-version.txt"),
        format!("{version}\n"),
    )?;
    let kernels = ptx::ptxas_check(&ptxas, &path)?;
    let root = ptx::workspace_root();
    if !quiet {
        print_report(&path, &ptxas, &version, &kernels);
    }
    match mode {
        Prebuilt::Refresh => {
            let written = prebuilt::refresh(&root)?;
            if !written.is_empty() {
                println!(
                    "{}: updated {} (commit them)",
                    prebuilt::PREBUILT_DIR,
                    written.join(", ")
                );
            } else if !quiet {
                println!("{}: up to date", prebuilt::PREBUILT_DIR);
            }
        }
        Prebuilt::Check => {
            prebuilt::check(&root)?;
            if !quiet {
                println!(
                    "{}: identical to the fresh build ({})",
                    prebuilt::PREBUILT_DIR,
                    prebuilt::FILES
                        .iter()
                        .map(prebuilt::Shipped::name)
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
    }
    Ok(())
}

/// `build-ptx --crate <dir>`: a user's `no_std` kernel crate built on `reduce_kernels::primitives`
/// (e.g. `examples/custom-op`) → `target/ptx/<lib>.ptx`, plus its sm_90 cubin and the ptxas
/// report when ptxas is found (the host loads the PTX; nothing is copied into `host/prebuilt/`).
fn build_crate_ptx(dir: &str) -> Result<()> {
    let root = ptx::workspace_root();
    let path = std::path::Path::new(dir);
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    let (package, lib) = ptx::crate_names(&path)?;
    let ptx_path = ptx::build_crate_ptx(&package, &lib, false)?;
    match ptx::find_ptxas() {
        Some(ptxas) => {
            let version = ptx::ptxas_version(&ptxas)?;
            let kernels = ptx::ptxas_check(&ptxas, &ptx_path)?;
            print_report(&ptx_path, &ptxas, &version, &kernels);
            println!("cubin: {}", ptx::cubin_path(&ptx_path).display());
        }
        None => println!(
            "PTX: {} (ptxas not found: no cubin; the driver JIT-compiles the PTX)",
            ptx_path.display()
        ),
    }
    Ok(())
}

/// The PTX's path and ptxas's per-kernel resources.
fn print_report(
    path: &std::path::Path,
    ptxas: &std::path::Path,
    version: &str,
    kernels: &[ptx::KernelResources],
) {
    println!("PTX: {}", path.display());
    println!(
        "ptxas ({}, {version}) accepted {} kernels for {}:",
        ptxas.display(),
        kernels.len(),
        ptx::TARGET_CPU
    );
    println!(
        "{:<48} {:>5} {:>7} {:>7} {:>6} {:>6}",
        "kernel", "regs", "spill-st", "spill-ld", "stack", "smem"
    );
    for k in kernels {
        println!(
            "{:<48} {:>5} {:>7} {:>7} {:>6} {:>6}",
            k.name, k.registers, k.spill_stores, k.spill_loads, k.stack_frame, k.static_smem
        );
    }
    let spilling: Vec<_> = kernels
        .iter()
        .filter(|k| k.spill_stores + k.spill_loads > 0)
        .collect();
    if !spilling.is_empty() {
        println!("warning: {} kernel(s) spill registers", spilling.len());
    }
}

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

fn status(cmd: &mut Command) -> Result<()> {
    let st = cmd.status().with_context(|| format!("starting {cmd:?}"))?;
    if !st.success() {
        bail!("{cmd:?} failed ({st})");
    }
    Ok(())
}

fn test(extra: &[String]) -> Result<()> {
    build_ptx(Prebuilt::Check, false)?;
    status(
        cargo()
            .current_dir(ptx::workspace_root())
            .args(["test", "--workspace"])
            .args(extra),
    )
}

fn cli(args: &[String]) -> Result<()> {
    // The CLI embeds host/prebuilt/: bring it up to date with the kernels' source first.
    build_ptx(Prebuilt::Refresh, true)?;
    status(
        cargo()
            .current_dir(ptx::workspace_root())
            .args(["run", "--quiet", "--release"])
            .args(REDUCE_BIN)
            .arg("--")
            .args(args),
    )
}

/// Cargo's arguments that name the `reduce` binary (the CLI, with its feature).
pub(crate) const REDUCE_BIN: [&str; 6] = [
    "--package",
    "reduce-host",
    "--features",
    "cli",
    "--bin",
    "reduce",
];
