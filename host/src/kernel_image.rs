//! The kernels this crate ships, and which form of them a GPU loads.
//!
//! `cargo xtask build-ptx` builds the kernels to one portable PTX (`.target sm_70`: every GPU from
//! Volta on) and has `ptxas` assemble it into SASS (a cubin) for each architecture of
//! [`SASS_ARCHS`]; all are committed in `host/prebuilt/`, zstd-compressed, and embedded here at
//! compile time, so the crate needs no GPU toolchain to build. A device loads the cubin of its own
//! major version with the highest minor version not above its own (an sm_87 loads sm_86's), which
//! loads without compiling; a device no cubin runs on (a new architecture) loads the PTX, which
//! the driver JIT-compiles **one kernel at a time, on its first launch** (`host/src/kernel_image/ptx_split.rs`),
//! so the first `sum` waits for one kernel's compile, not the library's. Only the image a device
//! loads is decompressed, once per process, with the pure-Rust
//! [`ruzstd`](https://crates.io/crates/ruzstd) decoder (no C library to link).
//!
//! `REDUCE_KERNEL_IMAGE=ptx` in the environment (or [`KernelSource::EmbeddedPtx`]) makes a GPU
//! load the PTX even where a cubin matches: how the JIT path is tested and measured on any GPU.
//!
//! CI (`cargo xtask build-ptx --check`) proves the committed files are exactly what the kernels'
//! source builds to, so every cubin is the embedded PTX, assembled.

use crate::error::{CudaContext, ReduceError, Result};
mod ptx_split;
use cust::device::{Device, DeviceAttribute};
use cust::module::Module;
use ptx_split::SplitPtx;
use std::io::Read;
use std::sync::OnceLock;

/// The kernels' PTX (`host/prebuilt/reduce_kernels.ptx.zst`), compressed.
const PTX_ZST: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/reduce_kernels.ptx.zst"));

macro_rules! cubins {
    ($(($major:literal, $minor:literal, $file:literal)),+ $(,)?) => {
        /// The compute capabilities the embedded cubins are assembled for (`ptxas -arch sm_XY`).
        pub const SASS_ARCHS: &[(u32, u32)] = &[$(($major, $minor)),+];
        /// The cubins, compressed, in [`SASS_ARCHS`]' order.
        const CUBINS_ZST: &[&[u8]] = &[$(include_bytes!(concat!(env!("OUT_DIR"), "/", $file))),+];
    };
}
cubins!(
    (7, 0, "reduce_kernels.sm_70.cubin.zst"),
    (7, 5, "reduce_kernels.sm_75.cubin.zst"),
    (8, 0, "reduce_kernels.sm_80.cubin.zst"),
    (8, 6, "reduce_kernels.sm_86.cubin.zst"),
    (8, 9, "reduce_kernels.sm_89.cubin.zst"),
    (9, 0, "reduce_kernels.sm_90.cubin.zst"),
    (10, 0, "reduce_kernels.sm_100.cubin.zst"),
    (12, 0, "reduce_kernels.sm_120.cubin.zst"),
);

/// The lowest compute capability the PTX runs on (`.target sm_70`).
pub const PTX_MIN_COMPUTE_CAPABILITY: (u32, u32) = (7, 0);

/// How [`crate::Backend::open`] names the embedded kernels in messages.
pub const EMBEDDED_ORIGIN: &str = "the embedded kernels (host/prebuilt/)";

/// The environment variable that picks the embedded image: `sass` (the default: a matching
/// cubin, else the PTX) or `ptx` (always the PTX).
pub const IMAGE_ENV: &str = "REDUCE_KERNEL_IMAGE";

/// `bytes` (a zstd frame) decompressed, or why not.
fn decompress(bytes: &[u8]) -> std::result::Result<Vec<u8>, String> {
    let mut source = bytes;
    let mut decoder =
        ruzstd::decoding::StreamingDecoder::new(&mut source).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    decoder.read_to_end(&mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// A decompressed image, kept for the process; a corrupt image is a typed error naming it.
fn image<T: ?Sized>(
    cell: &'static OnceLock<std::result::Result<Box<T>, String>>,
    what: &str,
    make: impl FnOnce() -> std::result::Result<Box<T>, String>,
) -> Result<&'static T> {
    match cell.get_or_init(make) {
        Ok(image) => Ok(image),
        Err(reason) => Err(ReduceError::Ptx {
            path: EMBEDDED_ORIGIN.to_string(),
            reason: format!("its {what} cannot be decompressed: {reason}"),
        }),
    }
}

/// The embedded PTX, decompressed on first use (for any GPU no cubin runs on).
///
/// # Errors
/// [`ReduceError::Ptx`] if the embedded image is corrupt (a broken build, never a user's input).
pub fn embedded_ptx() -> Result<&'static str> {
    static PTX: OnceLock<std::result::Result<Box<str>, String>> = OnceLock::new();
    image(&PTX, "PTX", || {
        let bytes = decompress(PTX_ZST)?;
        String::from_utf8(bytes)
            .map(String::into_boxed_str)
            .map_err(|e| format!("not UTF-8 text: {e}"))
    })
}

/// The embedded PTX indexed by kernel ([`SplitPtx`]), made on first use.
///
/// # Errors
/// [`ReduceError::Ptx`] if the embedded image is corrupt.
pub(crate) fn embedded_split_ptx() -> Result<&'static SplitPtx<'static>> {
    static SPLIT: OnceLock<Option<SplitPtx<'static>>> = OnceLock::new();
    let ptx = embedded_ptx()?;
    SPLIT
        .get_or_init(|| SplitPtx::parse(ptx))
        .as_ref()
        .ok_or_else(|| ReduceError::Ptx {
            path: EMBEDDED_ORIGIN.to_string(),
            reason: "its PTX cannot be split into kernels (not LLVM's layout)".into(),
        })
}

/// The embedded cubin for compute capability `arch` (one of [`SASS_ARCHS`]), decompressed on first
/// use; `None` for an architecture no cubin is assembled for.
///
/// # Errors
/// [`ReduceError::Ptx`] if the embedded image is corrupt (a broken build, never a user's input).
pub fn embedded_cubin(arch: (u32, u32)) -> Result<Option<&'static [u8]>> {
    type Cell = OnceLock<std::result::Result<Box<[u8]>, String>>;
    static CUBINS: [Cell; 8] = [const { OnceLock::new() }; 8];
    let Some(i) = SASS_ARCHS.iter().position(|a| *a == arch) else {
        return Ok(None);
    };
    let what = format!("sm_{}{} cubin", arch.0, arch.1);
    image(&CUBINS[i], &what, || {
        decompress(CUBINS_ZST[i]).map(Vec::into_boxed_slice)
    })
    .map(Some)
}

/// The cubin a device of compute capability `cc` runs: its own major version, the highest minor
/// version not above its own. `None`: no cubin runs on it (the PTX does, from sm_70 on).
pub fn sass_for(cc: (u32, u32)) -> Option<(u32, u32)> {
    SASS_ARCHS
        .iter()
        .copied()
        .filter(|&(major, minor)| major == cc.0 && minor <= cc.1)
        .max()
}

/// Which form of the kernels a device loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum KernelImage {
    /// Machine code for this compute capability: loads without compiling.
    Sass((u32, u32)),
    /// The embedded PTX: the driver JIT-compiles each kernel on its first launch.
    PtxPerKernel,
    /// PTX from elsewhere: the driver JIT-compiles the whole module when it is loaded.
    Ptx,
}

impl KernelImage {
    /// `sm_90 cubin`, `PTX (…)`.
    pub fn describe(&self) -> String {
        match self {
            KernelImage::Sass((major, minor)) => format!("sm_{major}{minor} cubin"),
            KernelImage::PtxPerKernel => {
                "PTX (JIT-compiled by the driver, each kernel on first use)".into()
            }
            KernelImage::Ptx => "PTX (JIT-compiled by the driver)".into(),
        }
    }
}

/// Where a GPU's kernels come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelSource<'a> {
    /// The kernels this crate ships: the cubin of the device's architecture, or the PTX where none
    /// matches.
    Embedded,
    /// The kernels this crate ships, always as PTX (`REDUCE_KERNEL_IMAGE=ptx`): the driver
    /// JIT-compiles each kernel on its first launch.
    EmbeddedPtx,
    /// PTX from elsewhere (`reduce --ptx FILE`, the CUDA C twins), named `origin` in messages:
    /// always JIT-compiled, as one module.
    Ptx {
        /// The PTX text.
        text: &'a str,
        /// Its name in messages (a path).
        origin: &'a str,
    },
}

impl KernelSource<'_> {
    /// The embedded kernels in the form `REDUCE_KERNEL_IMAGE` asks for: unset, empty or `sass` →
    /// [`KernelSource::Embedded`]; `ptx` → [`KernelSource::EmbeddedPtx`].
    ///
    /// # Errors
    /// [`ReduceError::InvalidArgument`] naming the variable for any other value.
    pub fn from_env() -> Result<KernelSource<'static>> {
        match std::env::var(IMAGE_ENV) {
            Err(std::env::VarError::NotPresent) => Ok(KernelSource::Embedded),
            Ok(v) if v.is_empty() || v.eq_ignore_ascii_case("sass") => Ok(KernelSource::Embedded),
            Ok(v) if v.eq_ignore_ascii_case("ptx") => Ok(KernelSource::EmbeddedPtx),
            Ok(v) => Err(ReduceError::InvalidArgument(format!(
                "{IMAGE_ENV}={v:?}: expected `sass` (a cubin where one matches the GPU) or `ptx`"
            ))),
            Err(e) => Err(ReduceError::InvalidArgument(format!("{IMAGE_ENV}: {e}"))),
        }
    }

    /// What a device of compute capability `cc` loads from this source.
    ///
    /// ```
    /// use reduce_host::kernel_image::{KernelImage, KernelSource};
    /// assert_eq!(KernelSource::Embedded.image_for((9, 0)), KernelImage::Sass((9, 0)));
    /// assert_eq!(KernelSource::Embedded.image_for((8, 7)), KernelImage::Sass((8, 6)));
    /// assert_eq!(KernelSource::Embedded.image_for((11, 0)), KernelImage::PtxPerKernel);
    /// assert_eq!(KernelSource::EmbeddedPtx.image_for((9, 0)), KernelImage::PtxPerKernel);
    /// ```
    pub fn image_for(&self, cc: (u32, u32)) -> KernelImage {
        match self {
            KernelSource::Embedded => {
                sass_for(cc).map_or(KernelImage::PtxPerKernel, KernelImage::Sass)
            }
            KernelSource::EmbeddedPtx => KernelImage::PtxPerKernel,
            KernelSource::Ptx { .. } => KernelImage::Ptx,
        }
    }

    /// Its name in messages.
    pub fn origin(&self) -> &str {
        match self {
            KernelSource::Embedded | KernelSource::EmbeddedPtx => EMBEDDED_ORIGIN,
            KernelSource::Ptx { origin, .. } => origin,
        }
    }
}

/// The kernels a GPU has loaded.
pub(crate) enum Loaded {
    /// One module holding every kernel: a cubin, or a caller's PTX.
    Whole(Module),
    /// The embedded PTX, one module per kernel, each JIT-compiled on the kernel's first use. The
    /// modules are kept until the GPU handle drops (their functions are cached).
    PerKernel {
        ptx: &'static SplitPtx<'static>,
        modules: std::cell::RefCell<Vec<Module>>,
    },
}

impl Loaded {
    /// The function `symbol`, loading its module first on the per-kernel path; `None` if the
    /// kernels have no such symbol.
    pub(crate) fn function(&self, symbol: &str) -> Result<Option<cust::sys::CUfunction>> {
        match self {
            Loaded::Whole(m) => Ok(m.get_function(symbol).ok().map(|f| f.to_raw())),
            Loaded::PerKernel { ptx, modules } => {
                let Some(text) = ptx.module_for(symbol) else {
                    return Ok(None);
                };
                let module = Module::from_ptx(&text, &[]).map_err(|e| ReduceError::Ptx {
                    path: EMBEDDED_ORIGIN.to_string(),
                    reason: format!("the driver rejected kernel {symbol}'s PTX: {e}"),
                })?;
                let f = module
                    .get_function(symbol)
                    .during(format!("finding {symbol} in its module"))?
                    .to_raw();
                modules.borrow_mut().push(module);
                Ok(Some(f))
            }
        }
    }

    /// Does it hold kernel `symbol` (without loading anything)?
    pub(crate) fn has(&self, symbol: &str) -> bool {
        match self {
            Loaded::Whole(m) => m.get_function(symbol).is_ok(),
            Loaded::PerKernel { ptx, .. } => ptx.has(symbol),
        }
    }
}

/// The compute capability of `device`.
pub(crate) fn compute_capability(device: &Device) -> Result<(u32, u32)> {
    let attr = |a| {
        device
            .get_attribute(a)
            .during("reading the compute capability")
    };
    Ok((
        attr(DeviceAttribute::ComputeCapabilityMajor)? as u32,
        attr(DeviceAttribute::ComputeCapabilityMinor)? as u32,
    ))
}

/// Load `source`'s kernels, in the form [`KernelSource::image_for`] picks for `device`, into the
/// current context: a cubin or a caller's PTX as one module now; the embedded PTX kernel by kernel
/// later. A device below sm_70 is [`ReduceError::UnsupportedDevice`].
pub(crate) fn load(device: &Device, source: KernelSource<'_>) -> Result<(Loaded, KernelImage)> {
    let cc = compute_capability(device)?;
    if cc < PTX_MIN_COMPUTE_CAPABILITY {
        return Err(ReduceError::UnsupportedDevice {
            name: device.name().unwrap_or_else(|_| "this GPU".into()),
            compute_capability: cc,
        });
    }
    let image = source.image_for(cc);
    let rejected = |e: cust::error::CudaError| ReduceError::Ptx {
        path: source.origin().to_string(),
        reason: format!("the driver rejected its {}: {e}", image.describe()),
    };
    let loaded = match (source, image) {
        (_, KernelImage::Sass(arch)) => {
            let cubin = embedded_cubin(arch)?.ok_or_else(|| ReduceError::Ptx {
                path: EMBEDDED_ORIGIN.to_string(),
                reason: format!("no cubin for sm_{}{}", arch.0, arch.1),
            })?;
            Loaded::Whole(Module::from_cubin(cubin, &[]).map_err(rejected)?)
        }
        (KernelSource::Ptx { text, .. }, _) => {
            Loaded::Whole(Module::from_ptx(text, &[]).map_err(rejected)?)
        }
        (_, _) => Loaded::PerKernel {
            ptx: embedded_split_ptx()?,
            modules: std::cell::RefCell::new(Vec::new()),
        },
    };
    Ok((loaded, image))
}

#[cfg(test)]
mod tests;
