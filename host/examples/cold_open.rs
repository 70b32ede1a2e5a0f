//! Times a cold `Backend::open` on the GPU: driver start-up, context creation and loading the
//! kernels (the sm_90 cubin on an H100/H200, the PTX JIT-compiled elsewhere), then the same with
//! the PTX forced, for comparison. Run it with the driver's JIT cache disabled, so the PTX figure
//! is a real first start:
//!
//! ```sh
//! CUDA_CACHE_DISABLE=1 cargo run --release --example cold_open
//! ```
//!
//! Each measurement runs in a fresh process (this program re-runs itself), so each pays the
//! driver's start-up like a first `Backend::open` in an application does.

use reduce_host::kernel_image::{embedded_ptx, KernelSource, EMBEDDED_ORIGIN};
use reduce_host::{Backend, BackendChoice, Gpu, ReduceError, Reducer};
use std::process::{Command, ExitCode};
use std::time::Instant;

fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("--embedded") => measure(false),
        Some("--ptx") => measure(true),
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

/// One cold open in this process; `force_ptx` loads a copy of the PTX that differs from the
/// embedded one by a trailing newline, so the cubin is not selected and the driver JIT-compiles.
fn measure(force_ptx: bool) -> ExitCode {
    let cache = std::env::var("CUDA_CACHE_DISABLE").unwrap_or_default();
    let start = Instant::now();
    let opened: Result<Backend, ReduceError> = if force_ptx {
        embedded_ptx().and_then(|ptx| {
            let copy = format!("{ptx}\n");
            Gpu::open_with_ptx(&copy, "the embedded PTX (forced JIT)").map(Backend::Gpu)
        })
    } else {
        Backend::open(BackendChoice::Gpu)
    };
    let secs = start.elapsed().as_secs_f64();
    let backend = match opened {
        Ok(b) => b,
        Err(e) => {
            // No GPU is not a failure of this program: it measures GPUs.
            println!("cold open: no GPU to time ({e})");
            return ExitCode::SUCCESS;
        }
    };
    let caps = backend.caps();
    let image = if force_ptx {
        KernelSource::Ptx {
            text: "",
            origin: "",
        }
        .image_for(caps.compute_capability)
    } else {
        KernelSource::Embedded.image_for(caps.compute_capability)
    };
    let kernels = embedded_ptx().map_or(0, |p| p.matches(".visible .entry ").count());
    println!(
        "cold open: {secs:.3} s  {} (sm_{}{}), {kernels} kernels from {} as {}, CUDA_CACHE_DISABLE={cache}",
        caps.name,
        caps.compute_capability.0,
        caps.compute_capability.1,
        if force_ptx { "a copy of the PTX" } else { EMBEDDED_ORIGIN },
        image.describe(),
    );
    // The first reduction after the open: with the driver's lazy loading (CUDA 12.2+ default) a
    // kernel is set up at its first use, so this shows what a first call costs on top.
    let data = vec![1.0f32; 1 << 20];
    let start = Instant::now();
    let first = backend
        .upload(&data)
        .and_then(|input| Reducer::new(&backend).sum(&input));
    match first {
        Ok(sum) if sum == data.len() as f32 => println!(
            "first sum of 2^20 ones after the open: {:.3} s (upload included), result {sum}",
            start.elapsed().as_secs_f64()
        ),
        Ok(sum) => {
            println!("first sum of 2^20 ones returned {sum}: wrong");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            println!("first sum failed: {e}");
            return ExitCode::FAILURE;
        }
    }
    if !force_ptx {
        let verdict = if secs <= 0.5 { "met" } else { "MISSED" };
        println!("cold open target <= 0.5 s: {verdict}");
    }
    ExitCode::SUCCESS
}
