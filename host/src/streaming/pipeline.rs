//! The chunk loop. On a GPU, with `S` slots (staging buffer + device chunk buffer + two events
//! each), chunk `i` goes through slot `i % S`:
//!
//! ```text
//! host (pageable only)  wait copied[s] ─ CPU threads copy chunk i into staging[s]
//! copy stream           wait reduced[s] ─ cuMemcpyHtoDAsync(dev[s] ← staging[s] or pinned input) ─ record copied[s]
//! compute stream        wait copied[s] ─ stage-8 kernel on dev[s] ─ partial → partials[i] ─ record reduced[s]
//! ```
//!
//! so the host stages chunk `i + 1` while the copy engine moves chunk `i` and the SMs reduce
//! chunk `i − 1`. At the end one more stage-8 launch combines the partials **in chunk order**:
//! the same input, cut the same way, gives the same bits. Under the emulator the same loop runs
//! with plain copies, one chunk after the other.

use super::policy::StreamPolicy;
use super::timeline::{Lane, Recorder};
use crate::backend::Backend;
use crate::buffer::Buffer;
use crate::error::{CudaContext, Result};
use crate::plan::ResultIn;
use crate::plan::{plan, LaunchOverrides};
use crate::prepared::Prepared;
use crate::stage::Stage;
use crate::streams::{copy_to_device_async, new_stream, GpuEvent};
use crate::types::{Op, Scalar};
use cust::memory::LockedBuffer;
use cust::stream::Stream;
use std::collections::HashMap;

/// Where the input is.
#[derive(Clone, Copy)]
pub(crate) enum Source<'a, T> {
    /// Pageable memory: staged through pinned buffers by CPU threads.
    Pageable(&'a [T]),
    /// Page-locked memory (a [`crate::PinnedBuffer`]): copied by the device straight from it.
    Pinned(&'a [T]),
}

impl<T> Source<'_, T> {
    pub(crate) fn data(&self) -> &[T] {
        match self {
            Source::Pageable(d) | Source::Pinned(d) => d,
        }
    }
}

/// The GPU-only part, shared by every element type: the copy stream, the pinned staging
/// buffers and the slots' events.
pub(crate) struct GpuStaging {
    copy: Stream,
    /// The CPU threads that stage pageable chunks, started once (not per chunk).
    pool: rayon::ThreadPool,
    staging: Vec<LockedBuffer<u8>>,
    copied: Vec<GpuEvent>,
    reduced: Vec<GpuEvent>,
}

impl GpuStaging {
    pub(crate) fn new(policy: &StreamPolicy) -> Result<Self> {
        let slots = policy.slots();
        let mut staging = Vec::with_capacity(slots);
        let (mut copied, mut reduced) = (Vec::new(), Vec::new());
        for _ in 0..slots {
            staging.push(
                LockedBuffer::new(&0u8, policy.max_chunk_bytes.max(8))
                    .during("allocating pinned staging buffers")?,
            );
            copied.push(GpuEvent::new(false)?);
            reduced.push(GpuEvent::new(false)?);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(policy.copy_threads.max(1))
            .thread_name(|i| format!("reduce-staging-{i}"))
            .build()
            .map_err(|e| {
                crate::error::ReduceError::InvalidArgument(format!(
                    "cannot start {} staging threads: {e}",
                    policy.copy_threads
                ))
            })?;
        Ok(GpuStaging {
            copy: new_stream()?,
            pool,
            staging,
            copied,
            reduced,
        })
    }
}

/// Per element type: the device chunk buffers, the partials and the prepared stage-8 plans.
pub(crate) struct Lanes<T: Scalar> {
    /// The zero-copy route's plans, per (op, length).
    pub(crate) zero_copy: HashMap<(Op, usize), super::zero_copy::ZeroCopyPlan<T>>,
    dev: Vec<Buffer<T>>,
    partials: Buffer<T>,
    plans: HashMap<(Op, usize), Prepared<T>>,
}

impl<T: Scalar> Lanes<T> {
    pub(crate) fn new(backend: &Backend, policy: &StreamPolicy) -> Result<Self> {
        let elems = (policy.max_chunk_bytes / T::TYPE.size()).max(1);
        let dev = (0..policy.slots())
            .map(|_| backend.zeroed::<T>(elems))
            .collect::<Result<_>>()?;
        Ok(Lanes {
            zero_copy: HashMap::new(),
            dev,
            partials: backend.zeroed(1)?,
            plans: HashMap::new(),
        })
    }

    fn prepare(&mut self, backend: &Backend, op: Op, len: usize) -> Result<()> {
        if let std::collections::hash_map::Entry::Vacant(e) = self.plans.entry((op, len)) {
            let p = plan(
                Stage::S8,
                T::TYPE,
                op,
                len,
                LaunchOverrides::default(),
                backend.caps(),
            )?;
            e.insert(Prepared::with_result_in(
                backend,
                p,
                ResultIn::DeviceMemory,
            )?);
        }
        Ok(())
    }

    /// Plans for the full chunk, the tail and the combine; partials for `k` chunks.
    fn prepare_call(&mut self, backend: &Backend, op: Op, n: usize, chunk: usize) -> Result<usize> {
        let k = n.div_ceil(chunk);
        // Tails differ from call to call: keep the cache bounded.
        if self.plans.len() > 16 {
            self.plans.clear();
        }
        self.prepare(backend, op, chunk)?;
        self.prepare(backend, op, n - (k - 1) * chunk)?;
        if k > 1 {
            self.prepare(backend, op.combine_op(), k)?;
        }
        if self.partials.len() < k {
            self.partials = backend.zeroed(k.next_power_of_two())?;
        }
        Ok(k)
    }
}

/// View `data` as its bytes.
fn as_bytes<T: Scalar>(data: &[T]) -> &[u8] {
    // SAFETY: `Scalar` types are the sealed primitive integers and floats: no padding, every byte
    // initialized; `u8` has alignment 1 and the length covers exactly the same bytes.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data)) }
}

/// Copy `src` into `dst` (same length) in `threads` pieces on `pool`'s threads (on this one
/// for a single piece). Pieces are whole 4 KiB pages where they can be, so no two threads write
/// one page.
fn stage(pool: &rayon::ThreadPool, dst: &mut [u8], src: &[u8], threads: usize) {
    use rayon::prelude::*;
    if threads <= 1 {
        dst.copy_from_slice(src);
        return;
    }
    let per = src.len().div_ceil(threads).next_multiple_of(4096);
    pool.install(|| {
        dst.par_chunks_mut(per)
            .zip(src.par_chunks(per))
            .for_each(|(d, c)| d.copy_from_slice(c));
    });
}

/// `op` (a device op) over a non-empty `src` on the GPU.
pub(crate) fn reduce_gpu<T: Scalar>(
    backend: &Backend,
    st: &mut GpuStaging,
    lanes: &mut Lanes<T>,
    policy: &StreamPolicy,
    op: Op,
    src: Source<'_, T>,
    rec: &mut Option<Recorder>,
) -> Result<T> {
    let gpu = backend.gpu().expect("reduce_gpu runs on a GPU backend");
    let n = src.data().len();
    let chunk = policy.chunk_elems(n, T::TYPE);
    let k = lanes.prepare_call(backend, op, n, chunk)?;
    let result = run_chunks(backend, st, lanes, policy, op, src, chunk, k, rec);
    // Whatever happened, no copy may still read the caller's memory when this returns.
    let copy_done = st.copy.synchronize().during("waiting for the copy stream");
    let compute_done = gpu.stream().synchronize().during("waiting for the GPU");
    let value = result?;
    copy_done?;
    compute_done?;
    Ok(value)
}

#[allow(clippy::too_many_arguments)]
fn run_chunks<T: Scalar>(
    backend: &Backend,
    st: &mut GpuStaging,
    lanes: &Lanes<T>,
    policy: &StreamPolicy,
    op: Op,
    src: Source<'_, T>,
    chunk: usize,
    k: usize,
    rec: &mut Option<Recorder>,
) -> Result<T> {
    let gpu = backend.gpu().expect("a GPU backend");
    let main = gpu.stream();
    let n = src.data().len();
    let slots = st.staging.len();
    for i in 0..k {
        let lo = i * chunk;
        let len = chunk.min(n - lo);
        let s = i % slots;
        let dst = &lanes.dev[s];
        // The kernel that last read dev[s] must finish before the copy overwrites it.
        st.reduced[s].make_wait(&st.copy)?;
        let from: *const T = match src {
            Source::Pinned(d) => d[lo..lo + len].as_ptr(),
            Source::Pageable(d) => {
                // The copy that last read staging[s] must finish before the host overwrites it.
                st.copied[s].synchronize()?;
                let bytes = len * T::TYPE.size();
                let t = Recorder::host_start(rec);
                stage(
                    &st.pool,
                    &mut st.staging[s].as_mut_slice()[..bytes],
                    as_bytes(&d[lo..lo + len]),
                    policy.threads_for(bytes),
                );
                Recorder::host_end(rec, i, t);
                st.staging[s].as_ptr().cast::<T>()
            }
        };
        let span = Recorder::gpu_start(rec, &st.copy)?;
        // SAFETY: `from` points to `len` elements: of the caller's pinned input, which it lends
        // for this whole call, or of staging[s], which the host writes again only after waiting
        // for `copied[s]` (recorded right after this copy). `reduce_gpu` synchronizes the copy
        // stream before returning, so both outlive the copy; `dst` lives in `lanes`, which
        // outlives the call.
        unsafe { copy_to_device_async(&st.copy, dst, from, len)? };
        Recorder::gpu_end(rec, span, Lane::Copy, i, &st.copy)?;
        st.copied[s].record(&st.copy)?;
        st.copied[s].make_wait(main)?;
        let span = Recorder::gpu_start(rec, main)?;
        let p = &lanes.plans[&(op, len)];
        p.enqueue(backend, dst, 0)?;
        if k > 1 {
            // SAFETY: both buffers live in `lanes`, which outlives the call, and `reduce_gpu`
            // synchronizes the stream before returning.
            unsafe {
                crate::transfer::copy_device_to_device_async(
                    gpu,
                    &lanes.partials,
                    i,
                    p.result_buffer(),
                    0,
                    1,
                )?
            };
        }
        Recorder::gpu_end(rec, span, Lane::Compute, i, main)?;
        st.reduced[s].record(main)?;
    }
    let last = if k > 1 {
        let span = Recorder::gpu_start(rec, main)?;
        let p = &lanes.plans[&(op.combine_op(), k)];
        p.enqueue(backend, &lanes.partials, 0)?;
        Recorder::gpu_end(rec, span, Lane::Combine, k, main)?;
        p
    } else {
        &lanes.plans[&(op, n)]
    };
    Ok(backend.download(last.result_buffer(), 1)?[0])
}

/// The same loop under the emulator: plain copies into the chunk buffers, one chunk at a time.
pub(crate) fn reduce_emulated<T: Scalar>(
    backend: &Backend,
    lanes: &mut Lanes<T>,
    policy: &StreamPolicy,
    op: Op,
    data: &[T],
) -> Result<T> {
    let n = data.len();
    let chunk = policy.chunk_elems(n, T::TYPE);
    let k = lanes.prepare_call(backend, op, n, chunk)?;
    let slots = lanes.dev.len();
    let mut partials = Vec::with_capacity(k);
    for i in 0..k {
        let lo = i * chunk;
        let len = chunk.min(n - lo);
        let dst = &mut lanes.dev[i % slots];
        backend.write(dst, &data[lo..lo + len])?;
        partials.push(lanes.plans[&(op, len)].run(backend, dst, 0)?);
    }
    if k == 1 {
        return Ok(partials[0]);
    }
    backend.write(&mut lanes.partials, &partials)?;
    lanes.plans[&(op.combine_op(), k)].run(backend, &lanes.partials, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staging_copies_every_byte_with_any_thread_count() {
        let src: Vec<u8> = (0..100_003u32).map(|i| (i * 7 % 251) as u8).collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        for threads in [1, 2, 3, 8, 64] {
            let mut dst = vec![0u8; src.len()];
            stage(&pool, &mut dst, &src, threads);
            assert_eq!(dst, src, "{threads} threads");
        }
        let odd: Vec<i64> = (0..1001).map(|i| i * -3).collect();
        assert_eq!(as_bytes(&odd[1..]).len(), 8000);
        assert_eq!(as_bytes(&odd[1..])[..8], (-3i64).to_ne_bytes());
    }
}
