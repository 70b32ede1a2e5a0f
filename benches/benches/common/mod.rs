//! Shared by the criterion benchmark binaries: which backend they time, criterion's settings for
//! the axis and transform benchmarks, and their timing loop.
// Each binary uses some of these.
#![allow(dead_code)]

use criterion::Criterion;
use reduce_host::measure::{time_queued, TimingSpec};
use reduce_host::{Backend, BackendChoice, ReduceError, Result};
use std::time::Duration;

/// The CPU emulator when `REDUCE_BENCH_BACKEND=emu` (a smoke run), else the GPU.
pub fn backend_choice() -> BackendChoice {
    if std::env::var("REDUCE_BENCH_BACKEND").is_ok_and(|v| v == "emu") {
        BackendChoice::Emu
    } else {
        BackendChoice::Gpu
    }
}

/// The backend of [`backend_choice`] for the benchmarks `name`: `None`, said on stdout, when
/// there is no GPU; the process exits 1 when the GPU cannot be opened.
pub fn open_backend(name: &str) -> Option<Backend> {
    match Backend::open(backend_choice()) {
        Ok(b) => Some(b),
        Err(e @ (ReduceError::NoDriver(_) | ReduceError::NoDevice)) => {
            println!("reduce-benches ({name}): no CUDA GPU ({e}): skipping (REDUCE_BENCH_BACKEND=emu runs a smoke test)");
            None
        }
        Err(e) => {
            eprintln!("reduce-benches ({name}): cannot open the GPU: {e}");
            std::process::exit(1);
        }
    }
}

/// Criterion from the command line, for the benchmarks `name` on `b`: plots off without a font
/// (plotters with `ab_glyph` needs one), and short runs on the emulator.
pub fn criterion(name: &str, b: &Backend) -> Criterion {
    let mut c = Criterion::default().configure_from_args();
    if let Err(why) = reduce_benches::plot::register_system_font() {
        eprintln!("reduce-benches ({name}): {why}: criterion's plots are off");
        c = c.without_plots();
    }
    if b.is_emulator() {
        c = c
            .warm_up_time(Duration::from_millis(50))
            .measurement_time(Duration::from_millis(200))
            .sample_size(10);
    }
    c
}

/// The GPU time of `iters` runs of `enqueue` queued back to back (CUDA events), for criterion's
/// `iter_custom`.
pub fn queued(b: &Backend, iters: u64, enqueue: impl FnMut() -> Result<()>) -> Duration {
    let spec = TimingSpec::kernels(0, usize::try_from(iters).unwrap_or(1).max(1));
    let t = time_queued(b, &spec, enqueue).expect("timing");
    Duration::from_secs_f64(t.total() / 1e3)
}
