//! [`View`]: a borrowed, length-checked window of a [`Buffer`] (or of device memory the library
//! did not allocate: [`crate::borrowed`]) — what every [`crate::Reducer`] method reads.
//! `&buffer` is the whole buffer; [`Buffer::slice`] a sub-range, checked once when it is made (a range outside the buffer is [`ReduceError::OutOfBounds`]).
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

use crate::buffer::{BackendId, Buffer};
use crate::error::{ReduceError, Result};
use cust::memory::DeviceCopy;
use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};

/// Elements `offset..offset + len` of a [`Buffer`], or of device memory the library did not
/// allocate ([`crate::borrowed`]), known to lie inside it.
pub struct View<'a, T: DeviceCopy> {
    owner: BackendId,
    memory: Memory<'a, T>,
    offset: usize,
    len: usize,
}

/// What a [`View`] looks into.
enum Memory<'a, T: DeviceCopy> {
    /// A buffer of the library (GPU memory, or host memory under the emulator).
    Buffer(&'a Buffer<T>),
    /// Device memory of the owner's context that the library did not allocate: `total` elements
    /// of `T` from device address `base`, checked when the view was made (see
    /// [`crate::borrowed`]); `'a` is the borrow of whatever keeps them allocated.
    Borrowed {
        base: u64,
        total: usize,
        _memory: PhantomData<&'a [T]>,
    },
}

impl<T: DeviceCopy> Clone for Memory<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: DeviceCopy> Copy for Memory<'_, T> {}

impl<T: DeviceCopy> Clone for View<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: DeviceCopy> Copy for View<'_, T> {}

impl<'a, T: DeviceCopy + Copy> View<'a, T> {
    /// `total` elements of `T` at device address `base`, of the backend `owner`.
    ///
    /// # Safety
    /// `base` is a device address of `owner`'s context, aligned for `T`, and `total` elements
    /// from it lie in one allocation that stays allocated, and is not written, for `'a`
    /// (and until the kernels reading it that a reduction queues have run).
    pub(crate) unsafe fn borrowed(owner: BackendId, base: u64, total: usize) -> Self {
        View {
            owner,
            memory: Memory::Borrowed {
                base,
                total,
                _memory: PhantomData,
            },
            offset: 0,
            len: total,
        }
    }
    /// The buffer it looks into; `None` for device memory the library did not allocate.
    pub fn buffer(&self) -> Option<&'a Buffer<T>> {
        match self.memory {
            Memory::Buffer(b) => Some(b),
            Memory::Borrowed { .. } => None,
        }
    }
    /// Is this a view of device memory the library did not allocate ([`crate::borrowed`])?
    pub fn is_borrowed(&self) -> bool {
        matches!(self.memory, Memory::Borrowed { .. })
    }
    /// The backend whose memory it is.
    pub fn owner(&self) -> BackendId {
        self.owner
    }
    /// Index of its first element in the buffer (or the borrowed memory).
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
            offset: self.offset + start,
            len,
            ..*self
        })
    }
    /// `Ok` when this view's memory belongs to `backend`; otherwise
    /// [`ReduceError::ForeignBuffer`] naming `what`.
    pub(crate) fn check_owner(&self, backend: BackendId, what: &str) -> Result<()> {
        self.owner.check_same(backend, what)
    }
    /// Address of its element `index` as the kernels see it (`index == len()`: one past the
    /// end): a device address, or a host address under the emulator.
    ///
    /// # Errors
    /// [`ReduceError::OutOfBounds`] if `index > len()`.
    pub(crate) fn addr(&self, index: usize) -> Result<u64> {
        if index > self.len {
            return Err(ReduceError::bounds(
                "index",
                format!(
                    "element {index} is past the end of a {}-element view",
                    self.len
                ),
            ));
        }
        match self.memory {
            Memory::Buffer(b) => b.try_addr(self.offset + index),
            // In bounds: `offset + len <= total` and `total · size` fits (checked when made).
            Memory::Borrowed { base, .. } => {
                Ok(base + ((self.offset + index) * std::mem::size_of::<T>()) as u64)
            }
        }
    }
}

impl<'a, T: DeviceCopy + Copy + 'static> View<'a, T> {
    /// The same view as a view of `U`s, when `U` is `T` (the dispatch on an element type's
    /// `TYPE`); an internal error otherwise, never a reinterpretation.
    pub(crate) fn cast<U: DeviceCopy + Copy + 'static>(self) -> Result<View<'a, U>> {
        let wrong = || {
            ReduceError::InvalidArgument(format!(
                "internal: a view of {} where {} was expected",
                std::any::type_name::<T>(),
                std::any::type_name::<U>()
            ))
        };
        let memory = match self.memory {
            Memory::Buffer(b) => Memory::Buffer(
                (b as &dyn std::any::Any)
                    .downcast_ref::<Buffer<U>>()
                    .ok_or_else(wrong)?,
            ),
            Memory::Borrowed { base, total, .. } => {
                if std::any::TypeId::of::<T>() != std::any::TypeId::of::<U>() {
                    return Err(wrong());
                }
                Memory::Borrowed {
                    base,
                    total,
                    _memory: PhantomData,
                }
            }
        };
        Ok(View {
            owner: self.owner,
            memory,
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

impl<T: DeviceCopy + Copy> Buffer<T> {
    /// Elements `offset..offset + len` as a [`View`], the range named `arg` in the error.
    ///
    /// # Errors
    /// [`ReduceError::OutOfBounds`] naming `arg` if the range is not inside the buffer.
    pub(crate) fn window(
        &self,
        arg: &'static str,
        offset: usize,
        len: usize,
    ) -> Result<View<'_, T>> {
        self.check_span(arg, offset, len)?;
        Ok(View {
            offset,
            len,
            ..View::from(self)
        })
    }
}

impl<'a, T: DeviceCopy + Copy> From<&'a Buffer<T>> for View<'a, T> {
    fn from(buffer: &'a Buffer<T>) -> Self {
        View {
            owner: buffer.owner(),
            memory: Memory::Buffer(buffer),
            offset: 0,
            len: buffer.len(),
        }
    }
}

/// `&&buffer` (a reference to a reference, e.g. from iterating `&[&Buffer<T>]`) as `&buffer`:
/// the axis methods took `&Buffer<T>`, to which `&&Buffer<T>` dereferenced by itself.
impl<'a, T: DeviceCopy + Copy> From<&&'a Buffer<T>> for View<'a, T> {
    fn from(buffer: &&'a Buffer<T>) -> Self {
        View::from(*buffer)
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
