//! The PTX "linker": what `llvm-bitcode-linker` would do, built from `llvm-tools`.
//!
//! rustc drives the `nvptx64-nvidia-cuda` target with linker flavor `llbc`: it calls the linker with
//! the crate's bitcode objects, the bitcode rlibs of its dependencies (here `core`, built by
//! `-Zbuild-std`), one `--export-symbol NAME` per kernel, `--target-cpu`, `--target-feature=…` and
//! `-o OUT.ptx`. We do the same three steps as the official tool:
//!
//! 1. `llvm-link` every bitcode module into one,
//! 2. `opt` internalizes everything that is not an exported kernel and optimizes the whole program,
//! 3. `llc` lowers it to PTX for the requested `sm_XX` / `+ptxNN`.
//!
//! xtask re-executes itself as this linker when `XTASK_PTX_LINKER=1` is set (see `ptx.rs`).

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The bitcode wrapper magic (`BC\xC0\xDE`).
const BITCODE_MAGIC: &[u8; 4] = b"BC\xC0\xDE";

struct LinkArgs {
    inputs: Vec<PathBuf>,
    exports: Vec<String>,
    cpu: Option<String>,
    features: Vec<String>,
    output: PathBuf,
}

fn parse(args: &[String]) -> Result<LinkArgs> {
    let mut inputs = Vec::new();
    let mut exports = Vec::new();
    let mut cpu = None;
    let mut features = Vec::new();
    let mut output = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--export-symbol" {
            exports.push(it.next().context("--export-symbol needs a name")?.clone());
        } else if let Some(v) = a.strip_prefix("--export-symbol=") {
            exports.push(v.to_string());
        } else if a == "--target-cpu" {
            cpu = Some(it.next().context("--target-cpu needs a value")?.clone());
        } else if let Some(v) = a.strip_prefix("--target-cpu=") {
            cpu = Some(v.to_string());
        } else if a == "--target-feature" {
            features.push(it.next().context("--target-feature needs a value")?.clone());
        } else if let Some(v) = a.strip_prefix("--target-feature=") {
            features.push(v.to_string());
        } else if a == "-L" || a == "--target" {
            it.next(); // search paths (we get every input by path) and the target (always nvptx64)
        } else if a == "-o" {
            output = Some(PathBuf::from(it.next().context("-o needs a path")?));
        } else if a.starts_with('-') {
            // Flags llvm-bitcode-linker accepts that do not change what we build (e.g. `--debug`,
            // `-O3`): the pipeline below always optimizes fully.
        } else {
            let p = PathBuf::from(a);
            if p.is_file() {
                inputs.push(p);
            }
        }
    }
    Ok(LinkArgs {
        inputs,
        exports,
        cpu,
        features,
        output: output.context("the linker got no -o OUTPUT")?,
    })
}

/// Directory holding `llvm-link`, `opt` and `llc` from the `llvm-tools` rustup component.
pub fn llvm_tools_dir() -> Result<PathBuf> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .context("running rustc --print sysroot")?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let out = Command::new(&rustc)
        .arg("-vV")
        .output()
        .context("running rustc -vV")?;
    let host = String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .context("rustc -vV printed no host line")?;
    let dir = sysroot.join("lib/rustlib").join(host).join("bin");
    for tool in ["llvm-link", "opt", "llc"] {
        if !dir.join(tool).exists() {
            bail!(
                "{} is missing: the rustup component `llvm-tools` is not installed for this toolchain.\n\
                 Fix: rustup component add llvm-tools (rust-toolchain.toml lists it; `bash .ci/run` installs it)",
                dir.join(tool).display()
            );
        }
    }
    Ok(dir)
}

fn run(cmd: &mut Command) -> Result<()> {
    let status = cmd.status().with_context(|| format!("starting {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed with {status}");
    }
    Ok(())
}

/// Extract the bitcode members of an `ar` archive (an rlib) into `dir`.
fn extract_rlib(rlib: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let data = std::fs::read(rlib).with_context(|| format!("reading {}", rlib.display()))?;
    if !data.starts_with(b"!<arch>\n") {
        bail!("{} is not an ar archive", rlib.display());
    }
    // Members are recognised by content (the bitcode magic), so the symbol table, the long-name
    // table and rustc's metadata member are skipped without looking at names.
    let mut pos = 8;
    let mut index = 0;
    while pos + 60 <= data.len() {
        let header = &data[pos..pos + 60];
        let size: usize = String::from_utf8_lossy(&header[48..58])
            .trim()
            .parse()
            .context("bad ar member size")?;
        let body = data
            .get(pos + 60..pos + 60 + size)
            .with_context(|| format!("{} is truncated", rlib.display()))?;
        pos += 60 + size + (size & 1);
        if body.starts_with(BITCODE_MAGIC) {
            let p = dir.join(format!(
                "{}-{index}.bc",
                rlib.file_stem().unwrap_or_default().to_string_lossy()
            ));
            index += 1;
            std::fs::write(&p, body)?;
            out.push(p);
        }
    }
    Ok(())
}

/// Entry point when xtask runs as rustc's linker.
pub fn main(args: &[String]) -> Result<()> {
    let args = parse(args)?;
    let tools = llvm_tools_dir()?;
    let work = args.output.with_extension("link");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work)?;

    let mut modules = Vec::new();
    for input in &args.inputs {
        let head = std::fs::read(input)
            .with_context(|| format!("reading linker input {}", input.display()))?;
        if head.starts_with(BITCODE_MAGIC) {
            modules.push(input.clone());
        } else if head.starts_with(b"!<arch>\n") {
            extract_rlib(input, &work, &mut modules)?;
        } else {
            bail!(
                "linker input {} is neither LLVM bitcode nor an rlib",
                input.display()
            );
        }
    }
    if modules.is_empty() {
        bail!("the linker got no bitcode inputs");
    }

    let linked = work.join("linked.bc");
    let mut link = Command::new(tools.join("llvm-link"));
    // The kernel crate's own module first, the rest only for the symbols it needs.
    link.arg(&modules[0]);
    for m in &modules[1..] {
        link.arg("--only-needed").arg(m);
    }
    run(link.arg("-o").arg(&linked))?;

    let optimized = work.join("optimized.bc");
    let mut opt = Command::new(tools.join("opt"));
    opt.arg(&linked)
        .arg("-passes=internalize,globaldce,default<O3>")
        .arg(format!(
            "-internalize-public-api-list={}",
            args.exports.join(",")
        ))
        .arg("-o")
        .arg(&optimized);
    if let Some(cpu) = &args.cpu {
        opt.arg(format!("-mcpu={cpu}"));
    }
    run(&mut opt)?;

    let mut llc = Command::new(tools.join("llc"));
    llc.arg(&optimized).arg("-O3").arg("-o").arg(&args.output);
    if let Some(cpu) = &args.cpu {
        llc.arg(format!("-mcpu={cpu}"));
    }
    let feats: Vec<&str> = args
        .features
        .iter()
        .flat_map(|f| f.split(','))
        .filter(|f| !f.is_empty())
        .collect();
    if !feats.is_empty() {
        llc.arg(format!("-mattr={}", feats.join(",")));
    }
    run(&mut llc)?;
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}
