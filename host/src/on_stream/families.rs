//! Every other family on the caller's stream: halves and wide sums, argmin/argmax, the
//! transforms (norms, dot, moments), exact sums, axis and segmented reductions, and custom item
//! kernels. Each `enqueue_on` queues the family's launches on a raw `CUstream` and returns at
//! once; the result lands where the blocking form leaves it (the plan's own result slot, in
//! device memory or mapped pinned memory; the axis plans write the caller's output), read with
//! the plan's usual reader **after the caller has synchronized its stream** (the readers wait
//! for the library's own stream, not the caller's). Every plan looked its kernels up when it
//! was made, so an `enqueue_on` loads no module and can be captured in a CUDA graph.
//!
//! Each has the same contract, spelled out once here:
//!
//! # Safety (every `enqueue_on` below)
//! * `stream` is a live stream of this GPU's context (the primary context: the CUDA runtime's,
//!   cudarc's and PyTorch's streams of this device are), or null (the legacy default stream);
//! * the inputs (and the axis output and segments) stay allocated until the stream has run the
//!   launches — for borrowed views, regardless of their lifetime; nothing writes the inputs,
//!   nor reads or writes an output, until then (order other streams after an event);
//! * the axis output does not overlap the input or the segments;
//! * no other launch using this plan's workspace runs at the same time (another stream), and
//!   the plan's result is read only after the stream has run this launch: one plan per
//!   concurrent reduction.
//!
//! Errors are the blocking forms' (owners, lengths, a missing second input, …); nothing is
//! launched on an error. On the emulator the launches run at once and `stream` is not used.

use crate::axis::{PreparedAxis, Segments};
use crate::backend::{Backend, On};
use crate::custom::PreparedCustom;
use crate::error::Result;
use crate::exact::{ExactFloat, PreparedExact};
use crate::types::Scalar;
use crate::view::View;
use crate::{PreparedArg, PreparedTransform, PreparedWide};
use cust::sys as cu;
use reduce_kernels::primitives::Item;

impl<T: Scalar> PreparedWide<T>
where
    crate::Wide<T>: Scalar,
{
    /// Queue the reduction of `input` on `stream` and return without waiting; read it with
    /// [`PreparedWide::read`] once the stream has run it.
    ///
    /// # Safety
    /// See the module docs ([`crate::on_stream`]'s `families`).
    pub unsafe fn enqueue_on(
        &self,
        backend: &Backend,
        stream: cu::CUstream,
        input: View<'_, T>,
    ) -> Result<()> {
        // SAFETY: this function's contract.
        unsafe { self.queue_on(backend, input, On::Caller(stream)) }
    }
}

impl<T: Scalar> PreparedArg<T> {
    /// Queue one run over `input` on `stream` and return without waiting; read it with
    /// [`PreparedArg::read`] once the stream has run it.
    ///
    /// # Safety
    /// See the module docs.
    pub unsafe fn enqueue_on(
        &self,
        backend: &Backend,
        stream: cu::CUstream,
        input: View<'_, T>,
    ) -> Result<()> {
        // SAFETY: this function's contract.
        unsafe { self.queue_on(backend, input, On::Caller(stream)) }
    }
}

impl<T: Scalar> PreparedTransform<T> {
    /// Queue one launch over `a` (and, for the dot product, `b`) on `stream` and return without
    /// waiting; read it with [`PreparedTransform::read`] once the stream has run it.
    ///
    /// # Safety
    /// See the module docs.
    pub unsafe fn enqueue_on(
        &self,
        backend: &Backend,
        stream: cu::CUstream,
        a: View<'_, T>,
        b: Option<View<'_, T>>,
    ) -> Result<()> {
        // SAFETY: this function's contract.
        unsafe { self.queue_on(backend, a, b, On::Caller(stream)) }
    }
}

impl<T: ExactFloat> PreparedExact<T> {
    /// Queue the correctly rounded sum of `input` on `stream` and return without waiting; read
    /// it with [`PreparedExact::read_result`] once the stream has run it.
    ///
    /// # Safety
    /// See the module docs.
    pub unsafe fn enqueue_on(
        &self,
        backend: &Backend,
        stream: cu::CUstream,
        input: View<'_, T>,
    ) -> Result<()> {
        // SAFETY: this function's contract.
        unsafe { self.queue_on(backend, input, On::Caller(stream)) }
    }
}

impl<T: Scalar> PreparedAxis<T> {
    /// Queue the reduction of `input` into `out[..results()]` (device memory the caller owns: a
    /// buffer's view or borrowed memory) on `stream` and return without waiting. For segments,
    /// pass the [`Segments`] the plan was made for.
    ///
    /// # Safety
    /// See the module docs.
    pub unsafe fn enqueue_on(
        &self,
        backend: &Backend,
        stream: cu::CUstream,
        input: View<'_, T>,
        segments: Option<&Segments>,
        out: View<'_, T>,
    ) -> Result<()> {
        // SAFETY: this function's contract.
        unsafe { self.queue_on(backend, input, segments, out, On::Caller(stream)) }
    }
}

impl<T: Scalar, I: Item> PreparedCustom<'_, '_, T, I> {
    /// Queue one reduction of `input` (a view of exactly the prepared length) on `stream` and
    /// return without waiting; read it with [`PreparedCustom::read`] once the stream has run it.
    ///
    /// # Safety
    /// See the module docs.
    pub unsafe fn enqueue_on(&self, stream: cu::CUstream, input: View<'_, T>) -> Result<()> {
        // SAFETY: this function's contract.
        unsafe { self.queue_on(input, On::Caller(stream)) }
    }
}
