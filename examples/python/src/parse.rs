//! The rules of the Python API that need no Python: element types (a CUDA Array Interface
//! `typestr`, a torch dtype's name), shapes and strides, stream values. Free of pyo3 types, so the
//! unit tests run without an interpreter or a GPU.

use reduce_host::{ElemType, Op};
use std::fmt;

/// Why a Python argument was refused, and the Python exception it becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgError {
    /// A `TypeError`: an element type or argument kind the module does not take.
    Type(String),
    /// A `ValueError`: the right kind of argument with a value that cannot be used.
    Value(String),
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgError::Type(m) | ArgError::Value(m) => f.write_str(m),
        }
    }
}

/// `Result` with an [`ArgError`].
pub type ArgResult<T> = Result<T, ArgError>;

fn type_error<T>(message: impl Into<String>) -> ArgResult<T> {
    Err(ArgError::Type(message.into()))
}

fn value_error<T>(message: impl Into<String>) -> ArgResult<T> {
    Err(ArgError::Value(message.into()))
}

/// The element types stage 8's `Prepared` reduces on a caller's stream (`Prepared::for_stream`;
/// the halves are `PreparedWide`'s, whose result is an `f32` in its own buffer, not `out[0]`).
pub const SUPPORTED: [ElemType; 6] = [
    ElemType::F32,
    ElemType::F64,
    ElemType::I32,
    ElemType::U32,
    ElemType::I64,
    ElemType::U64,
];

const SUPPORTED_NAMES: &str = "float32, float64, int32, uint32, int64, uint64";

fn unsupported(what: &str) -> ArgError {
    ArgError::Type(format!(
        "reduce does not take {what} data: it reduces {SUPPORTED_NAMES} (the types of \
         reduce-host's stage-8 Prepared plans; it reduces halves with other plans, not exposed \
         here: cast to float32 first)"
    ))
}

/// The NumPy / torch name of an element type (`float32`), for messages.
pub fn dtype_name(ty: ElemType) -> &'static str {
    match ty {
        ElemType::F32 => "float32",
        ElemType::F64 => "float64",
        ElemType::I32 => "int32",
        ElemType::U32 => "uint32",
        ElemType::I64 => "int64",
        ElemType::U64 => "uint64",
        ElemType::F16 => "float16",
        ElemType::BF16 => "bfloat16",
    }
}

/// The element type of a CUDA Array Interface `typestr` (`'<f4'`, `'<i8'`, …): byte order `<`
/// (or `=`/`|` on a little-endian host), kind `f`/`i`/`u`, size in bytes.
pub fn dtype_of_typestr(typestr: &str) -> ArgResult<ElemType> {
    let mut chars = typestr.chars();
    let (Some(order), Some(kind)) = (chars.next(), chars.next()) else {
        return type_error(format!(
            "typestr {typestr:?} is not a type string like '<f4'"
        ));
    };
    let size: usize = match chars.as_str().parse() {
        Ok(s) => s,
        Err(_) => return type_error(format!("typestr {typestr:?} has no size in bytes")),
    };
    let little = order == '<' || (matches!(order, '=' | '|') && cfg!(target_endian = "little"));
    if !little && size > 1 {
        return type_error(format!(
            "typestr {typestr:?} is big-endian: the GPU reads little-endian data"
        ));
    }
    match (kind, size) {
        ('f', 4) => Ok(ElemType::F32),
        ('f', 8) => Ok(ElemType::F64),
        ('i', 4) => Ok(ElemType::I32),
        ('u', 4) => Ok(ElemType::U32),
        ('i', 8) => Ok(ElemType::I64),
        ('u', 8) => Ok(ElemType::U64),
        ('f', 2) => Err(unsupported(&format!("float16 ({typestr})"))),
        _ => Err(unsupported(&format!("typestr {typestr}"))),
    }
}

/// The element type of a torch dtype from its `str()` (`"torch.float32"`).
pub fn dtype_of_torch(name: &str) -> ArgResult<ElemType> {
    match name.strip_prefix("torch.").unwrap_or(name) {
        "float32" | "float" => Ok(ElemType::F32),
        "float64" | "double" => Ok(ElemType::F64),
        "int32" | "int" => Ok(ElemType::I32),
        "uint32" => Ok(ElemType::U32),
        "int64" | "long" => Ok(ElemType::I64),
        "uint64" => Ok(ElemType::U64),
        other => Err(unsupported(other)),
    }
}

/// Is this the 64-bit sum of `i32` / `u32` (NumPy's and torch's: `sum` without `out`), which
/// stage 8's wide kernel (`PreparedWide`) computes? With `out` of the same 32-bit type the sum
/// is `Prepared`'s, which wraps in 32 bits: exactly what `torch.sum(x, out=o)` stores there.
pub fn wide_sum(op: Op, ty: ElemType, has_out: bool) -> bool {
    op == Op::Sum && !has_out && matches!(ty, ElemType::I32 | ElemType::U32)
}

/// Elements of an array of `shape` (every dimension ≥ 0; `()` is one element), refusing a count
/// whose bytes (`item_size` each) overflow `isize`.
pub fn element_count(shape: &[i64], item_size: usize) -> ArgResult<usize> {
    let mut n: usize = 1;
    for &d in shape {
        let Ok(d) = usize::try_from(d) else {
            return value_error(format!("shape {shape:?} has a negative dimension"));
        };
        n = match n.checked_mul(d) {
            Some(n) => n,
            None => return value_error(format!("shape {shape:?} overflows the address space")),
        };
    }
    match n.checked_mul(item_size) {
        Some(bytes) if isize::try_from(bytes).is_ok() => Ok(n),
        _ => value_error(format!("shape {shape:?} overflows the address space")),
    }
}

/// Are `strides` (in bytes) those of a C-contiguous array of `shape`? Dimensions of extent 1 may
/// have any stride (as NumPy and torch say), and an empty array is contiguous.
pub fn is_c_contiguous(shape: &[i64], strides: &[i64], item_size: usize) -> bool {
    if shape.len() != strides.len() {
        return false;
    }
    if shape.contains(&0) {
        return true;
    }
    let mut expected = item_size as i128;
    for (&d, &s) in shape.iter().zip(strides).rev() {
        if d != 1 && i128::from(s) != expected {
            return false;
        }
        expected *= i128::from(d);
    }
    true
}

/// `CUstream` handle values (`CUstream` is a pointer; these three are the driver's special
/// values): the null stream (the legacy default stream for the driver API and for torch, which
/// reports its default stream as 0), `CU_STREAM_LEGACY` and `CU_STREAM_PER_THREAD`.
pub const NULL_STREAM: u64 = 0;
/// `CU_STREAM_LEGACY`: the legacy default stream, whatever the thread.
pub const LEGACY_STREAM: u64 = 0x1;
/// `CU_STREAM_PER_THREAD`: the calling thread's per-thread default stream.
pub const PER_THREAD_STREAM: u64 = 0x2;

/// The stream of a CUDA Array Interface v3 `stream` entry (`None`: the producer asks for no
/// synchronization). The spec: 1 is the legacy default stream, 2 the per-thread default stream,
/// any other positive integer a `cudaStream_t`; 0 is disallowed (ambiguous between the two).
pub fn cai_stream(value: Option<i128>) -> ArgResult<Option<u64>> {
    match value {
        None => Ok(None),
        Some(0) => value_error(
            "__cuda_array_interface__ has stream 0, which the interface forbids (1 is the legacy \
             default stream, 2 the per-thread one)",
        ),
        Some(1) => Ok(Some(LEGACY_STREAM)),
        Some(2) => Ok(Some(PER_THREAD_STREAM)),
        Some(v) => handle(v, "__cuda_array_interface__ stream").map(Some),
    }
}

/// The stream of the `stream=` argument (an int, or a `cuda_stream` attribute's): a `CUstream`
/// value as torch and CuPy report it, 0 being the legacy default stream (`cudaStreamLegacy`
/// semantics for the driver API's null stream).
pub fn user_stream(value: i128) -> ArgResult<u64> {
    handle(value, "stream")
}

fn handle(v: i128, what: &str) -> ArgResult<u64> {
    u64::try_from(v).or_else(|_| {
        value_error(format!(
            "{what} {v} is not a CUstream handle (0 ..= 2^64 - 1)"
        ))
    })
}

/// Does the byte range of `b_len` elements from `b` overlap that of `a_len` from `a`?
pub fn overlaps(a: u64, a_len: usize, b: u64, b_len: usize, item_size: usize) -> bool {
    let end = |p: u64, n: usize| u128::from(p) + (n as u128) * (item_size as u128);
    a_len > 0 && b_len > 0 && u128::from(a) < end(b, b_len) && u128::from(b) < end(a, a_len)
}

#[cfg(test)]
mod tests;
