//! The GPU side, free of Python: one backend per thread, one plan per (type, operator, length,
//! stream), and the launch on the caller's stream.
//!
//! **Why one backend per thread.** A `reduce_host::Backend` is neither `Send` nor `Sync` (its
//! `Gpu` caches kernel handles in `RefCell`s of raw driver pointers), so it cannot live in a
//! `static` (a `PyOnceLock` needs `Send + Sync`), and sending it to another thread would need an
//! `unsafe impl Send` the library does not offer. A `thread_local!` needs neither: each Python
//! thread that calls the module opens its own (joining the same primary context, loading the
//! kernels once more), and no two threads ever share a plan's workspace. Under the GIL or
//! without it (free-threaded builds), this is sound by construction.
//!
//! **Lifetime.** The plans live as long as their thread: a CUDA graph that captured a call holds
//! their workspace's addresses, so none is ever evicted, and a graph must not be replayed after
//! the thread that captured it has ended. Each plan holds a few KiB of device memory.

mod driver;

use crate::parse::{overlaps, wide_sum};
use cust::sys as cu;
use driver::{driver, refuse_capture, relaxed_capture_mode, start, SavedContext};
use reduce_host::plan::ResultIn;
use reduce_host::{with_elem_type, Backend, BackendChoice, ElemType, Op, Prepared};
use reduce_host::{LaunchOverrides, PreparedWide, ReduceError, Scalar, Wide};
use std::any::Any;
use std::cell::RefCell;
use std::collections::hash_map::{Entry, HashMap};

/// Device memory a Python object exposes: `n` elements of the call's type from `ptr`.
#[derive(Debug, Clone, Copy)]
pub struct Operand {
    /// Its device address (`CUdeviceptr`).
    pub ptr: u64,
    /// Its elements.
    pub n: usize,
}

/// One reduction, as the Python call asked for it.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    /// `Sum`, `Min` or `Max`.
    pub op: Op,
    /// The element type of `x` (and `out`).
    pub ty: ElemType,
    /// The input.
    pub x: Operand,
    /// Where the result goes (element 0), asynchronously; `None`: return it.
    pub out: Option<Operand>,
    /// The `CUstream` to launch on.
    pub stream: u64,
}

/// A result read back to the host.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A float's value.
    Float(f64),
    /// An integer's value (every `i64` and `u64` fits).
    Int(i128),
}

/// What a call did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Done {
    /// Queued on the stream, the result to land in `out[0]`.
    Queued,
    /// Run and read back.
    Value(Value),
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct PlanKey {
    ty: ElemType,
    op: Op,
    n: usize,
    stream: u64,
    /// A `PreparedWide<T>` (the 64-bit sum of `i32` / `u32`) rather than a `Prepared<T>`.
    wide: bool,
}

/// This thread's backend and plans (each a `Prepared<T>`, or a `PreparedWide<T>`, for its key).
struct State {
    backend: Backend,
    plans: HashMap<PlanKey, Box<dyn Any>>,
}

thread_local! {
    static STATE: RefCell<Option<State>> = const { RefCell::new(None) };
}

/// Run `req` on this thread's GPU backend (opened on first use). `wait(stream)` synchronizes a
/// stream (the caller releases the GIL around it) and returns the driver's status.
pub fn reduce(req: &Request, wait: &dyn Fn(u64) -> cu::CUresult) -> Result<Done, ReduceError> {
    let busy = || {
        ReduceError::InvalidArgument(
            "reduce was called again while a call on this thread was running".into(),
        )
    };
    STATE
        .try_with(|cell| {
            let mut slot = cell.try_borrow_mut().map_err(|_| busy())?;
            let _restore = SavedContext::save();
            if slot.is_none() {
                *slot = Some(State {
                    backend: Backend::open(BackendChoice::Gpu)?,
                    plans: HashMap::new(),
                });
            }
            let state = slot.as_mut().ok_or_else(busy)?;
            if wide_sum(req.op, req.ty, req.out.is_some()) {
                return match req.ty {
                    ElemType::I32 => run_wide::<i32>(state, req, wait),
                    ElemType::U32 => run_wide::<u32>(state, req, wait),
                    other => Err(ReduceError::UnsupportedType {
                        stage: reduce_host::Stage::S8,
                        ty: other,
                    }),
                };
            }
            with_elem_type!(req.ty, T => run::<T>(state, req, wait))
        })
        .unwrap_or_else(|_| {
            Err(ReduceError::InvalidArgument(
                "reduce was called while this thread was ending".into(),
            ))
        })
}

fn run<T: Scalar>(
    state: &mut State,
    req: &Request,
    wait: &dyn Fn(u64) -> cu::CUresult,
) -> Result<Done, ReduceError> {
    let backend = &state.backend;
    let stream = start(backend, req)?;
    // SAFETY: `borrow_raw` checks with the driver that the `n` elements from `ptr` are device
    // memory of this GPU's context, inside one allocation, aligned for `T`. The rest of its
    // contract: the Python object `x` is held by the call (its arguments) until we return, so
    // its memory stays allocated for the view's use here; after we return (the `out` form),
    // see the SAFETY of `enqueue_on` below. Any bits are a valid `T` (integers and floats).
    let input = unsafe { backend.borrow_raw::<T>(req.x.ptr, req.x.n)? };
    if req.x.n == 0 && req.op != Op::Sum {
        return Err(ReduceError::EmptyInput { op: req.op });
    }
    let size = std::mem::size_of::<T>();
    if let Some(out) = req.out {
        // SAFETY: as for `input`; only `out[0]` is borrowed (and written).
        let target = unsafe { backend.borrow_raw::<T>(out.ptr, 1)? };
        if overlaps(req.x.ptr, req.x.n, out.ptr, 1, size) {
            return Err(ReduceError::OutOfBounds {
                arg: "out",
                why: "out[0] lies inside the input".into(),
            });
        }
        if req.x.n == 0 {
            // SAFETY: `out[0]` is `size` bytes of device memory of this context (checked above),
            // `stream` a stream of it (checked); all-zero bits are 0 for every type here. The
            // memset is stream-ordered like the kernel, so the caller's rules are the same.
            let r = unsafe { cu::cuMemsetD8Async(out.ptr, 0, size, stream) };
            return driver(r, "zeroing out[0] (the sum of nothing)").map(|()| Done::Queued);
        }
        let plan = plan_for::<T>(backend, &mut state.plans, req.op, req.x.n, req.stream)?;
        // SAFETY: `enqueue_on`'s contract holds:
        // * `stream` is a stream of this GPU's context (checked by `check_stream`) and live: the
        //   legacy/per-thread default stream, torch's current stream, or one the caller names
        //   and holds (its handle is trusted, as `torch.cuda.ExternalStream` trusts one);
        // * `input` and `out` stay allocated until the kernel has run: they are alive during the
        //   call, and the caller keeps them alive afterwards as for torch's own asynchronous
        //   ops. For torch tensors this holds by the caching allocator's rule: a block freed by
        //   torch is reused only by work queued on the stream it was allocated on, so when the
        //   kernel runs on that stream (torch's current stream, the default here), anything that
        //   reuses the memory is queued after the kernel. On another stream the caller must
        //   `x.record_stream(s)`, exactly as for torch's kernels on a side stream. The extension
        //   does not keep a reference: it cannot know when the stream has run the kernel without
        //   a host callback, which a graph capture would replay. cudaFree/cuMemFree wait for
        //   the device. The plan lives in this thread's cache, never evicted;
        // * nothing writes `input` or touches `out[0]` meanwhile: the stream orders the caller's
        //   later work after the kernel; other streams are the caller's to order (events), as
        //   for any torch op;
        // * `out[0]` does not overlap `input` (checked above);
        // * one launch at a time per plan: plans are per stream and per thread, and one stream
        //   runs its launches one after another. (A stream destroyed with the kernel still
        //   queued and a new one given the same handle could share a plan; the kernel's
        //   addresses stay inside the workspace, so only that value would be wrong.)
        unsafe { plan.enqueue_on(backend, stream, input, target)? };
        return Ok(Done::Queued);
    }
    if req.x.n == 0 {
        return Ok(Done::Value(value(T::default())));
    }
    refuse_capture(stream)?;
    let plan = plan_for::<T>(backend, &mut state.plans, req.op, req.x.n, req.stream)?;
    // SAFETY: as in the `out` form, except that the call waits for the stream before it
    // returns, so the input outlives the kernel while the call holds it; the result goes into
    // the plan's own slot (mapped pinned host memory), read only after that wait.
    unsafe { plan.enqueue_on_slot(backend, stream, input)? };
    driver(
        wait(req.stream),
        "waiting for the stream that runs the reduction",
    )?;
    Ok(Done::Value(value(plan.read_result(backend)?)))
}

/// The 64-bit sum of `i32` / `u32` (NumPy's and torch's), blocking: stage 8's wide kernel on the
/// caller's stream into the plan's own result, read after waiting for that stream.
fn run_wide<T: Scalar>(
    state: &mut State,
    req: &Request,
    wait: &dyn Fn(u64) -> cu::CUresult,
) -> Result<Done, ReduceError>
where
    Wide<T>: Scalar,
{
    let backend = &state.backend;
    let stream = start(backend, req)?;
    // SAFETY: as in `run` (checked by the driver, held alive by the call, which waits below).
    let input = unsafe { backend.borrow_raw::<T>(req.x.ptr, req.x.n)? };
    if req.x.n == 0 {
        return Ok(Done::Value(Value::Int(0)));
    }
    refuse_capture(stream)?;
    let key = PlanKey {
        ty: T::TYPE,
        op: Op::Sum,
        n: req.x.n,
        stream: req.stream,
        wide: true,
    };
    let plan = cached(&mut state.plans, key, || {
        PreparedWide::<T>::new(backend, req.x.n, LaunchOverrides::default())
    })?;
    // SAFETY: the contract of the families' `enqueue_on`: `stream` is a live stream of this
    // context (as in `run`); the input stays allocated and unwritten until the kernel has run,
    // since the call holds it and waits for the stream before returning; the plan's result is
    // read only after that wait; one launch at a time per plan (per stream, per thread).
    unsafe { plan.enqueue_on(backend, stream, input)? };
    driver(
        wait(req.stream),
        "waiting for the stream that runs the reduction",
    )?;
    Ok(Done::Value(value(plan.read(backend)?)))
}

/// The cached `Prepared<T>` for `(T, op, n, stream)`.
fn plan_for<'p, T: Scalar>(
    backend: &Backend,
    plans: &'p mut HashMap<PlanKey, Box<dyn Any>>,
    op: Op,
    n: usize,
    stream: u64,
) -> Result<&'p Prepared<T>, ReduceError> {
    let key = PlanKey {
        ty: T::TYPE,
        op,
        n,
        stream,
        wide: false,
    };
    // Stage 8's plan with its result slot in mapped pinned host memory: the blocking form
    // reads the value there after waiting for the stream, with no copy (the `out` form writes
    // the caller's memory and leaves the slot alone).
    cached(plans, key, || {
        Prepared::<T>::for_stream_in(backend, op, n, ResultIn::MappedHost)
    })
}

/// The plan cached under `key`, made (its workspace allocated) by `make` on first use.
fn cached<P: 'static>(
    plans: &mut HashMap<PlanKey, Box<dyn Any>>,
    key: PlanKey,
    make: impl FnOnce() -> Result<P, ReduceError>,
) -> Result<&P, ReduceError> {
    let plan = match plans.entry(key) {
        Entry::Occupied(e) => e.into_mut(),
        // A first call inside a graph capture allocates: in relaxed mode the driver allows it
        // (not captured) where the capture's mode would end the capture.
        Entry::Vacant(e) => e.insert(Box::new(relaxed_capture_mode(make)?)),
    };
    plan.downcast_ref::<P>()
        .ok_or_else(|| ReduceError::InvalidArgument("a cached plan of another type".into()))
}

fn value<T: Scalar>(v: T) -> Value {
    match v.to_i128() {
        Some(i) => Value::Int(i),
        None => Value::Float(v.to_f64()),
    }
}
