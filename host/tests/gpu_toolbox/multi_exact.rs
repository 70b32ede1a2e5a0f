//! The multi-GPU exact sum, count and nanmean through NCCL: the checks of `tests/multi.rs`
//! (emulated ranks) on real GPUs, at sizes that use many blocks per rank.

use super::multi_gpus;
use crate::multi_checks::exact::{check_exact, counts, exact_sums, split};
use libtest_mimic::Failed;
use reduce_host::exact::generate;
use reduce_host::exact::ExactData;

/// Adversarial exact sums (every family, uneven and empty shards, IEEE cases) bit-identical to
/// one GPU and the host; counts exact and nanmeans within bound for every type.
pub fn multi_gpu_exact_sum_count_and_nanmean() -> std::result::Result<(), Failed> {
    let Some(mut m) = multi_gpus()? else {
        return Ok(());
    };
    let mut failures = exact_sums::<f32, _>(&mut m, 100);
    failures.extend(exact_sums::<f64, _>(&mut m, 100));
    failures.extend(counts(&mut m, 100));
    // 2^24 + 3 cancellation-heavy f64 per GPU, cut unevenly: 20 runs, one bit pattern, equal
    // to one GPU's exact sum of the concatenation and the host's.
    let sizes: Vec<usize> = (0..m.ranks()).map(|r| (1 << 24) + 3 * r).collect();
    let all = generate::<f64>(ExactData::Cancellation, sizes.iter().sum(), 5);
    let shards = split(&all, &sizes);
    failures.extend(check_exact(&mut m, &shards, "cancellation, 2^24 per GPU").err());
    let bufs = crate::multi_checks::upload(&m, &shards)?;
    let mut bits: Vec<u64> = Vec::new();
    for _ in 0..20 {
        bits.extend(m.exact_sum(&bufs)?.per_rank.iter().map(|v| v.to_bits()));
    }
    bits.sort();
    bits.dedup();
    println!(
        "20 exact sums over {} GPUs: {} distinct bit pattern(s)",
        m.ranks(),
        bits.len()
    );
    if bits.len() != 1 {
        failures.push(format!("{} bit patterns in 20 exact sums", bits.len()));
    }
    crate::common::all_passed(&failures)
}
