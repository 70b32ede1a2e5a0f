//! GPU tests. They need an NVIDIA GPU; without one every test is reported as **ignored** with the
//! reason printed first (never passed silently). The same logic runs on the CPU emulator in
//! `tests/emulator.rs`.

/// A test of this suite.
pub(crate) type Test = fn() -> Result<(), Failed>;

/// `(name, function)` for each test function named (in scope where the macro is used).
macro_rules! tests {
    ($($f:ident),* $(,)?) => {
        vec![$((stringify!($f), $f as crate::Test)),*]
    };
}

mod arg_checks;
mod axis_checks;
mod common;
mod exact_checks;
mod gpu_data;
mod gpu_props;
mod gpu_toolbox;
mod half_checks;
mod host_stream;
mod multi_checks;
mod prop_checks;
mod semantics_checks;
mod transform_checks;

use common::*;
use libtest_mimic::{Arguments, Failed, Trial};
use reduce_host::reference::reference_mean;
use reduce_host::*;

pub(crate) fn gpu() -> Backend {
    Backend::Gpu(Gpu::open().expect("the GPU was there when the tests started"))
}

fn first_kernel_reduces_2e22_ones() -> Result<(), Failed> {
    let b = gpu();
    let n = 1 << 22;
    let input = b.upload(&vec![1.0f32; n])?;
    let got = run_stage(
        &b,
        Stage::S3,
        Op::Sum,
        &input,
        n,
        LaunchOverrides::default(),
    )?;
    println!("stage 3 (sequential addressing), 2^22 ones: {got}");
    if got != 4_194_304.0 {
        return Err(format!("expected 4194304, got {got}").into());
    }
    Ok(())
}

fn every_stage_on_1e7_random_floats() -> Result<(), Failed> {
    let b = gpu();
    let d = data::<f32>(10_000_019, 77);
    let r = reference(Op::Sum, &d).unwrap();
    let input = b.upload(&d)?;
    for stage in Stage::ALL {
        let p = plan(
            stage,
            ElemType::F32,
            Op::Sum,
            d.len(),
            LaunchOverrides::default(),
            b.caps(),
        )?;
        let got = Prepared::<f32>::new(&b, p.clone())?.run(&b, &input, 0)?;
        let u = f32::EPSILON as f64 / 2.0;
        let bound = p.depth as f64 * u * r.sum_abs + 2.0 * u * r.sum_f64.abs();
        println!(
            "{stage}: {got} vs f64 {:.3}: |error| {:.3} <= bound {:.3} (depth {})",
            r.sum_f64,
            (got as f64 - r.sum_f64).abs(),
            bound,
            p.depth
        );
        if !matches_reference(Op::Sum, got, &r, p.depth) {
            return Err(format!("{stage}: {got} is outside the bound").into());
        }
    }
    Ok(())
}

fn every_multi_pass_stage_at_edge_sizes() -> Result<(), Failed> {
    let b = gpu();
    let mut failures = Vec::new();
    for stage in &Stage::ALL[..7] {
        for &ty in stage.types() {
            for &block in stage.blocks() {
                for n in edge_sizes(block).into_iter().chain([1_000_003]) {
                    let o = LaunchOverrides {
                        block: Some(block),
                        grid: None,
                    };
                    let r = with_elem_type!(ty, T => check::<T>(&b, *stage, Op::Sum, &data::<T>(n, n as u64), o));
                    failures.extend(r.err());
                }
            }
        }
    }
    all_passed(&failures)
}

fn stage8_every_op_type_size_offset_grid() -> Result<(), Failed> {
    let b = gpu();
    let mut failures = Vec::new();
    let mut count = 0;
    for ty in ElemType::ALL {
        for op in Op::REDUCE {
            for n in edge_sizes(512).into_iter().chain([1_000_003, 1 << 22]) {
                for offset in [0, 1, 3] {
                    for grid in [None, Some(1), Some(7)] {
                        for block in [None, Some(256), Some(1024)] {
                            let o = LaunchOverrides { block, grid };
                            let r = with_elem_type!(ty, T => check_reducer::<T>(&b, op, &data::<T>(n + offset, n as u64 + 5), offset, o));
                            count += 1;
                            failures.extend(r.err());
                        }
                    }
                }
            }
        }
    }
    println!(
        "stage 8: {count} (op, type, size, offset, grid, block) cases, {} failures",
        failures.len()
    );
    all_passed(&failures)
}

fn indexing_past_2e32_elements() -> Result<(), Failed> {
    let b = gpu();
    let n = (1usize << 32) + 5;
    let ones = b.filled::<u32>(n, 1)?;
    let mut r = Reducer::new(&b);
    let sum: u64 = r.sum(&ones)?;
    let wrapped: Option<u32> = r.reduce(Op::Sum, &ones)?;
    let max = r.max(&ones)?;
    println!("2^32+5 u32 ones: sum = {sum}, in u32 (mod 2^32) = {wrapped:?}, max = {max:?}");
    if sum != n as u64 || wrapped != Some(5) || max != Some(1) {
        return Err(format!(
            "expected sum {n}, 5 in u32 (wrapped) and max 1, got {sum}, {wrapped:?} and {max:?}"
        )
        .into());
    }
    drop(ones);
    let ones = b.filled::<i32>(n, 1)?;
    let s7 = run_stage(&b, Stage::S7, Op::Sum, &ones, n, LaunchOverrides::default())?;
    println!("2^32+5 i32 ones, stage 7: {s7}");
    if s7 != 5 {
        return Err(format!("stage 7: expected 5 (wrapped), got {s7}").into());
    }
    Ok(())
}

fn too_large_is_a_clear_error() -> Result<(), Failed> {
    let b = gpu();
    let free = b.gpu().unwrap().mem_info()?.0;
    match b.filled::<f32>((free / 4) as usize + (1 << 20), 1.0) {
        Err(e @ ReduceError::TooLarge { .. }) => {
            println!("{e}");
            Ok(())
        }
        Err(e) => Err(format!("expected TooLarge, got {e}").into()),
        Ok(_) => Err("allocating more than the free memory succeeded".into()),
    }
}

fn bad_ptx_is_a_clear_error() -> Result<(), Failed> {
    let missing = std::path::Path::new("/nonexistent/reduce_kernels.ptx");
    let e = Gpu::open_with_ptx_file(missing)
        .err()
        .ok_or("a missing PTX file loaded")?;
    println!("{e}");
    if !e.to_string().contains("/nonexistent/reduce_kernels.ptx")
        || !e.to_string().contains("cargo xtask build-ptx")
    {
        return Err(format!("message does not name the file and the fix: {e}").into());
    }
    let corrupt =
        ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry broken( {\n garbage;\n}\n";
    let e = Gpu::open_with_ptx(corrupt, "corrupt.ptx")
        .err()
        .ok_or("corrupt PTX loaded")?;
    println!("{e}");
    if !matches!(e, ReduceError::Ptx { .. }) {
        return Err(format!("expected a PTX error, got {e}").into());
    }
    Ok(())
}

/// The embedded PTX, JIT-compiled kernel by kernel (what a GPU without a matching cubin runs),
/// gives the cubin's results bit for bit, family by family.
fn the_ptx_path_gives_the_cubins_bits() -> Result<(), Failed> {
    use reduce_host::kernel_image::{KernelImage, KernelSource};
    let sass = Backend::Gpu(Gpu::open_source(KernelSource::Embedded)?);
    let ptx = Backend::Gpu(Gpu::open_source(KernelSource::EmbeddedPtx)?);
    let image = |b: &Backend| b.gpu().map(Gpu::kernel_image);
    println!("images: {:?} and {:?}", image(&sass), image(&ptx));
    if image(&ptx) != Some(KernelImage::PtxPerKernel) {
        return Err(format!("the forced PTX loaded {:?}", image(&ptx)).into());
    }
    let d = data::<f32>(3_000_017, 5);
    let h: Vec<F16> = d.iter().map(|&v| F16::from_f32(v)).collect();
    let mut results = Vec::new();
    for b in [&sass, &ptx] {
        let (x, xh) = (b.upload(&d)?, b.upload(&h)?);
        let mut r = Reducer::new(b);
        let rows = b.download(&r.reduce_rows(Op::Sum, &x, 3, 1_000_005)?, 3)?;
        results.push(format!(
            "{} {:?} {:?} {:?} {} {} {:?} {:?} {:?} {:?}",
            r.sum(&x)?.to_bits(),
            r.max(x.slice(1..)?)?.map(f32::to_bits),
            r.argmin(&x)?,
            r.argmax(&xh)?,
            r.norm2(&x)?.to_bits(),
            r.sum_exact(&x)?.to_bits(),
            r.nanmin(&xh)?.map(f32::to_bits),
            r.sum(&xh)?.to_bits(),
            rows.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            r.var(&x, 1)?.to_bits(),
        ));
    }
    println!("cubin: {}\nPTX:   {}", results[0], results[1]);
    if results[0] != results[1] {
        return Err("the PTX path's results differ from the cubin's".into());
    }
    Ok(())
}

fn deterministic_bit_identical() -> Result<(), Failed> {
    let b = gpu();
    let d = data::<f32>(1 << 24, 99);
    let input = b.upload(&d)?;
    let mut r = Reducer::new(&b);
    let first = r.sum(&input)?;
    for i in 0..200 {
        let v = r.sum(&input)?;
        if v.to_bits() != first.to_bits() {
            return Err(format!("run {i}: {v} differs from {first}").into());
        }
    }
    println!("2^24 random f32: 201 runs bit-identical ({first})");
    Ok(())
}

/// Both timing protocols run and time stage 8; the gated one does not time out (the gate
/// kernel sees the host's flag in mapped memory).
fn both_timing_protocols_time_correct_runs() -> Result<(), Failed> {
    use reduce_host::measure::{time_single_pass, Protocol};
    let b = gpu();
    let n = 1 << 22;
    let input = b.upload(&vec![1.0f32; n])?;
    for protocol in [Protocol::Plain, Protocol::Gated] {
        let (v, t, _) = time_single_pass(
            &b,
            Op::Sum,
            &input,
            LaunchOverrides::default(),
            2,
            20,
            protocol,
        )?;
        let positive = t.runs_ms.iter().all(|&ms| ms.is_finite() && ms > 0.0);
        if v != n as f32 || t.runs_ms.len() != 20 || !positive {
            return Err(format!(
                "{protocol:?}: sum {v}, {} runs, min {} ms",
                t.runs_ms.len(),
                t.min()
            )
            .into());
        }
        println!(
            "{protocol:?}: 2^22 ones = {v}, 20 runs, min {:.2} µs, median {:.2} µs",
            t.min() * 1e3,
            t.median() * 1e3
        );
    }
    Ok(())
}

fn every_kernel_name_is_in_the_ptx() -> Result<(), Failed> {
    let b = gpu();
    let g = b.gpu().unwrap();
    let mut n = 0;
    for stage in Stage::ALL {
        for (ty, op, block) in stage.configs() {
            let name = stage.kernel(ty, op, block);
            if !g.has_kernel(name) {
                return Err(format!("{name} is missing from the PTX").into());
            }
            n += 1;
        }
    }
    println!("{n} kernel lookups resolved");
    Ok(())
}

/// A buffer used with a backend that did not allocate it is a typed error, in both directions
/// and between two GPU handles; before the check this was a SIGSEGV (GPU buffer, emulator) or an
/// illegal address that poisoned the context (emulator buffer, GPU). Afterwards both still work.
fn buffers_stay_with_their_backend() -> Result<(), Failed> {
    let (g, other, e) = (gpu(), gpu(), Backend::Emulator(Emulator::default()));
    let d = data::<f32>(100_000, 8);
    let (on_gpu, on_other, on_emu) = (g.upload(&d)?, other.upload(&d)?, e.upload(&d)?);
    let foreign = |r: Result<f32, ReduceError>| match r {
        Err(ReduceError::ForeignBuffer { .. }) => Ok(()),
        other => Err(format!("expected ForeignBuffer, got {other:?}")),
    };
    foreign(Reducer::new(&e).sum(&on_gpu))?;
    foreign(Reducer::new(&g).sum(&on_emu))?;
    foreign(Reducer::new(&g).sum(&on_other))?;
    foreign(run_stage(
        &g,
        Stage::S3,
        Op::Sum,
        &on_emu,
        d.len(),
        LaunchOverrides::default(),
    ))?;
    if !matches!(
        g.download(&on_emu, 1),
        Err(ReduceError::ForeignBuffer { .. })
    ) {
        return Err("download of an emulator buffer through the GPU was not refused".into());
    }
    let want = reference(Op::Sum, &d).unwrap();
    for (b, buf) in [(&g, &on_gpu), (&other, &on_other), (&e, &on_emu)] {
        let got = Reducer::new(b).sum(buf)?;
        if !matches_reference(Op::Sum, got, &want, 64) {
            return Err(format!("after the refusals: sum {got}, want {}", want.sum_f64).into());
        }
    }
    Ok(())
}

/// The user-found bugs, on the device: all-NaN min/max, integer means past the type's range,
/// empty buffers.
fn nan_extremes_wide_means_and_empty_buffers() -> Result<(), Failed> {
    let b = gpu();
    let mut r = Reducer::new(&b);
    for n in [1, 1000, 1 << 20] {
        let nan = b.filled(n, f32::NAN)?;
        let (lo, hi) = (r.min(&nan)?, r.max(&nan)?);
        if !lo.is_some_and(f32::is_nan) || !hi.is_some_and(f32::is_nan) {
            return Err(format!("all-NaN n={n}: min {lo:?}, max {hi:?}").into());
        }
        let nan64 = b.upload(&vec![f64::NAN; n])?;
        if !r.max(&nan64)?.is_some_and(f64::is_nan) {
            return Err(format!("all-NaN f64 n={n}: max is not NaN").into());
        }
    }
    let m = r.mean(&b.upload(&[i64::MAX, i64::MAX])?)?;
    if m != 9.223372036854776e18 {
        return Err(format!("mean of [i64::MAX; 2] = {m}, NumPy says 9.223372036854776e18").into());
    }
    let d = data::<i32>(3 << 20, 4);
    let m = r.mean(&b.upload(&d)?)?;
    if Some(m) != reference_mean(&d) {
        return Err(format!("i32 mean {m}, want {:?}", reference_mean(&d)).into());
    }
    let none = b.filled(0, 7i32)?;
    if !none.is_empty() || r.sum(&none)? != 0 || !b.zeroed::<f64>(0)?.is_empty() {
        return Err("zero-length buffers are not empty".into());
    }
    Ok(())
}

/// NumPy/PyTorch semantics on the device: NaN at the first, middle, last or every element for
/// min/max (propagating), nanmin/nanmax/nansum/nanmean/count, sum and prod, f32 and f64, up to
/// 2^20 + 3 elements and on many-block grids.
fn semantics_nan_positions_every_op() -> Result<(), Failed> {
    let b = gpu();
    let sizes = [1, 5, 33, 4099, 100_003, (1 << 20) + 3];
    let mut f = semantics_checks::nan_positions::<f32>(&b, &sizes, 100_003);
    f.extend(semantics_checks::nan_positions::<f64>(&b, &sizes, 100_003));
    if !f.is_empty() {
        return Err(format!("{} failures:\n{}", f.len(), f.join("\n")).into());
    }
    println!("NaN at first/middle/last/all/none x 9 ops x 6 sizes x f32/f64: all match");
    Ok(())
}

/// Products on the device: floats within the rounding bound, integers wrapping; the exact
/// non-NaN count and nanmean past 2^24 elements (where an f32 count alone would round); i32/u32
/// sums with the 64-bit accumulator.
fn semantics_products_and_counts() -> Result<(), Failed> {
    let b = gpu();
    let sizes = [1, 33, 4100, 100_003, 1 << 20];
    semantics_checks::products(&b, &sizes, LaunchOverrides::default())?;
    semantics_checks::nanmean_counts(&b, (1 << 25) + 7)?;
    semantics_checks::wide_sums(
        &b,
        &[1, 4099, 1 << 20, (1 << 26) + 1],
        LaunchOverrides::default(),
    )?;
    println!(
        "prod f32/f64/i64/u32 at {sizes:?}; count and nanmean of 2^25 + 7: exact; i32/u32 wide \
         sums up to 2^26 + 1: exact"
    );
    Ok(())
}

fn main() {
    let mut args = Arguments::from_args();
    args.test_threads = Some(1); // one GPU: keep large allocations and timings apart
    let mut tests = tests![
        first_kernel_reduces_2e22_ones,
        every_stage_on_1e7_random_floats,
        every_multi_pass_stage_at_edge_sizes,
        stage8_every_op_type_size_offset_grid,
        indexing_past_2e32_elements,
        too_large_is_a_clear_error,
        bad_ptx_is_a_clear_error,
        the_ptx_path_gives_the_cubins_bits,
        deterministic_bit_identical,
        both_timing_protocols_time_correct_runs,
        every_kernel_name_is_in_the_ptx,
        buffers_stay_with_their_backend,
        nan_extremes_wide_means_and_empty_buffers,
        semantics_nan_positions_every_op,
        semantics_products_and_counts,
    ];
    tests.extend(gpu_data::tests());
    tests.extend(gpu_toolbox::tests());
    tests.extend(gpu_props::tests());
    let missing = match Gpu::open() {
        Ok(_) => None,
        Err(e) => Some(e.to_string()),
    };
    if let Some(why) = &missing {
        println!("GPU tests SKIPPED (reported as ignored): {why}");
    }
    let trials = tests
        .into_iter()
        .map(|(name, f)| Trial::test(name, f).with_ignored_flag(missing.is_some()))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
