//! `ptxas`: finding it, running it on each architecture's PTX (as many at once as there are
//! cores), and reading its report (registers, spills, stack per kernel).

use crate::ptx::{target_of, LibraryPtx, ARCHS};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// One ptxas run: `arch`'s SASS assembled from `ptx` into `cubin`.
#[derive(Clone, Debug)]
pub struct PtxasJob {
    pub arch: &'static str,
    pub ptx: PathBuf,
    pub cubin: PathBuf,
}

/// The jobs for a single PTX (a user's crate, `build-ptx --crate`): every architecture of
/// [`ARCHS`] from it, into [`cubin_path`].
pub fn jobs_for(ptx: &Path) -> Vec<PtxasJob> {
    ARCHS
        .iter()
        .map(|&arch| PtxasJob {
            arch,
            ptx: ptx.to_path_buf(),
            cubin: cubin_path(ptx, arch),
        })
        .collect()
}

/// Run `job` with `ptxas -v -O3` and parse its report.
pub fn ptxas_check(ptxas: &Path, job: &PtxasJob) -> Result<Vec<KernelResources>> {
    let (ok, text) = run_ptxas(
        ptxas,
        &["-arch", job.arch, "-v", "-O3"],
        &job.ptx,
        &job.cubin,
    )?;
    if !ok {
        bail!(
            "ptxas rejected {} for {}:\n{text}",
            job.ptx.display(),
            job.arch
        );
    }
    let kernels = parse_report(&text);
    if kernels.is_empty() {
        bail!(
            "ptxas accepted {} for {} but reported no kernels:\n{text}",
            job.ptx.display(),
            job.arch
        );
    }
    Ok(kernels)
}

/// [`ptxas_check`] for every job, as many at once as there are cores (each ptxas is one thread
/// and takes about a minute on the library's PTX): `(arch, kernels)` in the jobs' order.
pub fn ptxas_check_all(
    ptxas: &Path,
    jobs: &[PtxasJob],
) -> Result<Vec<(&'static str, Vec<KernelResources>)>> {
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(jobs.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let r = ptxas_check(ptxas, job);
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((i, job.arch, r));
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

/// ptxas's jobs for the library's builds: every architecture of [`ARCHS`] with the PTX of its generation and the cubin
/// it writes (`target/ptx/reduce_kernels.{arch}.cubin`, the name `host/prebuilt/` ships).
pub fn library_jobs(lib: &LibraryPtx) -> Result<Vec<PtxasJob>> {
    ARCHS
        .iter()
        .map(|&arch| {
            let target = target_of(arch)
                .with_context(|| format!("{arch} is in ARCHS but in no row of TARGETS"))?;
            let (_, ptx) = lib
                .builds
                .iter()
                .find(|(t, _)| *t == target)
                .with_context(|| format!("no PTX was built for {}", target.cpu))?;
            Ok(PtxasJob {
                arch,
                ptx: ptx.clone(),
                cubin: cubin_path(lib.portable(), arch),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::TARGETS;

    #[test]
    fn a_single_ptx_gives_every_arch_its_own_cubin() {
        let jobs = jobs_for(Path::new("/x/custom_op.ptx"));
        assert_eq!(jobs.len(), ARCHS.len());
        assert_eq!(jobs[5].cubin, Path::new("/x/custom_op.sm_90.cubin"));
        let lib = LibraryPtx {
            builds: TARGETS
                .iter()
                .map(|t| (*t, PathBuf::from("/t/ptx").join(t.file)))
                .collect(),
        };
        let jobs = library_jobs(&lib).unwrap();
        let sm_86 = jobs.iter().find(|j| j.arch == "sm_86").unwrap();
        assert_eq!(sm_86.ptx, Path::new("/t/ptx/reduce_kernels.sm_80.ptx"));
        assert_eq!(sm_86.cubin, Path::new("/t/ptx/reduce_kernels.sm_86.cubin"));
        let sm_75 = jobs.iter().find(|j| j.arch == "sm_75").unwrap();
        assert_eq!(sm_75.ptx, Path::new("/t/ptx/reduce_kernels.ptx"));
    }
}
