//! The streamed host-input path ([`HostReducer`]) on the CPU emulator: the same chunking as on a
//! GPU, with plain copies. `tests/gpu.rs` runs the same checks on a GPU.

#[macro_use]
mod common;
mod host_stream;

use host_stream::*;
use reduce_host::streaming::Route;
use reduce_host::*;

fn emu() -> Backend {
    Backend::open(BackendChoice::Emu).unwrap()
}

test_each! {
    every_op_and_boundary_f32 => check_type::<f32>(&emu(), &small_chunks(1024), 1).unwrap(),
    every_op_and_boundary_f64 => check_type::<f64>(&emu(), &small_chunks(1024), 2).unwrap(),
    every_op_and_boundary_i32 => check_type::<i32>(&emu(), &small_chunks(1024), 3).unwrap(),
    every_op_and_boundary_u32 => check_type::<u32>(&emu(), &small_chunks(1024), 4).unwrap(),
    every_op_and_boundary_i64 => check_type::<i64>(&emu(), &small_chunks(1024), 5).unwrap(),
    every_op_and_boundary_u64 => check_type::<u64>(&emu(), &small_chunks(1024), 6).unwrap(),
}

#[test]
fn deterministic_across_calls_and_threads() {
    check_deterministic(&emu(), &small_chunks(1024), 10_000).unwrap();
    check_registered(&emu(), &small_chunks(1024)).unwrap();
}

#[test]
fn one_chunk_is_exactly_the_device_resident_result() {
    let b = emu();
    let data = common::data::<f32>(5000, 9);
    let mut h = HostReducer::new(&b);
    assert_eq!(b.caps().compute_capability, (0, 0));
    let dev = b.upload(&data).unwrap();
    let want = Reducer::new(&b).sum(&dev).unwrap();
    assert_eq!(h.sum_host(&data).unwrap().to_bits(), want.to_bits());
}

#[test]
fn integer_mean_is_exact_even_when_the_sum_wraps() {
    let b = emu();
    let mut h = HostReducer::new(&b).with_policy(small_chunks(64)).unwrap();
    let data = vec![i64::MAX; 40];
    assert_eq!(h.mean_host(&data).unwrap(), i64::MAX as f64);
    let mixed: Vec<i64> = (0..41)
        .map(|i| if i % 2 == 0 { i64::MAX } else { i64::MIN })
        .collect();
    let want = mixed.iter().map(|&x| x as i128).sum::<i128>() as f64 / 41.0;
    assert_eq!(h.mean_host(&mixed).unwrap(), want);
}

#[test]
fn bad_input_is_a_typed_error() {
    let b = emu();
    let other = emu();
    let mut h = HostReducer::new(&b);
    let foreign = PinnedBuffer::from_slice(&other, &[1.0f32, 2.0]).unwrap();
    assert!(matches!(
        h.sum_host(&foreign),
        Err(ReduceError::ForeignBuffer { .. })
    ));
    assert!(matches!(
        h.reduce_host(Op::Mean, &[1u32][..]),
        Err(ReduceError::InvalidArgument(_))
    ));
    assert!(matches!(
        h.mean_host(&Vec::<f64>::new()),
        Err(ReduceError::EmptyInput { .. })
    ));
    let bad = StreamPolicy {
        max_chunk_bytes: 4,
        ..StreamPolicy::default()
    };
    assert!(matches!(
        HostReducer::new(&b).with_policy(bad),
        Err(ReduceError::InvalidArgument(_))
    ));
}

#[test]
fn pinned_buffer_is_a_slice_of_its_backend() {
    let b = emu();
    let mut p = PinnedBuffer::<u64>::zeroed(&b, 5).unwrap();
    assert_eq!(p.as_slice(), &[0; 5]);
    p.as_mut_slice()[4] = 9;
    assert_eq!((p.len(), p.owner(), p.is_page_locked()), (5, b.id(), false));
    let mut h = HostReducer::new(&b);
    assert_eq!(h.max_host(&p).unwrap(), Some(9));
    assert!(PinnedBuffer::<u64>::zeroed(&b, usize::MAX).is_err());
}

#[test]
fn timeline_reports_the_chunking() {
    let b = emu();
    let mut h = HostReducer::new(&b)
        .with_policy(small_chunks(1024))
        .unwrap();
    let data = vec![1u32; 1000];
    let (v, t) = h.reduce_host_timeline(Op::Sum, &data).unwrap();
    assert_eq!(v, Some(1000));
    assert_eq!((t.n, t.chunk_elems, t.chunks), (1000, 125, 8));
    assert!(t.spans.is_empty() && t.total_ms > 0.0);
}

#[test]
fn the_policy_picks_zero_copy_for_small_pinned_inputs() {
    let b = emu();
    let policy = StreamPolicy {
        zero_copy_max_bytes: 4 * 3000,
        ..small_chunks(1024)
    };
    let data = common::data::<f32>(2999, 3);
    let pinned = PinnedBuffer::from_slice(&b, &data).unwrap();
    let mut h = HostReducer::new(&b).with_policy(policy).unwrap();
    let whole = Reducer::new(&b).sum(&b.upload(&data).unwrap()).unwrap();
    assert_eq!(h.last_route(), None);
    assert_eq!(h.sum_host(&pinned).unwrap().to_bits(), whole.to_bits());
    assert_eq!(h.last_route(), Some(Route::ZeroCopy));
    // Pageable input still streams in chunks.
    let chunked = chunked_reference(&b, h.policy(), Op::Sum, &data).unwrap();
    assert_eq!(
        h.sum_host(&data).unwrap().to_bits(),
        chunked.unwrap().to_bits()
    );
    // Above the threshold, pinned input streams too.
    let big = PinnedBuffer::from_slice(&b, &common::data::<f32>(3001, 3)).unwrap();
    let chunked = chunked_reference(&b, h.policy(), Op::Sum, big.as_slice()).unwrap();
    assert_eq!(
        h.sum_host(&big).unwrap().to_bits(),
        chunked.unwrap().to_bits()
    );
}
