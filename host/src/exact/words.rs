//! Exact sums across ranks, host side: the words-out launch ([`PreparedExactWords`]: a shard's
//! exact sum left unrounded in device memory) and the combine launch ([`ExactCombine`]: R ranks'
//! word vectors added and rounded once on the device). `crate::MultiReducer::exact_sum` puts
//! an all-gather between them; the kernels are `reduce_kernels::exact::words`.

use super::plan::{exact_plan, ExactPlan, ExactPolicy};
use super::reference::ExactFloat;
use crate::backend::{Backend, KernelArgs, Launch};
use crate::buffer::{BackendId, Buffer};
use crate::error::{ReduceError, Result};
use crate::plan::LaunchOverrides;
use reduce_kernels::exact::words::{words_len as kernel_words_len, MAX_RANKS};
use reduce_kernels::exact::Format;
use reduce_kernels::table::{Family, KernelId, Op};

/// 64-bit words of one rank's exact-sum vector for `T` (`W + 5`: digits, four flags, the count).
pub fn words_len<T: ExactFloat>() -> usize {
    Format::of(T::TYPE).map_or(0, kernel_words_len)
}

/// The most ranks whose words one combine adds (`2^24`: each fully carried digit word is below
/// `2^32`, and the rounding takes words below `2^62`).
pub const MAX_EXACT_RANKS: usize = MAX_RANKS;

/// An exact-sum plan whose kernel leaves the shard's words unrounded in [`Self::words`].
pub struct PreparedExactWords<T: ExactFloat> {
    /// The plan (its kernel is the words-out one).
    pub plan: ExactPlan,
    checked: ExactPlan,
    owner: BackendId,
    workspace: Buffer<i64>,
    counter: Buffer<u32>,
    out: Buffer<i64>,
    _t: std::marker::PhantomData<T>,
}

impl<T: ExactFloat> PreparedExactWords<T> {
    /// Plan the words-out exact sum of `n` elements (0 is fine: the empty sum's words) on
    /// `backend` and allocate its workspace and output.
    pub fn new(backend: &Backend, n: usize) -> Result<Self> {
        let mut plan = exact_plan(
            T::TYPE,
            n,
            LaunchOverrides::default(),
            backend.caps(),
            ExactPolicy::default(),
        )?;
        plan.kernel = KernelId {
            family: Family::ExactWords,
            ty: T::TYPE,
            op: Op::Sum,
            block: plan.block,
        };
        Ok(PreparedExactWords {
            workspace: backend.zeroed(plan.slots)?,
            counter: backend.zeroed(1)?,
            out: backend.zeroed(words_len::<T>())?,
            owner: backend.id(),
            checked: plan.clone(),
            plan,
            _t: std::marker::PhantomData,
        })
    }

    /// The output: [`words_len`] words after a launch.
    pub fn words(&self) -> &Buffer<i64> {
        &self.out
    }

    /// Queue the launch on `input` (all of it: the plan's `n` must be its length).
    pub fn enqueue(&self, backend: &Backend, input: &Buffer<T>) -> Result<()> {
        self.owner
            .check_same(backend.id(), "the exact words' workspace")?;
        input.check_owner(self.owner, "the input buffer")?;
        let p = &self.checked;
        if input.len() != p.n {
            return Err(ReduceError::InvalidArgument(format!(
                "the plan sums {} elements but the buffer holds {}",
                p.n,
                input.len()
            )));
        }
        // Stage 8's five arguments: the workspace as partials, the words out as `out`.
        let launch = p.launch(KernelArgs::SinglePass {
            input: input.addr(0),
            n: p.n,
            partials: self.workspace.addr(0),
            counter: self.counter.addr(0),
            out: self.out.addr(0),
        });
        // SAFETY: every address is from a live buffer of `backend` (checked above; the workspace
        // and output were allocated on it): `n` input elements (checked), `slots` zeroed words
        // and a zeroed counter that every launch leaves zeroed, `W + 5` output words. Kernel,
        // block and shared memory are `exact_plan`'s (the private copy), with the words-out
        // kernel of the same block: the same launch contract. The buffers live as long as
        // `self`, and freeing device memory waits for the kernels using it.
        unsafe { backend.launch::<T>(&launch) }
    }
}

/// The combine: the correctly rounded sum of R ranks' gathered word vectors, on the device.
pub struct ExactCombine<T: ExactFloat> {
    kernel: KernelId,
    owner: BackendId,
    out: Buffer<T>,
}

impl<T: ExactFloat> ExactCombine<T> {
    /// Its kernel and one-element result on `backend`.
    pub fn new(backend: &Backend) -> Result<Self> {
        Ok(ExactCombine {
            kernel: KernelId {
                family: Family::ExactCombine,
                ty: T::TYPE,
                op: Op::Sum,
                block: 32,
            },
            owner: backend.id(),
            out: backend.zeroed(1)?,
        })
    }

    /// Queue the combine of the first `ranks` vectors of `gathered` (rank after rank,
    /// [`words_len`] words each). Errors: no ranks or more than [`MAX_EXACT_RANKS`], a buffer
    /// too short or of another backend.
    pub fn enqueue(&self, backend: &Backend, gathered: &Buffer<i64>, ranks: usize) -> Result<()> {
        self.owner
            .check_same(backend.id(), "the exact combine's result")?;
        gathered.check_owner(self.owner, "the gathered words")?;
        if ranks == 0 || ranks > MAX_EXACT_RANKS {
            return Err(ReduceError::InvalidArgument(format!(
                "an exact combine adds 1..={MAX_EXACT_RANKS} ranks' words (each word below 2^32, \
                 the rounding takes sums below 2^62), not {ranks}"
            )));
        }
        let len = ranks * words_len::<T>();
        if gathered.len() < len {
            return Err(ReduceError::InvalidArgument(format!(
                "{ranks} ranks' exact words need {len} words; the buffer holds {}",
                gathered.len()
            )));
        }
        let launch = Launch {
            kernel: self.kernel,
            grid: 1,
            block: 32,
            shared_bytes: 0,
            // `(gathered, len, out)`: the multi-pass shape.
            args: KernelArgs::MultiPass {
                input: gathered.addr(0),
                n: len,
                partials: self.out.addr(0),
            },
        };
        // SAFETY: both buffers are live buffers of `backend` (checked), `gathered` holds at
        // least `len` words (checked), `out` one `T`; the combine kernel of `T` takes exactly
        // `(gathered, len, out)` and any launch shape; the buffers outlive the launch (freeing
        // device memory waits for the kernels using it).
        unsafe { backend.launch::<T>(&launch) }
    }

    /// Read the result of the last [`ExactCombine::enqueue`] (waits for it).
    pub fn read_result(&self, backend: &Backend) -> Result<T> {
        Ok(backend.download(&self.out, 1)?[0])
    }
}
