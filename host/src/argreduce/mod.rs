//! Argmin / argmax: the index and value of the smallest / largest element, on the device
//! primitives (`reduce_kernels::argreduce`), in one launch.
//!
//! Semantics (NumPy's `argmin`/`argmax`, which PyTorch's follow): the **first** index of the
//! extreme value; for floats, if there is a NaN, the index of the **first NaN** (for both ops);
//! `-0.0` and `0.0` are equal (the first wins). An empty input is an error
//! ([`ReduceError::EmptyArgInput`]), as in NumPy ("attempt to get argmax of an empty sequence").
//! `nanargmin`/`nanargmax` (NumPy's) skip NaN; an all-NaN input is [`ReduceError::AllNanArg`], as
//! NumPy raises. `f16`/`bf16` compare as the `f32` they widen to exactly; the value returned is
//! the element itself.
//!
//! The launch shape is an [`ArgPolicy`] (`block=256,bps=4`), settable from text at run time
//! (`reduce arg --policy`).

use crate::backend::{Backend, On};
use crate::buffer::Buffer;
use crate::custom::{ItemCode, ItemWorkspace};
use crate::error::{ReduceError, Result};
use crate::reducer::Reducer;
use crate::types::{Op, Scalar};
use crate::view::View;
use reduce_kernels::argreduce::{fits_positions, ArgItem, NO_INDEX};
use reduce_kernels::primitives::{Item, Policy, DEFAULT_POLICY};
use reduce_kernels::table::{Family, KernelId};

mod policy;

pub use policy::{ArgPolicy, TUNED_LARGE, TUNED_SMALL};

/// The kernel for `op` over `T` (the default block size).
pub fn arg_kernel<T: Scalar>(op: Op) -> KernelId {
    arg_kernel_block::<T>(op, DEFAULT_POLICY.block)
}

/// The kernel for `op` over `T` with `block` threads per block (built: [`ArgPolicy::BLOCKS`]).
pub fn arg_kernel_block<T: Scalar>(op: Op, block: usize) -> KernelId {
    kernel_of::<T>(op, Family::ArgReduce, block)
}

/// The kernel `policy` launches for `op` over `T` (its family and block size); not every one
/// is built: see [`KernelId::is_built`].
pub fn arg_kernel_for<T: Scalar>(op: Op, policy: ArgPolicy) -> KernelId {
    kernel_of::<T>(op, policy.family(), policy.block)
}

fn kernel_of<T: Scalar>(op: Op, family: Family, block: usize) -> KernelId {
    KernelId {
        family,
        ty: T::TYPE,
        op,
        block,
    }
}

/// An arg-reduction of `n` elements of `T` with its workspace: for repeated (timed) runs.
pub struct PreparedArg<T: Scalar> {
    op: Op,
    policy: ArgPolicy,
    n: usize,
    code: ItemCode<T>,
    ws: ItemWorkspace,
}

impl<T: Scalar> PreparedArg<T> {
    /// Plan `op` (one of [`Op::ARG`], else [`ReduceError::WrongOp`]) over `n` elements on
    /// `backend` (`n == 0` is [`ReduceError::EmptyArgInput`]),
    /// with the measured default for `T` and `n` ([`ArgPolicy::tuned`]).
    pub fn new(backend: &Backend, op: Op, n: usize) -> Result<Self> {
        Self::with_policy(backend, op, n, ArgPolicy::tuned(T::TYPE, n))
    }
    /// [`PreparedArg::new`] launched as `policy` says (a block size that is not built, or any
    /// field outside what [`ArgPolicy::parse`] accepts, is [`ReduceError::Policy`]).
    pub fn with_policy(backend: &Backend, op: Op, n: usize, policy: ArgPolicy) -> Result<Self> {
        ReduceError::check_op(op, &Op::ARG, "an arg-reduction")?;
        if n == 0 {
            return Err(ReduceError::EmptyArgInput { op: op.name() });
        }
        // Its fields are public: held to the ranges of the text form (every field is in it).
        ArgPolicy::parse(&policy.text())?;
        let id = arg_kernel_for::<T>(op, policy);
        if !id.is_built() || policy.blocks_per_sm == 0 {
            return Err(ReduceError::Policy {
                key: policy.text(),
                why: format!("no {} kernel for {} with this shape", op, T::TYPE),
            });
        }
        let shape = Policy {
            block: policy.block,
            unroll: policy.unroll,
            blocks_per_sm: backend
                .caps()
                .scaled_blocks_per_sm(policy.blocks_per_sm, policy.block),
        };
        // The kernel's tiled loop visits 16-byte vectors (4 f32, 8 halves): size the grid by
        // them, so that no block gets less than a tile (at 2^20 f32: 256 blocks of one tile
        // each, not 528 of a quarter tile; one block up to 2^12).
        let vectors = n.div_ceil(16 / T::TYPE.size());
        let ws = ItemWorkspace::with_policy(backend, vectors, shape, ArgItem::<T>::WORDS)?;
        if !fits_positions(n, ws.grid, ws.block) {
            return Err(ReduceError::InvalidArgument(format!(
                "{n} elements in a grid of {} blocks of {} threads leave a thread 2^32 or more \
                 vectors (the {op} kernel counts them in 32 bits): use more blocks per SM",
                ws.grid, ws.block
            )));
        }
        backend.resolve(id)?;
        Ok(PreparedArg {
            op,
            policy,
            n,
            code: ItemCode::Library(id),
            ws,
        })
    }
    /// The operation.
    pub fn op(&self) -> Op {
        self.op
    }
    /// The launch shape and kernel.
    pub fn policy(&self) -> ArgPolicy {
        self.policy
    }
    /// Blocks per launch.
    pub fn grid(&self) -> usize {
        self.ws.grid
    }
    /// Queue one run over `input[offset..offset + n]` (checked: ownership and range).
    pub fn enqueue(&self, backend: &Backend, input: &Buffer<T>, offset: usize) -> Result<()> {
        input.check_owner(backend.id(), "the input buffer")?;
        self.enqueue_view(backend, input.window("range", offset, self.n)?)
    }
    /// Queue one run over `input`, a view of exactly `n` elements (a buffer's range or borrowed
    /// device memory, [`crate::borrowed`]; a borrowed one is waited for).
    pub fn enqueue_view(&self, backend: &Backend, input: View<'_, T>) -> Result<()> {
        // SAFETY: our own stream, and the call waits for a borrowed input below.
        unsafe { self.queue_on(backend, input, On::Own)? };
        crate::borrowed::wait_if_borrowed(backend, &input)
    }
    /// Queue one run over `input` on `on`'s stream, without waiting.
    ///
    /// # Safety
    /// A caller's stream is a live stream of the GPU's context (or null); `input` stays
    /// allocated, and unwritten, until that stream has run the launch.
    pub(crate) unsafe fn queue_on(
        &self,
        backend: &Backend,
        input: View<'_, T>,
        on: On,
    ) -> Result<()> {
        // SAFETY: the kernel is the table's arg-reduction kernel for `T` (an item kernel of
        // `ArgItem<T>` with the policy's block), and the workspace was made for that item and
        // block; the stream and the input's lifetime are this function's contract.
        unsafe { self.ws.enqueue(backend, &self.code, input, self.n, on) }
    }
    /// Wait for the last run and read `(index, value)` (the index relative to `offset`); an
    /// all-NaN input to `nanargmin`/`nanargmax` is [`ReduceError::AllNanArg`].
    pub fn read(&self, backend: &Backend) -> Result<(usize, T)> {
        let item: ArgItem<T> = self.ws.read(backend)?;
        if self.op.skips_nan() && item.value.to_f64().is_nan() {
            return Err(ReduceError::AllNanArg { op: self.op.name() });
        }
        if item.index == NO_INDEX || item.index >= self.n as u64 {
            return Err(ReduceError::InvalidArgument(format!(
                "the {} kernel returned index {} for {} elements",
                self.op, item.index, self.n
            )));
        }
        Ok((item.index as usize, item.value))
    }
    /// Run once: [`PreparedArg::enqueue`], then [`PreparedArg::read`].
    pub fn run(&self, backend: &Backend, input: &Buffer<T>, offset: usize) -> Result<(usize, T)> {
        self.enqueue(backend, input, offset)?;
        self.read(backend)
    }
}

impl Reducer<'_> {
    /// `op` over `x` (a buffer or a view of one): the `(index, value)` of its first smallest or
    /// largest element (the first NaN, for floats with one), the index counted from the view's
    /// start.
    ///
    /// # Errors
    /// [`ReduceError::WrongOp`] for an op that is not one of [`Op::ARG`];
    /// [`ReduceError::EmptyArgInput`] for no elements; [`ReduceError::AllNanArg`] for
    /// `nanargmin`/`nanargmax` of NaN only.
    pub fn arg<'a, T: Scalar>(&mut self, op: Op, x: impl Into<View<'a, T>>) -> Result<(usize, T)> {
        let x = x.into();
        let backend = self.backend();
        x.check_owner(backend.id(), "the input buffer")?;
        let p = PreparedArg::<T>::new(backend, op, x.len())?;
        p.enqueue_view(backend, x)?;
        p.read(backend)
    }
    /// The `(index, value)` of the first largest element (NumPy's `argmax`).
    pub fn argmax<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<(usize, T)> {
        self.arg(Op::ArgMax, x)
    }
    /// The `(index, value)` of the first smallest element (NumPy's `argmin`).
    pub fn argmin<'a, T: Scalar>(&mut self, x: impl Into<View<'a, T>>) -> Result<(usize, T)> {
        self.arg(Op::ArgMin, x)
    }
}

/// The CPU reference, NumPy's rule written out independently of the kernel's combine: for
/// argmin/argmax the first NaN if there is one, else the first index whose value no other value
/// beats; nanargmin/nanargmax the same over the numbers only. `None` for an empty slice (and for
/// an all-NaN one, skipping NaN, and for an op that is not one of [`Op::ARG`]). Floats (halves
/// too) compare as `f64`, which holds them exactly.
pub fn reference_arg<T: Scalar>(op: Op, data: &[T]) -> Option<(usize, T)> {
    if !op.is_arg() {
        return None;
    }
    let float = T::default().to_i128().is_none();
    let nan = |v: &T| float && v.to_f64().is_nan();
    if !op.skips_nan() {
        if let Some(i) = data.iter().position(nan) {
            return Some((i, data[i]));
        }
    }
    let beats = |a: &T, b: &T| match (float, op.largest()) {
        (true, true) => a.to_f64() > b.to_f64(),
        (true, false) => a.to_f64() < b.to_f64(),
        (false, true) => a > b,
        (false, false) => a < b,
    };
    let mut best: Option<usize> = None;
    for (i, v) in data.iter().enumerate() {
        if !nan(v) && best.is_none_or(|b| beats(v, &data[b])) {
            best = Some(i);
        }
    }
    best.map(|b| (b, data[b]))
}
