//! Measures what borrowing costs (feature `cudarc`), on GPU 0, as markdown tables:
//!
//! 1. a blocking `sum` of cudarc memory (`Backend::borrow_cudarc_slice`) against the same data
//!    in a library `Buffer`, 2^12 … 2^30 `f32`, alternating, min and median of 50 (host wall
//!    clock per call, the wait included);
//! 2. the host time of `Prepared::enqueue_on` (the launch on the caller's stream, no wait) per
//!    call, 2^16 `f32`, against a blocking `sum`;
//! 3. 100 reductions of 2^16 `f32` captured in a CUDA graph and replayed, against 100 blocking
//!    calls.
//!
//! ```sh
//! cargo run --release -p reduce-host --features cudarc --example interop_bench
//! ```

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr};
use cust::sys as cu;
use reduce_host::{Backend, Gpu, Op, Prepared, ReduceError, Reducer};
use std::sync::Arc;
use std::time::Instant;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// cudarc's errors (which are not `std::error::Error`) as this program's.
trait Cu<T> {
    fn cu(self) -> Res<T>;
}
impl<T> Cu<T> for Result<T, cudarc::driver::DriverError> {
    fn cu(self) -> Res<T> {
        self.map_err(|e| format!("cudarc: {e:?}").into())
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

/// Min and median of `v` (µs).
fn stats(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[0], v[v.len() / 2])
}

fn driver(r: cu::CUresult, what: &str) -> Res<()> {
    if r != cu::CUresult::CUDA_SUCCESS {
        return Err(format!("{what}: {r:?}").into());
    }
    Ok(())
}

/// An empty kernel taking stage 8's five 64-bit arguments: what a launch costs the host with
/// nothing of the library's around it.
const EMPTY_PTX: &str = ".version 7.0\n.target sm_70\n.address_size 64\n\
.visible .entry empty(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d, .param .u64 e)\n\
{\n\tret;\n}\n\0";

/// Host µs per `cuLaunchKernel` of [`EMPTY_PTX`] on `s`, as 20 samples of 100 launches each.
fn bare_launches(s: cu::CUstream, mut words: [u64; 5]) -> Res<Vec<f64>> {
    let (mut module, mut f): (cu::CUmodule, cu::CUfunction) =
        (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: the PTX is NUL-terminated text; the driver writes the module and function handles
    // into the locals, in the current (primary) context.
    unsafe {
        driver(
            cu::cuModuleLoadData(&mut module, EMPTY_PTX.as_ptr().cast()),
            "load the empty kernel",
        )?;
        driver(
            cu::cuModuleGetFunction(&mut f, module, c"empty".as_ptr()),
            "find the empty kernel",
        )?;
    }
    let mut params: Vec<*mut std::ffi::c_void> =
        words.iter_mut().map(|w| (w as *mut u64).cast()).collect();
    let mut samples = Vec::new();
    for i in 0..21 {
        let t = Instant::now();
        for _ in 0..100 {
            // SAFETY: `f` takes five u64 parameters, which `params` points at (alive for the
            // call, copied by the driver); the kernel touches no memory; `s` is a live stream.
            let r = unsafe {
                cu::cuLaunchKernel(
                    f,
                    1,
                    1,
                    1,
                    256,
                    1,
                    1,
                    0,
                    s,
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            };
            driver(r, "launch the empty kernel")?;
        }
        if i > 0 {
            samples.push(t.elapsed().as_secs_f64() * 1e6 / 100.0);
        }
        // SAFETY: a live stream of the current context.
        driver(unsafe { cu::cuStreamSynchronize(s) }, "wait")?;
    }
    // SAFETY: the stream is idle (synchronized above) and nothing uses the module after this.
    let r = unsafe { cu::cuModuleUnload(module) };
    driver(r, "unload the empty kernel")?;
    Ok(samples)
}

fn run() -> Res<()> {
    let backend = match Gpu::open() {
        Ok(g) => Backend::Gpu(g),
        Err(e @ (ReduceError::NoDriver(_) | ReduceError::NoDevice)) => {
            println!("SKIPPED: no GPU ({e})");
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    let ctx = CudaContext::new(0).cu()?;
    let stream: Arc<CudaStream> = ctx.new_stream().cu()?;
    println!("device: {}", backend.caps().name);
    let mut r = Reducer::new(&backend);

    println!("\n### Borrowed cudarc memory against a library buffer (blocking `sum`, f32)\n");
    println!("| n | buffer min µs | borrowed min µs | buffer median µs | borrowed median µs | borrowed/buffer (min) | same bits |");
    println!("|---|---:|---:|---:|---:|---:|---|");
    for e in (12..=30).step_by(2) {
        let n = 1usize << e;
        let host: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 * 0.001).collect();
        let buf = backend.upload(&host)?;
        let slice: CudaSlice<f32> = stream.clone_htod(&host).cu()?;
        drop(host);
        let view = backend.borrow_cudarc_slice(&slice)?;
        let (mut tb, mut tv) = (Vec::new(), Vec::new());
        let (mut sb, mut sv) = (0f32, 0f32);
        for i in 0..55 {
            let t = Instant::now();
            sb = r.sum(&buf)?;
            let b = t.elapsed().as_secs_f64() * 1e6;
            let t = Instant::now();
            sv = r.sum(view)?;
            let v = t.elapsed().as_secs_f64() * 1e6;
            if i >= 5 {
                tb.push(b);
                tv.push(v);
            }
        }
        let ((bmin, bmed), (vmin, vmed)) = (stats(tb), stats(tv));
        println!(
            "| 2^{e} | {bmin:.2} | {vmin:.2} | {bmed:.2} | {vmed:.2} | {:.4} | {} |",
            vmin / bmin,
            if sb.to_bits() == sv.to_bits() {
                "yes"
            } else {
                "NO"
            }
        );
    }

    let n = 1 << 16;
    let host: Vec<f32> = (0..n).map(|i| (i % 100) as f32).collect();
    let slice: CudaSlice<f32> = stream.clone_htod(&host).cu()?;
    let outs: CudaSlice<f32> = stream.alloc_zeros(100).cu()?;
    let (xp, _) = slice.device_ptr(&stream);
    let (op, _) = outs.device_ptr(&stream);
    stream.synchronize().cu()?;
    let s = stream.cu_stream() as cu::CUstream;
    // SAFETY: `slice` and `outs` outlive every use below (dropped at the end, after the stream
    // is synchronized); only this program's launches touch them meanwhile.
    let (input, out) = unsafe {
        (
            backend.borrow_raw::<f32>(xp, n)?,
            backend.borrow_raw::<f32>(op, 100)?,
        )
    };
    let plans = (0..100)
        .map(|_| Prepared::<f32>::for_stream(&backend, Op::Sum, n))
        .collect::<Result<Vec<_>, _>>()?;
    let enqueue_all = || -> Res<()> {
        for (k, p) in plans.iter().enumerate() {
            // SAFETY: as above; `s` is a live stream of the primary context; the 100 launches
            // run in order on one stream, each with its own workspace.
            unsafe { p.enqueue_on(&backend, s, input, out.slice(k..k + 1)?)? };
        }
        Ok(())
    };
    enqueue_all()?;
    stream.synchronize().cu()?;

    println!("\n### The caller's stream: host time per call, 2^16 f32\n");
    println!("| form | host µs per call (min of 20 × 100 calls) | median |");
    println!("|---|---:|---:|");
    let (mut tq, mut tb) = (Vec::new(), Vec::new());
    let buf = backend.upload(&host)?;
    for _ in 0..20 {
        let t = Instant::now();
        enqueue_all()?;
        tq.push(t.elapsed().as_secs_f64() * 1e6 / 100.0);
        stream.synchronize().cu()?;
        let t = Instant::now();
        for _ in 0..100 {
            r.sum(&buf)?;
        }
        tb.push(t.elapsed().as_secs_f64() * 1e6 / 100.0);
    }
    let ((qmin, qmed), (bmin, bmed)) = (stats(tq), stats(tb.clone()));
    println!("| `enqueue_on` (no wait) | {qmin:.2} | {qmed:.2} |");
    println!("| blocking `sum` | {bmin:.2} | {bmed:.2} |");
    let (lmin, lmed) = stats(bare_launches(s, [xp, n as u64, 0, 0, op])?);
    println!("| the driver alone: `cuLaunchKernel` of an empty kernel, five arguments | {lmin:.2} | {lmed:.2} |");

    let mut graph: cu::CUgraph = std::ptr::null_mut();
    let mut exec: cu::CUgraphExec = std::ptr::null_mut();
    use cu::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL as GLOBAL;
    // SAFETY: `s` is a live stream; capture, end and instantiate write locals.
    unsafe {
        driver(cu::cuStreamBeginCapture_v2(s, GLOBAL), "begin capture")?;
        let queued = enqueue_all();
        driver(cu::cuStreamEndCapture(s, &mut graph), "end capture")?;
        queued?;
        driver(
            cu::cuGraphInstantiateWithFlags(&mut exec, graph, 0),
            "instantiate",
        )?;
    }
    let mut tg = Vec::new();
    for i in 0..25 {
        let t = Instant::now();
        // SAFETY: `exec` is the instantiated graph; `s` a live stream.
        driver(unsafe { cu::cuGraphLaunch(exec, s) }, "graph launch")?;
        stream.synchronize().cu()?;
        if i >= 5 {
            tg.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    let got = stream.clone_dtoh(&outs).cu()?;
    let want = r.sum(&buf)?;
    let right = got.iter().all(|v| v.to_bits() == want.to_bits());
    let (gmin, gmed) = stats(tg);
    println!(
        "\n### 100 reductions of 2^16 f32: a replayed CUDA graph against 100 blocking calls\n"
    );
    println!("| form | min µs | median µs |");
    println!("|---|---:|---:|");
    println!("| graph replay (launch + wait) | {gmin:.1} | {gmed:.1} |");
    let (b100min, b100med) = stats(tb.iter().map(|t| t * 100.0).collect());
    println!("| 100 blocking `sum` calls | {b100min:.1} | {b100med:.1} |");
    println!(
        "\ngraph speed-up (min): {:.2}x; the graph's 100 results equal the blocking sum's bits: {}",
        b100min / gmin,
        if right { "yes" } else { "NO" }
    );
    // SAFETY: the graph and its instance are not used after this.
    unsafe {
        driver(cu::cuGraphExecDestroy(exec), "destroy graph exec")?;
        driver(cu::cuGraphDestroy(graph), "destroy graph")?;
    }
    if !right {
        return Err("a graph result differs".into());
    }
    Ok(())
}
