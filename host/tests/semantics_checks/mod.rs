//! The NumPy/PyTorch-semantics checks shared by the emulator suite (`tests/semantics.rs`) and the
//! GPU suite (`tests/gpu.rs`): the same checks, sizes chosen by the caller.
#![allow(dead_code)]

use crate::common::*;
use reduce_host::*;

/// The operators whose NaN handling is checked.
pub const NAN_OPS: [Op; 9] = [
    Op::Min,
    Op::Max,
    Op::NanMin,
    Op::NanMax,
    Op::NanSum,
    Op::NanMean,
    Op::Count,
    Op::Sum,
    Op::Prod,
];

/// `base` with NaN at `at` ("first", "middle", "last", "all" or "none").
pub fn with_nans<T: Scalar>(base: &[T], at: &str) -> Vec<T> {
    let mut d = base.to_vec();
    let n = d.len();
    let nan = T::from_f64(f64::NAN);
    match at {
        "first" => d[0] = nan,
        "middle" => d[n / 2] = nan,
        "last" => d[n - 1] = nan,
        "all" => d.iter_mut().for_each(|x| *x = nan),
        _ => {}
    }
    d
}

/// Every operator of [`NAN_OPS`] on data of each length in `sizes` with NaN at the first, middle
/// or last element, everywhere, or nowhere, against the CPU reference: with the default launch,
/// misaligned by 3 elements, and (for lengths up to `multi_max`) on a forced 3-block grid.
pub fn nan_positions<T: Scalar>(b: &Backend, sizes: &[usize], multi_max: usize) -> Vec<String> {
    let multi = LaunchOverrides {
        block: Some(256),
        grid: Some(3),
    };
    let mut failures = Vec::new();
    for &n in sizes {
        let base = data::<T>(n + 3, n as u64);
        for at in ["first", "middle", "last", "all", "none"] {
            let d = with_nans(&base, at);
            for op in NAN_OPS {
                let mut runs = vec![(0, LaunchOverrides::default())];
                if at != "first" {
                    runs.push((3, LaunchOverrides::default())); // misaligned; NaN still inside
                }
                if n <= multi_max {
                    runs.push((0, multi));
                }
                for (offset, o) in runs {
                    if let Err(e) = check_reducer::<T>(b, op, &d, offset, o) {
                        failures.push(format!("NaN {at}: {e}"));
                    }
                }
            }
        }
    }
    failures
}

/// Values in `[1 − 2^-12, 1 + 2^-12]`: no order of multiplication leaves the normal range (for
/// lengths up to ~10^6), so the product's rounding bound is checked, not waived.
pub fn near_one<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    data::<T>(n, seed)
        .into_iter()
        .map(|x| T::from_f64(1.0 + (x.to_f64() - 1.25) / 4096.0))
        .collect()
}

/// Float products within the bound and integer products wrapping, at each length of `sizes`.
pub fn products(b: &Backend, sizes: &[usize], o: LaunchOverrides) -> Result<(), String> {
    for &n in sizes {
        let d32 = near_one::<f32>(n + 1, n as u64);
        if reference(Op::Prod, &d32[1..]).is_some_and(|r| r.order_dependent) {
            return Err(format!(
                "n={n}: near-one data should not be order-dependent"
            ));
        }
        check_reducer::<f32>(b, Op::Prod, &d32, 1, o)?;
        check_reducer::<f64>(b, Op::Prod, &near_one::<f64>(n, 2), 0, o)?;
        check_reducer::<i64>(b, Op::Prod, &data(n, 7), 0, o)?;
        check_reducer::<u32>(b, Op::Prod, &data(n + 1, 3), 1, o)?;
    }
    Ok(())
}

/// `nanmean` and the exact count past 2^24 elements, where one `f32` count would round: `n`
/// elements, every 1000th NaN.
pub fn nanmean_counts(b: &Backend, n: usize) -> Result<(), String> {
    let mut d = vec![1.0f32; n];
    for i in (0..n).step_by(1000) {
        d[i] = f32::NAN;
    }
    let numbers = (n - n.div_ceil(1000)) as u64;
    let input = b.upload(&d).map_err(|e| e.to_string())?;
    let mut r = Reducer::new(b);
    let count = input
        .slice(..n)
        .and_then(|view| r.count(view))
        .map_err(|e| e.to_string())?;
    if count != numbers {
        return Err(format!("count of {n}: got {count}, want {numbers}"));
    }
    let mean = r.nanmean(&input).map_err(|e| e.to_string())?;
    if mean != 1.0 {
        return Err(format!("nanmean of ones and NaNs: got {mean}, want 1"));
    }
    Ok(())
}

/// [`Reducer::sum_wide_range`] against the exact sum: `i32` and `u32` into `i64` / `u64`, with
/// data whose same-type sum wraps (values near the type's extremes), misaligned starts and forced
/// grids.
pub fn wide_sums(b: &Backend, sizes: &[usize], o: LaunchOverrides) -> Result<(), String> {
    for &n in sizes {
        let d: Vec<i32> = data::<i32>(n + 3, n as u64)
            .into_iter()
            .map(|x| if x >= 0 { i32::MAX - x } else { i32::MIN - x })
            .collect();
        let u: Vec<u32> = data::<u32>(n + 3, n as u64)
            .into_iter()
            .map(|x| u32::MAX - x)
            .collect();
        let (di, du) = (
            b.upload(&d).map_err(|e| e.to_string())?,
            b.upload(&u).map_err(|e| e.to_string())?,
        );
        let mut r = Reducer::new(b).with_overrides(o);
        for offset in [0, 3] {
            let want: i64 = d[offset..].iter().map(|&x| x as i64).sum();
            wide_sum_from(&mut r, &di, offset, want, o)?;
            let want: u64 = u[offset..].iter().map(|&x| x as u64).sum();
            wide_sum_from(&mut r, &du, offset, want, o)?;
        }
    }
    Ok(())
}

/// The sum (in `T`'s wide type) of `x[offset..]` against `want`.
fn wide_sum_from<T: Scalar>(
    r: &mut Reducer,
    x: &Buffer<T>,
    offset: usize,
    want: T::Sum,
    o: LaunchOverrides,
) -> Result<(), String> {
    let len = x.len() - offset;
    let got = x
        .slice(offset..offset.saturating_add(len))
        .and_then(|view| r.sum(view))
        .map_err(|e| e.to_string())?;
    if got != want {
        return Err(format!(
            "{} wide sum n={len} +{offset} {o:?}: {got} != {want}",
            T::TYPE
        ));
    }
    Ok(())
}
