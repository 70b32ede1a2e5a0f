//! `cargo xtask ptx <stage>`: a stage's Rust source beside the PTX rustc made of it, the ptxas
//! resource line for sm_90 and, where the CUDA toolkit's `nvdisasm` is found, the SASS.
//!
//! Works without a GPU: it needs the PTX (built first if missing) and, for the resource line and
//! the SASS, `ptxas` (installed by `.ci/install-deps.sh`) and `nvdisasm` (a CUDA toolkit, or PyPI
//! `nvidia-cuda-nvdisasm`).

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What to show, from the command line.
pub struct ShowArgs {
    /// Stage number, 1..=8.
    pub stage: usize,
    /// Element type suffix of the kernel (`f32`, `i32`, …).
    pub ty: String,
    /// Operator of stage 8 (`sum`, `min`, `max`).
    pub op: String,
    /// Block size of the instantiation, where a stage has one per block size.
    pub block: Option<usize>,
    /// Print the sections one after another instead of side by side.
    pub stacked: bool,
    /// Also print the SASS (needs `nvdisasm`).
    pub sass: bool,
}

impl ShowArgs {
    /// Parse `<stage> [--type T] [--op O] [--block B] [--stacked] [--sass]`.
    pub fn parse(args: &[String]) -> Result<Self> {
        let mut it = args.iter();
        let stage: usize = it
            .next()
            .context("usage: cargo xtask ptx <stage 1-8> [--type f32] [--op sum] [--block N] [--stacked] [--sass]")?
            .parse()
            .context("the stage is a number from 1 to 8")?;
        if !(1..=8).contains(&stage) {
            bail!("there is no stage {stage} (stages are 1 to 8)");
        }
        let mut out = ShowArgs {
            stage,
            ty: "f32".into(),
            op: "sum".into(),
            block: None,
            stacked: false,
            sass: false,
        };
        while let Some(a) = it.next() {
            let mut value = || it.next().with_context(|| format!("{a} needs a value"));
            match a.as_str() {
                "--type" => out.ty = value()?.clone(),
                "--op" => out.op = value()?.clone(),
                "--block" => out.block = Some(value()?.parse().context("--block takes a number")?),
                "--stacked" => out.stacked = true,
                "--sass" => out.sass = true,
                other => bail!("unknown option {other}"),
            }
        }
        Ok(out)
    }
}

/// The stage's source file under `kernels/src/stages/`.
fn stage_source(root: &Path, stage: usize) -> Result<PathBuf> {
    let dir = root.join("kernels/src/stages");
    let prefix = format!("s{stage}_");
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy().to_string();
        if name.starts_with(&prefix) && name.ends_with(".rs") {
            return Ok(path);
        }
    }
    bail!("no source file {prefix}*.rs in {}", dir.display())
}

/// Every `.entry` of the PTX with its text (from `.visible .entry` to the closing brace).
pub fn entries(ptx: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = ptx.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix(".visible .entry ") else {
            continue;
        };
        let name = rest.split('(').next().unwrap_or_default().trim().to_string();
        let mut text = String::from(line);
        text.push('\n');
        for l in lines.by_ref() {
            text.push_str(l);
            text.push('\n');
            if l == "}" {
                break;
            }
        }
        out.push((name, text));
    }
    out
}

/// The entry point that shows `args`: the stage's kernel for that type (and op, and block size,
/// defaulting to the stage's default block where there is one per size).
pub fn pick_entry<'a>(all: &'a [(String, String)], args: &ShowArgs) -> Result<&'a (String, String)> {
    let stem = format!("reduce_s{}_", args.stage);
    let suffix = format!("_{}", args.ty);
    let mut found: Vec<&(String, String)> = all
        .iter()
        .filter(|(n, _)| n.starts_with(&stem) && n.ends_with(&suffix))
        .collect();
    if args.stage == 8 {
        let op = format!("_{}_", args.op);
        found.retain(|(n, _)| n.contains(&op));
    }
    let per_block = found.iter().any(|(n, _)| n.contains("_b"));
    if per_block {
        let block = args.block.unwrap_or(if args.stage == 8 { 512 } else { 256 });
        let tag = format!("_b{block}_");
        found.retain(|(n, _)| n.contains(&tag));
    } else if let Some(b) = args.block {
        bail!("stage {} has one kernel for every block size (it reads blockDim.x): drop --block {b}", args.stage);
    }
    match found.first() {
        Some(e) => Ok(e),
        None => bail!(
            "no kernel {stem}…{suffix} for that op/block in the PTX; kernels of stage {}: {}",
            args.stage,
            all.iter()
                .filter(|(n, _)| n.starts_with(&stem))
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Two texts as columns of `width` characters each.
pub fn side_by_side(left: &str, right: &str, width: usize) -> String {
    let l: Vec<&str> = left.lines().collect();
    let r: Vec<&str> = right.lines().collect();
    let mut out = String::new();
    for i in 0..l.len().max(r.len()) {
        let a: String = l.get(i).copied().unwrap_or("").replace('\t', "    ");
        let a: String = a.chars().take(width).collect();
        let b = r.get(i).copied().unwrap_or("").replace('\t', "    ");
        out.push_str(&format!("{a:<width$} │ {b}\n"));
    }
    out
}

fn find_tool(name: &str) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|f| f.is_file())
    });
    on_path.or_else(|| {
        // PyPI's `nvidia-cuda-nvdisasm` (as `nvidia-cuda-nvcc-cu12` for ptxas).
        let out = Command::new("python3")
            .args(["-c", "import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))"])
            .output()
            .ok()?;
        let site = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        ["cuda_nvdisasm", "cu13", "cuda_nvcc"]
            .iter()
            .map(|d| site.join("nvidia").join(d).join("bin").join(name))
            .find(|f| f.is_file())
    })
}

/// Print the comparison for `args` (the PTX at `ptx`, ptxas if found).
pub fn show(root: &Path, ptx: &Path, ptxas: Option<&Path>, args: &ShowArgs) -> Result<()> {
    let src_path = stage_source(root, args.stage)?;
    let source = std::fs::read_to_string(&src_path)?;
    let text = std::fs::read_to_string(ptx).with_context(|| format!("reading {}", ptx.display()))?;
    let all = entries(&text);
    let (name, body) = pick_entry(&all, args)?;

    let rel = src_path.strip_prefix(root).unwrap_or(&src_path).display().to_string();
    let head_l = format!("── Rust: {rel}");
    let head_r = format!("── PTX: {name} ({} lines)", body.lines().count());
    if args.stacked {
        println!("{head_l}\n{source}\n{head_r}\n{body}");
    } else {
        print!("{}", side_by_side(&format!("{head_l}\n{source}"), &format!("{head_r}\n{body}"), 96));
    }

    let Some(ptxas) = ptxas else {
        println!("(ptxas not found: no resource line or SASS; `bash .ci/install-deps.sh` installs it)");
        return Ok(());
    };
    let cubin = std::env::temp_dir().join(format!("xtask-ptx-{name}.cubin"));
    let out = Command::new(ptxas)
        .args(["-arch", crate::ptx::TARGET_CPU, "-O3", "-v", "-e", name])
        .arg(ptx)
        .arg("-o")
        .arg(&cubin)
        .output()
        .with_context(|| format!("running {}", ptxas.display()))?;
    let report = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        bail!("ptxas failed on {name}:\n{report}");
    }
    println!("── ptxas -arch {} -v, entry {name}:", crate::ptx::TARGET_CPU);
    for line in report.lines().filter(|l| l.contains("Used") || l.contains("stack frame")) {
        println!("   {}", line.trim_start_matches("ptxas info    : "));
    }
    if args.sass {
        match find_tool("nvdisasm") {
            Some(nvdisasm) => {
                let out = Command::new(&nvdisasm)
                    .args(["-c", "-g"])
                    .arg(&cubin)
                    .output()
                    .with_context(|| format!("running {}", nvdisasm.display()))?;
                println!("── SASS (nvdisasm -c) of {name}:");
                print!("{}", String::from_utf8_lossy(&out.stdout));
            }
            None => println!(
                "(no nvdisasm: install a CUDA toolkit or `pip install nvidia-cuda-nvdisasm` for the SASS)"
            ),
        }
    }
    let _ = std::fs::remove_file(&cubin);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = ".version 7.8\n.visible .entry reduce_s3_sequential_f32(\n.param .u64 a\n)\n{\nret;\n}\n\
.visible .entry reduce_s6_complete_unroll_b64_f32(\n)\n{\nret;\n}\n\
.visible .entry reduce_s6_complete_unroll_b256_f32(\n)\n{\nadd.f32 x;\n}\n\
.visible .entry reduce_s8_max_b512_f32(\n)\n{\nmax.f32 y;\n}\n";

    fn args(stage: usize) -> ShowArgs {
        ShowArgs::parse(&[stage.to_string()]).unwrap()
    }

    #[test]
    fn entries_are_split_at_their_closing_brace() {
        let e = entries(PTX);
        assert_eq!(e.len(), 4);
        assert_eq!(e[0].0, "reduce_s3_sequential_f32");
        assert!(e[0].1.ends_with("ret;\n}\n"));
        assert!(!e[0].1.contains("complete_unroll"));
    }

    #[test]
    fn picks_the_default_block_and_the_op() {
        let e = entries(PTX);
        assert_eq!(pick_entry(&e, &args(6)).unwrap().0, "reduce_s6_complete_unroll_b256_f32");
        let mut a = args(6);
        a.block = Some(64);
        assert_eq!(pick_entry(&e, &a).unwrap().0, "reduce_s6_complete_unroll_b64_f32");
        let mut a = args(8);
        a.op = "max".into();
        assert_eq!(pick_entry(&e, &a).unwrap().0, "reduce_s8_max_b512_f32");
        assert!(pick_entry(&e, &args(8)).is_err(), "no sum kernel in this PTX");
        let mut a = args(3);
        a.block = Some(128);
        assert!(pick_entry(&e, &a).is_err(), "stage 3 has no per-block kernels");
    }

    #[test]
    fn bad_arguments_are_errors() {
        assert!(ShowArgs::parse(&[]).is_err());
        assert!(ShowArgs::parse(&["9".into()]).is_err());
        assert!(ShowArgs::parse(&["x".into()]).is_err());
        assert!(ShowArgs::parse(&["3".into(), "--block".into()]).is_err());
        assert!(ShowArgs::parse(&["3".into(), "--frob".into()]).is_err());
    }

    #[test]
    fn columns_line_up() {
        let s = side_by_side("ab\ncdef", "1", 4);
        assert_eq!(s, "ab   │ 1\ncdef │ \n");
    }
}
