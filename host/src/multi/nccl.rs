//! NCCL, loaded at run time: the all-gather of the GPUs' partials.
//!
//! **Binding.** The C types and function signatures are `cudarc`'s (`cudarc::nccl::sys`, the
//! bindgen output of `nccl.h` that the `cudarc` crate — the CUDA binding used by candle and
//! others, released monthly — keeps for NCCL 2.18 to 2.30). Its own loader is not used: it looks
//! for `libnccl.so` and `libnccl.so.<CUDA major>` on the linker path and panics when none
//! loads, while NCCL's runtime name is `libnccl.so.2` and PyPI's `nvidia-nccl-cu13` wheel (and
//! PyTorch, through it) puts it in `site-packages/nvidia/nccl/lib/`, off the linker path. So
//! this file searches those places with `libloading` (the loader `cudarc` itself uses), keeps
//! the library loaded for the life of the process, and turns "not found" into
//! [`ReduceError::NcclUnavailable`] with every place tried. The raw `sys` layer suffices:
//! `cudarc`'s safe layer owns its own CUDA contexts and streams, while ours are `cust`'s.

use super::collective::{bind, check_gather, Collective};
use crate::backend::Backend;
use crate::buffer::Buffer;
use crate::error::status_message;
use crate::error::{ReduceError, Result};
use crate::types::{ElemType, Scalar};
use cudarc::nccl::sys::{cudaStream_t, ncclComm_t, ncclDataType_t, ncclResult_t};
use std::ffi::{c_char, c_int, c_void};
use std::path::PathBuf;
use std::sync::OnceLock;

type CommInitAll = unsafe extern "C" fn(*mut ncclComm_t, c_int, *const c_int) -> ncclResult_t;
type AllGather = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    usize,
    ncclDataType_t,
    ncclComm_t,
    cudaStream_t,
) -> ncclResult_t;
type Group = unsafe extern "C" fn() -> ncclResult_t;
type CommFn = unsafe extern "C" fn(ncclComm_t) -> ncclResult_t;
type AsyncError = unsafe extern "C" fn(ncclComm_t, *mut ncclResult_t) -> ncclResult_t;
type ErrorString = unsafe extern "C" fn(ncclResult_t) -> *const c_char;
type Version = unsafe extern "C" fn(*mut c_int) -> ncclResult_t;

/// The NCCL entry points this crate calls, resolved from one loaded `libnccl`.
pub struct NcclLibrary {
    /// Where it was loaded from.
    pub path: String,
    /// `ncclGetVersion`: e.g. 22703 for 2.27.3.
    pub version: i32,
    comm_init_all: CommInitAll,
    all_gather: AllGather,
    group_start: Group,
    group_end: Group,
    comm_destroy: CommFn,
    comm_abort: CommFn,
    comm_get_async_error: AsyncError,
    get_error_string: ErrorString,
}

/// The places searched for `libnccl`, in order: `$NCCL_LIBRARY`; `nvidia/nccl/lib/libnccl.so.2`
/// and `torch/lib/libnccl.so.2` under every Python `site-packages`/`dist-packages` directory
/// found (`$VIRTUAL_ENV`, `$CONDA_PREFIX`, `$PYTHONPATH`, `~/.local`, `/usr/local`, `/usr`,
/// `/opt/conda`); then the bare names `libnccl.so.2` and `libnccl.so` for the dynamic linker's
/// own search (`LD_LIBRARY_PATH`, the ldconfig cache).
pub fn nccl_candidates() -> Vec<String> {
    let mut out = Vec::new();
    if let Some(p) = std::env::var_os("NCCL_LIBRARY") {
        out.push(PathBuf::from(p).display().to_string());
    }
    for dir in site_packages() {
        for rel in ["nvidia/nccl/lib/libnccl.so.2", "torch/lib/libnccl.so.2"] {
            let p = dir.join(rel);
            if p.exists() {
                out.push(p.display().to_string());
            }
        }
    }
    out.push("libnccl.so.2".into());
    out.push("libnccl.so".into());
    out
}

/// Python package directories that exist on this machine.
fn site_packages() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(v) = std::env::var_os(var) {
            roots.push(PathBuf::from(v).join("lib"));
        }
    }
    if let Some(home) = std::env::var_os("HOME") {
        roots.push(PathBuf::from(home).join(".local/lib"));
    }
    for r in ["/usr/local/lib", "/usr/lib", "/opt/conda/lib"] {
        roots.push(PathBuf::from(r));
    }
    let mut dirs: Vec<PathBuf> = std::env::var_os("PYTHONPATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    for root in roots {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut pythons: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
            .map(|e| e.path())
            .collect();
        pythons.sort();
        for py in pythons {
            for sub in ["site-packages", "dist-packages"] {
                dirs.push(py.join(sub));
            }
        }
    }
    dirs.retain(|d| d.is_dir());
    dirs
}

static LIBRARY: OnceLock<std::result::Result<NcclLibrary, Vec<String>>> = OnceLock::new();

/// Load `libnccl` (once per process; see [`nccl_candidates`]). The first call decides: its
/// outcome, a library or the list of what was tried, is kept for the life of the process, so
/// `NCCL_LIBRARY` must be set before the first multi-GPU reducer is made.
pub fn load() -> Result<&'static NcclLibrary> {
    LIBRARY
        .get_or_init(load_first)
        .as_ref()
        .map_err(|tried| ReduceError::NcclUnavailable {
            tried: tried.clone(),
        })
}

fn load_first() -> std::result::Result<NcclLibrary, Vec<String>> {
    let mut tried = Vec::new();
    for c in nccl_candidates() {
        // SAFETY: loading a shared library runs its initialisers; libnccl's only set up its
        // own state. The library is never unloaded (leaked below), so the function pointers
        // taken from it stay valid for the life of the process.
        match unsafe { libloading::Library::new(&c) } {
            Ok(lib) => match resolve(&c, Box::leak(Box::new(lib))) {
                Ok(n) => return Ok(n),
                Err(e) => tried.push(format!("{c}: {e}")),
            },
            Err(e) => tried.push(format!("{c}: {e}")),
        }
    }
    Err(tried)
}

fn resolve(
    path: &str,
    lib: &'static libloading::Library,
) -> std::result::Result<NcclLibrary, String> {
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the symbol's type is its C signature from nccl.h (cudarc's bindings).
            *unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                .map_err(|e| format!("{}: {e}", $name))?
        };
    }
    let get_version: Version = sym!("ncclGetVersion");
    let mut version: c_int = 0;
    // SAFETY: a valid out-pointer.
    let r = unsafe { get_version(&mut version) };
    if r != ncclResult_t::ncclSuccess {
        return Err(format!("ncclGetVersion failed: {r:?}"));
    }
    Ok(NcclLibrary {
        path: path.to_string(),
        version,
        comm_init_all: sym!("ncclCommInitAll"),
        all_gather: sym!("ncclAllGather"),
        group_start: sym!("ncclGroupStart"),
        group_end: sym!("ncclGroupEnd"),
        comm_destroy: sym!("ncclCommDestroy"),
        comm_abort: sym!("ncclCommAbort"),
        comm_get_async_error: sym!("ncclCommGetAsyncError"),
        get_error_string: sym!("ncclGetErrorString"),
    })
}

impl NcclLibrary {
    fn check(&self, r: ncclResult_t, what: impl Into<String>) -> Result<()> {
        if r == ncclResult_t::ncclSuccess {
            return Ok(());
        }
        // SAFETY: ncclGetErrorString returns a pointer to a static NUL-terminated string.
        let text = unsafe { (self.get_error_string)(r) };
        Err(ReduceError::Nccl {
            what: what.into(),
            // SAFETY: `text` is null or NCCL's static, NUL-terminated string (above).
            message: unsafe { status_message(r, text) },
        })
    }

    /// The version as `major.minor.patch`.
    pub fn version_string(&self) -> String {
        let v = self.version;
        // NCCL ≥ 2.9 encodes major*10000 + minor*100 + patch.
        format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100)
    }
}

/// NCCL's type for an element type.
fn data_type(t: ElemType) -> ncclDataType_t {
    match t {
        ElemType::F32 => ncclDataType_t::ncclFloat32,
        ElemType::F64 => ncclDataType_t::ncclFloat64,
        ElemType::I32 => ncclDataType_t::ncclInt32,
        ElemType::U32 => ncclDataType_t::ncclUint32,
        ElemType::I64 => ncclDataType_t::ncclInt64,
        ElemType::U64 => ncclDataType_t::ncclUint64,
        ElemType::F16 => ncclDataType_t::ncclFloat16,
        ElemType::BF16 => ncclDataType_t::ncclBfloat16,
    }
}

/// One NCCL communicator per GPU of this process (`ncclCommInitAll`), rank `r` on GPU
/// `ordinals[r]`.
pub struct Nccl {
    lib: &'static NcclLibrary,
    comms: Vec<ncclComm_t>,
    /// Each rank's GPU, to check that the buffers handed in are on it.
    ordinals: Vec<usize>,
    aborted: bool,
}

impl Nccl {
    /// Communicators over `gpus` (rank `r` is `gpus[r]`); loads `libnccl` first.
    pub fn new(gpus: &[&Backend]) -> Result<Self> {
        let lib = load()?;
        let mut ordinals = Vec::with_capacity(gpus.len());
        for (r, b) in gpus.iter().enumerate() {
            match b {
                Backend::Gpu(g) => ordinals.push(g.ordinal()),
                Backend::Emulator(_) => {
                    return Err(ReduceError::InvalidArgument(format!(
                        "rank {r} is the CPU emulator: NCCL needs GPUs (emulated ranks use the \
                         in-memory collective)"
                    )))
                }
            }
        }
        let devs: Vec<c_int> = ordinals.iter().map(|&o| o as c_int).collect();
        let mut comms: Vec<ncclComm_t> = vec![std::ptr::null_mut(); devs.len()];
        // SAFETY: `comms` has room for `devs.len()` handles and `devs` lists that many devices.
        let r =
            unsafe { (lib.comm_init_all)(comms.as_mut_ptr(), devs.len() as c_int, devs.as_ptr()) };
        lib.check(r, format!("ncclCommInitAll over GPUs {ordinals:?}"))?;
        Ok(Nccl {
            lib,
            comms,
            ordinals,
            aborted: false,
        })
    }

    /// The loaded library.
    pub fn library(&self) -> &'static NcclLibrary {
        self.lib
    }
}

impl Collective for Nccl {
    fn name(&self) -> &'static str {
        "nccl"
    }

    fn all_gather<T: Scalar>(
        &mut self,
        ranks: &[&Backend],
        send: &[&Buffer<T>],
        recv: &mut [Buffer<T>],
        count: usize,
    ) -> Result<()> {
        let aborted = self.aborted.then(|| ReduceError::Nccl {
            what: "an all-gather".into(),
            message: "the communicators were aborted after a timeout".into(),
        });
        check_gather(aborted, ranks, send, recv, count)?;
        let mut streams = Vec::with_capacity(ranks.len());
        for (r, b) in ranks.iter().enumerate() {
            match b {
                Backend::Gpu(g) if self.ordinals.get(r) == Some(&g.ordinal()) => {
                    streams.push(g.stream().as_inner() as cudaStream_t)
                }
                _ => {
                    return Err(ReduceError::InvalidArgument(format!(
                        "rank {r} is not GPU {:?}, the GPU of its NCCL communicator",
                        self.ordinals.get(r)
                    )))
                }
            }
        }
        let lib = self.lib;
        // SAFETY: no arguments.
        lib.check(unsafe { (lib.group_start)() }, "ncclGroupStart")?;
        let mut first_error = Ok(());
        for r in 0..ranks.len() {
            if let Err(e) = bind(ranks[r]) {
                first_error = Err(e);
                break;
            }
            // SAFETY: `send[r]` and `recv[r]` are live device buffers of rank r's GPU (checked:
            // owner, and the GPU is this communicator's) holding at least `count` and
            // `ranks.len() · count` elements of `T` (check_gather), whose NCCL type is
            // `data_type(T)`; the stream is that GPU's. The buffers outlive the exchange: freeing device memory waits for the
            // work queued on it.
            let res = unsafe {
                (lib.all_gather)(
                    send[r].addr(0) as *const c_void,
                    recv[r].addr(0) as *mut c_void,
                    count,
                    data_type(T::TYPE),
                    self.comms[r],
                    streams[r],
                )
            };
            if let Err(e) = lib.check(res, format!("ncclAllGather on rank {r}")) {
                first_error = Err(e);
                break;
            }
        }
        // SAFETY: closes the group opened above (always, even after an error).
        let end = lib.check(unsafe { (lib.group_end)() }, "ncclGroupEnd");
        first_error.and(end)
    }

    fn progress(&mut self) -> Result<bool> {
        for (r, &c) in self.comms.iter().enumerate() {
            let mut state = ncclResult_t::ncclSuccess;
            // SAFETY: a live communicator and a valid out-pointer.
            let res = unsafe { (self.lib.comm_get_async_error)(c, &mut state) };
            self.lib
                .check(res, format!("ncclCommGetAsyncError on rank {r}"))?;
            self.lib.check(
                state,
                format!("the exchange on rank {r} (asynchronous error)"),
            )?;
        }
        // NCCL's work is on the ranks' streams, which the reducer waits for.
        Ok(true)
    }

    fn abort(&mut self) {
        if self.aborted {
            return;
        }
        self.aborted = true;
        for &c in &self.comms {
            // SAFETY: a live communicator, aborted once (it is freed by the call).
            unsafe { (self.lib.comm_abort)(c) };
        }
    }
}

impl Drop for Nccl {
    fn drop(&mut self) {
        if self.aborted {
            return;
        }
        for &c in &self.comms {
            // SAFETY: a live communicator, destroyed once; the reducer has waited for (or
            // aborted) all the work queued on it.
            unsafe { (self.lib.comm_destroy)(c) };
        }
    }
}
