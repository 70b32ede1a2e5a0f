//! The memory views a kernel works through — shared memory, read-only input, output, coherent
//! cross-block memory, the ticket counter — each made from a raw pointer by an `unsafe`
//! constructor and then accessed through checked methods (see [`crate::gpu`], "Bounds" and
//! "Read-only vs coherent"). Re-exported from [`crate::gpu`].

use crate::gpu::imp;
use crate::gpu::Vec4;
use crate::Element;

/// Stop the kernel because an index is out of bounds: `trap` on the GPU (the host's next call
/// reports the launch as failed); a panic naming the access in the emulator (reported as
/// [`crate::emu::EmuError::Panic`]).
#[cold]
#[inline(always)]
#[track_caller]
fn out_of_bounds(what: &str, index: usize, len: usize) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (what, index, len);
        // SAFETY: `trap` aborts the kernel; it has no other effect.
        unsafe { imp::trap() }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!("{what} out of bounds: index {index}, length {len}")
}

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
    /// Elements in the view.
    #[inline(always)]
    pub fn len(&self) -> u32 {
        self.len
    }
    /// `len() == 0`.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// `sdata[i]`, checked (see the module docs).
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, i: u32) -> T {
        if i >= self.len {
            out_of_bounds("shared read", i as usize, self.len as usize)
        }
        // SAFETY: `i < len` was just checked.
        unsafe { self.get_unchecked(i) }
    }
    /// `sdata[i] = v`, checked (see the module docs).
    #[inline(always)]
    #[track_caller]
    pub fn set(&self, i: u32, v: T) {
        if i >= self.len {
            out_of_bounds("shared write", i as usize, self.len as usize)
        }
        // SAFETY: `i < len` was just checked.
        unsafe { self.set_unchecked(i, v) }
    }
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
    /// Number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }
    /// `len() == 0`.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// `in[i]`, checked (see the module docs).
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, i: usize) -> T {
        if i >= self.len {
            out_of_bounds("global read", i, self.len)
        }
        // SAFETY: `i < len` was just checked.
        unsafe { self.get_unchecked(i) }
    }
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
    /// Number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }
    /// `len() == 0`.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// `out[i] = v`, checked (see the module docs).
    #[inline(always)]
    #[track_caller]
    pub fn set(&self, i: usize, v: T) {
        if i >= self.len {
            out_of_bounds("global write", i, self.len)
        }
        // SAFETY: `i < len` was just checked.
        unsafe { self.set_unchecked(i, v) }
    }
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

/// Device (or mapped host) memory that **other blocks or the host write while the kernel runs**
/// (`volatile T*` in CUDA C): stage 8's partials, the benchmarks' gate flag. Loads and stores are
/// morally strong (`ld.relaxed.sys` / `st.relaxed.sys`), never the read-only path and never a stale
/// L1 line; ordering *between* threads comes from a release/acquire pair such as
/// [`Counter::take_ticket`].
#[derive(Clone, Copy)]
pub struct Coherent<T> {
    ptr: *mut T,
    len: usize,
}

impl<T: Element> Coherent<T> {
    /// # Safety
    /// `ptr` must point to `len` aligned elements that stay allocated while the kernel runs and
    /// that everyone (other blocks, the host) only accesses with single, aligned 4- or 8-byte
    /// accesses (as [`Coherent`] does, but for [`Coherent::get_vec4_unchecked`], whose caller
    /// orders it after the stores) while it runs.
    #[inline(always)]
    pub unsafe fn from_raw(ptr: *mut T, len: usize) -> Self {
        Coherent { ptr, len }
    }
    /// Number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }
    /// `len() == 0`.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Load `p[i]` now (relaxed, system scope), checked (see the module docs).
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, i: usize) -> T {
        if i >= self.len {
            out_of_bounds("coherent read", i, self.len)
        }
        // SAFETY: `i < len` was just checked.
        unsafe { self.get_unchecked(i) }
    }
    /// Store `p[i] = v` now (relaxed, system scope), checked (see the module docs).
    #[inline(always)]
    #[track_caller]
    pub fn set(&self, i: usize, v: T) {
        if i >= self.len {
            out_of_bounds("coherent write", i, self.len)
        }
        // SAFETY: `i < len` was just checked.
        unsafe { self.set_unchecked(i, v) }
    }
    /// [`Coherent::get`] without the bounds check on the GPU (the emulator still checks).
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, i: usize) -> T {
        #[cfg(not(target_arch = "nvptx64"))]
        if i >= self.len {
            out_of_bounds("coherent read (unchecked)", i, self.len)
        }
        // SAFETY: `i < len` (the caller's contract), and the constructor's contract.
        unsafe { imp::load_coherent(self.ptr.add(i)) }
    }
    /// Whether element 0 lies on a 16-byte boundary ([`Coherent::get_vec4_unchecked`]'s need).
    #[inline(always)]
    pub fn vec4_aligned(&self) -> bool {
        (self.ptr as usize).is_multiple_of(16)
    }
    /// The `v`-th 16-byte vector (elements `v·L .. (v+1)·L`, `L = 16 / size_of::<T>()`) in one
    /// load of four relaxed 4-byte words, without the checks on the GPU (the emulator checks).
    ///
    /// # Safety
    /// `(v + 1) · L <= self.len()`, [`Coherent::vec4_aligned`], and the stores this load must
    /// see are ordered before it (a ticket's acquire): with 8-byte elements the 4-byte words
    /// are not morally strong against concurrent 8-byte stores.
    #[inline(always)]
    pub unsafe fn get_vec4_unchecked(&self, v: usize) -> Vec4 {
        let lanes = 16 / size_of::<T>();
        #[cfg(not(target_arch = "nvptx64"))]
        if (v + 1) * lanes > self.len {
            out_of_bounds("16-byte coherent read (unchecked)", v * lanes, self.len)
        }
        // SAFETY: in bounds and aligned, and the stores ordered before (the caller's contract).
        unsafe { imp::load_vec4_coherent(self.ptr.add(v * lanes)) }
    }
    /// [`Coherent::set`] without the bounds check on the GPU (the emulator still checks).
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    pub unsafe fn set_unchecked(&self, i: usize, v: T) {
        #[cfg(not(target_arch = "nvptx64"))]
        if i >= self.len {
            out_of_bounds("coherent write (unchecked)", i, self.len)
        }
        // SAFETY: `i < len` (the caller's contract), and the constructor's contract.
        unsafe { imp::store_coherent(self.ptr.add(i), v) }
    }
}

/// A `u32` in device memory that blocks count on with atomics (stage 8's ticket counter).
#[derive(Clone, Copy)]
pub struct Counter {
    ptr: *mut u32,
}

impl Counter {
    /// # Safety
    /// `ptr` must point to an aligned `u32` in device memory that lives as long as the launch and
    /// that is only accessed through [`Counter`] while it runs.
    #[inline(always)]
    pub unsafe fn from_raw(ptr: *mut u32) -> Self {
        Counter { ptr }
    }
    /// `atomicAdd(counter, 1)` with **acquire-release** semantics at GPU scope
    /// (`atom.acq_rel.gpu.add.u32`): returns the value before the increment.
    ///
    /// *Release*: every write this thread made before it (a block's partial) is visible to any
    /// thread that later *acquires* this counter and reads a value at or after this increment.
    /// *Acquire*: the thread that draws a ticket sees every write released by the increments
    /// before it. Since each increment reads the previous one's value, the increments form one
    /// release sequence, so the thread drawing the last ticket sees every block's partial (PTX
    /// ISA, "Memory Consistency Model": a release pattern *synchronizes with* an acquire pattern
    /// that observes it, and causality order is transitive). It is what NVIDIA's PTX atomics ABI
    /// maps CUDA C++'s `atomic_ref<unsigned, thread_scope_device>::fetch_add(1,
    /// memory_order_acq_rel)` to. Other threads of the acquiring block are ordered after it by
    /// a block barrier (`bar.sync` / `bar.red` operations on one barrier synchronize with each
    /// other in the same model).
    #[inline(always)]
    pub fn take_ticket(&self) -> u32 {
        // SAFETY: the constructor's contract: a live, aligned u32 accessed only atomically.
        unsafe { imp::atomic_add_acq_rel_u32(self.ptr, 1) }
    }
    /// `*counter = 0` for the next launch (which sees it: launches on a stream are ordered).
    /// Call it only once every block has taken its ticket.
    #[inline(always)]
    pub fn reset(&self) {
        // SAFETY: the constructor's contract; a morally strong store, so no data race with the
        // (earlier, ordered) atomics of this launch.
        unsafe { imp::store_coherent(self.ptr, 0u32) }
    }
}
