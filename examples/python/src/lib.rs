//! `reduce`, a Python extension module (PyO3, the stable ABI of CPython ≥ 3.9): `reduce.sum`,
//! `reduce.min` and `reduce.max` of a CUDA `torch.Tensor`, or of any object with
//! `__cuda_array_interface__`, read where it lies (no copy) by reduce-host's stage-8 kernel,
//! on torch's current stream (or the stream given). See `examples/python/README.md`.
//!
//! * [`parse`]: the argument rules, free of Python (unit-tested here without a GPU);
//! * `input`: Python objects read into plain values (torch's fast path, the interface);
//! * `gpu`: the backend and plans of each thread, the launch.

mod gpu;
mod input;
pub mod parse;

use gpu::{Done, Request, Value};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use reduce_host::Op;

pyo3::create_exception!(
    reduce,
    ReduceError,
    pyo3::exceptions::PyRuntimeError,
    "What reduce-host refused, or the GPU's error: the message is the library's ReduceError \
     text (no GPU or driver, bad device memory, an empty min/max, a CUDA error...)."
);

/// One call of `sum`, `min` or `max`.
fn call(
    py: Python<'_>,
    op: Op,
    x: &Bound<'_, PyAny>,
    out: Option<&Bound<'_, PyAny>>,
    stream: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let xa = input::array(x, "x", true)?;
    let oa = out.map(|o| input::array(o, "out", false)).transpose()?;
    if let Some(o) = &oa {
        if o.ty != xa.ty {
            return Err(PyTypeError::new_err(format!(
                "out holds {} and x {}: out must have x's dtype",
                parse::dtype_name(o.ty),
                parse::dtype_name(xa.ty)
            )));
        }
        if o.readonly {
            return Err(PyValueError::new_err("out is read-only"));
        }
        if o.operand.n == 0 {
            return Err(PyValueError::new_err(
                "out holds no element: the result goes into out[0]",
            ));
        }
    }
    let stream = match stream {
        Some(s) => input::stream_argument(s)?,
        None => input::default_stream(py, xa.ready)?,
    };
    let request = Request {
        op,
        ty: xa.ty,
        x: xa.operand,
        out: oa.map(|o| o.operand),
        stream,
    };
    // The wait for the result runs detached from the interpreter, so other Python threads run
    // meanwhile; it takes only the handle (an integer), no Python object.
    let wait = |s: u64| {
        py.detach(move || {
            // SAFETY: `gpu::reduce` calls this only with the stream it checked (a stream of
            // GPU 0's context) and launched on; synchronizing a stream has no other effect.
            unsafe { cust::sys::cuStreamSynchronize(s as usize as cust::sys::CUstream) }
        })
    };
    match gpu::reduce(&request, &wait).map_err(|e| ReduceError::new_err(e.to_string()))? {
        Done::Queued => Ok(py.None()),
        Done::Value(Value::Float(v)) => Ok(v.into_pyobject(py)?.into_any().unbind()),
        Done::Value(Value::Int(v)) => Ok(v.into_pyobject(py)?.into_any().unbind()),
    }
}

/// The sum of x's elements, read in place on GPU 0 by reduce-host's single-pass kernel.
///
/// x: a CUDA torch.Tensor, or any object with __cuda_array_interface__ (v2 or v3): contiguous,
/// float32, float64, int32, uint32, int64 or uint64.
///
/// Without out: runs on the stream, waits for that stream only, and returns a float or an
/// int (int32 and uint32 summed in 64 bits, as torch and NumPy do).
///
/// With out (same dtype, at least one element): queues the sum into out[0] and returns None at
/// once, without waiting (capturable in a CUDA graph); an int32/uint32 out gets the sum modulo
/// 2^32, as torch.sum(x, out=o) stores it. Keep x and out alive until the stream has run it, as
/// for torch's own asynchronous ops (torch's caching allocator does so on the tensor's stream;
/// on another stream, x.record_stream(s)).
///
/// stream: an int CUstream, or an object with cuda_stream (torch.cuda.Stream) or
/// __cuda_stream__. Default: x's __cuda_array_interface__ stream; torch's current stream for a
/// tensor; else the legacy default stream.
///
/// Raises TypeError (an unsupported dtype, out of another dtype), ValueError (a CPU or
/// non-contiguous tensor, a read-only or empty out) and reduce.ReduceError (the library's
/// errors: no GPU, bad device memory, a CUDA error).
#[pyfunction(name = "sum", signature = (x, out=None, stream=None))]
fn sum_(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    out: Option<&Bound<'_, PyAny>>,
    stream: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    call(py, Op::Sum, x, out, stream)
}

/// The smallest of x's elements (NaN if any is NaN, as torch), read in place on GPU 0; the
/// arguments, the stream and the errors are sum's (help(reduce.sum)). An empty x raises
/// reduce.ReduceError.
#[pyfunction(name = "min", signature = (x, out=None, stream=None))]
fn min_(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    out: Option<&Bound<'_, PyAny>>,
    stream: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    call(py, Op::Min, x, out, stream)
}

/// The largest of x's elements (NaN if any is NaN, as torch), read in place on GPU 0; the
/// arguments, the stream and the errors are sum's (help(reduce.sum)). An empty x raises
/// reduce.ReduceError.
#[pyfunction(name = "max", signature = (x, out=None, stream=None))]
fn max_(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    out: Option<&Bound<'_, PyAny>>,
    stream: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    call(py, Op::Max, x, out, stream)
}

/// The module: `sum`, `min`, `max`, `ReduceError`, `__version__`.
#[pymodule]
fn reduce(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sum_, m)?)?;
    m.add_function(wrap_pyfunction!(min_, m)?)?;
    m.add_function(wrap_pyfunction!(max_, m)?)?;
    m.add("ReduceError", m.py().get_type::<ReduceError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
