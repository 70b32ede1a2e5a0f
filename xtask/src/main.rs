//! Project tasks: `cargo xtask <command>`.
//!
//! * `build-ptx` — kernels/ → `target/ptx/reduce_kernels.ptx` (portable: `.target sm_70`) and
//!   the sm_80 and sm_90 PTX, assembled by ptxas into a cubin for every architecture of
//!   `ptx::ARCHS`, each from its own generation's PTX (`ptx::TARGETS`; printing registers,
//!   spills and stack per architecture; a spill fails the build), the portable PTX and the
//!   cubins copied into
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
#[cfg(test)]
mod imports;
mod linker;
mod prebuilt;
mod ptx;
mod ptxas;
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
            // The PTX the shown architecture's shipped SASS is assembled from.
            let shown = ptx::target_of(ptx::SHOW_ARCH).context("SHOW_ARCH is in TARGETS")?;
            let out = show::render(
                &root,
                &root.join("target/ptx").join(shown.file),
                ptxas::find_ptxas().as_deref(),
                show::find_tool("nvdisasm").as_deref(),
                &show_args,
            )?;
            print!("{out}");
            Ok(())
        }
        "help" | "--help" | "-h" => {
            println!(
                "cargo xtask build-ptx                     kernels -> PTX (sm_70/80/90) + SASS per arch, refreshes host/prebuilt/\n\
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

/// Build the PTX of every [`ptx::TARGETS`] row, assemble a cubin for every architecture of
/// [`ptx::ARCHS`] from its generation's PTX (ptxas is required:
/// `host/prebuilt/` ships them all, and a new PTX next to an old cubin would be a mismatch), fail
/// if a kernel spills on any of them, then refresh or check `host/prebuilt/`.
/// `quiet`: no cargo output and no ptxas table (for the commands that build it on the way).
fn build_ptx(mode: Prebuilt, quiet: bool) -> Result<()> {
    let built = ptx::build_ptx(quiet)?;
    let path = built.portable().to_path_buf();
    let Some(ptxas) = ptxas::find_ptxas() else {
        bail!(
            "ptxas not found (looked at $PTXAS, PATH, /usr/local/cuda/bin and python3's nvidia-cuda-nvcc-cu12); \
             it assembles the cubins that {} ships next to the PTX.\n\
             Fix: bash .ci/install-deps.sh   (or set PTXAS=/path/to/ptxas)",
            prebuilt::PREBUILT_DIR
        );
    };
    let version = ptxas::ptxas_version(&ptxas)?;
    std::fs::write(
        path.with_file_name("ptxas-version.txt"),
        format!("{version}\n"),
    )?;
    let archs = ptxas::ptxas_check_all(&ptxas, &ptxas::library_jobs(&built)?)?;
    let root = ptx::workspace_root();
    if !quiet {
        print_report(&built.builds, &ptxas, &version, &archs);
    }
    check_no_spills(&archs)?;
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
/// (e.g. `examples/custom-op`) → `target/ptx/<lib>.ptx`, plus its cubins and the ptxas
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
    match ptxas::find_ptxas() {
        Some(ptxas) => {
            let version = ptxas::ptxas_version(&ptxas)?;
            let archs = ptxas::ptxas_check_all(&ptxas, &ptxas::jobs_for(&ptx_path))?;
            print_report(
                &[(ptx::PORTABLE, ptx_path.clone())],
                &ptxas,
                &version,
                &archs,
            );
            println!(
                "cubins: {}",
                ptxas::cubin_path(&ptx_path, "{arch}").display()
            );
        }
        None => println!(
            "PTX: {} (ptxas not found: no cubin; the driver JIT-compiles the PTX)",
            ptx_path.display()
        ),
    }
    Ok(())
}

/// The PTX files with the architectures assembled from each, then ptxas's resources per
/// architecture: a summary line each, and the kernels that spill (`build-ptx` fails on them:
/// [`check_no_spills`]).
fn print_report(
    builds: &[(ptx::PtxTarget, std::path::PathBuf)],
    ptxas: &std::path::Path,
    version: &str,
    archs: &[(&str, Vec<ptxas::KernelResources>)],
) {
    for (target, path) in builds {
        let from: Vec<&str> = archs
            .iter()
            .map(|(a, _)| *a)
            .filter(|a| builds.len() == 1 || target.archs.contains(a))
            .collect();
        println!(
            "PTX: {} (.target {}, ISA {}) -> SASS for {}",
            path.display(),
            target.cpu,
            target.isa,
            from.join(", ")
        );
    }
    println!("ptxas: {} ({version})", ptxas.display());
    print!("{}", resources_table(archs));
}

/// The per-architecture table of registers, spills and stack (markdown; `docs/architectures.md`
/// quotes it).
fn resources_table(archs: &[(&str, Vec<ptxas::KernelResources>)]) -> String {
    let mut out = String::from(
        "| arch | kernels | registers min / median / max | kernels at 255 | spilling kernels | spill bytes (st + ld) | max stack frame |\n\
         |---|---:|---|---:|---:|---:|---:|\n",
    );
    for (arch, kernels) in archs {
        let mut regs: Vec<u32> = kernels.iter().map(|k| k.registers).collect();
        regs.sort_unstable();
        let spilling = kernels
            .iter()
            .filter(|k| k.spill_stores + k.spill_loads > 0)
            .count();
        let spill: u32 = kernels.iter().map(|k| k.spill_stores + k.spill_loads).sum();
        out += &format!(
            "| {arch} | {} | {} / {} / {} | {} | {spilling} | {spill} | {} |\n",
            kernels.len(),
            regs.first().unwrap_or(&0),
            regs.get(regs.len() / 2).unwrap_or(&0),
            regs.last().unwrap_or(&0),
            regs.iter().filter(|&&r| r >= 255).count(),
            kernels.iter().map(|k| k.stack_frame).max().unwrap_or(0),
        );
    }
    out
}

/// Spills that are understood, with their bytes (stores + loads) as ptxas reports them: the
/// `.maxnreg` caps of the half-precision `moments` kernels (64 and 80 registers: `_r64_`,
/// `_r80_`, chosen on sm_90 for occupancy, where they do not spill) leave Volta's code
/// generator (sm_70 only, the V100) one register (f16: 8 bytes) to a few (bf16: 76–84 bytes)
/// short. The spill goes to local memory, which L1 caches; a V100 to measure what it costs was
/// not available, and the uncapped variants these kernels were chosen over are deleted. Any
/// other spill, or one of these growing, fails the build.
const EXPLAINED_SPILLS: [(&str, &str, u32); 8] = [
    ("sm_70", "reduce_transform_shift_r80_moments_b256_f16", 8),
    ("sm_70", "reduce_transform_shift_r80_moments_b256_bf16", 84),
    ("sm_70", "reduce_transform_r64_moments_b512_f16", 8),
    ("sm_70", "reduce_transform_r64_moments_b512_bf16", 76),
    ("sm_70", "reduce_transform_r64_moments_b256_f16", 8),
    ("sm_70", "reduce_transform_r64_moments_b256_bf16", 76),
    ("sm_70", "reduce_transform_r64_moments_b1024_f16", 8),
    ("sm_70", "reduce_transform_r64_moments_b1024_bf16", 76),
];

/// Fail, naming them, if any kernel spills registers on any architecture beyond
/// [`EXPLAINED_SPILLS`] (a spill is local-memory traffic in a bandwidth-bound kernel), or a
/// 1,024-thread kernel takes more registers than a block of that size can have.
fn check_no_spills(archs: &[(&str, Vec<ptxas::KernelResources>)]) -> Result<()> {
    let spills: Vec<String> = archs
        .iter()
        .flat_map(|(arch, kernels)| {
            kernels
                .iter()
                .filter(|k| {
                    let bytes = k.spill_stores + k.spill_loads;
                    bytes > 0
                        && !EXPLAINED_SPILLS
                            .iter()
                            .any(|&(a, name, max)| a == *arch && name == k.name && bytes <= max)
                })
                .map(move |k| {
                    format!(
                        "{arch} {}: {} registers, {} + {} bytes spilled",
                        k.name, k.registers, k.spill_stores, k.spill_loads
                    )
                })
        })
        .collect();
    // A block of 1,024 threads needs at most 64 registers per thread: every architecture's SM
    // has 65,536, and a kernel that takes more cannot launch at that size (the block size is in
    // the name of the kernels built for one).
    let too_many: Vec<String> = archs
        .iter()
        .flat_map(|(arch, kernels)| {
            kernels
                .iter()
                .filter(|k| k.name.contains("_b1024_") && k.registers > 64)
                .map(move |k| format!("{arch} {}: {} registers", k.name, k.registers))
        })
        .collect();
    if !too_many.is_empty() {
        bail!(
            "{} kernel(s) for 1,024-thread blocks take more than 64 registers:\n  {}",
            too_many.len(),
            too_many.join("\n  ")
        );
    }
    if !spills.is_empty() {
        bail!(
            "{} kernel(s) spill registers (explain them in EXPLAINED_SPILLS, xtask/src/main.rs, \
             or fix them):\n  {}",
            spills.len(),
            spills.join("\n  ")
        );
    }
    Ok(())
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
