//! How host data is streamed, as data: the chunk size by input length, how many staging slots,
//! how many CPU threads stage a pageable chunk. The pipeline (`streaming/pipeline.rs`) follows it
//! and decides nothing itself.

use crate::backend::DeviceCaps;
use crate::error::Result;
use crate::plan::{plan, LaunchOverrides};
use crate::stage::Stage;
use crate::types::{ElemType, Op};

/// The tuning of [`crate::HostReducer`]. Results depend only on the chunk length
/// ([`StreamPolicy::chunk_elems`]), never on the threads or slots.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct StreamPolicy {
    /// Largest chunk in bytes; also the size of each staging buffer and device chunk buffer.
    pub max_chunk_bytes: usize,
    /// Smallest chunk in bytes (below it, per-chunk launches cost more than the overlap gains).
    pub min_chunk_bytes: usize,
    /// Chunks an input is cut into when that keeps them between the two bounds: enough for the
    /// copy of one chunk to hide the staging and the kernel of its neighbours.
    pub target_chunks: usize,
    /// Staging buffers (pinned) and device chunk buffers: chunks in flight at once.
    pub slots: usize,
    /// CPU threads that copy a pageable chunk into pinned staging memory.
    pub copy_threads: usize,
    /// Bytes below which a chunk is staged by one thread (spawning costs more than it saves).
    pub min_bytes_per_thread: usize,
    /// A [`crate::PinnedBuffer`] of at most this many bytes takes the zero-copy route (one
    /// kernel reading the mapped host memory, no copy command). Measured on the H200
    /// (`benches/results/h200-2026-11-30-host/host/`):
    /// zero-copy wins up to 2^20 f32 (4 MiB: 104 vs 117 µs; 2^16: 28 vs 35 µs), is level at
    /// 16 MiB and 7% slower at 256 MiB, hence the default of 4 MiB. 0 turns the route off.
    pub zero_copy_max_bytes: usize,
    /// A pageable input of at least this many bytes is page-locked in place for the call
    /// (`cuMemHostRegister`) and copied by the device straight from it, with no staging copy;
    /// if the driver refuses (the memory is registered already, say), it is staged as usual.
    /// `usize::MAX` (`off` in settings) turns the route off.
    pub register_min_bytes: usize,
}

/// The defaults are the H200 sweep's (one device call, results in
/// `benches/results/h200-2026-11-30-tune/tune.md`, f32 ones, 2^16 … 2^28, link 55.5 GB/s):
///
/// * pageable input: `copy_threads` = the CPUs, up to 16 (16 was best on the 16-core host), 16
///   MiB chunks, 4 slots — 2^28 in 20.4 ms (52.5 GB/s, 95% of the link; 5.9× torch, 5.5× CuPy),
///   2^26 in 6.8 ms; the old default (at most 8 threads, 3 slots) took 22.8 and 9.0 ms;
/// * pinned input: `target_chunks = 2` — 2^22 in 2 chunks, 336 µs against 349 µs in 8 (torch
///   `pin_memory()`: 351 µs); from 2^26 up the 16 MiB chunks are at the link either way;
/// * in-place registration (`register_min_bytes`) stays off: page-locking the caller's memory
///   took longer than staging it (2^28: 74.5 ms against 20.4 ms).
impl Default for StreamPolicy {
    fn default() -> Self {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        StreamPolicy {
            max_chunk_bytes: 16 << 20,
            min_chunk_bytes: 1 << 20,
            target_chunks: 2,
            slots: 4,
            copy_threads: cpus.clamp(1, 16),
            min_bytes_per_thread: 1 << 20,
            zero_copy_max_bytes: 4 << 20,
            register_min_bytes: usize::MAX,
        }
    }
}

impl StreamPolicy {
    /// Elements per chunk for `n` elements of `ty` (the last chunk holds the rest): about
    /// `n / target_chunks`, within the byte bounds, rounded up to a multiple of 4,096 elements
    /// when larger than that; at most `n` (one chunk), at least 1.
    pub fn chunk_elems(&self, n: usize, ty: ElemType) -> usize {
        let size = ty.size();
        let max = (self.max_chunk_bytes / size).max(1);
        let min = (self.min_chunk_bytes / size).clamp(1, max);
        let want = n.div_ceil(self.target_chunks.max(1)).clamp(min, max);
        let c = if want > 4096 {
            (want.div_ceil(4096) * 4096).min(max)
        } else {
            want
        };
        c.min(n).max(1)
    }

    /// The most additions any element goes through when `n` elements of `ty` are streamed
    /// through the chunked path with `op`: a chunk's stage-8 plan, then the combine's over the
    /// partials. The depth of the float-sum error bound a streamed result is judged by.
    pub fn error_depth(&self, n: usize, ty: ElemType, op: Op, caps: &DeviceCaps) -> Result<usize> {
        let chunk = self.chunk_elems(n, ty);
        let depth = |len| plan(Stage::S8, ty, op, len, LaunchOverrides::default(), caps);
        Ok(depth(chunk)?.depth + depth(n.div_ceil(chunk))?.depth)
    }

    /// CPU threads that stage a chunk of `bytes` bytes.
    pub fn threads_for(&self, bytes: usize) -> usize {
        (bytes / self.min_bytes_per_thread.max(1)).clamp(1, self.copy_threads.max(1))
    }

    /// Does a pinned input of `bytes` bytes take the zero-copy route?
    pub fn zero_copy(&self, bytes: usize) -> bool {
        bytes <= self.zero_copy_max_bytes
    }

    /// Is a pageable input of `bytes` bytes page-locked in place rather than staged?
    pub fn register(&self, bytes: usize) -> bool {
        bytes >= self.register_min_bytes
    }

    /// Staging slots actually used (at least 2, so that staging and copying overlap).
    pub fn slots(&self) -> usize {
        self.slots.max(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_every_length_within_bounds() {
        let p = StreamPolicy::default();
        for ty in [ElemType::F32, ElemType::F64] {
            let max = p.max_chunk_bytes / ty.size();
            for n in [0, 1, 4095, 4097, 1 << 16, 1 << 20, (1 << 22) + 3, 1 << 28] {
                let c = p.chunk_elems(n, ty);
                assert!(c >= 1 && c <= max.max(n.min(max)), "n {n}: chunk {c}");
                assert!(
                    c == n.max(1) || c % 4096 == 0 || c == max,
                    "n {n}: chunk {c}"
                );
                assert!(
                    n.div_ceil(c) <= p.target_chunks.max(n.div_ceil(max)),
                    "n {n}"
                );
            }
        }
        assert_eq!(p.chunk_elems(1 << 16, ElemType::F32), 1 << 16);
        assert_eq!(p.chunk_elems(1 << 28, ElemType::F32), 4 << 20);
    }

    #[test]
    fn thread_counts_follow_the_bytes() {
        let p = StreamPolicy {
            copy_threads: 8,
            ..StreamPolicy::default()
        };
        assert_eq!(p.threads_for(100), 1);
        assert_eq!(p.threads_for(3 << 20), 3);
        assert_eq!(p.threads_for(64 << 20), 8);
    }
}
