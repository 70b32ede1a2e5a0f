//! The GPU suite's tests of the toolbox (transform-reduce, halves, argmin/argmax, a user's own
//! operator) and of several GPUs, split from `gpu.rs` (which lists every test in `main`). Each
//! calls the checks the emulator suites share (`*_checks/`).

pub mod multi_exact;

use crate::common::*;
use crate::exact_checks::{
    exact_edge_cases, exact_fast_path_matches_the_reference, exact_reproducibility_matrix,
    exact_sum_of_2e30_floats, exact_sums_match_the_reference_on_every_family,
};
use crate::{gpu, Test};
use libtest_mimic::Failed;
use multi_exact::multi_gpu_exact_sum_count_and_nanmean;
use reduce_host::argreduce::reference_arg;
use reduce_host::multi::Nccl;
use reduce_host::*;

/// Run the check `$f` on `F16` inputs, then on `Bf16` inputs, with the same arguments.
macro_rules! halves {
    ($($f:ident)::+ ($($arg:expr),*)) => {
        $($f)::+::<F16>($($arg),*);
        $($f)::+::<Bf16>($($arg),*);
    };
}

/// `small` followed by the large awkward sizes of the toolbox's GPU tests: 2^16 + 1, 2^20 + 3
/// and 2^24 + 1.
fn with_large_sizes(small: &[usize]) -> Vec<usize> {
    [small, &[65_537, (1 << 20) + 3, (1 << 24) + 1]].concat()
}

/// This module's tests (and the exact sums' GPU tests, kept in `exact_checks/`), in the order
/// they run.
pub fn tests() -> Vec<(&'static str, Test)> {
    tests![
        transform_every_op_type_size_offset,
        transform_norms_and_variance_accuracy,
        transform_results_are_bit_identical,
        argmin_argmax_every_type_size_offset_and_special_value,
        argmax_is_deterministic_at_2e28,
        custom_op_from_its_own_ptx,
        multi_gpu_every_op_and_type,
        multi_gpu_deterministic_and_typed_errors,
        multi_gpu_exact_sum_count_and_nanmean,
        exact_sums_match_the_reference_on_every_family,
        exact_edge_cases,
        exact_reproducibility_matrix,
        exact_sum_of_2e30_floats,
        exact_fast_path_matches_the_reference,
        halves_every_op_size_offset_and_special_value,
        halves_stage8_every_op_size_offset_and_special_value,
    ]
}

pub fn transform_every_op_type_size_offset() -> Result<(), Failed> {
    let b = gpu();
    let sizes = with_large_sizes(&[0, 1, 2, 31, 33, 97, 1009]);
    crate::transform_checks::every_op_at_sizes::<f32>(&b, &sizes);
    crate::transform_checks::every_op_at_sizes::<f64>(&b, &sizes);
    crate::transform_checks::misaligned_ranges::<f32>(&b, 1_000_003);
    crate::transform_checks::misaligned_ranges::<f64>(&b, 1_000_003);
    crate::transform_checks::forced_shapes::<f32>(&b, 1_000_003);
    crate::transform_checks::forced_shapes::<f64>(&b, 1_000_003);
    crate::transform_checks::semantics_and_errors(&b);
    Ok(())
}

pub fn transform_norms_and_variance_accuracy() -> Result<(), Failed> {
    let b = gpu();
    crate::transform_checks::norms_without_overflow(&b);
    crate::transform_checks::adversarial_variance::<f32>(&b, (1 << 24) + 3, 1e6);
    crate::transform_checks::adversarial_variance::<f64>(&b, (1 << 24) + 3, 1e9);
    Ok(())
}

pub fn transform_results_are_bit_identical() -> Result<(), Failed> {
    let b = gpu();
    crate::transform_checks::bit_identical::<f32>(&b, (1 << 26) + 5);
    crate::transform_checks::bit_identical::<f64>(&b, (1 << 25) + 5);
    Ok(())
}

/// `f16` / `bf16` inputs: every transform op at awkward sizes and all eight offsets within a
/// 16-byte vector, special values, typed errors, determinism at 2^26 + 5.
pub fn halves_every_op_size_offset_and_special_value() -> Result<(), Failed> {
    let b = gpu();
    let sizes = with_large_sizes(&[0, 1, 7, 9, 33, 97, 1009]);
    halves!(crate::half_checks::every_op_and_offset(&b, &sizes));
    halves!(crate::half_checks::special_values(&b));
    halves!(crate::half_checks::unbuilt_ops_are_typed_errors(&b));
    crate::half_checks::upload_half_round_trips(&b);
    let mut h = crate::transform_checks::signed::<Bf16>((1 << 22) + 11, 98);
    h[77_777] = Bf16::from_f64(f64::NAN);
    crate::transform_checks::loops::shifted_meets_its_bound::<Bf16>(&b, &h);
    let h = crate::transform_checks::signed::<F16>((1 << 22) + 11, 97);
    crate::transform_checks::loops::shifted_meets_its_bound::<F16>(&b, &h);
    halves!(crate::transform_checks::bit_identical(&b, (1 << 26) + 5));
    Ok(())
}

/// Argmin/argmax: every type and op at the edge sizes (misaligned offsets too) and at sizes with
/// a full grid, NaN/inf/-0.0/subnormals, integer extremes, the empty-input error.
pub fn argmin_argmax_every_type_size_offset_and_special_value() -> Result<(), Failed> {
    let b = gpu();
    let mut sizes = edge_sizes(256);
    sizes.extend([1_000_003, (1 << 24) + 5]);
    crate::arg_checks::every_type(&b, &sizes)?;
    for n in [1, 2, 33, 4099, 1 << 22] {
        crate::arg_checks::floats(&b, n)?;
        crate::arg_checks::integers(&b, n.max(2))?;
    }
    crate::arg_checks::empty_is_an_error(&b)?;
    for n in [4099, (1 << 24) + 3] {
        crate::arg_checks::every_policy(&b, n)?;
    }
    println!(
        "argmin/argmax/nanargmin/nanargmax: {} sizes × 8 types × 3 offsets, specials, launch shapes: ok",
        sizes.len()
    );
    Ok(())
}

/// Argmax of 2^28 floats with many ties, twice: the same (index, bits), the reference's.
pub fn argmax_is_deterministic_at_2e28() -> Result<(), Failed> {
    let b = gpu();
    let d = crate::arg_checks::tied::<f32>(1 << 28, 11);
    let input = b.upload(&d)?;
    let p = PreparedArg::<f32>::new(&b, Op::ArgMax, d.len())?;
    let first = p.run(&b, &input, 0)?;
    let want = reference_arg(Op::ArgMax, &d).unwrap();
    println!(
        "argmax of 2^28 tied floats: {first:?} (reference {want:?}), grid {}",
        p.grid()
    );
    for _ in 0..5 {
        if p.run(&b, &input, 0)? != first {
            return Err("two runs differ".into());
        }
    }
    if first != want {
        return Err(format!("got {first:?}, want {want:?}").into());
    }
    Ok(())
}

/// `custom_op.ptx` (examples/custom-op built by `cargo xtask build-ptx --crate
/// examples/custom-op`): `$REDUCE_CUSTOM_OP_PTX`, else next to the bundle's `bin/`, else the
/// workspace's `target/ptx/`.
pub fn custom_op_ptx() -> Result<String, Failed> {
    let mut candidates: Vec<std::path::PathBuf> = Vec::new();
    if let Ok(p) = std::env::var("REDUCE_CUSTOM_OP_PTX") {
        candidates.push(p.into());
    }
    if let Some(bundle) = std::env::current_exe()?.parent().and_then(|b| b.parent()) {
        candidates.push(bundle.join("custom_op.ptx"));
    }
    candidates
        .push(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/ptx/custom_op.ptx"));
    for c in &candidates {
        if let Ok(text) = std::fs::read_to_string(c) {
            println!("custom op PTX: {}", c.display());
            return Ok(text);
        }
    }
    Err(format!(
        "custom_op.ptx not found (looked at {candidates:?}); build it with \
         `cargo xtask build-ptx --crate examples/custom-op`"
    )
    .into())
}

/// examples/custom-op's `custom_minmaxabs_f32` from its PTX text `ptx` (256 threads, no emulator
/// function).
pub fn custom_minmaxabs_kernel(ptx: &str) -> CustomKernel<'_, f32> {
    CustomKernel {
        symbol: "custom_minmaxabs_f32",
        ptx,
        emulated: None,
        block: 256,
    }
}

/// A user's own operator from its own PTX module (examples/custom-op's `(min, max, max |x|)` of
/// f32, read back as the `((f32, f32), f32)` item it is word for word) through `CustomReduction`,
/// against a CPU fold, at awkward sizes and offsets; a missing symbol is a typed error.
pub fn custom_op_from_its_own_ptx() -> Result<(), Failed> {
    let b = gpu();
    let ptx = custom_op_ptx()?;
    let kernel = custom_minmaxabs_kernel(&ptx);
    // SAFETY: examples/custom-op's `custom_minmaxabs_f32` is an item kernel for f32 whose item is
    // three f32 words (min, max, max |x|), which is `((f32, f32), f32)`'s layout, with 256 threads.
    let op = unsafe { CustomReduction::<f32, ((f32, f32), f32)>::load(&b, kernel) }?;
    for n in [1usize, 33, 4097, 1_000_003, 1 << 24] {
        let x: Vec<f32> = (0..n + 3)
            .map(|i| ((i as u64 * 2_654_435_761 % 100_003) as f32 - 50_001.5) * 0.37)
            .collect();
        let input = b.upload(&x)?;
        for offset in [0, 3] {
            let p = op.prepare(n)?;
            p.enqueue(&input, offset)?;
            let got = p.read()?;
            let s = &x[offset..offset + n];
            let want = (
                (
                    s.iter().copied().fold(f32::INFINITY, f32::min),
                    s.iter().copied().fold(f32::NEG_INFINITY, f32::max),
                ),
                s.iter().map(|v| v.abs()).fold(0.0, f32::max),
            );
            if got != want {
                return Err(format!("n = {n}, offset {offset}: got {got:?}, want {want:?}").into());
            }
        }
    }
    println!("custom_minmaxabs_f32 from its PTX: 5 sizes x 2 offsets match the CPU fold");
    let missing = CustomKernel::<f32> {
        symbol: "no_such_kernel",
        ..kernel
    };
    // SAFETY: as above; the symbol is not in the module, so nothing is launched.
    match unsafe { CustomReduction::<f32, ((f32, f32), f32)>::load(&b, missing) } {
        Err(ReduceError::MissingKernel { .. }) => Ok(()),
        Err(e) => Err(format!("a missing symbol gave {e}").into()),
        Ok(_) => Err("a missing symbol loaded".into()),
    }
}

/// Every GPU through NCCL; `None` (the test passes, saying why) when NCCL is not installed,
/// unless `MULTI_REQUIRE_NCCL` is set (`benches/gpu.sh multi` sets it).
pub fn multi_gpus() -> Result<Option<MultiReducer<Nccl>>, Failed> {
    match MultiReducer::gpus(None) {
        Ok(m) => {
            let lib = m.collective().library();
            println!(
                "{} GPU(s), NCCL {} from {}",
                m.ranks(),
                lib.version_string(),
                lib.path
            );
            Ok(Some(m))
        }
        Err(ReduceError::NcclUnavailable { tried })
            if std::env::var_os("MULTI_REQUIRE_NCCL").is_none() =>
        {
            println!("multi-GPU test not run: NCCL is not available (tried {tried:?})");
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

pub fn multi_gpu_every_op_and_type() -> Result<(), Failed> {
    let Some(mut m) = multi_gpus()? else {
        return Ok(());
    };
    all_passed(&crate::multi_checks::every_op_and_type(&mut m, 100))
}

pub fn multi_gpu_deterministic_and_typed_errors() -> Result<(), Failed> {
    let Some(mut m) = multi_gpus()? else {
        return Ok(());
    };
    let d = data::<f32>(10_000_019, 3);
    let distinct = crate::multi_checks::distinct_sums(&mut m, &d, 100)?;
    println!(
        "100 sums of 10000019 f32 over {} GPUs: {distinct} distinct bit pattern(s)",
        m.ranks()
    );
    if distinct != 1 {
        return Err(format!("{distinct} different results in 100 runs").into());
    }
    // 2^28 ones per GPU, filled on the devices: the sum is exact.
    let n = 1usize << 28;
    let shards = (0..m.ranks())
        .map(|r| m.with_rank(r, |b| b.filled(n, 1.0f32)))
        .collect::<Result<Vec<_>>>()?;
    let got = m.reduce(Op::Sum, &shards)?;
    println!(
        "2^28 ones per GPU: {:?}, timing {:?}",
        got.value, got.timing
    );
    if got.value != Some((n * m.ranks()) as f32) {
        return Err(format!("sum of 2^28 ones per GPU: {:?}", got.value).into());
    }
    drop(shards);
    let count = Gpu::count()?;
    match MultiReducer::gpus(Some(count + 1)) {
        Err(ReduceError::TooFewGpus {
            requested,
            available,
        }) if requested == count + 1 && available == count => {}
        Err(e) => return Err(format!("asking for {} GPUs: {e}", count + 1).into()),
        Ok(_) => return Err(format!("{} GPUs of {count} opened", count + 1).into()),
    }
    // Columns of a matrix split by rows (100·r + 3 rows of 1000 on rank r): every rank holds
    // the column sums of the whole matrix, exact for small integers.
    let cols = 1000;
    let blocks: Vec<usize> = (0..m.ranks()).map(|r| 100 * r + 3).collect();
    let parts: Vec<Vec<i64>> = blocks
        .iter()
        .enumerate()
        .map(|(r, &rows)| crate::multi_checks::axis_data::<i64>(rows * cols, r as u64))
        .collect();
    let shards = crate::multi_checks::upload(&m, &parts)?;
    let all = parts.concat();
    let want: Vec<i64> = (0..cols)
        .map(|c| all.iter().skip(c).step_by(cols).sum())
        .collect();
    for (r, got) in m.reduce_cols(Op::Sum, &shards, cols)?.iter().enumerate() {
        if m.with_rank(r, |b| b.download(got, cols))? != want {
            return Err(format!("rank {r}: wrong column sums").into());
        }
    }
    if m.ranks() >= 2 {
        let a = m.with_rank(0, |b| b.upload(&[1.0f32]))?;
        let b = m.with_rank(0, |b| b.upload(&[2.0f32]))?;
        let mut shards: Vec<&Buffer<f32>> = vec![&a; m.ranks()];
        shards[1] = &b;
        match m.reduce(Op::Sum, &shards) {
            Err(ReduceError::ForeignBuffer { what }) if what.contains("shard 1") => {}
            other => return Err(format!("a shard of rank 0 given as shard 1: {other:?}").into()),
        }
    }
    Ok(())
}

/// Stage 8's operators on `f16` / `bf16` (combined in `f32`): every op at the tile edges and all
/// eight offsets within a 16-byte vector, at sizes with a full grid (2^24 + 1: the count's chunk
/// edge), special values, determinism at 2^26 + 5.
pub fn halves_stage8_every_op_size_offset_and_special_value() -> Result<(), Failed> {
    let b = gpu();
    let sizes = with_large_sizes(&[0, 1, 7, 31, 8191, 8193, 16_385]);
    halves!(crate::half_checks::stage8::every_op_size_and_offset(
        &b, &sizes
    ));
    halves!(crate::half_checks::stage8::special_values(&b));
    halves!(crate::half_checks::stage8::bit_identical(&b, (1 << 26) + 5));
    Ok(())
}
