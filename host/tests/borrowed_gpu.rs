//! Device memory the library did not allocate (cudarc's), reduced in place, and reductions
//! queued on the caller's streams and in a CUDA graph. They need an NVIDIA GPU; without one
//! every test is reported as **ignored** with the reason printed first (as `tests/gpu.rs`).
//! Run: `cargo test -p reduce-host --features cudarc --test borrowed_gpu`.

mod common;
#[path = "borrowed_gpu/families.rs"]
mod families;

use common::data;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr};
use cust::sys as cu;
use libtest_mimic::{Arguments, Failed, Trial};
use reduce_host::*;
use std::sync::Arc;

type Test = fn() -> Result<(), Failed>;

fn gpu() -> Backend {
    Backend::Gpu(Gpu::open().expect("the GPU was there when the tests started"))
}

/// cudarc's context of GPU 0 (the primary one) and a stream of it.
fn cudarc() -> Result<(Arc<CudaContext>, Arc<CudaStream>), Failed> {
    let ctx = CudaContext::new(0).map_err(|e| format!("cudarc: {e:?}"))?;
    let stream = ctx.new_stream().map_err(|e| format!("cudarc: {e:?}"))?;
    Ok((ctx, stream))
}

fn upload<T: cudarc::driver::DeviceRepr>(
    s: &Arc<CudaStream>,
    v: &[T],
) -> Result<CudaSlice<T>, Failed> {
    s.clone_htod(v)
        .map_err(|e| format!("cudarc upload: {e:?}").into())
}

/// The raw device address of a cudarc slice (its writes waited for).
fn raw<T>(s: &CudaSlice<T>, stream: &CudaStream) -> u64 {
    let (p, _read) = s.device_ptr(stream);
    stream.synchronize().expect("cudarc stream");
    p
}

fn same<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<(), Failed> {
    println!("{what}: borrowed {got:?}, buffer {want:?}");
    if got != want {
        return Err(format!("{what}: borrowed gave {got:?}, the library buffer {want:?}").into());
    }
    Ok(())
}

fn the_library_joins_the_primary_context() -> Result<(), Failed> {
    let b = gpu();
    let (ctx, _) = cudarc()?;
    let ours = b.gpu().expect("a GPU").cu_context() as usize;
    let theirs = ctx.cu_ctx() as usize;
    println!("library context {ours:#x}, cudarc (primary) context {theirs:#x}");
    if ours != theirs {
        return Err("the library's context is not the device's primary context".into());
    }
    Ok(())
}

fn cudarc_memory_reduces_like_a_buffer() -> Result<(), Failed> {
    let b = gpu();
    let (_ctx, stream) = cudarc()?;
    let mut r = Reducer::new(&b);
    let n = 1_000_003;
    let d: Vec<f32> = data::<f32>(n, 11);
    let slice = upload(&stream, &d)?;
    let buf = b.upload(&d)?;
    let v = b.borrow_cudarc_slice(&slice)?;
    if !v.is_borrowed() || v.len() != n {
        return Err("the view is not the borrowed slice".into());
    }
    same("sum", r.sum(v)?.to_bits(), r.sum(&buf)?.to_bits())?;
    same("min", r.min(v)?, r.min(&buf)?)?;
    same("max", r.max(v)?, r.max(&buf)?)?;
    same("mean", r.mean(v)?.to_bits(), r.mean(&buf)?.to_bits())?;
    same("argmax", r.argmax(v)?, r.argmax(&buf)?)?;
    same("norm2", r.norm2(v)?.to_bits(), r.norm2(&buf)?.to_bits())?;
    same(
        "sum_exact",
        r.sum_exact(v)?.to_bits(),
        r.sum_exact(&buf)?.to_bits(),
    )?;
    // Offset sub-views, misaligned for the kernels' 16-byte loads: the same path as a buffer's.
    for (a, e) in [(1, n - 3), (3, n), (5, 6), (7, 7)] {
        let (sv, sb) = (v.slice(a..e)?, buf.slice(a..e)?);
        same(
            &format!("sum [{a}..{e}]"),
            r.sum(sv)?.to_bits(),
            r.sum(sb)?.to_bits(),
        )?;
        same(
            &format!("argmin [{a}..{e}]"),
            r.argmin(sv).ok(),
            r.argmin(sb).ok(),
        )?;
    }
    // A cudarc sub-view.
    let cv = slice.slice(2..n - 1);
    let v2 = b.borrow_cudarc(&cv, &stream)?;
    same(
        "sum of a CudaView",
        r.sum(v2)?.to_bits(),
        r.sum(buf.slice(2..n - 1)?)?.to_bits(),
    )?;
    // An axis reduction: 1000 rows of 1000.
    let (rows, cols) = (1000, 1000);
    let m = v.slice(..rows * cols)?;
    let got = b.download(&r.reduce_rows(Op::Sum, m, rows, cols)?, rows)?;
    let want = b.download(
        &r.reduce_rows(Op::Sum, buf.slice(..rows * cols)?, rows, cols)?,
        rows,
    )?;
    same("row sums equal", got == want, true)?;
    let got = r.mean_axis(AxisKind::Cols, m, rows, cols)?;
    let want = r.mean_axis(AxisKind::Cols, buf.slice(..rows * cols)?, rows, cols)?;
    same("column means equal", got == want, true)?;
    // Integers: the 64-bit sum, the exact mean (may copy back).
    let di: Vec<i32> = data::<i32>(n, 12);
    let (si, bi) = (upload(&stream, &di)?, b.upload(&di)?);
    let vi = b.borrow_cudarc_slice(&si)?;
    same("i32 sum", r.sum(vi)?, r.sum(&bi)?)?;
    same("i32 mean", r.mean(vi)?.to_bits(), r.mean(&bi)?.to_bits())?;
    // The raw, unsafe entry on the same memory.
    // SAFETY: `slice` outlives `rv`, holds `n` f32 of this (primary) context, nothing writes it.
    let rv = unsafe { b.borrow_raw::<f32>(raw(&slice, &stream), n)? };
    same("sum (raw)", r.sum(rv)?.to_bits(), r.sum(&buf)?.to_bits())?;
    // SAFETY: as above; an empty view.
    let empty = unsafe { b.borrow_raw::<f32>(0, 0)? };
    same("sum of nothing", r.sum(empty)?, 0.0)?;
    Ok(())
}

/// `Err(BadPointer { arg, problem })` expected, with `problem` matching `ok`.
fn expect_bad(
    what: &str,
    r: Result<View<'_, f32>>,
    arg: &str,
    ok: impl Fn(&PointerProblem) -> bool,
) -> Result<(), Failed> {
    match r {
        Err(ReduceError::BadPointer { arg: a, problem }) if a == arg && ok(&problem) => {
            println!("{what}: {}", ReduceError::BadPointer { arg: a, problem });
            Ok(())
        }
        Err(e) => Err(format!("{what}: the wrong error: {e}").into()),
        Ok(_) => Err(format!("{what}: accepted").into()),
    }
}

fn bad_device_memory_is_a_typed_error() -> Result<(), Failed> {
    let b = gpu();
    let (_ctx, stream) = cudarc()?;
    let n = 1024;
    let slice = upload(&stream, &vec![1.0f32; n])?;
    let p = raw(&slice, &stream);
    let host = vec![1.0f32; n];
    let mut pinned = cust::memory::LockedBuffer::new(&1.0f32, n)?;
    // SAFETY: each call below is refused before the address is used.
    unsafe {
        expect_bad("null", b.borrow_raw(0, 4), "ptr", |p| {
            *p == PointerProblem::Null
        })?;
        expect_bad(
            "host memory",
            b.borrow_raw(host.as_ptr() as u64, n),
            "ptr",
            |p| {
                matches!(
                    p,
                    PointerProblem::Unknown { .. } | PointerProblem::NotDeviceMemory { .. }
                )
            },
        )?;
        expect_bad(
            "pinned host memory",
            b.borrow_raw(pinned.as_mut_ptr() as u64, n),
            "ptr",
            |p| matches!(p, PointerProblem::NotDeviceMemory { .. }),
        )?;
        expect_bad(
            "one past the allocation",
            b.borrow_raw(p, n + 1),
            "ptr",
            |p| matches!(p, PointerProblem::PastAllocation { .. }),
        )?;
        expect_bad(
            "starting inside, ending past",
            b.borrow_raw(p + 8, n - 1),
            "ptr",
            |p| matches!(p, PointerProblem::PastAllocation { .. }),
        )?;
        expect_bad("misaligned", b.borrow_raw(p + 2, 4), "ptr", |p| {
            matches!(p, PointerProblem::Misaligned { align: 4, .. })
        })?;
        expect_bad(
            "overflowing length",
            b.borrow_raw(p, usize::MAX / 2),
            "len",
            |p| matches!(p, PointerProblem::Overflow { .. }),
        )?;
    }
    Ok(())
}

fn two_reductions_on_two_cudarc_streams() -> Result<(), Failed> {
    let b = gpu();
    let (ctx, s1) = cudarc()?;
    let s2 = ctx.new_stream().map_err(|e| format!("{e:?}"))?;
    let n = 3_000_017;
    let (d1, d2) = (data::<f32>(n, 21), data::<f32>(n, 22));
    let (x1, x2) = (upload(&s1, &d1)?, upload(&s2, &d2)?);
    let mut o1 = s1.alloc_zeros::<f32>(1).map_err(|e| format!("{e:?}"))?;
    let mut o2 = s2.alloc_zeros::<f32>(1).map_err(|e| format!("{e:?}"))?;
    let (p1, p2) = (
        Prepared::<f32>::for_stream(&b, Op::Sum, n)?,
        Prepared::<f32>::for_stream(&b, Op::Max, n)?,
    );
    p1.enqueue_on_cudarc(&b, &s1, &x1, &mut o1)?;
    p2.enqueue_on_cudarc(&b, &s2, &x2, &mut o2)?;
    let got1 = s1.clone_dtoh(&o1).map_err(|e| format!("{e:?}"))?[0];
    let got2 = s2.clone_dtoh(&o2).map_err(|e| format!("{e:?}"))?[0];
    let mut r = Reducer::new(&b);
    same(
        "sum on stream 1",
        got1.to_bits(),
        r.sum(&b.upload(&d1)?)?.to_bits(),
    )?;
    same("max on stream 2", Some(got2), r.max(&b.upload(&d2)?)?)?;
    // A plan of another length, an output too small: typed errors, nothing launched.
    if p1
        .enqueue_on_cudarc(&b, &s1, &x1, &mut o1.slice_mut(0..0))
        .is_ok()
    {
        return Err("an empty output was accepted".into());
    }
    if p1
        .enqueue_on_cudarc(&b, &s1, &x1.slice(1..), &mut o1)
        .is_ok()
    {
        return Err("an input of another length was accepted".into());
    }
    Ok(())
}

fn driver(r: cu::CUresult, what: &str) -> Result<(), Failed> {
    if r != cu::CUresult::CUDA_SUCCESS {
        return Err(format!("{what}: {r:?}").into());
    }
    Ok(())
}

fn a_cuda_graph_of_reductions_replays() -> Result<(), Failed> {
    let b = gpu();
    let (_ctx, stream) = cudarc()?;
    let n = 1 << 20;
    let mut x = upload(&stream, &data::<f32>(n, 31))?;
    let outs = stream.alloc_zeros::<f32>(3).map_err(|e| format!("{e:?}"))?;
    let (xp, op) = (raw(&x, &stream), raw(&outs, &stream));
    let ops = [Op::Sum, Op::Min, Op::Max];
    let prepared = ops
        .iter()
        .map(|&op| Prepared::<f32>::for_stream(&b, op, n - 1))
        .collect::<Result<Vec<_>>>()?;
    let s = stream.cu_stream() as cu::CUstream;
    // SAFETY: `x` and `outs` outlive every use below (they are dropped at the end, after the
    // stream is synchronized); the graph's kernels are the only writers of `outs` while it runs,
    // and `x` is rewritten only between replays, after a synchronization.
    let (input, out) = unsafe { (b.borrow_raw::<f32>(xp, n)?, b.borrow_raw::<f32>(op, 3)?) };
    let enqueue_all = || -> Result<()> {
        for (k, p) in prepared.iter().enumerate() {
            // SAFETY: as above; `s` is a live stream of the primary context; one `Prepared` each.
            unsafe { p.enqueue_on(&b, s, input.slice(1..)?, out.slice(k..k + 1)?)? };
        }
        Ok(())
    };
    enqueue_all()?; // once outside the capture, as a program would before capturing
    let mut graph: cu::CUgraph = std::ptr::null_mut();
    let mut exec: cu::CUgraphExec = std::ptr::null_mut();
    use cu::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL as GLOBAL;
    // SAFETY: `s` is a live stream; capture, end, instantiate with out-pointers to locals.
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
    let mut r = Reducer::new(&b);
    for replay in 0..3 {
        let d = data::<f32>(n, 40 + replay);
        stream
            .memcpy_htod(&d, &mut x)
            .map_err(|e| format!("{e:?}"))?;
        // SAFETY: `exec` is the instantiated graph; `s` a live stream.
        driver(unsafe { cu::cuGraphLaunch(exec, s) }, "graph launch")?;
        stream.synchronize().map_err(|e| format!("{e:?}"))?;
        let got = stream.clone_dtoh(&outs).map_err(|e| format!("{e:?}"))?;
        // The same elements at the same offset from an aligned start (a sub-view's bits
        // depend on its alignment, as a buffer's `slice(1..)` does).
        let whole = b.upload(&d)?;
        let buf = whole.slice(1..)?;
        let want = [r.sum(buf)?, r.min(buf)?.unwrap(), r.max(buf)?.unwrap()];
        same(
            &format!("replay {replay}"),
            got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            want.iter().map(|v| v.to_bits()).collect(),
        )?;
    }
    // SAFETY: the graph and its instance are not used after this.
    unsafe {
        driver(cu::cuGraphExecDestroy(exec), "destroy graph exec")?;
        driver(cu::cuGraphDestroy(graph), "destroy graph")?;
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let tests: Vec<(&str, Test)> = vec![
        (
            "the_library_joins_the_primary_context",
            the_library_joins_the_primary_context,
        ),
        (
            "cudarc_memory_reduces_like_a_buffer",
            cudarc_memory_reduces_like_a_buffer,
        ),
        (
            "bad_device_memory_is_a_typed_error",
            bad_device_memory_is_a_typed_error,
        ),
        (
            "two_reductions_on_two_cudarc_streams",
            two_reductions_on_two_cudarc_streams,
        ),
        (
            "a_cuda_graph_of_reductions_replays",
            a_cuda_graph_of_reductions_replays,
        ),
        (
            "every_family_on_a_cudarc_stream_and_in_a_graph",
            families::every_family_on_a_cudarc_stream_and_in_a_graph,
        ),
    ];
    // Gpu::open first: without a driver cudarc (loaded at run time) would panic.
    let missing = match Gpu::open() {
        Ok(_) => None,
        Err(e) => Some(e.to_string()),
    };
    if let Some(why) = &missing {
        println!("borrowed-memory GPU tests SKIPPED (reported as ignored): {why}");
    }
    let mut args = args;
    args.test_threads = Some(1);
    let trials = tests
        .into_iter()
        .map(|(name, f)| Trial::test(name, f).with_ignored_flag(missing.is_some()))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
