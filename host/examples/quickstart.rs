//! Quickstart: reduce a million numbers on the GPU, or on the CPU emulator when there is none.
//!
//! ```sh
//! cargo run --release --example quickstart            # GPU if there is one, else the emulator
//! cargo run --release --example quickstart -- emu     # force the emulator (gpu: force the GPU)
//! ```

use reduce_host::{run_stage, Backend, BackendChoice, LaunchOverrides, Op, Reducer, Stage};

fn main() -> Result<(), reduce_host::ReduceError> {
    let choice = match std::env::args().nth(1).as_deref() {
        Some("gpu") => BackendChoice::Gpu,
        Some("emu") => BackendChoice::Emu,
        _ => BackendChoice::Auto,
    };
    let backend = Backend::open(choice)?;
    let caps = backend.caps();
    if backend.is_emulator() {
        println!(
            "backend: {} (no GPU: every GPU thread runs on the CPU)",
            caps.name
        );
    } else {
        let (major, minor) = caps.compute_capability;
        let image = reduce_host::kernel_image::KernelSource::Embedded.image_for((major, minor));
        println!(
            "backend: {} (sm_{major}{minor}, {} SMs; kernels loaded as {})",
            caps.name,
            caps.sm_count,
            image.describe()
        );
    }

    // 1,000,003 values 0..=6: not a power of two, and the f32 sum (3,000,003) is exact.
    let n = 1_000_003;
    let data: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let expected: f64 = data.iter().map(|&x| x as f64).sum();
    let input = backend.upload(&data)?;

    // The main API: stage 8 (one launch), tuned for this device; plans and workspaces are cached.
    let mut reducer = Reducer::new(&backend);
    let sum = reducer.sum(&input)?;
    let min = reducer.min(&input)?;
    let max = reducer.max(&input)?;
    let mean = reducer.mean(&input)?;
    println!("stage 8 on {n} f32: sum = {sum}, min = {min:?}, max = {max:?}, mean = {mean:.6}");

    // Any rung of the ladder, e.g. stage 3 (sequential addressing, one pass per partial level).
    let s3 = run_stage(
        &backend,
        Stage::S3,
        Op::Sum,
        &input,
        n,
        LaunchOverrides::default(),
    )?;
    println!("stage 3 on the same input: sum = {s3}");

    let ok = sum as f64 == expected
        && s3 as f64 == expected
        && min == Some(0.0)
        && max == Some(6.0)
        && (mean - expected / n as f64).abs() < 1e-9;
    println!(
        "host check (f64 sum {expected}): {}",
        if ok { "ok" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
