//! Times a cold start on the GPU: `Backend::open` (driver start-up, context, the kernels), the
//! first `f32` sum, then the first call of every other family, each in the process's first use.
//! Run it with the driver's JIT cache disabled, so the PTX figures are a real first start:
//!
//! ```sh
//! CUDA_CACHE_DISABLE=1 cargo run --release --example cold_open            # both paths
//! CUDA_CACHE_DISABLE=1 cargo run --release --example cold_open -- --ptx   # the PTX path only
//! ```
//!
//! `--embedded` loads what a device gets by default (the cubin of its architecture); `--ptx`
//! forces the embedded PTX (`REDUCE_KERNEL_IMAGE=ptx`): the driver JIT-compiles each kernel on
//! its first launch, as on a GPU no cubin runs on. Each mode runs in a fresh process (this
//! program re-runs itself), so each pays the driver's start-up like an application's first open.
//! Targets: open + first `f32` sum ≤ 0.5 s, the first call of any family ≤ 1 s.

use reduce_host::kernel_image::KernelSource;
use reduce_host::{AxisKind, Backend, Bf16, Gpu, Op, ReduceError, Reducer, Segments, F16};
use std::process::{Command, ExitCode};
use std::time::Instant;

fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("--embedded") => measure(KernelSource::Embedded),
        Some("--ptx") => measure(KernelSource::EmbeddedPtx),
        _ => {
            let exe = match std::env::current_exe() {
                Ok(e) => e,
                Err(e) => {
                    eprintln!("cannot find this executable: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let mut ok = true;
            for mode in ["--embedded", "--ptx"] {
                match Command::new(&exe).arg(mode).status() {
                    Ok(s) if s.success() => {}
                    Ok(s) => {
                        eprintln!("{mode}: {s}");
                        ok = false;
                    }
                    Err(e) => {
                        eprintln!("{mode}: cannot run {}: {e}", exe.display());
                        ok = false;
                    }
                }
            }
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// One family's first call: its name, and the call (which checks its own result).
type FirstCall = (&'static str, fn(&Backend) -> Result<bool, ReduceError>);

const N: usize = 1 << 20;

/// The first call of each family after the first sum, each checked against the known answer.
const FAMILIES: [FirstCall; 12] = [
    ("f64 sum", |b| {
        Ok(Reducer::new(b).sum(&b.upload(&vec![1.0f64; N])?)? == N as f64)
    }),
    ("i32 sum (64-bit)", |b| {
        Ok(Reducer::new(b).sum(&b.upload(&vec![3i32; N])?)? == 3 * N as i64)
    }),
    ("f32 max", |b| {
        Ok(Reducer::new(b).max(&b.upload(&ramp(N))?)? == Some((N - 1) as f32))
    }),
    ("f32 nanmean", |b| {
        Ok(Reducer::new(b).nanmean(&b.upload(&vec![2.0f32; N])?)? == 2.0)
    }),
    ("f32 argmax", |b| {
        Ok(Reducer::new(b).argmax(&b.upload(&ramp(N))?)?.0 == N - 1)
    }),
    ("f32 norm2", |b| {
        Ok(Reducer::new(b).norm2(&b.upload(&vec![1.0f32; N])?)? == 1024.0)
    }),
    ("f32 var", |b| {
        Ok(Reducer::new(b).var(&b.upload(&vec![5.0f32; N])?, 0)? == 0.0)
    }),
    ("f32 sum_exact", |b| {
        Ok(Reducer::new(b).sum_exact(&b.upload(&vec![0.5f32; N])?)? == 0.5 * N as f32)
    }),
    ("f16 sum", |b| {
        Ok(Reducer::new(b).sum(&b.upload(&vec![F16::from_f32(1.0); N])?)? == N as f32)
    }),
    ("bf16 argmin", |b| {
        Ok(Reducer::new(b)
            .argmin(&b.upload(&vec![Bf16::from_f32(1.0); N])?)?
            .0
            == 0)
    }),
    ("f32 rows (1024 x 1024)", |b| {
        let out =
            Reducer::new(b).mean_axis(AxisKind::Rows, &b.upload(&vec![1.0f32; N])?, 1024, 1024)?;
        Ok(out.iter().all(|&m| m == 1.0))
    }),
    ("f32 segments", |b| {
        let segs = Segments::new(b, &[0, 10], &[10, N as u64], N)?;
        let out = Reducer::new(b).reduce_segments(Op::Sum, &b.upload(&vec![1.0f32; N])?, &segs)?;
        Ok(b.download(&out, 2)? == [10.0, (N - 10) as f32])
    }),
];

fn ramp(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32).collect()
}

fn seconds(start: Instant) -> f64 {
    start.elapsed().as_secs_f64()
}

/// One cold start in this process, its kernels from `source`.
fn measure(source: KernelSource<'static>) -> ExitCode {
    let cache = std::env::var("CUDA_CACHE_DISABLE").unwrap_or_default();
    let start = Instant::now();
    let opened = Gpu::open_source(source).map(Backend::Gpu);
    let open = seconds(start);
    let backend = match opened {
        Ok(b) => b,
        Err(e) => {
            // No GPU is not a failure of this program: it measures GPUs.
            println!("cold open: no GPU to time ({e})");
            return ExitCode::SUCCESS;
        }
    };
    let caps = backend.caps();
    let image = backend
        .gpu()
        .map(|g| g.kernel_image().describe())
        .unwrap_or_default();
    println!(
        "cold open: {open:.3} s  {} (sm_{}{}) as {image}, CUDA_CACHE_DISABLE={cache}",
        caps.name, caps.compute_capability.0, caps.compute_capability.1,
    );
    let data = vec![1.0f32; N];
    let t = Instant::now();
    let first = backend
        .upload(&data)
        .and_then(|input| Reducer::new(&backend).sum(&input));
    let first_sum = seconds(t);
    match first {
        Ok(sum) if sum == N as f32 => {}
        Ok(sum) => {
            println!("first sum of 2^20 ones returned {sum}: wrong");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            println!("first sum failed: {e}");
            return ExitCode::FAILURE;
        }
    }
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    println!(
        "first f32 sum of 2^20 (upload included): {first_sum:.3} s; open + first sum {:.3} s, target <= 0.5 s: {}",
        open + first_sum,
        verdict(open + first_sum <= 0.5)
    );
    let mut ok = true;
    let mut slowest = 0.0f64;
    for (name, call) in FAMILIES {
        let t = Instant::now();
        let result = call(&backend);
        let secs = seconds(t);
        slowest = slowest.max(secs);
        match result {
            Ok(true) => println!("first {name} (2^20, upload included): {secs:.3} s"),
            Ok(false) => {
                println!("first {name}: wrong result");
                ok = false;
            }
            Err(e) => {
                println!("first {name} failed: {e}");
                ok = false;
            }
        }
    }
    println!(
        "slowest first call of a family: {slowest:.3} s, target <= 1 s: {}",
        verdict(slowest <= 1.0)
    );
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
