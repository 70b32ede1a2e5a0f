//! Exact sums, counts and nanmeans across emulated ranks (1, 2, 3, 5; empty and uneven shards;
//! adversarial data), and their typed errors.

use crate::multi_checks::exact::{check_exact, counts, exact_sums};
use crate::multi_checks::on_emulated_ranks;
use reduce_host::exact::{words_len, ExactCombine, MAX_EXACT_RANKS};
use reduce_host::multi::{AnyShard, AnyValue};
use reduce_host::*;

#[test]
fn exact_sums_are_bit_identical_to_one_device_for_any_rank_count() {
    let failures = on_emulated_ranks(|m| {
        let mut failures = exact_sums::<f32, _>(m, 1);
        failures.extend(exact_sums::<f64, _>(m, 1));
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_split_of_one_input_gives_the_same_exact_bits() {
    // One cancellation-heavy input, cut at many places across 3 ranks.
    let all = exact::generate::<f64>(exact::ExactData::Cancellation, 3001, 11);
    let mut m = MultiReducer::emulated(3).unwrap();
    for (a, b) in [
        (0, 0),
        (0, 3001),
        (1, 2),
        (1500, 1501),
        (17, 2900),
        (3001, 3001),
    ] {
        let shards = vec![all[..a].to_vec(), all[a..b].to_vec(), all[b..].to_vec()];
        check_exact(&mut m, &shards, &format!("split at {a}, {b}")).unwrap();
    }
}

#[test]
fn counts_and_nanmeans_across_ranks_are_exact_u64_counts() {
    let failures = on_emulated_ranks(|m| counts(m, 1));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The run-time-typed forms: a count is a u64, a nanmean an f64.
    let mut m = MultiReducer::emulated(2).unwrap();
    let shards = m.scatter(&[1.0f32, f32::NAN, 3.0, f32::NAN, 5.0]).unwrap();
    let any: Vec<AnyShard> = shards.iter().map(AnyShard::from).collect();
    assert_eq!(
        m.reduce_any(Op::Count, &any).unwrap(),
        Some(AnyValue::U64(3))
    );
    assert_eq!(
        m.reduce_any(Op::NanMean, &any).unwrap(),
        Some(AnyValue::F64(3.0))
    );
}

#[test]
fn exact_and_count_errors_are_typed() {
    let mut m = MultiReducer::emulated(2).unwrap();
    let a = m.with_rank(0, |b| b.upload(&[1.0f32])).unwrap();
    let c = m.with_rank(0, |b| b.upload(&[2.0f32])).unwrap();
    // Too few shards, a shard of the wrong rank.
    let e = m.exact_sum(&[&a]).unwrap_err();
    assert!(e.to_string().contains("1 shards for 2 ranks"), "{e}");
    let e = m.exact_sum(&[&a, &c]).unwrap_err();
    assert!(matches!(e, ReduceError::ForeignBuffer { .. }), "{e}");
    let e = m.count(&[&a, &c]).unwrap_err();
    assert!(matches!(e, ReduceError::ForeignBuffer { .. }), "{e}");
    // Count and nanmean through `reduce` name the methods that return their types.
    let b = m.with_rank(1, |b| b.upload(&[2.0f32])).unwrap();
    for op in [Op::Count, Op::NanMean] {
        let e = m.reduce(op, &[&a, &b]).unwrap_err();
        assert!(
            e.to_string().contains(&format!("MultiReducer::{op}")),
            "{e}"
        );
    }
    // Nothing to average.
    let empty = crate::multi_checks::empty_shards::<f64, _>(&m);
    assert!(matches!(
        m.exact_mean(&empty),
        Err(ReduceError::EmptyInput { op: Op::Mean })
    ));
    assert!(matches!(
        m.nanmean(&empty),
        Err(ReduceError::EmptyInput { op: Op::NanMean })
    ));
    assert_eq!(m.count(&empty).unwrap().value, Some(0));
    assert_eq!(m.exact_sum(&empty).unwrap().value.unwrap().to_bits(), 0);
    // The combine's rank bound, and a gathered buffer too short for its ranks.
    m.with_rank(0, |b| {
        let combine = ExactCombine::<f32>::new(b)?;
        let gathered = b.zeroed::<i64>(2 * words_len::<f32>())?;
        for ranks in [0, 3, MAX_EXACT_RANKS + 1] {
            let e = combine.enqueue(b, &gathered, ranks).unwrap_err();
            assert!(matches!(e, ReduceError::InvalidArgument(_)), "{e}");
        }
        combine.enqueue(b, &gathered, 2)?;
        assert_eq!(combine.read_result(b)?.to_bits(), 0);
        Ok(())
    })
    .unwrap();
}
