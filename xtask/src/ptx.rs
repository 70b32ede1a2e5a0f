//! `cargo xtask build-ptx`: kernels/ → PTX, one build per generation ([`TARGETS`]); ptxas then
//! assembles SASS for every architecture in [`ARCHS`] from its generation's PTX
//! ([`crate::ptxas`]).

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One PTX build of the kernels: the `-Ctarget-cpu` it is compiled for, the PTX ISA version
/// LLVM declares for it, the file it lands in (in `target/ptx/`), and the architectures whose
/// SASS ptxas assembles from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtxTarget {
    /// `-Ctarget-cpu`: what the code may use. The kernels' `cfg(target_feature = "sm_80")`
    /// picks the one-instruction `min/max.NaN` and packed-half forms from sm_80 on
    /// (`kernels/src/intrinsics/minmax.rs`), and LLVM lowers f16/bf16 arithmetic to the instructions the
    /// target has.
    pub cpu: &'static str,
    /// The `.version` line LLVM writes: the lowest PTX ISA that knows `cpu`. `build_ptx` checks
    /// it so a toolchain change cannot move it silently.
    pub isa: &'static str,
    /// The file name in `target/ptx/`.
    pub file: &'static str,
    /// The architectures assembled from this PTX (in [`ARCHS`]' order).
    pub archs: &'static [&'static str],
}

/// The PTX builds, lowest first.
///
/// * `sm_70`: the portable PTX, the one the host crate embeds. Its PTX ISA 7.0 (CUDA 11.0) loads
///   on every driver from R450 on, and the driver JIT-compiles it for any GPU from Volta on that
///   [`ARCHS`] has no SASS for. sm_70 has no `.NaN` min/max and no packed-half min/max: there the
///   kernels compare halves widened to `f32` (`kernels/src/intrinsics/minmax.rs`). Volta's and Turing's
///   SASS come from it.
/// * `sm_80`: Ampere and Ada (sm_80/86/89): the packed-half and `.NaN` instructions. Built only
///   for its SASS (not shipped: no GPU JIT-compiles it).
/// * `sm_90`: Hopper and later (sm_90/100/120), PTX ISA 7.8: the code the library ran on the
///   H100/H200 before the portable PTX (the same `-Ctarget-cpu`), also built only for its SASS.
///
/// SASS assembled from the sm_70 PTX for sm_90 is sm_70 code: ptxas cannot turn widened
/// comparisons back into `max.bf16x2`, which made the half-precision arg-reductions up to 2×
/// slower on an H100 (`docs/decisions.md`).
pub const TARGETS: [PtxTarget; 3] = [
    PtxTarget {
        cpu: "sm_70",
        isa: "7.0",
        file: "reduce_kernels.ptx",
        archs: &["sm_70", "sm_75"],
    },
    PtxTarget {
        cpu: "sm_80",
        isa: "7.0",
        file: "reduce_kernels.sm_80.ptx",
        archs: &["sm_80", "sm_86", "sm_89"],
    },
    PtxTarget {
        cpu: "sm_90",
        isa: "7.8",
        file: "reduce_kernels.sm_90.ptx",
        archs: &["sm_90", "sm_100", "sm_120"],
    },
];

/// The portable build: the PTX the host embeds and JIT-compiles where no cubin runs.
pub const PORTABLE: PtxTarget = TARGETS[0];
/// The architectures `host/prebuilt/` ships SASS for: V100 (sm_70), T4 (sm_75), A100/A30
/// (sm_80), RTX 30/A10/A40 (sm_86), RTX 40/L4/L40 (sm_89), H100/H200 (sm_90), B200 (sm_100),
/// RTX 50/RTX PRO (sm_120), each assembled from the PTX of its [`TARGETS`] row. A cubin runs on
/// its own major version at an equal or higher minor (sm_86 SASS on sm_87, sm_120 on sm_121), so
/// this covers every GPU from Volta on but sm_72 … (which takes sm_70's) and new majors, which
/// JIT the portable PTX.
pub const ARCHS: [&str; 8] = [
    "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120",
];
/// The architecture `cargo xtask ptx` shows SASS for: the GPU the benchmarks run on.
pub const SHOW_ARCH: &str = "sm_90";
/// Where the portable PTX lands, relative to the workspace root.
pub const PTX_REL_PATH: &str = "target/ptx/reduce_kernels.ptx";

/// The [`TARGETS`] row whose PTX `arch`'s SASS is assembled from.
pub fn target_of(arch: &str) -> Option<PtxTarget> {
    TARGETS.into_iter().find(|t| t.archs.contains(&arch))
}

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// A command with the environment of an enclosing cargo build removed, so a nested cargo
/// (host/build.rs calls us) does not inherit the outer build's target or flags.
pub fn clean_cargo_command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = Command::new(program);
    for (k, _) in std::env::vars_os() {
        if crate::build_env::leaks_into_nested_cargo(&k.to_string_lossy()) {
            cmd.env_remove(&k);
        }
    }
    cmd
}

/// The library's PTX builds: one per row of [`TARGETS`], each into `target/ptx/{file}`.
#[derive(Clone, Debug)]
pub struct LibraryPtx {
    /// `(target, path)`, in [`TARGETS`]' order; the first is the portable PTX ([`PTX_REL_PATH`]).
    pub builds: Vec<(PtxTarget, PathBuf)>,
}

impl LibraryPtx {
    /// The portable PTX's path.
    pub fn portable(&self) -> &Path {
        &self.builds[0].1
    }
}

/// Build the kernels crate for `nvptx64-nvidia-cuda` once per row of [`TARGETS`].
pub fn build_ptx(quiet: bool) -> Result<LibraryPtx> {
    let root = workspace_root();
    let mut builds = Vec::new();
    for target in TARGETS {
        let dest = root.join("target/ptx").join(target.file);
        build_target_ptx("reduce-kernels", "reduce_kernels", target, &dest, quiet)?;
        builds.push((target, dest));
    }
    Ok(LibraryPtx { builds })
}

/// Build workspace package `package` (library `lib`) for `nvptx64-nvidia-cuda` the same way, as
/// portable PTX (`cargo xtask build-ptx --crate`), into `target/ptx/{lib}.ptx`, and return that
/// path.
pub fn build_crate_ptx(package: &str, lib: &str, quiet: bool) -> Result<PathBuf> {
    let dest = workspace_root().join(format!("target/ptx/{lib}.ptx"));
    build_target_ptx(package, lib, PORTABLE, &dest, quiet)?;
    Ok(dest)
}

/// Build `package` (library `lib`) for `target` into `dest`: each target in a cargo target
/// folder of its own (`target/nvptx` for the portable build, `target/nvptx-{cpu}` for the
/// others), so switching between them rebuilds nothing.
fn build_target_ptx(
    package: &str,
    lib: &str,
    target: PtxTarget,
    dest: &Path,
    quiet: bool,
) -> Result<()> {
    let root = workspace_root();
    let target_dir = if target == PORTABLE {
        root.join("target/nvptx")
    } else {
        root.join(format!("target/nvptx-{}", target.cpu))
    };
    let linker = std::env::current_exe().context("locating the xtask executable")?;
    crate::linker::llvm_tools_dir()?; // fail early, with the fix, if llvm-tools is missing
    let src = Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&src.stdout).trim());
    if !sysroot.join("lib/rustlib/src/rust/library/core").exists() {
        bail!("the rustup component `rust-src` is missing (needed by -Zbuild-std=core).\nFix: rustup component add rust-src");
    }

    // The PTX must not depend on where the checkout is (`cargo xtask build-ptx --check` compares
    // it byte for byte with the committed copy): map the workspace and the sysroot's sources to
    // fixed names, in case a path ever reaches the output (panic locations, debug info).
    let rustflags = [
        format!("-Ctarget-cpu={}", target.cpu),
        format!("-Clinker={}", linker.display()),
        format!("--remap-path-prefix={}=/reduce", root.display()),
        format!("--remap-path-prefix={}=/rustc-src", sysroot.display()),
    ]
    .join("\x1f");
    let mut cmd = clean_cargo_command(cargo());
    cmd.current_dir(&root)
        .args([
            "rustc",
            "--package",
            package,
            "--release",
            "--lib",
            "--crate-type",
            "cdylib",
        ])
        .args(["--target", "nvptx64-nvidia-cuda", "-Zbuild-std=core"])
        .arg("--target-dir")
        .arg(&target_dir)
        .env("CARGO_ENCODED_RUSTFLAGS", rustflags)
        .env("CARGO_PROFILE_RELEASE_LTO", "fat")
        .env("CARGO_PROFILE_RELEASE_PANIC", "abort")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "3")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("XTASK_PTX_LINKER", "1");
    if quiet {
        cmd.arg("--quiet");
    }
    let status = cmd.status().context("starting cargo for the nvptx build")?;
    if !status.success() {
        bail!(
            "building {package} for nvptx64-nvidia-cuda ({}) failed ({status})",
            target.cpu
        );
    }
    let built = target_dir.join(format!("nvptx64-nvidia-cuda/release/{lib}.ptx"));
    if !built.exists() {
        bail!(
            "the nvptx build finished but {} is missing",
            built.display()
        );
    }
    let text = std::fs::read_to_string(&built)?;
    let line = |key: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .unwrap_or("?")
            .trim()
            .to_string()
    };
    let (version, declared) = (line(".version "), line(".target "));
    if version != target.isa || declared != target.cpu {
        bail!(
            "{} declares PTX ISA {version} for {declared}, expected {} for {}",
            built.display(),
            target.isa,
            target.cpu
        );
    }
    check_generation(&text, target).with_context(|| format!("checking {}", built.display()))?;
    std::fs::create_dir_all(dest.parent().context("a PTX path has a folder")?)?;
    // The register caps Rust cannot express (`_r<N>_` entries: `.maxnreg N`).
    let (text, _capped) = crate::directives::add_maxnreg(&text);
    std::fs::write(dest, text)?;
    Ok(())
}

/// The instructions that set the generations apart in the library's kernels: sm_80's
/// `.NaN` and packed-half `min`/`max` (argmin/argmax, `kernels/src/intrinsics/minmax.rs`). A PTX built for
/// sm_80 or later must use them (else its SASS is sm_70 code: up to 2× slower half arg-reductions),
/// and the portable one must not (it would not load on Volta or Turing). Checked on the
/// library's builds only: a user's crate (`build-ptx --crate`) need not use them.
const SM80_INSTRUCTIONS: [&str; 3] = ["max.NaN.f32", "max.NaN.bf16x2", "min.f16x2"];

fn check_generation(text: &str, target: PtxTarget) -> Result<()> {
    if !text.contains("reduce_arg") {
        return Ok(()); // not the library's kernels
    }
    let sm80 = target
        .cpu
        .trim_start_matches("sm_")
        .parse::<u32>()
        .unwrap_or(0)
        >= 80;
    for ins in SM80_INSTRUCTIONS {
        let has = text.contains(&format!("{ins} "));
        if sm80 && !has {
            bail!(
                "the {} PTX has no `{ins}`: the argmin/argmax kernels fell back to their sm_70 \
                 forms (is `cfg(target_feature = \"sm_80\")` still set by -Ctarget-cpu={}?)",
                target.cpu,
                target.cpu
            );
        }
        if !sm80 && has {
            bail!(
                "the {} PTX uses `{ins}`, an sm_80 instruction: it would not load on {}",
                target.cpu,
                target.cpu
            );
        }
    }
    Ok(())
}

/// The package and library names declared by the `Cargo.toml` in `dir` (`[package] name`, and
/// `[lib] name` or the package name with `-` made `_`). A line reader, enough for the manifests
/// of this workspace.
pub fn crate_names(dir: &Path) -> Result<(String, String)> {
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .with_context(|| format!("reading {}", manifest.display()))?;
    let (mut section, mut package, mut lib) = (String::new(), None, None);
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.to_string();
        } else if let Some(v) = line.strip_prefix("name") {
            let v = v
                .trim_start()
                .trim_start_matches('=')
                .trim()
                .trim_matches('"');
            match section.as_str() {
                "[package]" => package = Some(v.to_string()),
                "[lib]" => lib = Some(v.to_string()),
                _ => {}
            }
        }
    }
    let package =
        package.with_context(|| format!("{} has no [package] name", manifest.display()))?;
    let lib = lib.unwrap_or_else(|| package.replace('-', "_"));
    Ok((package, lib))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_arch_is_assembled_from_one_ptx_of_its_generation_or_lower() {
        let listed: Vec<&str> = TARGETS
            .iter()
            .flat_map(|t| t.archs.iter().copied())
            .collect();
        assert_eq!(
            listed, ARCHS,
            "TARGETS' rows list ARCHS once each, in order"
        );
        let number = |sm: &str| sm.trim_start_matches("sm_").parse::<u32>().unwrap();
        for t in TARGETS {
            for a in t.archs {
                assert!(number(a) >= number(t.cpu), "{a} from PTX for {}", t.cpu);
                assert_eq!(target_of(a), Some(t));
            }
        }
        // sm_80 and later run SASS made from PTX that may use sm_80's instructions.
        for a in ARCHS.iter().filter(|a| number(a) >= 80) {
            assert!(number(target_of(a).unwrap().cpu) >= 80, "{a}");
        }
        assert_eq!(PORTABLE.file, "reduce_kernels.ptx");
        assert!(PTX_REL_PATH.ends_with(PORTABLE.file));
    }

    #[test]
    fn each_generation_uses_the_instructions_it_has() {
        let arg = ".entry reduce_argmax_b256_bf16(";
        let sm80 = format!("{arg}\n max.NaN.f32 %f1;\n max.NaN.bf16x2 %r1;\n min.f16x2 %r2;");
        let sm70 = format!("{arg}\n max.f32 %f1;\n setp.nan.f32 %p1;");
        assert!(check_generation(&sm80, TARGETS[1]).is_ok());
        assert!(check_generation(&sm80, TARGETS[2]).is_ok());
        assert!(check_generation(&sm70, PORTABLE).is_ok());
        let e = check_generation(&sm70, TARGETS[2]).unwrap_err().to_string();
        assert!(e.contains("sm_90 PTX has no `max.NaN.f32`"), "{e}");
        let e = check_generation(&sm80, PORTABLE).unwrap_err().to_string();
        assert!(e.contains("would not load on sm_70"), "{e}");
        assert!(check_generation(".entry custom_op(", TARGETS[2]).is_ok());
    }
}
