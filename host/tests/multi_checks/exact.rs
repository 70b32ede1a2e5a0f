//! Exact sums, counts and nanmeans across ranks, shared by `tests/multi.rs` (emulated ranks)
//! and `tests/gpu.rs` (GPUs through NCCL).

use super::{layouts, over_shards, same, upload};
use reduce_host::exact::{exact_sum, generate, ExactData};
use reduce_host::*;

/// Split `all` into consecutive shards of `sizes` (their sum must be `all.len()`).
pub fn split<T: Clone>(all: &[T], sizes: &[usize]) -> Vec<Vec<T>> {
    let mut at = 0;
    sizes
        .iter()
        .map(|&n| {
            at += n;
            all[at - n..at].to_vec()
        })
        .collect()
}

/// The exact sum across the ranks of `shards`: the same bits on every rank, equal to the
/// single reducer's exact sum of the concatenation on rank 0 and to the host's exact reference
/// (and the exact mean to the single reducer's).
pub fn check_exact<T: ExactFloat, C: Collective>(
    m: &mut MultiReducer<C>,
    shards: &[Vec<T>],
    what: &str,
) -> Result<(), String> {
    let all: Vec<T> = shards.concat();
    let what = format!("exact sum of {what} ({})", over_shards(shards));
    let e = |e: ReduceError| format!("{what}: {e}");
    let bufs = upload(m, shards).map_err(e)?;
    let got = m.exact_sum(&bufs).map_err(e)?;
    let (single, single_mean) = m
        .with_rank(0, |b| {
            let input = b.upload(&all)?;
            let mut r = Reducer::new(b);
            let mean = if all.is_empty() {
                None
            } else {
                Some(r.mean_exact(&input)?)
            };
            Ok((r.sum_exact(&input)?, mean))
        })
        .map_err(e)?;
    let host = exact_sum(&all);
    if got.per_rank.len() != m.ranks() || got.per_rank.iter().any(|v| !same(*v, single)) {
        return Err(format!(
            "{what}: ranks hold {:?}, the single exact sum is {single:?}",
            got.per_rank
        ));
    }
    if single.to_bits64() != host.to_bits64()
        || got.value.map(|v| v.to_bits64()) != Some(host.to_bits64())
    {
        return Err(format!(
            "{what}: {:?} vs single {single:?} vs host reference {host:?}",
            got.value
        ));
    }
    match (m.exact_mean(&bufs), single_mean) {
        (Err(ReduceError::EmptyInput { .. }), None) => Ok(()),
        (Ok(g), Some(w)) if g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()) => Ok(()),
        (g, w) => Err(format!("{what}: exact mean {g:?}, single {w:?}")),
    }
}

/// Adversarial data ([`ExactData`]) over every layout, the IEEE edge cases split across ranks:
/// the failures.
pub fn exact_sums<T: ExactFloat, C: Collective>(
    m: &mut MultiReducer<C>,
    scale: usize,
) -> Vec<String> {
    let mut failures = Vec::new();
    let ranks = m.ranks();
    for (i, sizes) in layouts(ranks, scale).iter().enumerate() {
        let n: usize = sizes.iter().sum();
        for data in ExactData::ALL {
            let all = generate::<T>(data, n, 7 + i as u64);
            failures.extend(check_exact(m, &split(&all, sizes), data.name()).err());
        }
    }
    // The IEEE cases, each element on its own rank where there are enough (the rest empty).
    let z = T::from_f64(-0.0);
    let cases: [(&str, Vec<f64>); 5] = [
        ("all -0.0", vec![-0.0, -0.0, -0.0]),
        ("-0.0 and +0.0", vec![-0.0, 0.0]),
        ("+inf and -inf", vec![f64::INFINITY, 1.0, f64::NEG_INFINITY]),
        ("a NaN", vec![1.0, f64::NAN, 2.0]),
        ("-inf", vec![-1.0, f64::NEG_INFINITY]),
    ];
    for (name, values) in cases {
        let mut shards: Vec<Vec<T>> = vec![Vec::new(); ranks];
        for (k, v) in values.iter().enumerate() {
            shards[(k * 2 + 1) % ranks].push(T::from_f64(*v));
        }
        failures.extend(check_exact(m, &shards, name).err());
    }
    // An all -0.0 input with an empty shard stays -0.0.
    if ranks > 1 {
        let mut shards = vec![vec![z; 5]; ranks];
        shards[ranks - 1].clear();
        failures.extend(check_exact(m, &shards, "-0.0 with an empty shard").err());
    }
    failures
}

/// Count and nanmean across the ranks of `shards`, against the host: an exact `u64` count (the
/// same on every rank) and a nanmean within the float sum's bound (NaN when every element is
/// NaN, an error when there are none).
pub fn check_count<T: Scalar, C: Collective>(
    m: &mut MultiReducer<C>,
    shards: &[Vec<T>],
) -> Result<(), String> {
    let all: Vec<T> = shards.concat();
    let what = format!("count/nanmean of {}", over_shards(shards));
    let e = |e: ReduceError| format!("{what}: {e}");
    let bufs = upload(m, shards).map_err(e)?;
    let want = all.iter().filter(|x| !x.to_f64().is_nan()).count() as u64;
    let got = m.count(&bufs).map_err(e)?;
    if got.value != Some(want) || got.per_rank.iter().any(|&c| c != want) {
        return Err(format!(
            "{what}: count {:?} (ranks {:?}), want {want}",
            got.value, got.per_rank
        ));
    }
    let mean = m.nanmean(&bufs);
    if all.is_empty() {
        return match mean {
            Err(ReduceError::EmptyInput { .. }) => Ok(()),
            g => Err(format!("{what}: nanmean of nothing gave {g:?}")),
        };
    }
    let g = mean.map_err(e)?;
    if want == 0 {
        return if g.is_nan() {
            Ok(())
        } else {
            Err(format!("{what}: nanmean of all-NaN gave {g}"))
        };
    }
    let r = reference(Op::NanSum, &all).ok_or_else(|| format!("{what}: no reference"))?;
    let depth = m.reduce(Op::NanSum, &bufs).map_err(e)?.depth + 2;
    let as_sum = T::from_f64(g * want as f64);
    if T::TYPE.is_float() && !matches_reference(Op::NanSum, as_sum, &r, depth) {
        return Err(format!(
            "{what}: nanmean {g}, reference {}",
            r.sum_f64 / want as f64
        ));
    }
    if !T::TYPE.is_float() {
        let exact = all.iter().map(|x| x.to_i128().unwrap_or(0)).sum::<i128>() as f64 / want as f64;
        if g != exact {
            return Err(format!("{what}: nanmean {g}, exact {exact}"));
        }
    }
    Ok(())
}

/// [`check_count`] for every type and layout, with NaNs in some shards (floats), an all-NaN
/// shard, and all-NaN inputs: the failures.
pub fn counts<C: Collective>(m: &mut MultiReducer<C>, scale: usize) -> Vec<String> {
    let mut failures = Vec::new();
    let ranks = m.ranks();
    for &ty in &ElemType::ALL {
        for (i, sizes) in layouts(ranks, scale).iter().enumerate() {
            let r = with_elem_type!(ty, T => {
                let mut shards = super::shards_of::<T>(sizes, i as u64);
                if T::TYPE.is_float() {
                    let nan = T::from_f64(f64::NAN);
                    for (r, s) in shards.iter_mut().enumerate() {
                        for (k, x) in s.iter_mut().enumerate() {
                            // NaNs in every other shard; rank 1's shard all NaN.
                            if (r % 2 == 0 && k % 7 == 3) || r == 1 {
                                *x = nan;
                            }
                        }
                    }
                }
                let all_nan: Vec<Vec<T>> = shards
                    .iter()
                    .map(|s| vec![T::from_f64(f64::NAN); s.len()])
                    .collect();
                check_count::<T, C>(m, &shards).and_then(|()| {
                    if T::TYPE.is_float() {
                        check_count::<T, C>(m, &all_nan)
                    } else {
                        Ok(())
                    }
                })
            });
            failures.extend(r.err());
        }
    }
    failures
}
