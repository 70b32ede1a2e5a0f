//! The kernels' entry points: stable, readable `#[no_mangle]` names and raw-pointer ABIs.
//!
//! Two calling conventions, shared by the GPU and the emulator:
//!
//! * the multi-pass stages 1–7 and the broken variants: `(const T* input, size_t n, T* partials)`;
//!   `partials` has `gridDim.x` elements;
//! * stage 8: `(const T* input, size_t n, T* partials, unsigned* counter, T* out)`;
//! * the reductions along an axis ([`crate::axis`]): `(const T* input, size_t n, const u64*
//!   begin, const u64* end, T* out, size_t out_len, size_t count, size_t len, size_t parts,
//!   size_t group)`;
//! * the one-launch column reduction ([`crate::axis::columns_once`]): `(const T* input, size_t
//!   n, T* partials, unsigned* counter, T* out, size_t out_len, size_t count, size_t len, size_t
//!   parts, size_t group)`;
//! * and one helper that is not a reduction, `bench_gate(unsigned* flag, uint64 timeout_ns)`
//!   ([`crate::bench_gate`]).
//!
//! The `#[no_mangle]` entry points themselves, and their names, are generated from the kernel
//! table ([`crate::table`]), which the host and the emulator read too.

use crate::gpu::{grid_dim, Coherent, Counter, Global, GlobalMut};
use crate::Element;

/// Multi-pass ABI (stages 1–7) → safe views.
///
/// # Safety
/// `input` holds `n` elements; `partials` holds `gridDim.x` elements.
#[inline(always)]
pub unsafe fn multi_pass<T: Element>(
    body: impl Fn(Global<T>, GlobalMut<T>),
    input: *const T,
    n: usize,
    partials: *mut T,
) {
    // SAFETY: the caller's contract: `n` input elements, `gridDim.x` partials.
    let (input, partials) = unsafe {
        (
            Global::from_raw(input, n),
            GlobalMut::from_raw(partials, grid_dim() as usize),
        )
    };
    body(input, partials)
}

/// Stage-8 ABI → safe views.
///
/// # Safety
/// `input` holds `n` elements; `partials` holds `gridDim.x` elements (unused with one block);
/// `counter` is a zeroed `u32`; `out` holds one element.
#[inline(always)]
pub unsafe fn single_pass<T: Element>(
    body: impl Fn(Global<T>, Coherent<T>, Counter, GlobalMut<T>),
    input: *const T,
    n: usize,
    partials: *mut T,
    counter: *mut u32,
    out: *mut T,
) {
    // SAFETY: the caller's contract: `n` input elements, `gridDim.x` partials (written by each
    // block, read by the last, only through `Coherent`), a counter only used atomically, one
    // result element.
    let (input, partials, counter, out) = unsafe {
        (
            Global::from_raw(input, n),
            Coherent::from_raw(partials, grid_dim() as usize),
            Counter::from_raw(counter),
            GlobalMut::from_raw(out, 1),
        )
    };
    body(input, partials, counter, out)
}

/// Wide stage-8 ABI → safe views: [`single_pass`] with the partials and the result in
/// [`Element::Wide`].
///
/// # Safety
/// `input` holds `n` elements of `T`; `partials` holds `gridDim.x` elements of `T::Wide` (unused
/// with one block); `counter` is a zeroed `u32`; `out` holds one `T::Wide`.
#[inline(always)]
pub unsafe fn single_pass_wide<T: Element>(
    body: impl Fn(Global<T>, Coherent<T::Wide>, Counter, GlobalMut<T::Wide>),
    input: *const T,
    n: usize,
    partials: *mut T::Wide,
    counter: *mut u32,
    out: *mut T::Wide,
) {
    // SAFETY: the caller's contract, as for `single_pass`.
    let (input, partials, counter, out) = unsafe {
        (
            Global::from_raw(input, n),
            Coherent::from_raw(partials, grid_dim() as usize),
            Counter::from_raw(counter),
            GlobalMut::from_raw(out, 1),
        )
    };
    body(input, partials, counter, out)
}

/// Axis ABI → safe views (see [`crate::axis`]).
///
/// # Safety
/// `input` holds `n` elements and `out` holds `out_len`; `begin` and `end` each hold `count`
/// offsets, or are null (then the kernel sees them empty: only the segment kernel reads them).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn axis<T: Element>(
    body: impl Fn(Global<T>, Global<u64>, Global<u64>, GlobalMut<T>, crate::axis::AxisParams),
    input: *const T,
    n: usize,
    begin: *const u64,
    end: *const u64,
    out: *mut T,
    out_len: usize,
    count: usize,
    len: usize,
    parts: usize,
    group: usize,
) {
    let offsets = |p: *const u64| {
        if p.is_null() {
            // SAFETY: no element: a dangling, aligned pointer is never read.
            unsafe { Global::from_raw(core::ptr::NonNull::<u64>::dangling().as_ptr(), 0) }
        } else {
            // SAFETY: the caller's contract: `count` offsets.
            unsafe { Global::from_raw(p, count) }
        }
    };
    // SAFETY: the caller's contract: `n` input elements, `out_len` result elements.
    let (input, out) = unsafe {
        (
            Global::from_raw(input, n),
            GlobalMut::from_raw(out, out_len),
        )
    };
    let params = crate::axis::AxisParams {
        count,
        len,
        parts,
        group,
    };
    body(input, offsets(begin), offsets(end), out, params)
}

/// One-launch axis ABI → safe views (see [`crate::axis::columns_once`]).
///
/// # Safety
/// `input` holds `n` elements and `out` holds `out_len`; `partials` holds `gridDim.x · len`
/// elements that only this launch accesses (through [`Coherent`]) while it runs; `counter` is a
/// zeroed `u32` only used atomically.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn axis_ticket<T: Element>(
    body: impl Fn(Global<T>, Coherent<T>, Counter, GlobalMut<T>, crate::axis::AxisParams),
    input: *const T,
    n: usize,
    partials: *mut T,
    counter: *mut u32,
    out: *mut T,
    out_len: usize,
    count: usize,
    len: usize,
    parts: usize,
    group: usize,
) {
    // SAFETY: the caller's contract: `n` input elements, `gridDim.x · len` partials (written and
    // read only through `Coherent`), a counter only used atomically, `out_len` results.
    let (input, partials, counter, out) = unsafe {
        (
            Global::from_raw(input, n),
            Coherent::from_raw(partials, (grid_dim() as usize).saturating_mul(len)),
            Counter::from_raw(counter),
            GlobalMut::from_raw(out, out_len),
        )
    };
    let params = crate::axis::AxisParams {
        count,
        len,
        parts,
        group,
    };
    body(input, partials, counter, out, params)
}

/// The benchmarks' gate ([`crate::bench_gate`]): `flag[0]` is set by the host, `flag[1]` is set by
/// the gate if it timed out. One thread. (Not a reduction, so not a row of [`crate::table`].)
///
/// # Safety
/// `flag` points to two `u32` of mapped host memory that the host writes (`flag[0]`) and reads
/// (`flag[1]`) with single aligned accesses while the gate runs.
#[cfg(all(target_arch = "nvptx64", feature = "entry-points"))]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn bench_gate(flag: *mut u32, timeout_ns: u64) {
    // SAFETY: this function's contract.
    let flags = unsafe { crate::gpu::Coherent::from_raw(flag, 2) };
    crate::bench_gate::wait(flags, timeout_ns)
}

/// Exact-sum ABI ([`crate::exact`]): `(const T* input, size_t n, int64_t* words, unsigned*
/// counter, T* out)` → safe views.
///
/// # Safety
/// `input` holds `n` elements; `words` holds `slots` zeroed 64-bit words (`slots` from
/// [`crate::exact::Format::of`], only accessed through [`crate::exact::GlobalWords`] during the
/// launch); `counter` is a zeroed `u32` only used atomically; `out` holds one element.
#[inline(always)]
pub unsafe fn exact<T: Element>(
    body: impl Fn(Global<T>, crate::exact::GlobalWords, Counter, GlobalMut<T>),
    input: *const T,
    n: usize,
    words: *mut i64,
    counter: *mut u32,
    out: *mut T,
) {
    let slots = crate::exact::Format::of(T::TYPE).map_or(0, |f| f.slots());
    // SAFETY: the caller's contract, as listed above.
    let (input, words, counter, out) = unsafe {
        (
            Global::from_raw(input, n),
            crate::exact::GlobalWords::from_raw(words, slots),
            Counter::from_raw(counter),
            GlobalMut::from_raw(out, 1),
        )
    };
    body(input, words, counter, out)
}
