//! Reductions along an axis and over segments, on the device: [`PreparedAxis`] (a checked
//! [`AxisPlan`] plus its workspace, run as often as wanted) and [`Segments`] (offsets checked on
//! the host, then kept on the device). The [`crate::Reducer`] methods in [`crate::axis_api`] are
//! the short way to use them.

use crate::axis_plan::{AxisKind, AxisPlan, AxisPolicy, Offsets};
use crate::backend::{Backend, KernelArgs, Launch, On};
use crate::buffer::{BackendId, Buffer};
use crate::error::{ReduceError, Result};
use crate::types::{Op, Scalar};
use crate::view::View;
use reduce_kernels::table::Family;

mod segments;
pub use segments::Segments;

/// Does an input of `len` elements hold the row-major `rows × cols` matrix of `n` elements?
pub(crate) fn check_matrix_input(rows: usize, cols: usize, n: usize, len: usize) -> Result<()> {
    if len < n {
        return Err(ReduceError::bounds(
            "rows × cols",
            format!("a {rows} × {cols} matrix needs {n} elements but the input holds {len}"),
        ));
    }
    Ok(())
}

/// What a [`PreparedAxis`] reduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A row-major `rows × cols` matrix, reduced along `axis` ([`AxisKind::Rows`] or
    /// [`AxisKind::Cols`]).
    Matrix {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
    },
    /// `count` segments over `n` elements.
    Segments {
        /// Segments.
        count: usize,
        /// Pieces they were cut into.
        pieces: usize,
        /// Elements of the input the plan was made for.
        n: usize,
    },
}

/// An axis plan and its workspace, ready to run on any input of its shape.
pub struct PreparedAxis<T: Scalar> {
    plan: AxisPlan,
    shape: Shape,
    partials: Buffer<T>,
    /// The one-launch kernel's ticket counter (kept at 0 between launches by the kernel), when
    /// the plan has one.
    counter: Option<Buffer<u32>>,
    owner: BackendId,
}

impl<T: Scalar> PreparedAxis<T> {
    /// `op` along `axis` ([`AxisKind::Rows`] or [`AxisKind::Cols`]) of a row-major `rows × cols`
    /// matrix, with `policy`.
    pub fn matrix(
        backend: &Backend,
        policy: &AxisPolicy,
        axis: AxisKind,
        op: Op,
        rows: usize,
        cols: usize,
    ) -> Result<Self> {
        let caps = backend.caps();
        let plan = match axis {
            AxisKind::Rows => policy.rows(T::TYPE, op, rows, cols, caps)?,
            AxisKind::Cols => policy.cols(T::TYPE, op, rows, cols, caps)?,
            AxisKind::Segments => {
                return Err(ReduceError::InvalidArgument(
                    "segments are prepared with PreparedAxis::segments".into(),
                ))
            }
        };
        Self::with_plan(backend, plan, Shape::Matrix { rows, cols })
    }

    /// `op` over `segments` of an input of `n` elements.
    pub fn segments(
        backend: &Backend,
        policy: &AxisPolicy,
        op: Op,
        segments: &Segments,
        n: usize,
    ) -> Result<Self> {
        let plan = policy.segments(
            T::TYPE,
            op,
            segments.len(),
            segments.pieces(),
            segments.total_len(),
            backend.caps(),
        )?;
        let shape = Shape::Segments {
            count: segments.len(),
            pieces: segments.pieces(),
            n,
        };
        Self::with_plan(backend, plan, shape)
    }

    fn with_plan(backend: &Backend, plan: AxisPlan, shape: Shape) -> Result<Self> {
        for s in &plan.steps {
            if s.kernel.ty != T::TYPE || !backend.has_kernel(s.kernel) {
                return Err(ReduceError::MissingKernel {
                    name: s.kernel.to_string(),
                    path: if backend.is_emulator() {
                        "the CPU emulator".into()
                    } else {
                        "the loaded PTX".into()
                    },
                });
            }
            backend.resolve(s.kernel)?;
        }
        let ticket = plan.steps.iter().any(|s| s.ticket());
        Ok(PreparedAxis {
            partials: backend.zeroed(plan.partials)?,
            counter: if ticket {
                Some(backend.zeroed(1)?)
            } else {
                None
            },
            plan,
            shape,
            owner: backend.id(),
        })
    }

    /// The plan.
    pub fn plan(&self) -> &AxisPlan {
        &self.plan
    }

    /// Results it writes (rows, columns or segments).
    pub fn results(&self) -> usize {
        self.plan.results
    }

    /// Queue the reduction of `input` into `out[..results()]`. For segments, pass the
    /// [`Segments`] the plan was made for (or others of the same count).
    pub fn enqueue<'a>(
        &self,
        backend: &Backend,
        input: impl Into<View<'a, T>>,
        segments: Option<&Segments>,
        out: &mut Buffer<T>,
    ) -> Result<()> {
        let input = input.into();
        out.check_owner(self.owner, "the output buffer")?;
        let out_view = View::from(&*out);
        // SAFETY: our own stream; `out` is borrowed mutably for the call (no other view of it
        // can be read or written meanwhile through this library's safe API), and the call waits
        // for a borrowed input below.
        unsafe { self.queue_on(backend, input, segments, out_view, On::Own)? };
        // Borrowed memory may be freed by its owner once the borrow ends: wait for its readers.
        crate::borrowed::wait_if_borrowed(backend, &input)
    }

    /// Queue the reduction of `input` into `out[..results()]` on `on`'s stream, without waiting.
    ///
    /// # Safety
    /// A caller's stream is a live stream of the GPU's context (or null); `input`, `out` and
    /// `segments` stay allocated until that stream has run the launches; nothing writes `input`
    /// or touches `out` meanwhile, and `out` does not overlap `input` or the segments.
    pub(crate) unsafe fn queue_on(
        &self,
        backend: &Backend,
        input: View<'_, T>,
        segments: Option<&Segments>,
        out: View<'_, T>,
        on: On,
    ) -> Result<()> {
        self.owner
            .check_same(backend.id(), "the prepared axis plan")?;
        input.check_owner(self.owner, "the input buffer")?;
        out.check_owner(self.owner, "the output")?;
        if out.len() < self.plan.results {
            return Err(ReduceError::bounds(
                "out",
                format!(
                    "the output buffer holds {} elements but the reduction writes {}",
                    out.len(),
                    self.plan.results
                ),
            ));
        }
        let segs = match (self.shape, segments) {
            (Shape::Matrix { rows, cols }, None) => {
                // `rows · cols` does not overflow: checked by the plan.
                check_matrix_input(rows, cols, rows * cols, input.len())?;
                None
            }
            (Shape::Segments { count, pieces, .. }, Some(s)) => {
                s.check_owner(self.owner)?;
                if s.count != count || s.pieces() != pieces {
                    return Err(ReduceError::bounds(
                        "segments",
                        format!(
                            "the plan is for {count} segments in {pieces} pieces, not {} in {}",
                            s.count,
                            s.pieces()
                        ),
                    ));
                }
                if input.len() < s.max_end {
                    return Err(ReduceError::bounds(
                        "segments",
                        format!(
                            "a segment ends at {} but the input holds {} elements",
                            s.max_end,
                            input.len()
                        ),
                    ));
                }
                Some(s)
            }
            (Shape::Matrix { .. }, Some(_)) => {
                return Err(ReduceError::InvalidArgument(
                    "a matrix reduction takes no segments".into(),
                ))
            }
            (Shape::Segments { .. }, None) => {
                return Err(ReduceError::InvalidArgument(
                    "a segmented reduction needs its segments".into(),
                ))
            }
        };
        for step in &self.plan.steps {
            // The plan's offsets lie inside its workspace (`partials` elements, allocated by
            // `with_plan`); `try_addr` checks it all the same.
            let (src, n) = if step.reads_input {
                (input.addr(0)?, input.len())
            } else {
                // A column pass reads exactly the region the pass before wrote (`count × len`),
                // which does not overlap the region it writes.
                let at = step.src_offset;
                let rest = self.partials.len().saturating_sub(at);
                let n = match step.kernel.family {
                    Family::AxisColumns | Family::AxisColumnsShort16 => {
                        rest.min(step.count.saturating_mul(step.len))
                    }
                    _ => rest,
                };
                (self.partials.try_addr(at)?, n)
            };
            let (dst, dst_len) = if step.writes_result {
                (out.addr(0)?, out.len())
            } else {
                let at = step.dst_offset;
                (
                    self.partials.try_addr(at)?,
                    self.partials.len().saturating_sub(at),
                )
            };
            let (begin, end) = match (step.offsets, segs, segs.and_then(|s| s.cut.as_ref())) {
                (Offsets::None, ..) => (0, 0),
                (Offsets::Segments, Some(s), _) => (s.begin.addr(0), s.end.addr(0)),
                (Offsets::Pieces, _, Some(c)) => (c.begin.addr(0), c.end.addr(0)),
                (Offsets::PieceRanges, _, Some(c)) => (c.first.addr(0), c.last.addr(0)),
                _ => {
                    return Err(ReduceError::InvalidArgument(
                        "the plan's offsets are not in these segments".into(),
                    ))
                }
            };
            let args = match (step.ticket(), &self.counter) {
                (true, Some(counter)) => {
                    if self.partials.len() < step.grid.saturating_mul(step.len) {
                        return Err(ReduceError::InvalidArgument(
                            "the plan's workspace is smaller than its one-launch step".into(),
                        ));
                    }
                    KernelArgs::AxisTicket {
                        input: src,
                        n,
                        partials: self.partials.addr(0),
                        counter: counter.addr(0),
                        out: dst,
                        out_len: step.out_len.min(dst_len),
                        count: step.count,
                        len: step.len,
                        parts: step.parts,
                        group: step.group,
                    }
                }
                _ => KernelArgs::Axis {
                    input: src,
                    n,
                    begin,
                    end,
                    out: dst,
                    out_len: step.out_len.min(dst_len),
                    count: step.count,
                    len: step.len,
                    parts: step.parts,
                    group: step.group,
                },
            };
            let launch = Launch {
                kernel: step.kernel,
                grid: step.grid,
                block: step.kernel.block,
                shared_bytes: step.shared_bytes,
                args,
            };
            // SAFETY: every address is from a live buffer of `backend` or the checked input view
            // (owners checked above; the workspace was allocated on it) with element type `T`, or `u64` offsets of
            // `segments`, all uploaded together on one backend, each `step.count` long (the
            // segments' count and pieces were checked against the plan's above), or 0 where the
            // kernel reads no offsets. `n` and `out_len` are the lengths of those buffers (`out_len` at most
            // the buffer's), and the kernels check them against what they index. A step that
            // reads the partials follows the one that wrote them, on the same stream, and neither
            // buffer is written by the host meanwhile. Kernel, block size and shared memory come
            // from the plan for this type and operator (`AXIS_BLOCK`, or 512 for the flat column
            // kernel: the blocks the kernels are built for). A one-launch step gets this plan's own partials (`grid · len`, checked
            // above) and counter (zeroed, and left 0 by the kernel). `self` and the caller's buffers outlive the queued work: freeing device
            // memory waits for the kernels using it. The stream, and `out` not overlapping what
            // the steps read, are this function's contract.
            unsafe { backend.launch_on::<T>(&launch, on)? };
        }
        Ok(())
    }
}
