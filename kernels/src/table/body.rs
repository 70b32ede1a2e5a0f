//! A kernel's Rust function as the emulator runs it: [`Body`], one variant per calling
//! convention ([`Abi`]), chosen per row by the generated [`super::emulated`], and
//! [`Body::call`], which turns a launch's argument words into the raw ABI of [`crate::exports`]
//! (the same words, in the same order, that the GPU passes to `cuLaunchKernel`).

use super::Abi;
use crate::gpu::{Coherent, Counter, Global, GlobalMut};
use crate::Element;

/// A launch's arguments as 64-bit words, in the order its kernel declares them (addresses,
/// lengths); the words past the kernel's parameters are ignored.
pub type ArgWords = [u64; 10];

/// A kernel's Rust function, as the emulator calls it.
#[derive(Clone, Copy)]
pub enum Body<T: Element> {
    /// [`Abi::MultiPass`].
    MultiPass(fn(Global<T>, GlobalMut<T>)),
    /// [`Abi::SinglePass`].
    SinglePass(fn(Global<T>, Coherent<T>, Counter, GlobalMut<T>)),
    /// [`Abi::Axis`].
    Axis(AxisBody<T>),
    /// [`Abi::Transform`].
    Transform(TransformBody<T>),
    /// [`Abi::AxisTicket`].
    AxisTicket(AxisTicketBody<T>),
    /// [`Abi::SinglePassWide`].
    SinglePassWide(WideBody<T>),
    /// [`Abi::Item`]: the raw entry point itself (it makes its own views).
    Item(crate::primitives::device::ItemEntry<T>),
    /// [`Abi::Exact`].
    Exact(fn(Global<T>, crate::exact::GlobalWords, Counter, GlobalMut<T>)),
    /// [`Abi::ExactWords`].
    ExactWords(fn(Global<T>, crate::exact::GlobalWords, Counter, GlobalMut<i64>)),
    /// [`Abi::ExactCombine`].
    ExactCombine(fn(Global<i64>, GlobalMut<T>)),
}

/// A transform kernel's Rust function: `(a, b, partials, counter, out)` ([`crate::transform`]).
pub type TransformBody<T> = fn(Global<T>, Global<T>, Coherent<f64>, Counter, GlobalMut<f64>);

/// A wide stage-8 kernel's Rust function: `(input, partials, counter, out)`, the partials and the
/// result in [`Element::Wide`].
pub type WideBody<T> =
    fn(Global<T>, Coherent<<T as Element>::Wide>, Counter, GlobalMut<<T as Element>::Wide>);

/// An axis kernel's Rust function: `(input, begin, end, out, params)`.
pub type AxisBody<T> =
    fn(Global<T>, Global<u64>, Global<u64>, GlobalMut<T>, crate::axis::AxisParams);

/// A one-launch axis kernel's Rust function: `(input, partials, counter, out, params)`.
pub type AxisTicketBody<T> =
    fn(Global<T>, Coherent<T>, Counter, GlobalMut<T>, crate::axis::AxisParams);

/// Word `i` as a pointer.
fn ptr<P>(w: &ArgWords, i: usize) -> *mut P {
    w[i] as usize as *mut P
}

/// Word `i` as a length.
fn len(w: &ArgWords, i: usize) -> usize {
    w[i] as usize
}

impl<T: Element> Body<T> {
    /// Its calling convention.
    pub fn abi(&self) -> Abi {
        match self {
            Body::MultiPass(_) => Abi::MultiPass,
            Body::SinglePass(_) => Abi::SinglePass,
            Body::Axis(_) => Abi::Axis,
            Body::Transform(_) => Abi::Transform,
            Body::AxisTicket(_) => Abi::AxisTicket,
            Body::SinglePassWide(_) => Abi::SinglePassWide,
            Body::Item(_) => Abi::Item,
            Body::Exact(_) => Abi::Exact,
            Body::ExactWords(_) => Abi::ExactWords,
            Body::ExactCombine(_) => Abi::ExactCombine,
        }
    }

    /// Run this kernel on the calling thread of an emulated grid ([`crate::emu::launch`]), its
    /// arguments read from `w` in the order of its calling convention ([`Abi`]).
    ///
    /// # Safety
    /// The words are what the kernel's [`Abi`] takes, as for its PTX entry point (see
    /// [`crate::exports`]): each address a host address of a live allocation of the element
    /// type and length that calling convention and the launch shape give (`n` inputs, `gridDim.x`
    /// partials, a zeroed counter, the results), valid for the whole launch; the grid is the one
    /// the kernel's plan gives (a `const` family's block size, the shared memory).
    pub unsafe fn call(self, w: &ArgWords) {
        use crate::exports as x;
        // SAFETY: the caller's contract: the words are this ABI's arguments.
        unsafe {
            match self {
                Body::MultiPass(f) => x::multi_pass(f, ptr(w, 0), len(w, 1), ptr(w, 2)),
                Body::SinglePass(f) => {
                    x::single_pass(f, ptr(w, 0), len(w, 1), ptr(w, 2), ptr(w, 3), ptr(w, 4))
                }
                Body::SinglePassWide(f) => {
                    x::single_pass_wide(f, ptr(w, 0), len(w, 1), ptr(w, 2), ptr(w, 3), ptr(w, 4))
                }
                Body::Axis(f) => x::axis(
                    f,
                    ptr(w, 0),
                    len(w, 1),
                    ptr(w, 2),
                    ptr(w, 3),
                    ptr(w, 4),
                    len(w, 5),
                    len(w, 6),
                    len(w, 7),
                    len(w, 8),
                    len(w, 9),
                ),
                Body::AxisTicket(f) => x::axis_ticket(
                    f,
                    ptr(w, 0),
                    len(w, 1),
                    ptr(w, 2),
                    ptr(w, 3),
                    ptr(w, 4),
                    len(w, 5),
                    len(w, 6),
                    len(w, 7),
                    len(w, 8),
                    len(w, 9),
                ),
                Body::Transform(f) => crate::transform::entry(
                    f,
                    ptr(w, 0),
                    ptr(w, 1),
                    len(w, 2),
                    ptr(w, 3),
                    ptr(w, 4),
                    ptr(w, 5),
                ),
                Body::Item(entry) => entry(ptr(w, 0), len(w, 1), ptr(w, 2), ptr(w, 3), ptr(w, 4)),
                Body::Exact(f) => {
                    x::exact(f, ptr(w, 0), len(w, 1), ptr(w, 2), ptr(w, 3), ptr(w, 4))
                }
                Body::ExactWords(f) => crate::exact::words::words_entry(
                    f,
                    ptr(w, 0),
                    len(w, 1),
                    ptr(w, 2),
                    ptr(w, 3),
                    ptr(w, 4),
                ),
                Body::ExactCombine(f) => {
                    crate::exact::words::combine_entry(f, ptr(w, 0), len(w, 1), ptr(w, 2))
                }
            }
        }
    }
}
