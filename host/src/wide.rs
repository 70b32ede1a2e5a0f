//! Integer sums with a 64-bit accumulator and result — NumPy's and PyTorch's default for `i32`
//! and `u32` (`np.sum(int32) → int64`): stage 8's wide kernels
//! (`reduce_kernels::stages::s8_shuffle_vectorized::reduce_wide`, symbols
//! `reduce_s8_wide_sum_b{BLOCK}_{i32,u32}`). The same-type sum that wraps, CUB's behaviour, stays
//! [`crate::Reducer::sum`]; [`crate::Reducer::sum_wide`] is this one.

use crate::backend::{Backend, KernelArgs, Launch};
use crate::buffer::{BackendId, Buffer};
use crate::error::{ReduceError, Result};
use crate::plan::{plan, LaunchOverrides};
use crate::stage::Stage;
use crate::types::{ElemType, Op, Scalar};
use reduce_kernels::table::{Family, KernelId, OpKind};

/// The element type a wide sum of `T` returns: `i64` for `i32`, `u64` for `u32`, `T` otherwise.
pub type Wide<T> = <T as reduce_kernels::Element>::Wide;

/// A wide sum of `n` elements of `T` (`i32` or `u32`), with its workspace: launch it as often as
/// you like.
pub struct PreparedWide<T: Scalar>
where
    Wide<T>: Scalar,
{
    kernel: String,
    n: usize,
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
    /// `overrides` as in [`crate::plan()`]. An error for any `T` but `i32` and `u32`.
    pub fn new(backend: &Backend, n: usize, overrides: LaunchOverrides) -> Result<Self> {
        if !matches!(T::TYPE, ElemType::I32 | ElemType::U32) {
            return Err(ReduceError::InvalidArgument(format!(
                "wide sums are built for i32 and u32 (a {} sum is already 64-bit or a float: use \
                 Reducer::sum)",
                T::TYPE
            )));
        }
        let p = plan(
            Stage::S8,
            <Wide<T> as Scalar>::TYPE,
            Op::Sum,
            n,
            overrides,
            backend.caps(),
        )?;
        let pass = p.passes[0];
        let id = KernelId {
            family: Family::S8Wide,
            ty: T::TYPE.kind(),
            op: OpKind::Sum,
            block: pass.block,
        };
        if !id.is_built() {
            return Err(ReduceError::InvalidArgument(format!(
                "no wide-sum kernel for {} with {} threads per block",
                T::TYPE,
                pass.block
            )));
        }
        Ok(PreparedWide {
            kernel: id.symbol().to_string(),
            n,
            grid: pass.grid,
            block: pass.block,
            shared_bytes: pass.shared_bytes,
            owner: backend.id(),
            partials: backend.zeroed(pass.grid.max(1))?,
            counter: backend.zeroed(1)?,
            out: backend.zeroed(1)?,
        })
    }

    /// The kernel symbol, grid and block size.
    pub fn launch_shape(&self) -> (&str, usize, usize) {
        (&self.kernel, self.grid, self.block)
    }

    /// Queue the sum of `input[offset..offset + n]` (`n` as prepared). `backend` and `input` must
    /// be the backend this was prepared on and one of its buffers.
    pub fn enqueue(&self, backend: &Backend, input: &Buffer<T>, offset: usize) -> Result<()> {
        if backend.id() != self.owner {
            return Err(ReduceError::ForeignBuffer {
                what: "the prepared wide sum's workspace".into(),
            });
        }
        input.check_owner(self.owner, "the input buffer")?;
        if offset
            .checked_add(self.n)
            .is_none_or(|end| end > input.len())
        {
            return Err(ReduceError::InvalidArgument(format!(
                "the plan reads {} elements from offset {offset} but the buffer holds {}",
                self.n,
                input.len()
            )));
        }
        let launch = Launch {
            kernel: &self.kernel,
            grid: self.grid,
            block: self.block,
            shared_bytes: self.shared_bytes,
            args: KernelArgs::SinglePass {
                input: input.addr(offset),
                n: self.n,
                partials: self.partials.addr(0),
                counter: self.counter.addr(0),
                out: self.out.addr(0),
            },
        };
        // SAFETY: every address is from a live buffer of `backend` (checked above; the workspace
        // was allocated on it): `offset + n` input elements of `T` (checked above), `grid`
        // partials and one result of `Wide<T>`, a zeroed `u32` counter (the kernel leaves it
        // 0). The kernel is the wide stage-8 kernel for `T` and this block size, which takes
        // exactly these arguments; the shared memory is stage 8's plan for `Wide<T>`, the
        // kernel's accumulator type. The workspace lives as long as `self`, and freeing device
        // memory waits for the kernels using it.
        unsafe { backend.launch::<T>(&launch) }
    }

    /// Run once and read the result back.
    pub fn run(&self, backend: &Backend, input: &Buffer<T>, offset: usize) -> Result<Wide<T>> {
        self.enqueue(backend, input, offset)?;
        Ok(backend.download(&self.out, 1)?[0])
    }
}
