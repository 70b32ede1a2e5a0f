//! Argmin / argmax: the index and value of the smallest / largest element, on the device
//! primitives (`reduce_kernels::argreduce`), in one launch.
//!
//! Semantics (NumPy's `argmin`/`argmax`, which PyTorch's follow): the **first** index of the
//! extreme value; for floats, if there is a NaN, the index of the **first NaN** (for both ops);
//! `-0.0` and `0.0` are equal (the first wins). An empty input is an error
//! ([`ReduceError::EmptyArgInput`]), as in NumPy ("attempt to get argmax of an empty sequence").

use crate::backend::Backend;
use crate::buffer::Buffer;
use crate::custom::{ItemCode, ItemWorkspace};
use crate::error::{ReduceError, Result};
use crate::reducer::Reducer;
use crate::types::Scalar;
use reduce_kernels::argreduce::{ArgItem, NO_INDEX};
use reduce_kernels::primitives::{Item, DEFAULT_POLICY};
use reduce_kernels::table::{Family, KernelId, OpKind};
use std::fmt;

/// Which arg-reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArgOp {
    /// The first smallest element (or the first NaN).
    ArgMin,
    /// The first largest element (or the first NaN).
    ArgMax,
}

impl ArgOp {
    /// Both, in this order.
    pub const ALL: [ArgOp; 2] = [ArgOp::ArgMin, ArgOp::ArgMax];
    /// `argmin` / `argmax`.
    pub fn name(self) -> &'static str {
        match self {
            ArgOp::ArgMin => "argmin",
            ArgOp::ArgMax => "argmax",
        }
    }
    /// The kernel table's operator.
    pub fn kind(self) -> OpKind {
        match self {
            ArgOp::ArgMin => OpKind::ArgMin,
            ArgOp::ArgMax => OpKind::ArgMax,
        }
    }
}

impl fmt::Display for ArgOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ArgOp {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| format!("unknown arg-reduction `{s}` (expected argmin or argmax)"))
    }
}

/// The kernel for `op` over `T`.
pub fn arg_kernel<T: Scalar>(op: ArgOp) -> KernelId {
    KernelId {
        family: Family::ArgReduce,
        ty: T::TYPE.kind(),
        op: op.kind(),
        block: DEFAULT_POLICY.block,
    }
}

/// An arg-reduction of `n` elements of `T` with its workspace: for repeated (timed) runs.
pub struct PreparedArg<T: Scalar> {
    op: ArgOp,
    n: usize,
    code: ItemCode<T>,
    ws: ItemWorkspace,
}

impl<T: Scalar> PreparedArg<T> {
    /// Plan `op` over `n` elements on `backend` (`n == 0` is [`ReduceError::EmptyArgInput`]).
    pub fn new(backend: &Backend, op: ArgOp, n: usize) -> Result<Self> {
        if n == 0 {
            return Err(ReduceError::EmptyArgInput { op: op.name() });
        }
        let id = arg_kernel::<T>(op);
        Ok(PreparedArg {
            op,
            n,
            code: ItemCode::Library(id.symbol().to_string()),
            ws: ItemWorkspace::new(backend, n, id.block, ArgItem::<T>::WORDS)?,
        })
    }
    /// The operation.
    pub fn op(&self) -> ArgOp {
        self.op
    }
    /// Blocks per launch.
    pub fn grid(&self) -> usize {
        self.ws.grid
    }
    /// Queue one run over `input[offset..offset + n]` (checked: ownership and range).
    pub fn enqueue(&self, backend: &Backend, input: &Buffer<T>, offset: usize) -> Result<()> {
        // SAFETY: the symbol is the table's argmin/argmax kernel for `T` (an item kernel of
        // `ArgItem<T>` with block `DEFAULT_POLICY.block`), and the workspace was made for that
        // item and block.
        unsafe { self.ws.enqueue(backend, &self.code, input, offset, self.n) }
    }
    /// Wait for the last run and read `(index, value)` (the index relative to `offset`).
    pub fn read(&self, backend: &Backend) -> Result<(usize, T)> {
        let item: ArgItem<T> = self.ws.read(backend)?;
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
    /// `op` over `input[offset..offset + len]`: the `(index, value)` of its first smallest or
    /// largest element (the first NaN, for floats with one), the index counted from `offset`.
    pub fn arg_range<T: Scalar>(
        &mut self,
        op: ArgOp,
        input: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<(usize, T)> {
        let backend = self.backend();
        input.check_owner(backend.id(), "the input buffer")?;
        if offset.checked_add(len).is_none_or(|e| e > input.len()) {
            return Err(ReduceError::InvalidArgument(format!(
                "elements {offset}..{offset}+{len} are not in a {}-element buffer",
                input.len()
            )));
        }
        PreparedArg::<T>::new(backend, op, len)?.run(backend, input, offset)
    }
    /// The `(index, value)` of the first largest element of `input` (NumPy's `argmax`).
    pub fn argmax<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<(usize, T)> {
        self.arg_range(ArgOp::ArgMax, input, 0, input.len())
    }
    /// The `(index, value)` of the first smallest element of `input` (NumPy's `argmin`).
    pub fn argmin<T: Scalar>(&mut self, input: &Buffer<T>) -> Result<(usize, T)> {
        self.arg_range(ArgOp::ArgMin, input, 0, input.len())
    }
}

/// The CPU reference, NumPy's rule written out independently of the kernel's combine: the first
/// NaN if there is one, else the first index whose value no other value beats. `None` for an
/// empty slice.
#[allow(clippy::eq_op)] // `v != v` is the NaN test for every Scalar
pub fn reference_arg<T: Scalar>(op: ArgOp, data: &[T]) -> Option<(usize, T)> {
    if let Some(i) = data.iter().position(|v| v != v) {
        return Some((i, data[i]));
    }
    let mut best = 0;
    for (i, v) in data.iter().enumerate().skip(1) {
        let beats = match op {
            ArgOp::ArgMin => *v < data[best],
            ArgOp::ArgMax => *v > data[best],
        };
        if beats {
            best = i;
        }
    }
    data.get(best).map(|v| (best, *v))
}
