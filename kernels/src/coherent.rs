//! The memory blocks share while a kernel runs: [`Coherent`] (cross-block partials, flags: every
//! access morally strong, never the read-only path) and [`Counter`] (the ticket that orders
//! them), each made from a raw pointer by an `unsafe` constructor and then accessed through
//! checked methods (see [`crate::gpu`], "Bounds" and "Read-only vs coherent"). Re-exported from
//! [`crate::gpu`]; the other views are in `memory.rs`.

use crate::intrinsics::imp;
use crate::intrinsics::Vec4;
use crate::memory::{checked_accessors, out_of_bounds};
use crate::Element;

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
    checked_accessors!(usize, "coherent": get set);
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
