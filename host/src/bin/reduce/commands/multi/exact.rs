//! `reduce multi --exact`: the correctly rounded sum across the ranks, `--runs` times: every
//! run's bits on every rank must be the same and equal the host's exact reference; timed
//! against the plain (order-dependent) multi-rank sum of the same shards; with `--compare`,
//! also rank 0's single-device exact sum of the whole input (same bits required).

use super::{Format, MultiArgs};
use crate::data::make_data;
use reduce_host::exact::{exact_sum_parallel, generate, ExactFloat};
use reduce_host::multi::split_even;
use reduce_host::{Buffer, Collective, MultiReducer, Op, ReduceError, Reducer};
use std::time::Instant;

/// The median of `v` (NaN for none).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The shards, the host copy of the data (none when filled on the devices), the exact sum.
type Input<T> = (Vec<Buffer<T>>, Option<Vec<T>>, T);

/// The input: ones filled on the devices (`--on-device`), an exact-sum family
/// (`--exact-data`) or `--data`, split evenly; and the host's exact sum of it.
fn make<T: ExactFloat + Sync, C: Collective>(
    m: &MultiReducer<C>,
    a: &MultiArgs,
    n: usize,
) -> Result<Input<T>, ReduceError> {
    if a.on_device {
        let shards = split_even(n, m.ranks())
            .into_iter()
            .enumerate()
            .map(|(r, range)| m.with_rank(r, |b| b.filled(range.len(), T::from_f64(1.0))))
            .collect::<Result<Vec<_>, _>>()?;
        // n ones: the exact sum is n, rounded once (Rust's `as` rounds to nearest, ties even).
        return Ok((shards, None, T::from_f64(n as f64)));
    }
    let data = match a.exact_data {
        Some(family) => generate::<T>(family, n, a.seed),
        None => make_data::<T>(n, a.data, a.seed)?,
    };
    let shards = m.scatter(&data)?;
    let want = exact_sum_parallel(&data);
    Ok((shards, Some(data), want))
}

/// Run it (f32 or f64); `Ok(true)` when every check passed.
pub fn run<T: ExactFloat + Sync, C: Collective>(
    mut m: MultiReducer<C>,
    a: &MultiArgs,
) -> Result<bool, ReduceError> {
    let n = super::default_n(&m, a);
    let (shards, data, want) = make::<T, C>(&m, a, n)?;
    let (mut bits, mut wall, mut plain, mut local, mut combine) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut value = want;
    for i in 0..a.warmup + a.runs {
        let t = Instant::now();
        let r = m.exact_sum(&shards)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        m.reduce(Op::Sum, &shards)?;
        let plain_ms = t.elapsed().as_secs_f64() * 1e3;
        if i >= a.warmup {
            bits.extend(r.per_rank.iter().map(|v| v.to_bits64()));
            wall.push(ms);
            plain.push(plain_ms);
            local.push(r.timing.local_max_ms());
            combine.push(r.timing.combine_min_ms());
            value = r.value.unwrap_or_default();
        }
    }
    let ok = bits.iter().all(|&b| b == want.to_bits64());
    bits.sort();
    bits.dedup();
    let distinct = bits.len();
    // Rank 0 alone on the whole input: the single-device exact sum.
    let single = if a.compare {
        let s = m.with_rank(0, |b| {
            let input = match &data {
                Some(d) => b.upload(d)?,
                None => b.filled(n, T::from_f64(1.0))?,
            };
            let mut r = Reducer::new(b);
            let mut times = Vec::new();
            let mut v = T::default();
            for i in 0..a.warmup + a.runs.min(20) {
                let t = Instant::now();
                v = r.sum_exact(&input)?;
                if i >= a.warmup {
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                }
            }
            Ok((v, median(times)))
        })?;
        Some(s)
    } else {
        None
    };
    let single_equal = single.is_none_or(|(v, _)| v.to_bits64() == value.to_bits64());
    let bytes = (n * T::TYPE.size()) as f64;
    let (wall_med, plain_med) = (median(wall), median(plain));
    if a.format != Format::Text {
        println!(
            "{}",
            serde_json::json!({
                "kind": "multi_exact", "collective": m.collective().name(), "ranks": m.ranks(),
                "n": n, "type": T::TYPE, "value": value.to_string(),
                "bits": format!("{:#x}", value.to_bits64()), "reference_bits": format!("{:#x}", want.to_bits64()),
                "ok": ok, "runs": a.runs, "distinct_bits": distinct,
                "wall_ms_median": wall_med, "gb_per_s": bytes / wall_med / 1e6,
                "plain_sum_wall_ms_median": plain_med, "local_ms_max_median": median(local),
                "combine_ms_min_median": median(combine),
                "single_exact_bits": single.map(|(v, _)| format!("{:#x}", v.to_bits64())),
                "single_exact_wall_ms_median": single.map(|(_, t)| t),
                "single_equal": single_equal,
            })
        );
    } else {
        println!(
            "exact sum of {n} {} over {} ranks = {value} ({:#x})   {}",
            T::TYPE,
            m.ranks(),
            value.to_bits64(),
            if ok {
                "ok (= the host's exact sum)"
            } else {
                "WRONG"
            }
        );
        println!(
            "same bits in all {} runs on every rank: {}",
            a.runs,
            if distinct == 1 { "yes" } else { "NO" }
        );
        println!(
            "median: exact {wall_med:.4} ms ({:.1} GB/s), plain sum {plain_med:.4} ms; combine step (all-gather of the words + combine kernel) {:.4} ms",
            bytes / wall_med / 1e6,
            median(combine)
        );
        if let Some((v, t)) = single {
            println!(
                "rank 0 alone, exact sum of all {n}: {v} ({:#x}) in {t:.4} ms: {}",
                v.to_bits64(),
                if single_equal {
                    "same bits"
                } else {
                    "DIFFERENT BITS"
                }
            );
        }
    }
    Ok(ok && distinct == 1 && single_equal)
}
