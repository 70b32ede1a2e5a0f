//! `cargo xtask build-ptx`: kernels/ → one portable PTX (sm_70), then ptxas assembles it into SASS
//! for every architecture in [`ARCHS`].

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The lowest GPU the PTX targets: `sm_70` (Volta), the lowest Rust's `nvptx64-nvidia-cuda`
/// target supports. Nothing the kernels do needs more: the only newer instructions they could use
/// (`min/max.NaN`, packed-half `min/max`, sm_80) have sm_70 forms (`kernels/src/gpu/minmax.rs`).
/// The driver JIT-compiles this PTX for any GPU from Volta on that [`ARCHS`] has no SASS for.
pub const TARGET_CPU: &str = "sm_70";
/// The PTX ISA version: LLVM emits the lowest version that knows the target, which for `sm_70` is
/// PTX ISA 7.0 (CUDA 11.0): every driver from R450 on loads the module. `build_ptx` checks the
/// `.version` line so a toolchain change cannot move it silently.
pub const PTX_ISA: &str = "7.0";
/// The architectures `host/prebuilt/` ships SASS for, each assembled from the one PTX: V100
/// (sm_70), T4 (sm_75), A100/A30 (sm_80), RTX 30/A10/A40 (sm_86), RTX 40/L4/L40 (sm_89),
/// H100/H200 (sm_90), B200 (sm_100), RTX 50/RTX PRO (sm_120). A cubin runs on its own major
/// version at an equal or higher minor (sm_86 SASS on sm_87, sm_120 on sm_121), so this covers
/// every GPU from Volta on but sm_72 … (which takes sm_70's) and new majors, which JIT the PTX.
pub const ARCHS: [&str; 8] = [
    "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120",
];
/// The architecture `cargo xtask ptx` shows SASS for: the GPU the benchmarks run on.
pub const SHOW_ARCH: &str = "sm_90";
/// Where the PTX lands, relative to the workspace root.
pub const PTX_REL_PATH: &str = "target/ptx/reduce_kernels.ptx";

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

/// Build the kernels crate for `nvptx64-nvidia-cuda` and return the path of the PTX file.
pub fn build_ptx(quiet: bool) -> Result<PathBuf> {
    build_crate_ptx("reduce-kernels", "reduce_kernels", quiet)
}

/// Build workspace package `package` (library `lib`) for `nvptx64-nvidia-cuda` the same way
/// (`cargo xtask build-ptx --crate`), into `target/ptx/{lib}.ptx`, and return that path.
pub fn build_crate_ptx(package: &str, lib: &str, quiet: bool) -> Result<PathBuf> {
    let root = workspace_root();
    let target_dir = root.join("target/nvptx");
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
        format!("-Ctarget-cpu={TARGET_CPU}"),
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
        bail!("building {package} for nvptx64-nvidia-cuda failed ({status})");
    }
    let built = target_dir.join(format!("nvptx64-nvidia-cuda/release/{lib}.ptx"));
    if !built.exists() {
        bail!(
            "the nvptx build finished but {} is missing",
            built.display()
        );
    }
    let text = std::fs::read_to_string(&built)?;
    let version = text
        .lines()
        .find_map(|l| l.trim().strip_prefix(".version "))
        .unwrap_or("?")
        .trim()
        .to_string();
    if version != PTX_ISA {
        bail!(
            "{} declares PTX ISA {version}, expected {PTX_ISA} for {TARGET_CPU}",
            built.display()
        );
    }
    let dest = if package == "reduce-kernels" {
        root.join(PTX_REL_PATH)
    } else {
        root.join(format!("target/ptx/{lib}.ptx"))
    };
    std::fs::create_dir_all(dest.parent().unwrap())?;
    // The register caps Rust cannot express (`_r<N>_` entries: `.maxnreg N`).
    let (text, _capped) = crate::directives::add_maxnreg(&text);
    std::fs::write(&dest, text)?;
    Ok(dest)
}

/// Find `ptxas`: `$PTXAS`, the PATH, CUDA's usual places, then the PyPI package
/// `nvidia-cuda-nvcc-cu12` in any python3's site-packages.
pub fn find_ptxas() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("PTXAS") {
        return Some(PathBuf::from(p));
    }
    if let Ok(out) = Command::new("sh").args(["-c", "command -v ptxas"]).output() {
        let s = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !s.is_empty() {
            return Some(PathBuf::from(s));
        }
    }
    for p in ["/usr/local/cuda/bin/ptxas", "/opt/cuda/bin/ptxas"] {
        if Path::new(p).exists() {
            return Some(PathBuf::from(p));
        }
    }
    let py = Command::new("python3")
        .args(["-c", "import nvidia.cuda_nvcc as m, os; print(os.path.join(list(m.__path__)[0], 'bin', 'ptxas'))"])
        .output()
        .ok()?;
    let p = PathBuf::from(String::from_utf8_lossy(&py.stdout).trim());
    p.exists().then_some(p)
}

/// `ptxas --version`'s release line (`Cuda compilation tools, release 12.9, V12.9.86`): the cubin
/// depends on it, so `build-ptx` records it next to the cubin.
pub fn ptxas_version(ptxas: &Path) -> Result<String> {
    let out = Command::new(ptxas)
        .arg("--version")
        .output()
        .with_context(|| format!("running {} --version", ptxas.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find(|l| l.contains("release"))
        .map(|l| l.trim().to_string())
        .with_context(|| {
            format!(
                "{} --version printed no release line:\n{text}",
                ptxas.display()
            )
        })
}

/// One kernel's resources as ptxas reports them.
#[derive(Debug, Clone, Default)]
pub struct KernelResources {
    pub name: String,
    pub registers: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
    pub stack_frame: u32,
    pub static_smem: u32,
}

/// Where `ptxas_check` writes the cubin assembled from `ptx` for `arch`.
pub fn cubin_path(ptx: &Path, arch: &str) -> PathBuf {
    ptx.with_extension(format!("{arch}.cubin"))
}

/// Run `ptxas` with `args` on `ptx`, writing `cubin`: whether it succeeded, and its report
/// (standard error, then standard output).
pub fn run_ptxas(ptxas: &Path, args: &[&str], ptx: &Path, cubin: &Path) -> Result<(bool, String)> {
    let out = Command::new(ptxas)
        .args(args)
        .arg(ptx)
        .arg("-o")
        .arg(cubin)
        .output()
        .with_context(|| format!("running {}", ptxas.display()))?;
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    Ok((out.status.success(), text))
}

/// Assemble the PTX for `arch` with `ptxas -v -O3` (into [`cubin_path`]) and parse its report.
pub fn ptxas_check(ptxas: &Path, ptx: &Path, arch: &str) -> Result<Vec<KernelResources>> {
    let cubin = cubin_path(ptx, arch);
    let (ok, text) = run_ptxas(ptxas, &["-arch", arch, "-v", "-O3"], ptx, &cubin)?;
    if !ok {
        bail!("ptxas rejected {} for {arch}:\n{text}", ptx.display());
    }
    let kernels = parse_report(&text);
    if kernels.is_empty() {
        bail!(
            "ptxas accepted {} for {arch} but reported no kernels:\n{text}",
            ptx.display()
        );
    }
    Ok(kernels)
}

/// [`ptxas_check`] for every architecture of [`ARCHS`], as many at once as there are cores (each
/// ptxas is one thread and takes about a minute on the library's PTX): `(arch, kernels)` in
/// [`ARCHS`]' order.
pub fn ptxas_check_all(
    ptxas: &Path,
    ptx: &Path,
) -> Result<Vec<(&'static str, Vec<KernelResources>)>> {
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(ARCHS.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(arch) = ARCHS.get(i) else { break };
                let r = ptxas_check(ptxas, ptx, arch);
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((i, *arch, r));
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|(i, _, _)| *i);
    results
        .into_iter()
        .map(|(_, arch, r)| r.map(|k| (arch, k)))
        .collect()
}

/// The kernels of a `ptxas -v` report, with their resources.
pub fn parse_report(text: &str) -> Vec<KernelResources> {
    let mut kernels: Vec<KernelResources> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or_default().to_string();
            kernels.push(KernelResources {
                name,
                ..Default::default()
            });
        } else if let Some(k) = kernels.last_mut() {
            let num_before = |key: &str| -> Option<u32> {
                let idx = line.find(key)?;
                line[..idx].split_whitespace().last()?.parse().ok()
            };
            if line.contains("bytes stack frame") {
                k.stack_frame = num_before("bytes stack frame").unwrap_or(0);
                k.spill_stores = num_before("bytes spill stores").unwrap_or(0);
                k.spill_loads = num_before("bytes spill loads").unwrap_or(0);
            }
            if line.contains("registers") {
                k.registers = num_before("registers").unwrap_or(0);
                k.static_smem = num_before("bytes smem").unwrap_or(0);
            }
        }
    }
    kernels
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
