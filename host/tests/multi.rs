//! The multi-GPU reducer's sharding and combine logic on emulated ranks (CPU emulators and the
//! in-process all-gather): results against the single reducer over the concatenation and the
//! CPU reference, empty and uneven shards, every op × type, determinism, errors and timeouts.
//! Exact sums, counts and nanmeans, the CLI and the axis forms are in `multi_cases/`. The same
//! code with NCCL on real GPUs is in `tests/gpu.rs`.

mod cli_run;
mod common;
mod multi_cases;
mod multi_checks;

use common::data;
use multi_checks::{distinct_sums, every_op_and_type, on_emulated_ranks};
use reduce_host::multi::{load_nccl, nccl_candidates};
use reduce_host::multi::{split_even, AnyShard, AnyValue, InMemory};
use reduce_host::reference::reference_mean;
use reduce_host::*;
use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

#[test]
fn every_op_and_type_on_uneven_and_empty_shards() {
    let failures = on_emulated_ranks(|m| every_op_and_type(m, 1));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn scatter_splits_a_host_slice_evenly_and_reduces_it() {
    assert_eq!(split_even(10, 3), vec![0..3, 3..6, 6..10]);
    assert_eq!(split_even(2, 4), vec![0..0, 0..1, 1..1, 1..2]);
    assert_eq!(split_even(0, 2), vec![0..0, 0..0]);
    let d = data::<i64>(12_345, 9);
    let mut m = MultiReducer::emulated(4).unwrap();
    let shards = m.scatter(&d).unwrap();
    assert_eq!(
        shards.iter().map(|s| s.len()).collect::<Vec<_>>(),
        vec![3086, 3086, 3086, 3087]
    );
    let got = m.reduce_host(Op::Sum, &d).unwrap();
    assert_eq!(got.value, Some(d.iter().sum::<i64>()));
    assert_eq!(got.per_rank.len(), 4);
    assert_eq!(got.timing.local_ms.len(), 4);
    assert_eq!(got.timing.combine_ms.len(), 4);
}

#[test]
fn one_rank_and_exact_float_sums_are_bit_identical_to_the_single_reducer() {
    let single = Backend::open(BackendChoice::Emu).unwrap();
    let d = data::<f32>(20_011, 3);
    let want = Reducer::new(&single)
        .sum(&single.upload(&d).unwrap())
        .unwrap();
    let got = MultiReducer::emulated(1)
        .unwrap()
        .reduce_host(Op::Sum, &d)
        .unwrap();
    assert_eq!(got.value.unwrap().to_bits(), want.to_bits());
    // Small integers in f64 add exactly in any order: every partition gives the same bits.
    let ints: Vec<f64> = (0..30_000).map(|i| (i % 17) as f64 - 8.0).collect();
    let want: f64 = ints.iter().sum();
    for ranks in 1..=5 {
        let got = MultiReducer::emulated(ranks)
            .unwrap()
            .reduce_host(Op::Sum, &ints)
            .unwrap();
        assert_eq!(
            got.value.unwrap().to_bits(),
            want.to_bits(),
            "{ranks} ranks"
        );
    }
}

#[test]
fn nan_shards_propagate_and_nan_ops_skip_them() {
    let mut m = MultiReducer::emulated(3).unwrap();
    let nan = [f32::NAN, f32::NAN];
    let shards = [
        m.with_rank(0, |b| b.upload(&nan)).unwrap(),
        m.with_rank(1, |b| b.upload::<f32>(&[])).unwrap(),
        m.with_rank(2, |b| b.upload(&nan)).unwrap(),
    ];
    // Every element is NaN: NaN (an empty shard contributes the identity, +inf or -inf).
    assert!(m.reduce(Op::Min, &shards).unwrap().value.unwrap().is_nan());
    assert!(m.reduce(Op::Max, &shards).unwrap().value.unwrap().is_nan());
    let shards = [
        m.with_rank(0, |b| b.upload(&nan)).unwrap(),
        m.with_rank(1, |b| b.upload(&[3.0f32, -2.0])).unwrap(),
        m.with_rank(2, |b| b.upload::<f32>(&[])).unwrap(),
    ];
    // min/max propagate NaN (NumPy); nanmin/nanmax skip it.
    assert!(m.reduce(Op::Min, &shards).unwrap().value.unwrap().is_nan());
    assert!(m.reduce(Op::Max, &shards).unwrap().value.unwrap().is_nan());
    assert_eq!(m.reduce(Op::NanMin, &shards).unwrap().value, Some(-2.0));
    assert_eq!(m.reduce(Op::NanMax, &shards).unwrap().value, Some(3.0));
}

#[test]
fn repeated_runs_give_the_same_bits() {
    let d = data::<f32>(50_000, 5);
    let mut m = MultiReducer::emulated(3).unwrap();
    assert_eq!(distinct_sums(&mut m, &d, 10).unwrap(), 1);
}

#[test]
fn integer_means_are_exact_even_past_the_wrapping_range() {
    let d = [i64::MAX, i64::MAX, i64::MIN, 5, i64::MAX];
    let mut m = MultiReducer::emulated(2).unwrap();
    let shards = m.scatter(&d).unwrap();
    assert_eq!(m.mean(&shards).unwrap(), reference_mean(&d).unwrap());
    let any: Vec<AnyShard> = shards.iter().map(AnyShard::from).collect();
    assert_eq!(
        m.reduce_any(Op::Mean, &any).unwrap(),
        Some(AnyValue::F64(reference_mean(&d).unwrap()))
    );
    assert_eq!(
        m.reduce_any(Op::Max, &any).unwrap(),
        Some(AnyValue::I64(i64::MAX))
    );
}

#[test]
fn bad_shards_are_typed_errors() {
    let mut m = MultiReducer::emulated(2).unwrap();
    let a = m.with_rank(0, |b| b.upload(&[1.0f32])).unwrap();
    let b = m.with_rank(1, |b| b.upload(&[2u32])).unwrap();
    // Shards of different types.
    let e = m
        .reduce_any(Op::Sum, &[AnyShard::from(&a), AnyShard::from(&b)])
        .unwrap_err();
    assert!(
        matches!(
            e,
            ReduceError::ShardTypeMismatch {
                rank: 1,
                expected: ElemType::F32,
                found: ElemType::U32
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("shard 1 holds u32"), "{e}");
    // Too few shards, and a shard of the wrong rank.
    let e = m.reduce(Op::Sum, &[&a]).unwrap_err();
    assert!(e.to_string().contains("1 shards for 2 ranks"), "{e}");
    let c = m.with_rank(0, |b| b.upload(&[3.0f32])).unwrap();
    let e = m.reduce(Op::Sum, &[&a, &c]).unwrap_err();
    assert!(matches!(e, ReduceError::ForeignBuffer { .. }), "{e}");
    assert!(e.to_string().contains("shard 1"), "{e}");
    // A mean through reduce, the mean of nothing, zero ranks, a rank that is not there.
    assert!(matches!(
        m.reduce(Op::Mean, &[&a, &c]),
        Err(ReduceError::InvalidArgument(_))
    ));
    let empty = multi_checks::empty_shards::<f32, _>(&m);
    assert!(matches!(
        m.mean(&empty),
        Err(ReduceError::EmptyInput { op: Op::Mean })
    ));
    assert!(MultiReducer::emulated(0).is_err());
    assert!(m.with_rank(2, |_| Ok(())).is_err());
}

/// A collective that never finishes (or fails), recording whether it was aborted.
struct Stuck {
    fail: bool,
    aborted: Rc<Cell<bool>>,
}

impl Collective for Stuck {
    fn name(&self) -> &'static str {
        "stuck"
    }
    fn all_gather<T: Scalar>(
        &mut self,
        ranks: &[&Backend],
        send: &[&Buffer<T>],
        recv: &mut [Buffer<T>],
        count: usize,
    ) -> Result<()> {
        InMemory::new().all_gather(ranks, send, recv, count)
    }
    fn progress(&mut self) -> Result<bool> {
        if self.fail {
            Err(ReduceError::InvalidArgument("remote rank died".into()))
        } else {
            Ok(false)
        }
    }
    fn abort(&mut self) {
        self.aborted.set(true);
    }
}

#[test]
fn a_stuck_exchange_times_out_and_aborts_and_a_failed_one_is_an_error() {
    let aborted = Rc::new(Cell::new(false));
    let stuck = Stuck {
        fail: false,
        aborted: aborted.clone(),
    };
    let mut m = MultiReducer::emulated_with(2, stuck)
        .unwrap()
        .with_timeout(Duration::from_millis(200));
    let t = Instant::now();
    let e = m.reduce_host(Op::Sum, &[1.0f32; 100]).unwrap_err();
    assert!(matches!(e, ReduceError::Timeout { ms: 200, .. }), "{e}");
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(aborted.get(), "the collective was not aborted");

    let aborted = Rc::new(Cell::new(false));
    let failing = Stuck {
        fail: true,
        aborted: aborted.clone(),
    };
    let mut m = MultiReducer::emulated_with(2, failing).unwrap();
    let e = m.reduce_host(Op::Max, &[1u64; 10]).unwrap_err();
    assert!(e.to_string().contains("remote rank died"), "{e}");
    assert!(aborted.get());
}

#[test]
fn a_missing_nccl_is_a_typed_error_naming_every_place_tried() {
    // Only this test touches NCCL_LIBRARY (and the process-wide loader).
    std::env::set_var("NCCL_LIBRARY", "/nonexistent/libnccl.so.2");
    assert_eq!(nccl_candidates()[0], "/nonexistent/libnccl.so.2");
    match load_nccl() {
        Err(ReduceError::NcclUnavailable { tried }) => {
            assert!(
                tried[0].starts_with("/nonexistent/libnccl.so.2: "),
                "{tried:?}"
            );
            assert!(tried.iter().any(|t| t.starts_with("libnccl.so.2: ")));
            let msg = ReduceError::NcclUnavailable { tried }.to_string();
            assert!(msg.contains("NCCL_LIBRARY"), "{msg}");
        }
        // A machine with NCCL installed finds it elsewhere.
        Ok(lib) => assert_ne!(lib.path, "/nonexistent/libnccl.so.2"),
        Err(e) => panic!("unexpected error {e}"),
    }
}
