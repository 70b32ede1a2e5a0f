//! A timeline of one streamed call: when the host staged each chunk, when the copy engine moved
//! it, when the SMs reduced it. GPU intervals come from CUDA events (timing events cost a little,
//! so only calls that ask for a timeline record them); host intervals from the wall clock,
//! aligned to the GPU's by an event recorded when the call starts.

use crate::error::Result;
use crate::streams::GpuEvent;
use cust::stream::Stream;
use std::time::Instant;

/// Which engine an interval ran on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lane {
    /// CPU threads copying a pageable chunk into pinned staging memory.
    Host,
    /// The copy stream: a host→device copy.
    Copy,
    /// The compute stream: a chunk's stage-8 kernel and the copy of its partial.
    Compute,
    /// The compute stream: the final kernel combining the partials.
    Combine,
}

/// One interval, in milliseconds since the call started.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Span {
    /// The engine.
    pub lane: Lane,
    /// The chunk (for [`Lane::Combine`], the number of partials).
    pub chunk: usize,
    /// Start, ms.
    pub start_ms: f64,
    /// End, ms.
    pub end_ms: f64,
}

/// One streamed call, interval by interval.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Timeline {
    /// Element type name.
    pub ty: String,
    /// Elements.
    pub n: usize,
    /// `pageable` or `pinned`.
    pub input: String,
    /// Elements per chunk.
    pub chunk_elems: usize,
    /// Chunks.
    pub chunks: usize,
    /// Wall-clock time of the whole call until the result was on the host, ms.
    pub total_ms: f64,
    /// The intervals (empty under the emulator, which has no engines to overlap).
    pub spans: Vec<Span>,
}

/// Collects the intervals of one call.
pub(crate) struct Recorder {
    t0: Instant,
    start: GpuEvent,
    pending: Vec<(Lane, usize, GpuEvent, GpuEvent)>,
    host: Vec<Span>,
}

impl Recorder {
    /// Start now: an event on `stream` (idle, so reached at once) marks time zero.
    pub(crate) fn new(stream: &Stream) -> Result<Self> {
        let start = GpuEvent::new(true)?;
        start.record(stream)?;
        Ok(Recorder {
            t0: Instant::now(),
            start,
            pending: Vec::new(),
            host: Vec::new(),
        })
    }

    pub(crate) fn host_start(rec: &Option<Recorder>) -> Option<Instant> {
        rec.as_ref().map(|_| Instant::now())
    }

    pub(crate) fn host_end(rec: &mut Option<Recorder>, chunk: usize, t: Option<Instant>) {
        if let (Some(r), Some(t)) = (rec.as_mut(), t) {
            let ms = |i: Instant| i.duration_since(r.t0).as_secs_f64() * 1e3;
            r.host.push(Span {
                lane: Lane::Host,
                chunk,
                start_ms: ms(t),
                end_ms: ms(Instant::now()),
            });
        }
    }

    pub(crate) fn gpu_start(rec: &Option<Recorder>, stream: &Stream) -> Result<Option<GpuEvent>> {
        match rec {
            None => Ok(None),
            Some(_) => {
                let e = GpuEvent::new(true)?;
                e.record(stream)?;
                Ok(Some(e))
            }
        }
    }

    pub(crate) fn gpu_end(
        rec: &mut Option<Recorder>,
        start: Option<GpuEvent>,
        lane: Lane,
        chunk: usize,
        stream: &Stream,
    ) -> Result<()> {
        if let (Some(r), Some(start)) = (rec.as_mut(), start) {
            let end = GpuEvent::new(true)?;
            end.record(stream)?;
            r.pending.push((lane, chunk, start, end));
        }
        Ok(())
    }

    /// The intervals, sorted by start (call after the streams are synchronized).
    pub(crate) fn finish(self) -> Result<Vec<Span>> {
        let mut spans = self.host;
        for (lane, chunk, a, b) in &self.pending {
            spans.push(Span {
                lane: *lane,
                chunk: *chunk,
                start_ms: a.ms_since(&self.start)? as f64,
                end_ms: b.ms_since(&self.start)? as f64,
            });
        }
        spans.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
        Ok(spans)
    }
}
