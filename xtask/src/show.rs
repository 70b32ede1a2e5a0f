//! `cargo xtask ptx <stage>`: a stage's Rust source beside the PTX rustc made of it, the ptxas
//! resource line for sm_90 and, where the CUDA toolkit's `nvdisasm` is found, the SASS.
//!
//! Works without a GPU: it needs the PTX (`build-ptx` refreshes `host/prebuilt/` first) and, for
//! the resource line and the SASS, `ptxas` (installed by `.ci/install-deps.sh`) and `nvdisasm` (a
//! CUDA toolkit, or PyPI's `nvidia-cuda-nvdisasm`). Which kernel a stage means comes from the
//! kernel table (`reduce_kernels::table`): its symbol, element types, operators and block sizes.

use anyhow::{bail, Context, Result};
use reduce_kernels::table::{Abi, ElemType, Family, KernelId, Op, Row};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Usage line of `cargo xtask ptx`.
pub const USAGE: &str =
    "cargo xtask ptx <stage 1-8> [--type f32] [--op sum] [--block N] [--stacked] [--sass]";

/// What to show, from the command line.
#[derive(Debug)]
pub struct ShowArgs {
    /// Stage number, 1..=8.
    pub stage: usize,
    /// Element type (`f32`, `i32`, …).
    pub ty: String,
    /// Operator (`sum`, `min`, `max`; only stage 8 has more than one).
    pub op: String,
    /// Block size, for the stages compiled once per block size (6, 7, 8).
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
            .with_context(|| format!("usage: {USAGE}"))?
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
                other => bail!("unknown option {other}\nusage: {USAGE}"),
            }
        }
        Ok(out)
    }
}

/// The table row of ladder stage `stage` (1..=8).
fn stage_row(stage: usize) -> &'static Row {
    const LADDER: [Family; 8] = [
        Family::S1,
        Family::S2,
        Family::S3,
        Family::S4,
        Family::S5,
        Family::S6,
        Family::S7,
        Family::S8,
    ];
    Row::of(LADDER[stage - 1])
}

fn names<T: Copy>(items: &[T], name: impl Fn(T) -> String) -> String {
    items
        .iter()
        .map(|&i| name(i))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The one of `items` whose `name` is `want`, else an error: "`what` NAMES, not `want`".
fn named<T: Copy>(items: &[T], name: fn(T) -> &'static str, want: &str, what: &str) -> Result<T> {
    items
        .iter()
        .copied()
        .find(|&i| name(i) == want)
        .with_context(|| format!("{what} {}, not {want}", names(items, |i| name(i).into())))
}

/// The kernel that `args` names: the stage's row of the kernel table, with the type, operator and
/// block size checked against what the row builds. The block size defaults to the host's (512 for
/// stage 8, 256 otherwise); for the stages that read `blockDim.x` at run time one kernel serves
/// every block size, and `--block` is refused as meaningless.
pub fn kernel_for(args: &ShowArgs) -> Result<KernelId> {
    let row = stage_row(args.stage);
    let what = format!("stage {}", args.stage);
    let ty = named(
        row.types,
        ElemType::name,
        &args.ty,
        &format!("{what} is built for"),
    )?;
    let op = named(row.ops, Op::name, &args.op, &format!("{what} computes"))?;
    let default_block = if row.abi == Abi::SinglePass { 512 } else { 256 };
    let block = match (row.block_in_name, args.block) {
        (true, b) => b.unwrap_or(default_block),
        (false, None) => default_block,
        (false, Some(b)) => bail!(
            "stage {} has one kernel for every block size (it reads blockDim.x): drop --block {b}",
            args.stage
        ),
    };
    let id = KernelId {
        family: row.family,
        ty,
        op,
        block,
    };
    if !id.is_built() {
        bail!(
            "stage {} is built for blocks of {} threads, not {block}",
            args.stage,
            names(row.blocks, |b: usize| b.to_string())
        );
    }
    Ok(id)
}

/// The stage's source file under `kernels/src/stages/`.
pub fn stage_source(root: &Path, stage: usize) -> Result<PathBuf> {
    let dir = root.join("kernels/src/stages");
    let prefix = format!("s{stage}_");
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with(&prefix) && name.ends_with(".rs") {
            return Ok(path);
        }
    }
    bail!("no source file {prefix}*.rs in {}", dir.display())
}

/// Every `.entry` of the PTX with its text (from `.visible .entry` to the closing brace).
pub fn entries(ptx: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = ptx.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix(".visible .entry ") else {
            continue;
        };
        let name = rest
            .split('(')
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
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

/// Two texts as columns of `width` characters each.
pub fn side_by_side(left: &str, right: &str, width: usize) -> String {
    let l: Vec<&str> = left.lines().collect();
    let r: Vec<&str> = right.lines().collect();
    let mut out = String::new();
    for i in 0..l.len().max(r.len()) {
        let a = l.get(i).copied().unwrap_or("").replace('\t', "    ");
        let a: String = a.chars().take(width).collect();
        let b = r.get(i).copied().unwrap_or("").replace('\t', "    ");
        let _ = writeln!(out, "{a:<width$} │ {b}");
    }
    out
}

/// A tool of the CUDA toolkit: on the PATH, in `/usr/local/cuda/bin`, or in one of python3's
/// `nvidia-*` PyPI packages.
pub fn find_tool(name: &str) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|f| f.is_file())
    });
    let cuda = Path::new("/usr/local/cuda/bin").join(name);
    on_path
        .or_else(|| cuda.is_file().then_some(cuda))
        .or_else(|| {
            let out = Command::new("python3")
                .args(["-c", "import nvidia, os; print(list(nvidia.__path__)[0])"])
                .output()
                .ok()?;
            let nvidia = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
            std::fs::read_dir(&nvidia)
                .ok()?
                .filter_map(|e| e.ok())
                .map(|e| e.path().join("bin").join(name))
                .find(|f| f.is_file())
        })
}

/// The whole comparison for `args`, from the PTX at `ptx`: Rust beside PTX, then the ptxas
/// resource line (when `ptxas` is given) and the SASS (when `args.sass` and `nvdisasm`).
pub fn render(
    root: &Path,
    ptx: &Path,
    ptxas: Option<&Path>,
    nvdisasm: Option<&Path>,
    args: &ShowArgs,
) -> Result<String> {
    let id = kernel_for(args)?;
    let symbol = id.symbol();
    let name = symbol.as_str();
    let src_path = stage_source(root, args.stage)?;
    let source = std::fs::read_to_string(&src_path)?;
    let text =
        std::fs::read_to_string(ptx).with_context(|| format!("reading {}", ptx.display()))?;
    let all = entries(&text);
    let Some((_, body)) = all.iter().find(|(n, _)| n == name) else {
        bail!(
            "{} has no entry {name}: run `cargo xtask build-ptx`",
            ptx.display()
        );
    };

    let mut out = String::new();
    let rel = src_path.strip_prefix(root).unwrap_or(&src_path).display();
    let head_l = format!("── Rust: {rel}");
    let head_r = format!("── PTX: {name} ({} lines)", body.lines().count());
    if args.stacked {
        let _ = writeln!(out, "{head_l}\n{source}\n{head_r}\n{body}");
    } else {
        // Side by side, the code faces the PTX: the module doc (the lesson, and the PTX lines it
        // quotes) is left out here; --stacked prints the whole file.
        let code: Vec<&str> = source
            .lines()
            .skip_while(|l| l.starts_with("//!"))
            .collect();
        let head_l = format!("{head_l} (without its module doc: --stacked shows it)");
        out += &side_by_side(
            &format!("{head_l}\n{}", code.join("\n")),
            &format!("{head_r}\n{body}"),
            100,
        );
    }

    let Some(ptxas) = ptxas else {
        out +=
            "(ptxas not found: no resource line or SASS; `bash .ci/install-deps.sh` installs it)\n";
        return Ok(out);
    };
    let cubin = std::env::temp_dir().join(format!("xtask-ptx-{}-{name}.cubin", std::process::id()));
    let ptxas_args = ["-arch", crate::ptx::SHOW_ARCH, "-O3", "-v", "-e", name];
    let (ok, report) = crate::ptxas::run_ptxas(ptxas, &ptxas_args, ptx, &cubin)?;
    if !ok {
        let _ = std::fs::remove_file(&cubin);
        bail!("ptxas failed on {name}:\n{report}");
    }
    let _ = writeln!(
        out,
        "── ptxas -arch {} -O3 -v, entry {name}:",
        crate::ptx::SHOW_ARCH
    );
    for line in report
        .lines()
        .filter(|l| l.contains("Used") || l.contains("stack frame"))
    {
        let _ = writeln!(out, "   {}", line.trim_start_matches("ptxas info    : "));
    }
    if args.sass {
        match nvdisasm {
            Some(nvdisasm) => {
                let dis = Command::new(nvdisasm)
                    .args(["-c", "-g"])
                    .arg(&cubin)
                    .output()
                    .with_context(|| format!("running {}", nvdisasm.display()));
                let _ = std::fs::remove_file(&cubin);
                let dis = dis?;
                if !dis.status.success() {
                    bail!(
                        "nvdisasm failed on {name}:\n{}",
                        String::from_utf8_lossy(&dis.stderr)
                    );
                }
                let _ = writeln!(out, "── SASS (nvdisasm -c -g) of {name}:");
                out += &String::from_utf8_lossy(&dis.stdout);
            }
            None => {
                out += "(no nvdisasm: a CUDA toolkit or `pip install nvidia-cuda-nvdisasm` gives the SASS)\n"
            }
        }
    }
    let _ = std::fs::remove_file(&cubin);
    Ok(out)
}

#[cfg(test)]
mod tests;
