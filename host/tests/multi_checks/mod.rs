//! The checks of the multi-GPU reducer, shared by `tests/multi.rs` (emulated ranks) and
//! `tests/gpu.rs` (GPUs through NCCL): every result against the single reducer on rank 0 over
//! the concatenation of the shards and the CPU reference.
#![allow(dead_code)]

pub mod exact;

use reduce_host::multi::InMemory;
use reduce_host::reference::{reference_mean, XorShift64};
use reduce_host::*;
use reduce_kernels::Element;

/// The same bits, or both NaN.
pub fn same<T: Scalar>(a: T, b: T) -> bool {
    a.to_bits64() == b.to_bits64() || (a.to_f64().is_nan() && b.to_f64().is_nan())
}

/// Shard sizes that cover one rank, uneven and empty shards, and all-empty inputs, for `ranks`
/// ranks (`scale` multiplies the non-trivial sizes).
pub fn layouts(ranks: usize, scale: usize) -> Vec<Vec<usize>> {
    let pattern = [3000, 4097, 0, 1, 9999, 2, 0, 1234];
    vec![
        (0..ranks)
            .map(|r| pattern[r % pattern.len()] * scale)
            .collect(),
        (0..ranks)
            .map(|r| if r == ranks - 1 { 7000 * scale } else { 0 })
            .collect(),
        (0..ranks)
            .map(|r| if r == 0 { 1 } else { 5000 * scale + r })
            .collect(),
        vec![0; ranks],
    ]
}

/// Deterministic pseudo-random shards of the given sizes (no zeros).
pub fn shards_of<T: Scalar>(sizes: &[usize], seed: u64) -> Vec<Vec<T>> {
    sizes
        .iter()
        .enumerate()
        .map(|(r, &n)| crate::common::data::<T>(n, seed * 31 + r as u64))
        .collect()
}

/// An empty buffer on each rank of `m`.
pub fn empty_shards<T: Scalar, C: Collective>(m: &MultiReducer<C>) -> Vec<Buffer<T>> {
    (0..m.ranks())
        .map(|r| m.with_rank(r, |b| b.zeroed(0)).unwrap())
        .collect()
}

/// `shards` uploaded to their ranks of `m`, shard `r` to rank `r`.
pub fn upload<T: Scalar, C: Collective>(
    m: &MultiReducer<C>,
    shards: &[Vec<T>],
) -> Result<Vec<Buffer<T>>> {
    shards
        .iter()
        .enumerate()
        .map(|(r, s)| m.with_rank(r, |b| b.upload(s)))
        .collect()
}

/// What a check's messages say of `shards`: "N TYPE over shards [SIZES]".
pub fn over_shards<T: Scalar>(shards: &[Vec<T>]) -> String {
    let sizes: Vec<usize> = shards.iter().map(|s| s.len()).collect();
    format!(
        "{} {} over shards {sizes:?}",
        sizes.iter().sum::<usize>(),
        T::TYPE
    )
}

/// The failures of `checks` on 1, 2, 3 and 5 emulated ranks.
pub fn on_emulated_ranks(
    mut checks: impl FnMut(&mut MultiReducer<InMemory>) -> Vec<String>,
) -> Vec<String> {
    let mut failures = Vec::new();
    for ranks in [1, 2, 3, 5] {
        let mut m = MultiReducer::emulated(ranks).unwrap();
        failures.extend(checks(&mut m));
    }
    failures
}

/// `op` over `shards` (host slices, one per rank of `m`), checked against the single reducer on
/// rank 0 over the concatenation and the CPU reference; every rank must hold the same bits.
pub fn check_shards<T: Scalar, C: Collective>(
    m: &mut MultiReducer<C>,
    op: Op,
    shards: &[Vec<T>],
) -> Result<(), String> {
    let all: Vec<T> = shards.concat();
    let what = format!("{op} of {}", over_shards(shards));
    let e = |e: ReduceError| format!("{what}: {e}");
    let bufs = upload(m, shards).map_err(e)?;
    if op == Op::Mean {
        let got = m.mean(&bufs);
        return match (got, reference_mean(&all)) {
            (Err(ReduceError::EmptyInput { .. }), None) => Ok(()),
            (Ok(g), Some(w)) if !T::TYPE.is_float() && g == w => Ok(()),
            (Ok(g), Some(_)) if T::TYPE.is_float() => {
                let r = reference(Op::Sum, &all).unwrap();
                let depth = m.reduce(Op::Sum, &bufs).map_err(e)?.depth + 2;
                if matches_reference(Op::Sum, T::from_f64(g * all.len() as f64), &r, depth) {
                    Ok(())
                } else {
                    Err(format!("{what}: {g} vs {}", r.sum_f64 / all.len() as f64))
                }
            }
            (g, w) => Err(format!("{what}: got {g:?}, want {w:?}")),
        };
    }
    let got = m.reduce(op, &bufs).map_err(e)?;
    let want = m
        .with_rank(0, |b| {
            let input = b.upload(&all)?;
            let v = Reducer::new(b).reduce(op, &input)?;
            Ok(v.map(|v| T::from_bits64(v.to_bits64()))) // `T::Acc` is `T` here
        })
        .map_err(e)?;
    if got.per_rank.windows(2).any(|w| !same(w[0], w[1])) {
        return Err(format!("{what}: the ranks hold different values"));
    }
    match (got.value, want) {
        (None, None) => Ok(()),
        (Some(g), Some(w))
            if !matches!(op, Op::Sum | Op::NanSum | Op::Prod) || !T::TYPE.is_float() =>
        {
            if same(g, w) {
                Ok(())
            } else {
                Err(format!("{what}: {g} but the single reducer gives {w}"))
            }
        }
        (Some(g), Some(w)) => {
            let r = reference(op, &all).unwrap();
            if matches_reference(op, g, &r, got.depth) {
                Ok(())
            } else {
                Err(format!(
                    "{what}: {g} (single {w}) is outside the bound of depth {} around {}",
                    got.depth, r.sum_f64
                ))
            }
        }
        (g, w) => Err(format!("{what}: got {g:?}, single reducer {w:?}")),
    }
}

/// [`check_shards`] for every type, op and layout; the failures.
pub fn every_op_and_type<C: Collective>(m: &mut MultiReducer<C>, scale: usize) -> Vec<String> {
    let mut failures = Vec::new();
    for &ty in &ElemType::ALL {
        // nanmean and count have their own result types: `exact::counts`.
        for op in Op::REDUCE
            .into_iter()
            .filter(|o| !matches!(o, Op::NanMean | Op::Count))
        {
            for (i, sizes) in layouts(m.ranks(), scale).iter().enumerate() {
                let r = with_elem_type!(ty, T => check_shards::<T, C>(m, op, &shards_of::<T>(sizes, i as u64)));
                failures.extend(r.err());
            }
        }
    }
    failures
}

/// The sum of `d` split across the ranks, `runs` times: the distinct bit patterns seen.
pub fn distinct_sums<C: Collective>(
    m: &mut MultiReducer<C>,
    d: &[f32],
    runs: usize,
) -> Result<usize> {
    let shards = m.scatter(d)?;
    let mut bits = Vec::new();
    for _ in 0..runs {
        let r = m.reduce(Op::Sum, &shards)?;
        bits.extend(r.per_rank.iter().map(|v| v.to_bits()));
    }
    bits.sort();
    bits.dedup();
    Ok(bits.len())
}

/// Small integers (some negative where the type allows): exact sums in every type.
pub fn axis_data<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    XorShift64::new(seed)
        .take(n)
        .map(|x| {
            let signed = T::TYPE.is_float() || T::TYPE.name().starts_with('i');
            T::from_f64((x % 201) as f64 - if signed { 100.0 } else { 0.0 })
        })
        .collect()
}
