//! Checks of the streamed host-input path ([`HostReducer`]), shared by the emulator suite
//! (`tests/streaming.rs`) and the GPU suite (`tests/gpu.rs`).
#![allow(dead_code)]

use reduce_host::reference::reference_mean;
use reduce_host::streaming::Route;
use reduce_host::*;
use reduce_kernels::Element;

/// A policy with chunks of at most `max_chunk_bytes`, so that small inputs cross many chunk
/// boundaries.
pub fn small_chunks(max_chunk_bytes: usize) -> StreamPolicy {
    StreamPolicy {
        max_chunk_bytes,
        min_chunk_bytes: max_chunk_bytes / 4,
        target_chunks: 8,
        slots: 3,
        copy_threads: 3,
        min_bytes_per_thread: 64,
        zero_copy_max_bytes: 0,
        register_min_bytes: usize::MAX,
    }
}

/// Pageable input page-locked in place (`register_min_bytes`) gives the bits of the staged
/// route (same chunks, same kernels), at chunk boundaries, misaligned and for every threshold
/// side; on the emulator the route does not exist and the bits must match all the same.
pub fn check_registered(b: &Backend, policy: &StreamPolicy) -> Result<(), String> {
    let e = |e: ReduceError| e.to_string();
    let data = super::common::data::<f32>(3 * (policy.max_chunk_bytes / 4) + 1001, 9);
    for (threshold, offset) in [(0, 0), (0, 1), (1 << 40, 1)] {
        let d = &data[offset..];
        let staged = StreamPolicy {
            register_min_bytes: usize::MAX,
            ..policy.clone()
        };
        let registered = StreamPolicy {
            register_min_bytes: threshold,
            ..policy.clone()
        };
        let want = HostReducer::new(b)
            .with_policy(staged)
            .map_err(e)?
            .sum_host(d)
            .map_err(e)?;
        let mut h = HostReducer::new(b).with_policy(registered).map_err(e)?;
        for _ in 0..2 {
            let got = h.sum_host(d).map_err(e)?;
            if got.to_bits() != want.to_bits() {
                return Err(format!(
                    "registered route (threshold {threshold}, offset {offset}): {got} vs staged {want}"
                ));
            }
        }
        let route = match (b.gpu(), threshold) {
            (None, _) => Route::Emulated,
            (Some(_), 0) => Route::Registered,
            _ => Route::Staged,
        };
        if h.last_route() != Some(route) {
            return Err(format!(
                "threshold {threshold}: route {:?}, want {route:?}",
                h.last_route()
            ));
        }
        let max = h.max_host(d).map_err(e)?;
        if max != d.iter().copied().reduce(f32::max) {
            return Err(format!("registered route max: {max:?}"));
        }
    }
    // Memory that is pinned already (a PinnedBuffer's, passed as a plain slice) cannot be
    // registered again: the route falls back to staging instead of failing.
    let pinned = PinnedBuffer::from_slice(b, &data).map_err(e)?;
    let registered = StreamPolicy {
        register_min_bytes: 0,
        ..policy.clone()
    };
    let mut h = HostReducer::new(b).with_policy(registered).map_err(e)?;
    let got = h.sum_host(pinned.as_slice()).map_err(e)?;
    let want = h.sum_host(&data).map_err(e)?;
    if got.to_bits() != want.to_bits() {
        return Err(format!("pinned memory as a slice: {got} vs {want}"));
    }
    Ok(())
}

/// What the streamed path must give, bit for bit: each chunk reduced by [`Reducer`] as a
/// device-resident buffer of its own, then the partials (in chunk order) reduced by [`Reducer`] again.
/// `None` for min/max of nothing.
pub fn chunked_reference<T: Scalar>(
    b: &Backend,
    policy: &StreamPolicy,
    op: Op,
    data: &[T],
) -> Result<Option<T>, String> {
    let e = |e: ReduceError| e.to_string();
    if data.is_empty() {
        return Ok((op == Op::Sum).then(T::default));
    }
    let mut r = Reducer::new(b);
    let chunk = policy.chunk_elems(data.len(), T::TYPE);
    let mut partials = Vec::new();
    for lo in (0..data.len()).step_by(chunk) {
        let len = chunk.min(data.len() - lo);
        // Each chunk lands at the start of a device buffer of its own, as the pipeline copies it:
        // stage 8's order depends on the 16-byte alignment of its input, so a chunk reduced in
        // place inside one big buffer (at a misaligned offset) may differ in the last bit.
        let input = b.upload(&data[lo..lo + len]).map_err(e)?;
        let partial = r.reduce(op, &input).map_err(e)?.unwrap();
        partials.push(T::from_bits64(partial.to_bits64())); // `T::Acc` is `T` here
    }
    if partials.len() == 1 {
        return Ok(Some(partials[0]));
    }
    let p = b.upload(&partials).map_err(e)?;
    let whole = r.reduce(op, &p).map_err(e)?;
    Ok(whole.map(|v| T::from_bits64(v.to_bits64())))
}

fn same<T: Scalar>(a: Option<T>, b: Option<T>) -> bool {
    a.map(|x| x.to_bits64()) == b.map(|x| x.to_bits64())
}

/// `op` over `data[offset..]` streamed from pageable memory (a misaligned start when `offset`
/// is odd) and from a [`PinnedBuffer`]: both equal [`chunked_reference`] bit for bit, and the
/// CPU reference within the kernels' rounding bound (integers: exactly).
pub fn check_streamed<T: Scalar>(
    b: &Backend,
    policy: &StreamPolicy,
    op: Op,
    data: &[T],
    offset: usize,
) -> Result<(), String> {
    let e = |e: ReduceError| e.to_string();
    let slice = &data[offset..];
    let what = format!("{op} {} n={} offset={offset}", T::TYPE, slice.len());
    let mut r = HostReducer::new(b).with_policy(policy.clone()).map_err(e)?;
    if op == Op::Mean {
        let got = r.mean_host(slice);
        return match (got, reference_mean(slice)) {
            (Err(ReduceError::EmptyInput { .. }), None) => Ok(()),
            (Ok(g), Some(w)) if (g - w).abs() <= 1e-5 * w.abs().max(1.0) => Ok(()),
            (g, w) => Err(format!("{what}: got {g:?}, want {w:?}")),
        };
    }
    let pageable = r.reduce_host(op, slice).map_err(e)?;
    let pinned_buf = PinnedBuffer::from_slice(b, slice).map_err(e)?;
    let pinned = r.reduce_host(op, &pinned_buf).map_err(e)?;
    let want = chunked_reference(b, policy, op, slice)?;
    // The zero-copy route is one stage-8 launch over the whole input: Reducer's bits.
    let whole = match slice.len() {
        0 => (op == Op::Sum).then(T::default),
        _ => Reducer::new(b)
            .reduce(op, &b.upload(slice).map_err(e)?)
            .map_err(e)?
            .map(|v| T::from_bits64(v.to_bits64())), // `T::Acc` is `T` here
    };
    // A pinned input small enough for the policy's zero-copy route takes it.
    let want_pinned = if policy.zero_copy(std::mem::size_of_val(slice)) {
        whole
    } else {
        want
    };
    if !same(pageable, want) || !same(pinned, want_pinned) {
        return Err(format!(
            "{what}: pageable {pageable:?} (chunked device reference {want:?}), pinned \
             {pinned:?} (want {want_pinned:?})"
        ));
    }
    let zero_copy = r
        .reduce_host(op, HostInput::ZeroCopy(&pinned_buf))
        .map_err(e)?;
    if !same(zero_copy, whole) {
        return Err(format!(
            "{what}: zero-copy {zero_copy:?}, device-resident {whole:?}"
        ));
    }
    if let (Some(g), Some(w)) = (pageable, reference(op, slice)) {
        let depth = policy
            .error_depth(slice.len(), T::TYPE, op, b.caps())
            .map_err(e)?;
        if !matches_reference(op, g, &w, depth) {
            return Err(format!("{what}: got {g}, CPU reference {}", w.value));
        }
    }
    Ok(())
}

/// Lengths around the chunk boundaries of `policy` for `T`: empty, one, smaller than a chunk,
/// exactly one, one more, many chunks with and without a tail.
pub fn boundary_sizes<T: Scalar>(policy: &StreamPolicy) -> Vec<usize> {
    let max = policy.max_chunk_bytes / T::TYPE.size();
    let mut v = vec![0, 1, 7, max - 1, max, max + 1, 2 * max, 5 * max + 3];
    v.sort();
    v.dedup();
    v
}

/// Every op on every boundary size, at offset 1 (a misaligned slice of a `Vec`), the sum at 0 too.
pub fn check_type<T: Scalar>(b: &Backend, policy: &StreamPolicy, seed: u64) -> Result<(), String> {
    for n in boundary_sizes::<T>(policy) {
        let data = super::common::data::<T>(n + 1, seed + n as u64);
        for op in [Op::Sum, Op::Min, Op::Max, Op::Mean] {
            // Odd offsets (misaligned starts) for every op; aligned ones for the sum.
            let offsets: &[usize] = if op == Op::Sum { &[0, 1] } else { &[1] };
            for &offset in offsets {
                check_streamed(b, policy, op, &data[..n + offset], offset)?;
            }
        }
    }
    Ok(())
}

/// The same input and policy give the same bits on every call, whatever the thread count.
pub fn check_deterministic(b: &Backend, policy: &StreamPolicy, n: usize) -> Result<(), String> {
    let e = |e: ReduceError| e.to_string();
    let data = super::common::data::<f32>(n, 5);
    let mut bits = Vec::new();
    for threads in [1, 2, 5] {
        let p = StreamPolicy {
            copy_threads: threads,
            ..policy.clone()
        };
        let mut r = HostReducer::new(b).with_policy(p).map_err(e)?;
        for _ in 0..2 {
            bits.push(r.sum_host(&data).map_err(e)?.to_bits());
        }
    }
    if bits.iter().any(|x| *x != bits[0]) {
        return Err(format!("sums differ between calls: {bits:x?}"));
    }
    Ok(())
}
