//! The memory views a kernel works through — shared memory, read-only input, output (and, in
//! [`crate::coherent`], coherent cross-block memory and the ticket counter) — each made from a
//! raw pointer by an `unsafe` constructor and then accessed through checked methods (see
//! [`crate::gpu`], "Bounds" and "Read-only vs coherent"). Re-exported from [`crate::gpu`].

use crate::intrinsics::imp;
use crate::intrinsics::Vec4;
use crate::Element;

/// Stop the kernel because an index is out of bounds: `trap` on the GPU (the host's next call
/// reports the launch as failed); a panic naming the access in the emulator (reported as
/// [`crate::emu::EmuError::Panic`]).
#[cold]
#[inline(always)]
#[track_caller]
pub(crate) fn out_of_bounds(what: &str, index: usize, len: usize) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (what, index, len);
        // SAFETY: `trap` aborts the kernel; it has no other effect.
        unsafe { imp::trap() }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!("{what} out of bounds: index {index}, length {len}")
}

/// The accessors every view shares: `len`, `is_empty`, and the checked `get` and `set` — the
/// bounds check, then the view's own `get_unchecked` / `set_unchecked` — whose panic (emulator)
/// names the view (`shared read` …). `$idx` is the index type.
macro_rules! checked_accessors {
    ($idx:ty, $what:literal: $($access:ident)+) => {
        /// Number of elements.
        #[inline(always)]
        pub fn len(&self) -> $idx {
            self.len
        }
        /// `len() == 0`.
        #[inline(always)]
        pub fn is_empty(&self) -> bool {
            self.len == 0
        }
        $(checked_accessors!(@$access $idx, $what);)+
    };
    (@get $idx:ty, $what:literal) => {
        /// Element `i`, checked: an index past the end stops the kernel (see the module docs).
        #[inline(always)]
        #[track_caller]
        #[allow(clippy::unnecessary_cast)] // `$idx` is `u32` or `usize`
        pub fn get(&self, i: $idx) -> T {
            if i >= self.len {
                out_of_bounds(concat!($what, " read"), i as usize, self.len as usize)
            }
            // SAFETY: `i < len` was just checked.
            unsafe { self.get_unchecked(i) }
        }
    };
    (@set $idx:ty, $what:literal) => {
        /// Sets element `i` to `v`, checked: an index past the end stops the kernel (see the
        /// module docs).
        #[inline(always)]
        #[track_caller]
        #[allow(clippy::unnecessary_cast)] // `$idx` is `u32` or `usize`
        pub fn set(&self, i: $idx, v: T) {
            if i >= self.len {
                out_of_bounds(concat!($what, " write"), i as usize, self.len as usize)
            }
            // SAFETY: `i < len` was just checked.
            unsafe { self.set_unchecked(i, v) }
        }
    };
}
pub(crate) use checked_accessors;

/// Per-block shared memory sized at launch (`extern __shared__ T sdata[]`), viewed as `len`
/// elements.
#[derive(Clone, Copy)]
pub struct Shared<T> {
    ptr: *mut T,
    len: u32,
}

impl<T: Element> Shared<T> {
    /// The block's dynamic shared memory viewed as an array of `len` elements of `T`.
    ///
    /// # Safety
    /// The launch must reserve at least `len * size_of::<T>()` bytes of dynamic shared memory
    /// (the emulator checks every access against what the launch really reserved; the GPU
    /// trusts `len`).
    #[inline(always)]
    pub unsafe fn dynamic(len: u32) -> Self {
        Shared {
            ptr: crate::shared::dynamic_shared_mem::<T>(),
            len,
        }
    }
    checked_accessors!(u32, "shared": get set);
    /// `sdata[i]` without the bounds check on the GPU (the emulator still checks).
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, i: u32) -> T {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            if i >= self.len {
                out_of_bounds("shared read (unchecked)", i as usize, self.len as usize)
            }
            crate::emu::shared_access(i as usize * size_of::<T>(), size_of::<T>(), false);
        }
        // SAFETY: `i < len` (the caller's contract) and `len` elements are reserved (the
        // constructor's); shared-memory races are the kernel's to avoid with barriers.
        unsafe { imp::load(self.ptr.add(i as usize)) }
    }
    /// `sdata[i] = v` without the bounds check on the GPU (the emulator still checks).
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    pub unsafe fn set_unchecked(&self, i: u32, v: T) {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            if i >= self.len {
                out_of_bounds("shared write (unchecked)", i as usize, self.len as usize)
            }
            crate::emu::shared_access(i as usize * size_of::<T>(), size_of::<T>(), true);
        }
        // SAFETY: as in `get_unchecked`.
        unsafe { imp::store(self.ptr.add(i as usize), v) }
    }
}

/// Read-only input in device memory (`const T* __restrict__ in`): **nothing writes it while the
/// kernel runs**, so loads may use the non-coherent read-only path (`ld.global.nc`).
#[derive(Clone, Copy)]
pub struct Global<T> {
    ptr: *const T,
    len: usize,
}

impl<T: Element> Global<T> {
    /// # Safety
    /// `ptr` must point to `len` initialized, aligned elements that stay valid and **unmodified**
    /// (by this kernel, other kernels or the host) while the kernel runs.
    #[inline(always)]
    pub unsafe fn from_raw(ptr: *const T, len: usize) -> Self {
        Global { ptr, len }
    }
    checked_accessors!(usize, "global": get);
    /// `in[i]` without the bounds check on the GPU (the emulator still checks).
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, i: usize) -> T {
        #[cfg(not(target_arch = "nvptx64"))]
        if i >= self.len {
            out_of_bounds("global read (unchecked)", i, self.len)
        }
        // SAFETY: `i < len` (the caller's contract), and the constructor's contract.
        unsafe { imp::load(self.ptr.add(i)) }
    }
    /// How many leading elements come before the first 16-byte boundary (at most `len()`).
    #[inline(always)]
    pub fn misaligned_head(&self) -> usize {
        let off = (self.ptr as usize) % 16;
        if off == 0 {
            0
        } else {
            ((16 - off) / size_of::<T>()).min(self.len)
        }
    }
    /// The `v`-th 16-byte vector counted from element `start`: elements
    /// `start + v*L .. start + (v+1)*L` with `L = 16 / size_of::<T>()`. Checked: the vector must
    /// lie inside the array and start on a 16-byte boundary.
    #[inline(always)]
    #[track_caller]
    pub fn get_vec4(&self, start: usize, v: usize) -> Vec4 {
        let lanes = 16 / size_of::<T>();
        let first = v.checked_mul(lanes).and_then(|o| o.checked_add(start));
        match first {
            Some(f) if f <= self.len && self.len - f >= lanes => {}
            _ => out_of_bounds("16-byte global read", first.unwrap_or(usize::MAX), self.len),
        }
        if !(self.ptr as usize + start * size_of::<T>()).is_multiple_of(16) {
            out_of_bounds("misaligned 16-byte global read", start, self.len)
        }
        // SAFETY: in bounds and aligned, both just checked.
        unsafe { self.get_vec4_unchecked(start, v) }
    }
    /// [`Global::get_vec4`] without the checks on the GPU (the emulator still checks).
    ///
    /// # Safety
    /// `start + (v + 1) * L <= self.len()` and element `start` lies on a 16-byte boundary
    /// (`start == self.misaligned_head()` does).
    #[inline(always)]
    pub unsafe fn get_vec4_unchecked(&self, start: usize, v: usize) -> Vec4 {
        #[cfg(not(target_arch = "nvptx64"))]
        if start + (v + 1) * (16 / size_of::<T>()) > self.len {
            out_of_bounds("16-byte global read (unchecked)", start, self.len)
        }
        // SAFETY: in bounds and aligned (the caller's contract; the emulator's `load_vec4`
        // asserts the alignment).
        unsafe { imp::load_vec4((self.ptr.add(start) as *const Vec4).add(v)) }
    }
}

/// A writable array in device memory (`T* out`) that this kernel's threads write and nobody
/// reads during the launch; each element is written by at most one thread.
#[derive(Clone, Copy)]
pub struct GlobalMut<T> {
    ptr: *mut T,
    len: usize,
}

impl<T: Element> GlobalMut<T> {
    /// # Safety
    /// `ptr` must point to `len` aligned elements that only this kernel accesses while it runs;
    /// each element must be written by at most one thread.
    #[inline(always)]
    pub unsafe fn from_raw(ptr: *mut T, len: usize) -> Self {
        GlobalMut { ptr, len }
    }
    checked_accessors!(usize, "global": set);
    /// Does element 0 lie on a 16-byte boundary (so that [`GlobalMut::set_vec4_unchecked`]
    /// may be used)?
    #[inline(always)]
    pub fn vec4_aligned(&self) -> bool {
        (self.ptr as usize).is_multiple_of(16)
    }
    /// Write the `v`-th 16-byte vector (elements `v·L .. (v+1)·L`, `L = 16 / size_of::<T>()`)
    /// in one store; the emulator checks the bounds and the alignment.
    ///
    /// # Safety
    /// `(v + 1) · L <= self.len()` and [`GlobalMut::vec4_aligned`].
    #[inline(always)]
    pub unsafe fn set_vec4_unchecked(&self, v: usize, x: Vec4) {
        #[cfg(not(target_arch = "nvptx64"))]
        if (v + 1) * (16 / size_of::<T>()) > self.len {
            out_of_bounds("16-byte global write (unchecked)", v, self.len)
        }
        // SAFETY: in bounds and aligned (the caller's contract), and the constructor's.
        unsafe { imp::store_vec4((self.ptr as *mut Vec4).add(v), x) }
    }
    /// `out[i] = v` without the bounds check on the GPU (the emulator still checks).
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    pub unsafe fn set_unchecked(&self, i: usize, v: T) {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            if i >= self.len {
                out_of_bounds("global write (unchecked)", i, self.len)
            }
            // In the emulator blocks run on several OS threads: a relaxed atomic store keeps a
            // kernel bug that writes one element from two blocks a wrong value, not a data race
            // in Rust's memory model.
            // SAFETY: `i < len` (checked above), and the constructor's contract.
            unsafe { imp::store_coherent(self.ptr.add(i), v) }
        }
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: `i < len` (the caller's contract), and the constructor's contract.
        unsafe {
            imp::store(self.ptr.add(i), v)
        }
    }
}
