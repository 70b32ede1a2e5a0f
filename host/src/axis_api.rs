//! [`Reducer`]'s reductions along an axis and over segments: one result per row, column or
//! segment, in a device buffer of the reducer's backend (read it with [`crate::Backend::download`]).
//!
//! ```no_run
//! use reduce_host::{Backend, BackendChoice, Op, Reducer};
//! let backend = Backend::open(BackendChoice::Auto)?;
//! let mut reducer = Reducer::new(&backend);
//! let x = backend.upload(&vec![1.0f32; 3 * 4])?; // 3 rows of 4
//! let rows = reducer.reduce_rows(Op::Sum, &x, 3, 4)?;
//! assert_eq!(backend.download(&rows, 3)?, vec![4.0; 3]);
//! let cols = reducer.reduce_cols(Op::Max, &x, 3, 4)?;
//! assert_eq!(backend.download(&cols, 4)?, vec![1.0; 4]);
//! # Ok::<(), reduce_host::ReduceError>(())
//! ```

use crate::axis::{check_matrix_input, PreparedAxis, Segments};
use crate::axis_plan::{AxisKind, AxisPolicy};
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::reducer::Reducer;
use crate::types::{Op, Scalar};
use crate::view::View;

/// Writes the public reduction along one axis, `$name` (a new buffer of `rows` or `cols`
/// results), and its `$into` form (into the caller's buffer), with `$axis` fixed: rows and
/// columns share this one definition.
macro_rules! axis_reductions {
    ($axis:expr, $(#[$doc:meta])* $name:ident, $(#[$into_doc:meta])* $into:ident) => {
        $(#[$doc])*
        pub fn $name<'a, T: Scalar>(
            &mut self,
            op: Op,
            input: impl Into<View<'a, T>>,
            rows: usize,
            cols: usize,
        ) -> Result<Buffer<T>> {
            crate::axis_plan::check_shape(rows, cols)?;
            let len = if $axis == AxisKind::Rows { rows } else { cols };
            let mut out = self.backend().zeroed(len)?;
            self.$into(op, input, rows, cols, &mut out)?;
            Ok(out)
        }
        $(#[$into_doc])*
        pub fn $into<'a, T: Scalar>(
            &mut self,
            op: Op,
            input: impl Into<View<'a, T>>,
            rows: usize,
            cols: usize,
            out: &mut Buffer<T>,
        ) -> Result<()> {
            let backend = self.backend();
            let policy = AxisPolicy::default();
            let p = PreparedAxis::<T>::matrix(backend, &policy, $axis, op, rows, cols)?;
            p.enqueue(backend, input, None, out)
        }
    };
}

impl Reducer<'_> {
    axis_reductions!(
        AxisKind::Rows,
        /// `op` (sum, min or max) of each row of the row-major `rows × cols` matrix in
        /// `input[..rows·cols]`: `rows` results. A row of nothing (`cols == 0`) gives the identity:
        /// 0 for a sum; the type's largest value for an integer min, its smallest for a max; +inf
        /// / −inf for a float min / max (the identities of the NaN-propagating min and max).
        reduce_rows,
        /// [`Reducer::reduce_rows`] into `out[..rows]`.
        reduce_rows_into
    );
    axis_reductions!(
        AxisKind::Cols,
        /// `op` of each column of the row-major `rows × cols` matrix: `cols` results (the identity
        /// when `rows == 0`).
        reduce_cols,
        /// [`Reducer::reduce_cols`] into `out[..cols]`.
        reduce_cols_into
    );
    /// `op` of each segment (CUB's `DeviceSegmentedReduce`): one result per segment, the
    /// identity for an empty one.
    pub fn reduce_segments<'a, T: Scalar>(
        &mut self,
        op: Op,
        input: impl Into<View<'a, T>>,
        segments: &Segments,
    ) -> Result<Buffer<T>> {
        let mut out = self.backend().zeroed(segments.len())?;
        self.reduce_segments_into(op, input, segments, &mut out)?;
        Ok(out)
    }
    /// [`Reducer::reduce_segments`] into `out[..segments.len()]`.
    pub fn reduce_segments_into<'a, T: Scalar>(
        &mut self,
        op: Op,
        input: impl Into<View<'a, T>>,
        segments: &Segments,
        out: &mut Buffer<T>,
    ) -> Result<()> {
        let input = input.into();
        let backend = self.backend();
        let p = PreparedAxis::<T>::segments(
            backend,
            &AxisPolicy::default(),
            op,
            segments,
            input.len(),
        )?;
        p.enqueue(backend, input, Some(segments), out)
    }

    /// The mean of each row (`axis` = [`AxisKind::Rows`]) or column, as `f64`, on the host: an
    /// error when a row or column is empty. Floats: the device sum divided by the length.
    /// Integers: the exact sum in `i128` (the device's integer sums wrap), from the input copied
    /// back.
    pub fn mean_axis<'a, T: Scalar>(
        &mut self,
        axis: AxisKind,
        input: impl Into<View<'a, T>>,
        rows: usize,
        cols: usize,
    ) -> Result<Vec<f64>> {
        let input = input.into();
        let n = crate::axis_plan::check_shape(rows, cols)?;
        let (results, len) = match axis {
            AxisKind::Rows => (rows, cols),
            AxisKind::Cols => (cols, rows),
            AxisKind::Segments => {
                return Err(ReduceError::InvalidArgument(
                    "segment means: use Reducer::mean_segments".into(),
                ))
            }
        };
        if len == 0 && results > 0 {
            return Err(ReduceError::EmptyInput { op: Op::Mean });
        }
        if T::TYPE.is_float() {
            let sums = if axis == AxisKind::Rows {
                self.reduce_rows(Op::Sum, input, rows, cols)?
            } else {
                self.reduce_cols(Op::Sum, input, rows, cols)?
            };
            let sums = self.backend().download(&sums, results)?;
            return Ok(sums.iter().map(|s| s.to_f64() / len as f64).collect());
        }
        input.check_owner(self.backend().id(), "the input buffer")?;
        check_matrix_input(rows, cols, n, input.len())?;
        let data = input.download_range(self.backend(), 0, n)?;
        let mut sums = vec![0i128; results];
        for (i, x) in data.iter().enumerate() {
            let k = if axis == AxisKind::Rows {
                i / cols
            } else {
                i % cols
            };
            sums[k] += x.to_i128().unwrap_or(0);
        }
        Ok(sums.iter().map(|&s| s as f64 / len as f64).collect())
    }

    /// The mean of each segment, as [`Reducer::mean_axis`] computes it; `begin` and `end` are
    /// the offsets `segments` was made from ([`Segments::offsets`]).
    ///
    /// # Errors
    /// [`ReduceError::OutOfBounds`] if `begin` or `end` are not the segments' offsets, or a
    /// segment ends past the input; [`ReduceError::EmptyInput`] if a segment is empty.
    pub fn mean_segments<'a, T: Scalar>(
        &mut self,
        input: impl Into<View<'a, T>>,
        segments: &Segments,
        begin: &[u64],
        end: &[u64],
    ) -> Result<Vec<f64>> {
        let input = input.into();
        input.check_owner(self.backend().id(), "the input buffer")?;
        // Before the integer path, which reads the offsets on the host: segments made on
        // another backend are refused for every element type, as `reduce_segments` does.
        segments.check_owner(self.backend().id())?;
        segments.check_same_offsets(begin, end)?;
        if input.len() < segments.max_end() {
            return Err(ReduceError::bounds(
                "segments",
                format!(
                    "a segment ends at {} but the input holds {} elements",
                    segments.max_end(),
                    input.len()
                ),
            ));
        }
        if begin.iter().zip(end).any(|(b, e)| b >= e) {
            return Err(ReduceError::EmptyInput { op: Op::Mean });
        }
        let len = |i: usize| (end[i] - begin[i]) as f64;
        if T::TYPE.is_float() {
            let sums = self.reduce_segments(Op::Sum, input, segments)?;
            let sums = self.backend().download(&sums, segments.len())?;
            return Ok(sums
                .iter()
                .enumerate()
                .map(|(i, s)| s.to_f64() / len(i))
                .collect());
        }
        let data = input.download_range(self.backend(), 0, segments.max_end())?;
        Ok((0..segments.len())
            .map(|i| {
                let s: i128 = data[begin[i] as usize..end[i] as usize]
                    .iter()
                    .filter_map(|x| x.to_i128())
                    .sum();
                s as f64 / len(i)
            })
            .collect())
    }
}
