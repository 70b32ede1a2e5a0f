//! GPU checks of the exact sums (`Reducer::sum_exact`): the host's exact reference on every data
//! family, the IEEE edge cases, the reproducibility matrix, and 2^30 elements. The same logic
//! runs on the emulator in `tests/exact.rs`.

use libtest_mimic::Failed;
use reduce_host::exact::{
    exact_sum, exact_sum_parallel, generate, repro_grids, repro_matrix, ExactData, ExactFloat,
    ExactPolicy,
};
use reduce_host::*;

fn gpu() -> Backend {
    Backend::Gpu(Gpu::open().expect("the GPU was there when the tests started"))
}

fn same<T: ExactFloat>(got: T, want: T) -> bool {
    got.to_bits64() == want.to_bits64() || (got.to_f64().is_nan() && want.to_f64().is_nan())
}

fn families<T: ExactFloat + Sync>(b: &Backend) -> Result<(), Failed> {
    let mut r = Reducer::new(b);
    let mut bad = Vec::new();
    for data in ExactData::ALL {
        for n in [1usize, 3, 1000, 65_537, (1 << 20) + 3, (1 << 22) + 1] {
            let d = generate::<T>(data, n, n as u64);
            let want = exact_sum_parallel(&d);
            let got = r.sum_exact(&b.upload(&d)?)?;
            if !same(got, want) {
                bad.push(format!(
                    "{} {} n={n}: got {:e} want {:e}",
                    T::TYPE,
                    data.name(),
                    got.to_f64(),
                    want.to_f64()
                ));
            }
        }
    }
    crate::common::all_passed(&bad)
}

pub fn exact_sums_match_the_reference_on_every_family() -> Result<(), Failed> {
    let b = gpu();
    families::<f32>(&b)?;
    families::<f64>(&b)
}

pub fn exact_edge_cases() -> Result<(), Failed> {
    let b = gpu();
    let mut r = Reducer::new(&b);
    for c in crate::common::exact_edge_inputs(5000, 100_000, 100_001) {
        let want = exact_sum(&c);
        let got = r.sum_exact(&b.upload(&c)?)?;
        if !same(got, want) {
            return Err(format!("{} f64: got {got:e} want {want:e}", c.len()).into());
        }
        let c32: Vec<f32> = c.iter().map(|&x| x as f32).collect();
        let want = exact_sum(&c32);
        let got = r.sum_exact(&b.upload(&c32)?)?;
        if !same(got, want) {
            return Err(format!("{} f32: got {got:e} want {want:e}", c.len()).into());
        }
    }
    Ok(())
}

fn matrix<T: ExactFloat + Sync>(b: &Backend, data: ExactData, n: usize) -> Result<(), Failed> {
    let d = generate::<T>(data, n, 99);
    let want = exact_sum_parallel(&d).to_bits64();
    let mut grids = repro_grids(b, T::TYPE, n)?;
    grids.push(65_535);
    let cells = repro_matrix(b, &d, &grids, &[0, 1, 2, 3])?;
    let bad: Vec<_> = cells.iter().filter(|c| c.bits != want).collect();
    println!(
        "{} {} n={n}: {} launches (grids {grids:?}), {} differ from the reference {want:#x}",
        T::TYPE,
        data.name(),
        cells.len(),
        bad.len()
    );
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!("{bad:?}").into())
    }
}

pub fn exact_reproducibility_matrix() -> Result<(), Failed> {
    let b = gpu();
    for data in [
        ExactData::Uniform,
        ExactData::Binades,
        ExactData::Cancellation,
    ] {
        matrix::<f32>(&b, data, (1 << 22) + 5)?;
        matrix::<f64>(&b, data, (1 << 21) + 3)?;
    }
    Ok(())
}

pub fn exact_sum_of_2e30_floats() -> Result<(), Failed> {
    let b = gpu();
    let n = 1 << 30;
    let d = generate::<f32>(ExactData::Uniform, n, 7);
    let want = exact_sum_parallel(&d);
    let input = b.upload(&d)?;
    drop(d);
    let got = Reducer::new(&b).sum_exact(&input)?;
    println!("2^30 uniform f32: exact {got:e}, reference {want:e}");
    if same(got, want) {
        Ok(())
    } else {
        Err(format!("got {got:e} want {want:e}").into())
    }
}

/// The fast path for both types and the general path for both (and the small-N shapes of
/// `min_tiles`, the grid of `blocks_per_sm`): every family and the IEEE edge cases, bit for bit
/// against the reference.
pub fn exact_fast_path_matches_the_reference() -> Result<(), Failed> {
    let b = gpu();
    let fast = ExactPolicy {
        fast_f32: true,
        fast_f64: true,
        ..ExactPolicy::default()
    };
    let plain = ExactPolicy {
        fast_f32: false,
        fast_f64: false,
        ..fast
    };
    for policy in [
        fast,
        plain,
        ExactPolicy {
            min_tiles: 16,
            ..fast
        },
        ExactPolicy {
            blocks_per_sm: 9,
            ..plain
        },
    ] {
        policy_families::<f32>(&b, policy)?;
        policy_families::<f64>(&b, policy)?;
    }
    let edges: Vec<Vec<f64>> = vec![
        vec![-0.0; 5000],
        vec![0.0, -0.0],
        vec![1e300, 1.0, -1e300],
        vec![f64::MAX; 100_000],
        vec![f64::NEG_INFINITY, 5.0, f64::INFINITY],
        vec![f64::NAN; 3],
        vec![f64::from_bits(1); 100_001],
    ];
    for c in edges {
        let c32: Vec<f32> = c.iter().map(|&x| x as f32).collect();
        for p in [fast, plain] {
            check_one(&b, &c, p)?;
            check_one(&b, &c32, p)?;
        }
    }
    Ok(())
}

fn check_one<T: ExactFloat + Sync>(
    b: &Backend,
    d: &[T],
    policy: ExactPolicy,
) -> Result<(), Failed> {
    let p = PreparedExact::<T>::with_policy(b, d.len(), LaunchOverrides::default(), policy)?;
    let got = p.run(b, &b.upload(d)?, 0)?;
    let want = exact_sum_parallel(d);
    if same(got, want) {
        Ok(())
    } else {
        Err(format!(
            "{} {} n={}: got {:e} want {:e}",
            p.plan.kernel,
            T::TYPE,
            d.len(),
            got.to_f64(),
            want.to_f64()
        )
        .into())
    }
}

fn policy_families<T: ExactFloat + Sync>(b: &Backend, policy: ExactPolicy) -> Result<(), Failed> {
    for data in ExactData::ALL {
        for n in [1usize, 1000, 65_537, (1 << 22) + 1] {
            check_one(b, &generate::<T>(data, n, n as u64 + 5), policy)
                .map_err(|e| format!("{}: {}", data.name(), e.message().unwrap_or_default()))?;
        }
    }
    Ok(())
}
