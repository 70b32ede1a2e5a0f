//! Integer sums with a 64-bit accumulator and result — NumPy's and PyTorch's default for `i32`
//! and `u32` (`np.sum(int32) → int64`): stage 8's wide kernels
//! (`reduce_kernels::stages::s8_shuffle_vectorized::reduce_wide`, symbols
//! `reduce_s8_wide_sum_b{BLOCK}_{i32,u32}`): [`crate::Reducer::sum`] of `i32` / `u32`. The
//! same-type sum that wraps, CUB's behaviour, stays `Reducer::reduce(Op::Sum, x)`.
//!
//! The same kernels, built for `f16` / `bf16` (family `S8Half`, symbols
//! `reduce_s8_half_{op}_b{BLOCK}_{f16,bf16}`), run every stage-8 operator on halves with an `f32`
//! accumulator and result ([`PreparedWide::for_op`]: `Reducer::sum`, `min`, … of a half buffer).

use crate::backend::{Backend, KernelArgs, Launch, On};
use crate::buffer::{BackendId, Buffer};
use crate::error::{ReduceError, Result};
use crate::plan::{plan, LaunchOverrides};
use crate::stage::Stage;
use crate::types::{ElemType, Op, Scalar};
use crate::view::View;
use reduce_kernels::table::{Family, KernelId, Row};

/// The element type a wide sum of `T` returns: `i64` for `i32`, `u64` for `u32`, `f32` for `f16`
/// and `bf16`, `T` otherwise.
pub type Wide<T> = <T as reduce_kernels::Element>::Wide;

/// A wide sum of `n` elements of `T` (`i32` or `u32`), with its workspace: launch it as often as
/// you like.
pub struct PreparedWide<T: Scalar>
where
    Wide<T>: Scalar,
{
    kernel: KernelId,
    n: usize,
    depth: usize,
    grid: usize,
    block: usize,
    shared_bytes: usize,
    owner: BackendId,
    partials: Buffer<Wide<T>>,
    counter: Buffer<u32>,
    out: Buffer<Wide<T>>,
}

impl<T: Scalar> PreparedWide<T>
where
    Wide<T>: Scalar,
{
    /// The launch for `n` elements of `T` on `backend`. Its shape is stage 8's plan for the
    /// 64-bit accumulator type (block size, grid, and `BLOCK / 32` 64-bit slots of shared memory),
    /// `overrides` as in [`crate::plan()`]. An error for any `T` but `i32` and `u32` (and the
    /// halves: see [`PreparedWide::for_op`]).
    pub fn new(backend: &Backend, n: usize, overrides: LaunchOverrides) -> Result<Self> {
        Self::for_op(backend, n, Op::Sum, overrides)
    }

    /// The launch of `op` over `n` elements of `T`: `i32` / `u32` sums (`op` must be
    /// [`Op::Sum`]), or any stage-8 operator on `f16` / `bf16` (`Sum`, `Min`, `Max`, `Prod`,
    /// `NanMin`, `NanMax`, `NanSum`, `Count`; a mean is a sum divided on the host), combined in
    /// `f32`. The shape is stage 8's plan for the accumulator type over the same bytes (`n`
    /// halves are planned as `n / 2` `f32`s: the same 16-byte vectors).
    ///
    /// # Errors
    /// [`ReduceError::WrongOp`] for an op that is not a reduce op ([`Op::REDUCE`]: an arg or
    /// transform op), whatever `T`; [`ReduceError::InvalidArgument`] for another type, a reduce
    /// op the wide kernels of `T` do not compute, or a block size they are not built for; the
    /// plan's errors ([`crate::plan()`]).
    pub fn for_op(backend: &Backend, n: usize, op: Op, overrides: LaunchOverrides) -> Result<Self> {
        ReduceError::check_op(op, &Op::REDUCE, "a reduce op")?;
        let half = ElemType::HALVES.contains(&T::TYPE);
        if !half && !matches!(T::TYPE, ElemType::I32 | ElemType::U32) {
            return Err(ReduceError::InvalidArgument(format!(
                "wide sums are built for i32 and u32 (a {} sum is already 64-bit or a float: use \
                 Reducer::sum)",
                T::TYPE
            )));
        }
        let op = op.device_op();
        let family = if half { Family::S8Half } else { Family::S8Wide };
        if !Row::of(family).ops.contains(&op.device_op()) {
            return Err(ReduceError::InvalidArgument(format!(
                "no wide {op} kernel for {}: the wide kernels of this type compute {:?}",
                T::TYPE,
                Row::of(family).ops
            )));
        }
        // Halves are planned as the f32s of the same bytes (the accumulator's plan: its shared
        // memory, and the grid for that many 16-byte vectors).
        let planned_n = if half { n.div_ceil(2) } else { n };
        let p = plan(
            Stage::S8,
            <Wide<T> as reduce_kernels::Element>::TYPE,
            op,
            planned_n,
            overrides,
            backend.caps(),
        )?;
        let pass = p.passes[0];
        let id = KernelId {
            family,
            ty: T::TYPE,
            op: op.device_op(),
            block: pass.block,
        };
        if !id.is_built() {
            return Err(ReduceError::InvalidArgument(format!(
                "no wide {op} kernel for {} with {} threads per block",
                T::TYPE,
                pass.block
            )));
        }
        backend.resolve(id)?;
        Ok(PreparedWide {
            kernel: id,
            n,
            // A vector of 8 halves is a tree one level deeper than one of 4 f32s.
            depth: p.depth + usize::from(half),
            grid: pass.grid,
            block: pass.block,
            shared_bytes: pass.shared_bytes,
            owner: backend.id(),
            partials: backend.zeroed(pass.grid.max(1))?,
            counter: backend.zeroed(1)?,
            out: backend.zeroed(1)?,
        })
    }

    /// No element goes through more than this many operations of the accumulator type: the
    /// factor of the float error bound ([`crate::matches_reference`]).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// How many elements it reads.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Does it read no element?
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The kernel, grid and block size.
    pub fn launch_shape(&self) -> (KernelId, usize, usize) {
        (self.kernel, self.grid, self.block)
    }

    /// Queue the reduction of `input[offset..offset + n]` (`n` as prepared). `backend` and `input` must
    /// be the backend this was prepared on and one of its buffers.
    pub fn enqueue(&self, backend: &Backend, input: &Buffer<T>, offset: usize) -> Result<()> {
        self.owner
            .check_same(backend.id(), "the prepared wide sum's workspace")?;
        input.check_owner(self.owner, "the input buffer")?;
        self.enqueue_view(backend, input.window("offset", offset, self.n)?)
    }

    /// Queue the reduction of `input`, a view of exactly `n` elements (a buffer's range or
    /// borrowed device memory, [`crate::borrowed`]) of the backend this was prepared on.
    pub fn enqueue_view(&self, backend: &Backend, input: View<'_, T>) -> Result<()> {
        // SAFETY: our own stream, and the call waits for a borrowed input below.
        unsafe { self.queue_on(backend, input, On::Own)? };
        crate::borrowed::wait_if_borrowed(backend, &input)
    }

    /// Queue the reduction of `input` on `on`'s stream, without waiting.
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
        self.owner
            .check_same(backend.id(), "the prepared wide sum's workspace")?;
        input.check_owner(self.owner, "the input buffer")?;
        crate::borrowed::check_view_len(&input, self.n)?;
        let launch = Launch {
            kernel: self.kernel,
            grid: self.grid,
            block: self.block,
            shared_bytes: self.shared_bytes,
            args: KernelArgs::SinglePass {
                input: input.addr(0)?,
                n: self.n,
                partials: self.partials.addr(0),
                counter: self.counter.addr(0),
                out: self.out.addr(0),
            },
        };
        // SAFETY: every address is from a live buffer of `backend` (checked above; the workspace
        // was allocated on it) or a checked view of it: `n` input elements of `T` (checked above), `grid`
        // partials and one result of `Wide<T>`, a zeroed `u32` counter (the kernel leaves it
        // 0). The kernel is the wide stage-8 kernel for `T` and this block size, which takes
        // exactly these arguments; the shared memory is stage 8's plan for `Wide<T>`, the
        // kernel's accumulator type. The workspace lives as long as `self`, and freeing device
        // memory waits for the kernels using it; the stream and the input's lifetime are this
        // function's contract.
        unsafe { backend.launch_on::<T>(&launch, on) }
    }

    /// Read the result of the last launch (waits for this backend's stream; after
    /// [`PreparedWide::enqueue_on`], synchronize the caller's stream first).
    pub fn read(&self, backend: &Backend) -> Result<Wide<T>> {
        self.owner
            .check_same(backend.id(), "the prepared wide sum's workspace")?;
        Ok(backend.download(&self.out, 1)?[0])
    }

    /// Run once and read the result back.
    pub fn run(&self, backend: &Backend, input: &Buffer<T>, offset: usize) -> Result<Wide<T>> {
        self.enqueue(backend, input, offset)?;
        self.read(backend)
    }

    /// [`PreparedWide::enqueue_view`] once and read the result back (waits for it).
    pub fn run_view(&self, backend: &Backend, input: View<'_, T>) -> Result<Wide<T>> {
        self.enqueue_view(backend, input)?;
        self.read(backend)
    }
}
