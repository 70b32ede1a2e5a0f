//! [`View`]: a borrowed, length-checked window of a [`Buffer`] — what every [`crate::Reducer`]
//! method reads. `&buffer` is the whole buffer; [`Buffer::slice`] a sub-range, checked once when
//! it is made (a range outside the buffer is [`ReduceError::OutOfBounds`]).
//!
//! ```no_run
//! # use reduce_host::{Backend, BackendChoice, Reducer};
//! # let backend = Backend::open(BackendChoice::Auto)?;
//! # let mut reducer = Reducer::new(&backend);
//! let x = backend.upload(&[1.0f32, 2.0, 3.0, 4.0])?;
//! assert_eq!(reducer.sum(&x)?, 10.0);
//! assert_eq!(reducer.sum(x.slice(1..3)?)?, 5.0);
//! assert!(x.slice(2..9).is_err());
//! # Ok::<(), reduce_host::ReduceError>(())
//! ```

use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use cust::memory::DeviceCopy;
use std::ops::{Bound, RangeBounds};

/// Elements `offset..offset + len` of a [`Buffer`], known to lie inside it.
pub struct View<'a, T: DeviceCopy> {
    buffer: &'a Buffer<T>,
    offset: usize,
    len: usize,
}

impl<T: DeviceCopy> Clone for View<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: DeviceCopy> Copy for View<'_, T> {}

impl<'a, T: DeviceCopy + Copy> View<'a, T> {
    /// The buffer it looks into.
    pub fn buffer(&self) -> &'a Buffer<T> {
        self.buffer
    }
    /// Index of its first element in the buffer.
    pub fn offset(&self) -> usize {
        self.offset
    }
    /// Elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// `len() == 0`.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// A sub-range of this view (indices relative to it), checked as [`Buffer::slice`].
    ///
    /// # Errors
    /// [`ReduceError::OutOfBounds`] for a range outside the view.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<View<'a, T>> {
        let (start, len) = resolve(&range, self.len)?;
        Ok(View {
            buffer: self.buffer,
            offset: self.offset + start,
            len,
        })
    }
}

impl<'a, T: DeviceCopy + Copy + 'static> View<'a, T> {
    /// The same view as a view of `U`s, when `U` is `T` (the dispatch on an element type's
    /// `TYPE`); an internal error otherwise, never a reinterpretation.
    pub(crate) fn cast<U: DeviceCopy + Copy + 'static>(self) -> Result<View<'a, U>> {
        let buffer = (self.buffer as &dyn std::any::Any)
            .downcast_ref::<Buffer<U>>()
            .ok_or_else(|| {
                ReduceError::InvalidArgument(format!(
                    "internal: a view of {} where {} was expected",
                    std::any::type_name::<T>(),
                    std::any::type_name::<U>()
                ))
            })?;
        Ok(View {
            buffer,
            offset: self.offset,
            len: self.len,
        })
    }
}

impl<T: DeviceCopy + Copy> Buffer<T> {
    /// Elements `range` of this buffer as a [`View`] (`buf.slice(10..100)?`, `buf.slice(5..)?`).
    ///
    /// # Errors
    /// [`ReduceError::OutOfBounds`] naming the `range` if it does not lie inside the buffer (or
    /// its end is before its start).
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<View<'_, T>> {
        View::from(self).slice(range)
    }
}

impl<'a, T: DeviceCopy + Copy> From<&'a Buffer<T>> for View<'a, T> {
    fn from(buffer: &'a Buffer<T>) -> Self {
        View {
            buffer,
            offset: 0,
            len: buffer.len(),
        }
    }
}

impl<'a, T: DeviceCopy + Copy> From<&View<'a, T>> for View<'a, T> {
    fn from(v: &View<'a, T>) -> Self {
        *v
    }
}

/// `range` of `0..len` as `(start, len)`, or [`ReduceError::OutOfBounds`].
fn resolve(range: &impl RangeBounds<usize>, len: usize) -> Result<(usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => Some(s),
        Bound::Excluded(&s) => s.checked_add(1),
        Bound::Unbounded => Some(0),
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1),
        Bound::Excluded(&e) => Some(e),
        Bound::Unbounded => Some(len),
    };
    match (start, end) {
        (Some(s), Some(e)) if s <= e && e <= len => Ok((s, e - s)),
        _ => Err(ReduceError::bounds(
            "range",
            format!(
                "elements {:?}..{:?} are outside the {len}-element buffer",
                range.start_bound(),
                range.end_bound()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn ranges_resolve_or_are_out_of_bounds() {
        assert_eq!(resolve(&(2..5), 8).unwrap(), (2, 3));
        assert_eq!(resolve(&(..), 8).unwrap(), (0, 8));
        assert_eq!(resolve(&(3..=7), 8).unwrap(), (3, 5));
        assert_eq!(resolve(&(8..), 8).unwrap(), (8, 0));
        assert!(resolve(&(5..9), 8).is_err());
        let (start, end) = (6, 5); // end before start
        assert!(resolve(&(start..end), 8).is_err());
        assert!(resolve(&(0..=usize::MAX), 8).is_err());
    }
}
