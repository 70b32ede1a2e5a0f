//! Fill a `CudaSlice<f32>` with a cudarc kernel (hand-written PTX), then reduce it where it lies
//! with reduce-host: `Backend::borrow_cudarc_slice` makes a `View` of cudarc's memory (the
//! library joins the device's primary context, cudarc's), and every `Reducer` method takes it.
//! Prints the results and the host references; exits 1 if they differ, and with no GPU prints
//! why it skipped and exits 0.
//!
//! Run: `cargo run -p cudarc-interop --release`.

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use reduce_host::{Backend, Gpu, Reducer};

/// `fill(float* out, u64 n)`: `out[i] = (i mod 1024) / 4` for `i < n`.
const FILL_PTX: &str = r#"
.version 7.0
.target sm_52
.address_size 64

.visible .entry fill(
    .param .u64 out,
    .param .u64 n
)
{
    .reg .pred %p;
    .reg .b32 %r<6>;
    .reg .b64 %rd<7>;
    .reg .f32 %f<3>;

    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [n];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.u32 %r4, %r1, %r2, %r3;
    cvt.u64.u32 %rd3, %r4;
    setp.ge.u64 %p, %rd3, %rd2;
    @%p bra DONE;
    and.b32 %r5, %r4, 1023;
    cvt.rn.f32.u32 %f1, %r5;
    mul.f32 %f2, %f1, 0f3E800000;
    cvta.to.global.u64 %rd4, %rd1;
    shl.b64 %rd5, %rd3, 2;
    add.s64 %rd6, %rd4, %rd5;
    st.global.f32 [%rd6], %f2;
DONE:
    ret;
}
"#;

fn main() {
    match run() {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

/// `Ok(false)` when a result differs from its reference.
fn run() -> Result<bool, Box<dyn std::error::Error>> {
    // The library first: without a driver or GPU, cudarc (loaded at run time) would panic.
    let gpu = match Gpu::open() {
        Ok(g) => g,
        Err(e) => {
            println!("SKIPPED: no GPU to run on ({e})");
            return Ok(true);
        }
    };
    let backend = Backend::Gpu(gpu);
    let ctx = CudaContext::new(0).map_err(|e| format!("cudarc: {e:?}"))?;
    let stream = ctx.default_stream();
    let n: usize = 10_000_019;

    // cudarc's own allocation and kernel.
    let module = ctx
        .load_module(Ptx::from_src(FILL_PTX))
        .map_err(|e| format!("loading the fill PTX: {e:?}"))?;
    let fill = module.load_function("fill").map_err(|e| format!("{e:?}"))?;
    let mut x = stream.alloc_zeros::<f32>(n).map_err(|e| format!("{e:?}"))?;
    let n64 = n as u64;
    let mut launch = stream.launch_builder(&fill);
    launch.arg(&mut x).arg(&n64);
    // SAFETY: `fill` takes (float*, u64) and writes `out[i]` for `i < n` only; `x` holds `n`.
    unsafe { launch.launch(LaunchConfig::for_num_elems(n as u32)) }
        .map_err(|e| format!("launching fill: {e:?}"))?;

    // Reduce it in place: a view borrowing the slice (it waits for the fill).
    let mut r = Reducer::new(&backend);
    let v = backend.borrow_cudarc_slice(&x)?;
    let sum = r.sum(v)?;
    let exact = r.sum_exact(v)?;
    let max = r.max(v)?.unwrap_or(f32::NAN);
    let (at, _) = r.argmax(v)?;
    let tail = r.sum(v.slice(n - 1000..)?)?;

    // The references, from the same formula on the host.
    let value = |i: usize| (i % 1024) as f64 / 4.0;
    let reference: f64 = (0..n).map(value).sum();
    let tail_reference: f64 = (n - 1000..n).map(value).sum();
    let rel = |got: f32, want: f64| (got as f64 - want).abs() / want.abs().max(1.0);
    let checks = [
        ("sum", sum as f64, reference, rel(sum, reference) < 1e-5),
        (
            "sum_exact",
            exact as f64,
            reference,
            exact == reference as f32,
        ),
        ("max", max as f64, 255.75, max == 255.75),
        ("argmax", at as f64, 1023.0, at == 1023),
        (
            "sum of the last 1000",
            tail as f64,
            tail_reference,
            rel(tail, tail_reference) < 1e-6,
        ),
    ];
    let mut ok = true;
    for (what, got, want, good) in checks {
        println!(
            "{what:>22}: {got:>18.3}  reference {want:>18.3}  {}",
            if good { "ok" } else { "DIFFERS" }
        );
        ok &= good;
    }
    Ok(ok)
}
