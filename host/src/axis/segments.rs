//! [`Segments`]: caller-given segment offsets, checked once on the host and uploaded.

use crate::axis_plan::AxisPolicy;
use crate::backend::Backend;
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};

/// Caller-given segments `[begin[i], end[i])` of an input of at least [`Segments::max_end`]
/// elements, checked once on the host and uploaded: CUB's `DeviceSegmentedReduce` offsets.
pub struct Segments {
    pub(super) begin: Buffer<u64>,
    pub(super) end: Buffer<u64>,
    /// The offsets as given, kept on the host: what host-side work on the segments
    /// ([`crate::Reducer::mean_segments`]) reads, and what offsets passed again are checked
    /// against.
    begin_host: Vec<u64>,
    end_host: Vec<u64>,
    pub(super) count: usize,
    pub(super) max_end: usize,
    total: usize,
    pub(super) cut: Option<Cut>,
}

/// Long segments cut into pieces ([`crate::axis_plan::cut_segments`]), on the device.
pub(super) struct Cut {
    pub(super) begin: Buffer<u64>,
    pub(super) end: Buffer<u64>,
    pub(super) first: Buffer<u64>,
    pub(super) last: Buffer<u64>,
}

impl Segments {
    /// Check and upload the offsets of segments over an input of `input_len` elements; segments
    /// longer than the default policy's [`AxisPolicy::segment_piece`] are cut into pieces
    /// (see [`Segments::with_piece`]).
    ///
    /// # Errors
    /// [`ReduceError::OutOfBounds`] if `begin` and `end` differ in length, or some
    /// `begin[i] > end[i]` or `end[i] > input_len`.
    pub fn new(backend: &Backend, begin: &[u64], end: &[u64], input_len: usize) -> Result<Self> {
        Self::with_piece(
            backend,
            begin,
            end,
            input_len,
            AxisPolicy::default().segment_piece,
        )
    }

    /// [`Segments::new`], cutting segments longer than `piece` elements into pieces.
    pub fn with_piece(
        backend: &Backend,
        begin: &[u64],
        end: &[u64],
        input_len: usize,
        piece: usize,
    ) -> Result<Self> {
        if begin.len() != end.len() {
            return Err(ReduceError::bounds(
                "end",
                format!(
                    "{} segment starts but {} segment ends",
                    begin.len(),
                    end.len()
                ),
            ));
        }
        let (mut max_end, mut total) = (0usize, 0usize);
        for (i, (&b, &e)) in begin.iter().zip(end).enumerate() {
            if b > e {
                return Err(ReduceError::bounds(
                    "begin",
                    format!("segment {i} begins at {b}, after its end {e}"),
                ));
            }
            if e > input_len as u64 {
                return Err(ReduceError::bounds(
                    "end",
                    format!(
                        "segment {i} ends at {e}, past the end of the {input_len}-element input"
                    ),
                ));
            }
            max_end = max_end.max(e as usize);
            total = total.saturating_add((e - b) as usize);
        }
        let cut = match crate::axis_plan::cut_segments(begin, end, piece) {
            Some((pb, pe, first, last)) => Some(Cut {
                begin: backend.upload(&pb)?,
                end: backend.upload(&pe)?,
                first: backend.upload(&first)?,
                last: backend.upload(&last)?,
            }),
            None => None,
        };
        Ok(Segments {
            begin: backend.upload(begin)?,
            end: backend.upload(end)?,
            begin_host: begin.to_vec(),
            end_host: end.to_vec(),
            count: begin.len(),
            max_end,
            total,
            cut,
        })
    }

    /// Segments ending where the next begins: segment `i` is `[offsets[i], offsets[i + 1])`
    /// (CSR row pointers): `offsets.len() − 1` segments (none for fewer than two offsets).
    ///
    /// # Errors
    /// [`ReduceError::OutOfBounds`] (`offsets`) if the offsets decrease or the last is past
    /// `input_len`.
    pub fn from_offsets(backend: &Backend, offsets: &[u64], input_len: usize) -> Result<Self> {
        if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
            return Err(ReduceError::bounds(
                "offsets",
                format!(
                    "they must not decrease, but offsets[{i}] = {} > offsets[{}] = {}",
                    offsets[i],
                    i + 1,
                    offsets[i + 1]
                ),
            ));
        }
        if let Some(&last) = offsets.last().filter(|&&l| l > input_len as u64) {
            return Err(ReduceError::bounds(
                "offsets",
                format!("the last is {last}, past the end of the {input_len}-element input"),
            ));
        }
        let n = offsets.len().saturating_sub(1);
        Self::new(
            backend,
            &offsets[..n],
            &offsets[offsets.len().min(1)..],
            input_len,
        )
    }

    /// [`ReduceError::ForeignBuffer`] unless the offsets were uploaded by the backend `owner`
    /// (every call that takes segments checks this before it reads them, on the device or not).
    pub(crate) fn check_owner(&self, owner: crate::backend::BackendId) -> Result<()> {
        self.begin.check_owner(owner, "the segment offsets")
    }

    /// Number of segments.
    pub fn len(&self) -> usize {
        self.count
    }
    /// No segments?
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// The largest end offset: the input must hold at least this many elements.
    pub fn max_end(&self) -> usize {
        self.max_end
    }
    /// Work items: the pieces the segments were cut into (the segment count when none was cut).
    pub fn pieces(&self) -> usize {
        self.cut.as_ref().map_or(self.count, |c| c.begin.len())
    }
    /// Elements in all segments together (overlaps counted twice).
    pub fn total_len(&self) -> usize {
        self.total
    }
    /// The offsets as given: `(begin, end)`.
    pub fn offsets(&self) -> (&[u64], &[u64]) {
        (&self.begin_host, &self.end_host)
    }

    /// `Ok` when `begin` and `end` are these segments' offsets (what a host-side computation on
    /// the segments was given besides them); otherwise [`ReduceError::OutOfBounds`] naming the
    /// first that differs.
    pub(crate) fn check_same_offsets(&self, begin: &[u64], end: &[u64]) -> Result<()> {
        for (arg, given, ours) in [
            ("begin", begin, &self.begin_host),
            ("end", end, &self.end_host),
        ] {
            if given.len() != ours.len() {
                return Err(ReduceError::bounds(
                    arg,
                    format!(
                        "{} offsets for {} segments: pass the offsets the segments were made from",
                        given.len(),
                        ours.len()
                    ),
                ));
            }
            if let Some(i) = given.iter().zip(ours).position(|(g, o)| g != o) {
                return Err(ReduceError::bounds(
                    arg,
                    format!(
                        "{arg}[{i}] is {} but the segments were made with {}: pass the offsets \
                         the segments were made from",
                        given[i], ours[i]
                    ),
                ));
            }
        }
        Ok(())
    }
}
