//! Python arguments read into plain values: a `torch.Tensor` through its own C-implemented
//! methods (fast), anything else through `__cuda_array_interface__` (v2 or v3); the `stream=`
//! argument. torch is never imported: a tensor is recognized through `sys.modules['torch']`,
//! which is there whenever a tensor exists.

use crate::gpu::Operand;
use crate::parse::{self, ArgError};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyInt, PyType};
use pyo3::{intern, PyErr};
use reduce_host::ElemType;

impl From<ArgError> for PyErr {
    fn from(e: ArgError) -> PyErr {
        match e {
            ArgError::Type(m) => PyTypeError::new_err(m),
            ArgError::Value(m) => PyValueError::new_err(m),
        }
    }
}

/// Where an array's data is ready, when no `stream=` is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ready {
    /// Its CUDA Array Interface names no stream (v2, or v3 with `None`).
    Anywhere,
    /// Its CUDA Array Interface v3 names this stream.
    On(u64),
    /// A torch tensor of this device: torch's current stream there.
    TorchCurrent(i64),
}

/// An array argument: its device memory, element type, and where its data is ready.
#[derive(Debug, Clone, Copy)]
pub struct Array {
    /// Address and element count.
    pub operand: Operand,
    /// Element type.
    pub ty: ElemType,
    /// Read-only (CUDA Array Interface `data[1]`).
    pub readonly: bool,
    /// Its stream.
    pub ready: Ready,
}

/// torch's objects this module uses, found in `sys.modules` once torch has been imported.
struct Torch {
    tensor: Py<PyType>,
    current_stream: Py<PyAny>,
    /// `torch._C._cuda_getCurrentRawStream(device)`: the current stream's handle as an int,
    /// without building a `torch.cuda.Stream` (a few µs per call through the public
    /// `current_stream`); private, so only used where this torch has it (Triton reads the stream
    /// the same way).
    raw_stream: Option<Py<PyAny>>,
}

static TORCH: PyOnceLock<Torch> = PyOnceLock::new();

/// torch, if the program has imported it.
fn torch(py: Python<'_>) -> PyResult<Option<&'static Torch>> {
    if let Some(t) = TORCH.get(py) {
        return Ok(Some(t));
    }
    let modules = py
        .import(intern!(py, "sys"))?
        .getattr(intern!(py, "modules"))?;
    let Ok(Ok(Some(torch))) = modules.cast::<PyDict>().map(|m| m.get_item("torch")) else {
        return Ok(None);
    };
    // A module being imported may not have these yet: not torch for now.
    let found = || -> PyResult<Torch> {
        Ok(Torch {
            tensor: torch.getattr("Tensor")?.cast_into::<PyType>()?.unbind(),
            current_stream: torch.getattr("cuda")?.getattr("current_stream")?.unbind(),
            raw_stream: torch
                .getattr("_C")
                .and_then(|c| c.getattr("_cuda_getCurrentRawStream"))
                .ok()
                .map(Bound::unbind),
        })
    };
    match found() {
        Ok(t) => Ok(Some(TORCH.get_or_init(py, || t))),
        Err(_) => Ok(None),
    }
}

/// Read argument `what` (`"x"` or `"out"`); `contiguous`: refuse a non-contiguous one.
pub fn array(x: &Bound<'_, PyAny>, what: &str, contiguous: bool) -> PyResult<Array> {
    let py = x.py();
    if let Some(t) = torch(py)? {
        if x.is_instance(t.tensor.bind(py))? {
            return tensor(x, what, contiguous);
        }
    }
    cuda_array_interface(x, what, contiguous)
}

fn tensor(x: &Bound<'_, PyAny>, what: &str, contiguous: bool) -> PyResult<Array> {
    let py = x.py();
    if !x.getattr(intern!(py, "is_cuda"))?.is_truthy()? {
        let device = x.getattr(intern!(py, "device"))?.str()?;
        return Err(PyValueError::new_err(format!(
            "{what} is a tensor on {device}: reduce reads CUDA tensors (move it with .cuda())"
        )));
    }
    let dtype = x.getattr(intern!(py, "dtype"))?.str()?;
    let ty = parse::dtype_of_torch(&dtype.to_cow()?)?;
    let device: i64 = x.call_method0(intern!(py, "get_device"))?.extract()?;
    if device != 0 {
        return Err(PyValueError::new_err(format!(
            "{what} is on cuda:{device}: reduce runs on GPU 0 (cuda:0) only"
        )));
    }
    if contiguous && !x.call_method0(intern!(py, "is_contiguous"))?.is_truthy()? {
        return Err(PyValueError::new_err(format!(
            "{what} is not contiguous: reduce reads contiguous memory (use .contiguous())"
        )));
    }
    Ok(Array {
        operand: Operand {
            ptr: x.call_method0(intern!(py, "data_ptr"))?.extract()?,
            n: x.call_method0(intern!(py, "numel"))?.extract()?,
        },
        ty,
        readonly: false,
        ready: Ready::TorchCurrent(device),
    })
}

fn cuda_array_interface(x: &Bound<'_, PyAny>, what: &str, contiguous: bool) -> PyResult<Array> {
    let py = x.py();
    let Some(cai) = x.getattr_opt(intern!(py, "__cuda_array_interface__"))? else {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a CUDA torch.Tensor or have __cuda_array_interface__, not {}",
            x.get_type().name()?
        )));
    };
    let d = cai.cast_into::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!("{what}.__cuda_array_interface__ is not a dict"))
    })?;
    let field = |key: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
        Ok(d.get_item(key)?.filter(|v| !v.is_none()))
    };
    let bad = |key: &str, e: PyErr| {
        PyTypeError::new_err(format!(
            "{what}.__cuda_array_interface__['{key}'] is not as the interface says: {e}"
        ))
    };
    let required = |key: &str| {
        field(key)?.ok_or_else(|| {
            PyTypeError::new_err(format!("{what}.__cuda_array_interface__ has no '{key}'"))
        })
    };
    let typestr: String = required("typestr")?
        .extract()
        .map_err(|e| bad("typestr", e))?;
    let shape: Vec<i64> = required("shape")?.extract().map_err(|e| bad("shape", e))?;
    let (ptr, readonly): (u64, bool) = required("data")?.extract().map_err(|e| bad("data", e))?;
    let ty = parse::dtype_of_typestr(&typestr)?;
    let n = parse::element_count(&shape, ty.size())?;
    if let Some(strides) = field("strides")? {
        let strides: Vec<i64> = strides.extract().map_err(|e| bad("strides", e))?;
        if contiguous && !parse::is_c_contiguous(&shape, &strides, ty.size()) {
            return Err(PyValueError::new_err(format!(
                "{what} is not contiguous (shape {shape:?}, strides {strides:?}): reduce reads \
                 C-contiguous memory"
            )));
        }
    }
    if field("mask")?.is_some() {
        return Err(PyValueError::new_err(format!(
            "{what} is a masked array: reduce reads every element"
        )));
    }
    let ready = match field("stream")? {
        None => Ready::Anywhere,
        Some(s) => {
            let s: i128 = s.extract().map_err(|e| bad("stream", e))?;
            parse::cai_stream(Some(s))?.map_or(Ready::Anywhere, Ready::On)
        }
    };
    Ok(Array {
        operand: Operand { ptr, n },
        ty,
        readonly,
        ready,
    })
}

/// The `stream=` argument: an int (`CUstream` value; 0 is the legacy default stream, as torch
/// reports its default stream), an object with `__cuda_stream__()` (the CUDA Python stream
/// protocol: `(version, handle)`), or one with a `cuda_stream` int (`torch.cuda.Stream`).
pub fn stream_argument(s: &Bound<'_, PyAny>) -> PyResult<u64> {
    let py = s.py();
    let wrong =
        || {
            PyTypeError::new_err(format!(
            "stream must be an int CUstream handle, or have cuda_stream or __cuda_stream__, not {}",
            s.get_type().name().map_or_else(|_| "?".into(), |n| n.to_string())
        ))
        };
    if s.is_instance_of::<PyBool>() {
        return Err(wrong());
    }
    let handle: i128 = if s.is_instance_of::<PyInt>() {
        s.extract()?
    } else if let Some(f) = s.getattr_opt(intern!(py, "__cuda_stream__"))? {
        let (_version, handle): (i64, i128) = f.call0()?.extract()?;
        handle
    } else if let Some(h) = s.getattr_opt(intern!(py, "cuda_stream"))? {
        h.extract()?
    } else {
        return Err(wrong());
    };
    Ok(parse::user_stream(handle)?)
}

/// The stream a call runs on when no `stream=` is given: the one `x`'s interface names, torch's
/// current stream of the tensor's device, else the legacy default stream.
pub fn default_stream(py: Python<'_>, ready: Ready) -> PyResult<u64> {
    match ready {
        Ready::Anywhere => Ok(parse::LEGACY_STREAM),
        Ready::On(s) => Ok(s),
        Ready::TorchCurrent(device) => {
            let Some(t) = torch(py)? else {
                return Err(PyTypeError::new_err(
                    "a tensor without torch in sys.modules",
                ));
            };
            let handle: i128 = match &t.raw_stream {
                Some(raw) => raw.bind(py).call1((device,))?.extract()?,
                None => {
                    let s = t.current_stream.bind(py).call1((device,))?;
                    s.getattr(intern!(py, "cuda_stream"))?.extract()?
                }
            };
            Ok(parse::user_stream(handle)?)
        }
    }
}
