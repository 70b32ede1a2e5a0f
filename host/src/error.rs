//! Everything that can go wrong, as one typed error with a message that names the problem.

use crate::types::{ElemType, Op, Stage};
use cust::sys as cu;

/// Result alias of this crate.
pub type Result<T, E = ReduceError> = std::result::Result<T, E>;

/// Why a reduction could not run. Every variant's message says what was wrong and, where there is
/// one, the fix.
#[derive(Debug, thiserror::Error)]
pub enum ReduceError {
    /// The CUDA driver library could not be initialised (no NVIDIA driver, or no GPU).
    #[error("no usable CUDA GPU: cuInit failed ({0}). Install an NVIDIA driver, or use the CPU emulator")]
    NoDriver(cust::error::CudaError),
    /// The driver works but reports no device.
    #[error("the CUDA driver reports no GPU. Use the CPU emulator")]
    NoDevice,
    /// The GPU is older than the kernels' lowest architecture (sm_70, Volta).
    #[error("{name} is compute capability {}.{}: the kernels need 7.0 (Volta) or later. Use the CPU emulator", compute_capability.0, compute_capability.1)]
    UnsupportedDevice {
        /// The GPU's name.
        name: String,
        /// Its compute capability.
        compute_capability: (u32, u32),
    },
    /// A CUDA driver call failed.
    #[error("CUDA error during {what}: {source}")]
    Cuda {
        /// What the library was doing.
        what: String,
        /// The driver's error.
        source: cust::error::CudaError,
    },
    /// A driver call made through the raw bindings failed.
    #[error("CUDA error during {what}: {message}")]
    Driver {
        /// What the library was doing.
        what: String,
        /// The driver's error name and text.
        message: String,
    },
    /// The PTX could not be read or the driver rejected it.
    #[error("cannot load PTX {path}: {reason}. Fix: run `cargo xtask build-ptx` (it writes target/ptx/reduce_kernels.ptx), or pass a PTX file built by it")]
    Ptx {
        /// Where the PTX came from.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// Device memory given to [`crate::Backend::borrow_raw`] (or a cudarc slice) that this GPU
    /// cannot read as asked: null, misaligned, not device memory of its context, past the
    /// allocation, a size that overflows. Nothing was launched.
    #[error("bad device memory for `{arg}`: {problem}")]
    BadPointer {
        /// The argument it came from.
        arg: &'static str,
        /// What is wrong with it.
        problem: PointerProblem,
    },
    /// A kernel the stage needs is not in the loaded PTX.
    #[error("kernel `{name}` is not in the loaded PTX ({path}); it was probably built from other sources. Fix: cargo xtask build-ptx")]
    MissingKernel {
        /// Kernel symbol.
        name: String,
        /// PTX source.
        path: String,
    },
    /// Block size not allowed for this stage.
    #[error("block size {block} is not valid for {stage}: {why}")]
    InvalidBlockSize {
        /// Stage.
        stage: Stage,
        /// Requested threads per block.
        block: usize,
        /// The rule it breaks.
        why: String,
    },
    /// Grid size not allowed.
    #[error("grid size {grid} is not valid: {why}")]
    InvalidGridSize {
        /// Requested blocks.
        grid: usize,
        /// The rule it breaks.
        why: String,
    },
    /// The stage has no kernel for this element type.
    #[error("{stage} has no kernel for {ty}: the multi-pass stages 1-7 are built for f32 and i32 (the seeds' types); use stage 8 for {ty}")]
    UnsupportedType {
        /// Stage.
        stage: Stage,
        /// Element type.
        ty: ElemType,
    },
    /// The stage cannot compute this operator.
    #[error("{stage} computes sums only; {op} needs stage 8")]
    UnsupportedOp {
        /// Stage.
        stage: Stage,
        /// Operator.
        op: Op,
    },
    /// min/max/mean of nothing.
    #[error("{op} of an empty input is undefined")]
    EmptyInput {
        /// Operator.
        op: Op,
    },
    /// The input does not fit in device memory.
    #[error("{n} elements of {ty} need {bytes} bytes but the GPU has {free} bytes free")]
    TooLarge {
        /// Elements.
        n: usize,
        /// Type.
        ty: ElemType,
        /// Bytes needed.
        bytes: u64,
        /// Bytes free on the device.
        free: u64,
    },
    /// The emulator found a bug in a kernel (race, barrier divergence, out-of-bounds access …).
    #[error("emulated kernel `{kernel}` failed: {source}")]
    Emulator {
        /// Kernel symbol.
        kernel: String,
        /// What the emulator found.
        source: reduce_kernels::emu::EmuError,
    },
    /// A gated timing run was not gated: the host took longer than the gate's timeout to queue
    /// it, so the gate let the stream go on and the events may hold host time.
    #[error("the benchmark gate timed out after {timeout_ms} ms while the host queued a timed run, so that run's time is not GPU-only; retry on a less loaded host, or time without --gated")]
    GateTimedOut {
        /// The gate's timeout.
        timeout_ms: u64,
    },
    /// A buffer (or prepared plan) allocated by one backend was used with another: another
    /// emulator, another GPU context, or the GPU instead of the emulator.
    #[error("{what} belongs to another backend (a different GPU context or emulator); use it with the backend that allocated it")]
    ForeignBuffer {
        /// Which buffer.
        what: String,
    },
    /// A buffer or argument does not match what the call expects.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// An offset, length, range, shape, segment or index the caller passed does not fit the data
    /// it describes: a range past a buffer's end, a matrix larger than its buffer, segment
    /// offsets out of order or past the input, host offsets that are not the segments', an output
    /// too small for the results. Checked once, where the call enters the library, before any
    /// work.
    #[error("invalid argument `{arg}`: {why}")]
    OutOfBounds {
        /// The argument, as the method names it (`offset`/`len` together as `range`).
        arg: &'static str,
        /// What is wrong with it, with the numbers.
        why: String,
    },
    /// A tuning policy setting (`key=value`, as `reduce axis|host --policy` takes) that the policy
    /// does not have, or whose value is not a number in the key's range.
    #[error("policy setting `{key}`: {why}")]
    Policy {
        /// The key (or the item that is not `key=value`).
        key: String,
        /// What is wrong with it, and what is allowed.
        why: String,
    },
    /// A two-input op (the dot product) was given inputs of different lengths.
    #[error(
        "the inputs differ in length ({a} and {b} elements); a dot product needs equal lengths"
    )]
    LengthMismatch {
        /// Elements of the first input.
        a: usize,
        /// Elements of the second input.
        b: usize,
    },
    /// A variance with `ddof` delta degrees of freedom needs more than `ddof` elements.
    #[error("a variance with ddof = {ddof} needs more than {ddof} elements, got {n}")]
    TooFewElements {
        /// Elements.
        n: u64,
        /// Delta degrees of freedom.
        ddof: u64,
    },
    /// Argmin/argmax of nothing (NumPy raises too).
    #[error("{op} of an empty input is undefined (there is no index to return)")]
    EmptyArgInput {
        /// `argmin` or `argmax`.
        op: &'static str,
    },
    /// More GPUs were asked for than the driver reports.
    #[error("{requested} GPUs were requested but the driver reports {available}; ask for at most {available} (or use emulated ranks)")]
    TooFewGpus {
        /// GPUs asked for.
        requested: usize,
        /// GPUs the driver reports.
        available: usize,
    },
    /// The NCCL library could not be loaded from any of the places searched.
    #[error("NCCL is not available: libnccl could not be loaded from any of {tried:?}. Fix: `pip install nvidia-nccl-cu13` (or cu12), or set NCCL_LIBRARY=/path/to/libnccl.so.2")]
    NcclUnavailable {
        /// Every path or name tried, each with why it failed.
        tried: Vec<String>,
    },
    /// An NCCL call failed (or a communicator reported an asynchronous error).
    #[error("NCCL error during {what}: {message}")]
    Nccl {
        /// What the library was doing.
        what: String,
        /// NCCL's error name and text.
        message: String,
    },
    /// A wait for the devices took longer than its timeout (the communicators were aborted, so
    /// nothing is left hanging).
    #[error("timed out after {ms} ms waiting for {what}; the NCCL communicators were aborted")]
    Timeout {
        /// What was being waited for.
        what: String,
        /// The timeout.
        ms: u64,
    },
    /// The shards of one multi-GPU reduction hold different element types.
    #[error("shard {rank} holds {found} but shard 0 holds {expected}: every shard of one reduction must hold the same element type")]
    ShardTypeMismatch {
        /// The first shard whose type differs.
        rank: usize,
        /// Shard 0's type.
        expected: ElemType,
        /// This shard's type.
        found: ElemType,
    },
    /// A stage-8 operator asked of 2-byte floats, which only the transform kernels read.
    #[error("{stage} has no kernel for {ty}: f16 and bf16 inputs are reduced by the transform kernels, accumulated in f64 (Reducer::mean, nanmean, count, sumsq, l1, norm2, dot, moments, var, std; `reduce transform --type {ty} --op total,…`)")]
    HalfNeedsTransform {
        /// The stage asked for.
        stage: Stage,
        /// `f16` or `bf16`.
        ty: ElemType,
    },
    /// A same-type stage-8 reduction (`run_stage::<F16>` …, a plan for a half type) asked of
    /// 2-byte floats: their stage-8 kernels combine in `f32` and return an `f32`.
    #[error("{stage} has no {ty} → {ty} kernel: stage-8 ops on f16 and bf16 combine in f32 and return f32 (Reducer::sum, min, max, prod, the nan-ops and reduce of a {ty} buffer return f32; `reduce half --types {ty} --ops …`); HalfFloat::round gives the result in {ty}. (f16 and bf16 inputs are reduced by the transform kernels too, accumulated in f64: Reducer::mean, sumsq, …; `reduce transform --type {ty} --op total,…`)")]
    HalfResultIsF32 {
        /// The stage asked for.
        stage: Stage,
        /// `f16` or `bf16`.
        ty: ElemType,
    },
    /// `nanargmin`/`nanargmax` of an input that is all NaN (NumPy raises "All-NaN slice
    /// encountered").
    #[error("{op} of an all-NaN input is undefined (every element is NaN; argmin/argmax return the first NaN)")]
    AllNanArg {
        /// `nanargmin` or `nanargmax`.
        op: &'static str,
    },
    /// An op of another family than the call computes (`Reducer::arg(Op::Sum, …)`).
    #[error("{op} is not {what} (expected one of {})", op_names(.expected))]
    WrongOp {
        /// The op given.
        op: Op,
        /// What the call computes (`an arg-reduction` …).
        what: &'static str,
        /// The ops it takes ([`Op::REDUCE`], [`Op::ARG`], [`Op::TRANSFORM`] …).
        expected: &'static [Op],
    },
}

fn op_names(ops: &[Op]) -> String {
    let names: Vec<&str> = ops.iter().map(|o| o.name()).collect();
    names.join(", ")
}

impl ReduceError {
    /// `Ok(op)` if `op` is one of `expected`, else [`ReduceError::WrongOp`].
    pub(crate) fn check_op(op: Op, expected: &'static [Op], what: &'static str) -> Result<Op> {
        if expected.contains(&op) {
            Ok(op)
        } else {
            Err(ReduceError::WrongOp { op, what, expected })
        }
    }
    /// [`ReduceError::OutOfBounds`] for `arg`.
    pub(crate) fn bounds(arg: &'static str, why: impl Into<String>) -> Self {
        ReduceError::OutOfBounds {
            arg,
            why: why.into(),
        }
    }
}

/// Attach "what we were doing" to a CUDA error.
pub(crate) trait CudaContext<T> {
    fn during(self, what: impl Into<String>) -> Result<T>;
}

impl<T> CudaContext<T> for cust::error::CudaResult<T> {
    fn during(self, what: impl Into<String>) -> Result<T> {
        self.map_err(|source| ReduceError::Cuda {
            what: what.into(),
            source,
        })
    }
}

/// What is wrong with a device address given to [`crate::Backend::borrow_raw`] (or a cudarc
/// slice).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PointerProblem {
    /// The address is 0 (allowed only for an empty view).
    #[error("the address is null")]
    Null,
    /// `len · size_of::<T>()`, or the end address, does not fit in 64 bits.
    #[error("{len} elements of {size} bytes from {ptr:#x} overflow the address space")]
    Overflow {
        /// The address.
        ptr: u64,
        /// Elements.
        len: usize,
        /// Bytes per element.
        size: usize,
    },
    /// The address is not a multiple of `T`'s alignment.
    #[error("address {ptr:#x} is not aligned to {align} bytes (the element type's alignment)")]
    Misaligned {
        /// The address.
        ptr: u64,
        /// The alignment `T` needs.
        align: usize,
    },
    /// The driver does not know the address: not CUDA memory at all (e.g. ordinary host memory).
    #[error("the driver does not know address {ptr:#x}: it is not CUDA memory")]
    Unknown {
        /// The address.
        ptr: u64,
    },
    /// CUDA memory, but not device or managed memory (pinned host memory, an array).
    #[error("address {ptr:#x} is CUDA {kind} memory, not device memory")]
    NotDeviceMemory {
        /// The address.
        ptr: u64,
        /// What the driver says it is (`host`, `array`, or the raw memory type).
        kind: String,
    },
    /// Device memory of another context than this GPU's (primary) one.
    #[error("address {ptr:#x} belongs to another CUDA context than this GPU's primary context")]
    WrongContext {
        /// The address.
        ptr: u64,
    },
    /// Device memory of another GPU.
    #[error("address {ptr:#x} is memory of GPU {found}, not of GPU {expected}")]
    WrongDevice {
        /// The address.
        ptr: u64,
        /// The GPU that holds it.
        found: i64,
        /// This backend's GPU.
        expected: usize,
    },
    /// The elements run past the end of the allocation (or start before it).
    #[error("bytes {ptr:#x}..{end:#x} are not inside the allocation {start:#x}..{alloc_end:#x}")]
    PastAllocation {
        /// The address.
        ptr: u64,
        /// One past the last byte the view would read.
        end: u64,
        /// The allocation's first byte.
        start: u64,
        /// One past the allocation's last byte.
        alloc_end: u64,
    },
    /// The CPU emulator has no device memory to borrow.
    #[error("the CPU emulator has no device memory: borrow device memory on a GPU backend")]
    Emulator,
}

/// Map a raw driver status (from the few calls made through `cust::sys`) to our error.
pub(crate) fn driver_result(r: cu::CUresult, what: impl Into<String>) -> Result<()> {
    if r == cu::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    let mut text: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: cuGetErrorString writes a pointer to a static string (or leaves it null).
    unsafe { cu::cuGetErrorString(r, &mut text) };
    Err(ReduceError::Driver {
        what: what.into(),
        // SAFETY: `text` is null or the driver's static, NUL-terminated message.
        message: unsafe { status_message(r, text) },
    })
}

/// The message for a failed call into a C library (the driver, NCCL): the status `r` by name,
/// then the library's own text for it when `text` is not null.
///
/// # Safety
/// `text` is null or points to a NUL-terminated string that outlives the call (the libraries'
/// error strings are static).
pub(crate) unsafe fn status_message(
    r: impl std::fmt::Debug,
    text: *const std::ffi::c_char,
) -> String {
    if text.is_null() {
        format!("{r:?}")
    } else {
        // SAFETY: non-null, so NUL-terminated and live (the caller's contract).
        let text = unsafe { std::ffi::CStr::from_ptr(text) };
        format!("{r:?}: {}", text.to_string_lossy())
    }
}
