//! Run this crate's `custom_minmaxabs_f32` kernel through `reduce_host::CustomReduction`: from
//! its PTX on a GPU (`cargo xtask build-ptx --crate examples/custom-op` writes
//! `target/ptx/custom_op.ptx`), or compiled for the host on the CPU emulator; check it against a
//! CPU fold and time it with CUDA events.
//!
//! `run [PTX] [N]` — PTX defaults to `target/ptx/custom_op.ptx`; without a GPU (or with
//! `REDUCE_BACKEND=emu`) the emulator runs it. Prints one line of text and one JSON line; exits
//! non-zero if the result is wrong.

use custom_op::{MinMaxAbs, BLOCK};
use reduce_host::measure::{time_queued, TimingSpec};
use reduce_host::{Backend, BackendChoice, CustomKernel, CustomReduction};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let ptx_path = args
        .next()
        .unwrap_or_else(|| "target/ptx/custom_op.ptx".into());
    let choice = match std::env::var("REDUCE_BACKEND").as_deref() {
        Ok("emu") => BackendChoice::Emu,
        Ok("gpu") => BackendChoice::Gpu,
        _ => BackendChoice::Auto,
    };
    let backend = Backend::open(choice)?;
    let n: usize = match args.next() {
        Some(s) => s.parse()?,
        None if backend.is_emulator() => 1 << 16,
        None => 1 << 26,
    };
    let ptx = if backend.is_emulator() {
        String::new()
    } else {
        std::fs::read_to_string(&ptx_path).map_err(|e| format!("reading {ptx_path}: {e}"))?
    };
    let kernel = CustomKernel {
        symbol: "custom_minmaxabs_f32",
        ptx: &ptx,
        emulated: Some(custom_op::custom_minmaxabs_f32),
        block: BLOCK,
    };
    // SAFETY: `custom_minmaxabs_f32` (this crate, in the PTX and compiled for the host) is an item
    // kernel for f32 → MinMaxAbs, instantiated with BLOCK threads.
    let op = unsafe { CustomReduction::<f32, MinMaxAbs>::load(&backend, kernel) }?;
    let x: Vec<f32> = (0..n)
        .map(|i| ((i as u64).wrapping_mul(2_654_435_761) % 1_000_003) as f32 / 1e4 - 50.0)
        .collect();
    let input = backend.upload(&x)?;
    let p = op.prepare(n)?;
    p.enqueue(&input, 0)?;
    let got = p.read()?;
    let want = MinMaxAbs {
        min: x.iter().copied().fold(f32::INFINITY, f32::min),
        max: x.iter().copied().fold(f32::NEG_INFINITY, f32::max),
        max_abs: x.iter().map(|v| v.abs()).fold(0.0, f32::max),
    };
    let runs = if backend.is_emulator() { 3 } else { 50 };
    let t = time_queued(&backend, &TimingSpec::kernels(5, runs), || {
        p.enqueue(&input, 0)
    })?;
    let ok = got == want;
    let gbps = (n * 4) as f64 / (t.min() * 1e-3) / 1e9;
    println!(
        "custom_minmaxabs_f32 on {} ({}), n = {n}: {got:?} (CPU {want:?}) {}; min {:.2} us, median {:.2} us, {gbps:.1} GB/s",
        backend.caps().name,
        if backend.is_emulator() { "emulated Rust" } else { ptx_path.as_str() },
        if ok { "ok" } else { "WRONG" },
        t.min() * 1e3,
        t.median() * 1e3,
    );
    println!(
        "{{\"impl\":\"custom_minmaxabs_f32\",\"n\":{n},\"ok\":{ok},\"min\":{},\"max\":{},\"max_abs\":{},\"min_us\":{},\"median_us\":{},\"gbps\":{gbps}}}",
        got.min,
        got.max,
        got.max_abs,
        t.min() * 1e3,
        t.median() * 1e3
    );
    if !ok {
        return Err("the custom kernel's result differs from the CPU fold".into());
    }
    Ok(())
}
