//! The kernels this crate ships, and which form of them a GPU loads.
//!
//! `cargo xtask build-ptx` builds the kernels to PTX and has `ptxas` assemble that PTX into SASS for
//! `sm_90` (a cubin); both are committed in `host/prebuilt/`, zstd-compressed, and embedded here at
//! compile time, so the crate needs no GPU toolchain to build. On an `sm_90` device (H100, H200)
//! the cubin is loaded as is; anywhere else the driver JIT-compiles the PTX. Only the image a
//! device loads is decompressed, once per process, with the pure-Rust
//! [`ruzstd`](https://crates.io/crates/ruzstd) decoder (no C library to link).
//!
//! CI (`cargo xtask build-ptx --check`) proves the committed files are exactly what the kernels'
//! source builds to, so the cubin is always the embedded PTX, assembled.

use crate::error::{CudaContext, ReduceError, Result};
use cust::device::{Device, DeviceAttribute};
use cust::module::Module;
use std::io::Read;
use std::sync::OnceLock;

/// The kernels' PTX (`host/prebuilt/reduce_kernels.ptx.zst`), compressed.
const PTX_ZST: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/reduce_kernels.ptx.zst"));

/// The PTX assembled by `ptxas -arch sm_90 -O3` (`host/prebuilt/reduce_kernels.sm_90.cubin.zst`),
/// compressed.
const SM90_CUBIN_ZST: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/reduce_kernels.sm_90.cubin.zst"));

/// The compute capability the embedded cubin runs on.
pub const CUBIN_COMPUTE_CAPABILITY: (u32, u32) = (9, 0);

/// How [`crate::Backend::open`] names the embedded kernels in messages.
pub const EMBEDDED_ORIGIN: &str = "the embedded kernels (host/prebuilt/)";

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

/// The embedded PTX, decompressed on first use (for any GPU the cubin does not run on).
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

/// The embedded `sm_90` cubin, decompressed on first use.
///
/// # Errors
/// [`ReduceError::Ptx`] if the embedded image is corrupt (a broken build, never a user's input).
pub fn embedded_sm90_cubin() -> Result<&'static [u8]> {
    static CUBIN: OnceLock<std::result::Result<Box<[u8]>, String>> = OnceLock::new();
    image(&CUBIN, "sm_90 cubin", || {
        decompress(SM90_CUBIN_ZST).map(Vec::into_boxed_slice)
    })
}

/// Which form of the kernels a device loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelImage {
    /// Machine code for [`CUBIN_COMPUTE_CAPABILITY`]: loads without compiling.
    Sm90Cubin,
    /// PTX: the driver JIT-compiles it for the device when it is loaded.
    Ptx,
}

impl KernelImage {
    /// `sm_90 cubin` or `PTX (JIT)`.
    pub fn describe(&self) -> &'static str {
        match self {
            KernelImage::Sm90Cubin => "sm_90 cubin",
            KernelImage::Ptx => "PTX (JIT-compiled by the driver)",
        }
    }
}

/// Where a GPU's kernels come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelSource<'a> {
    /// The kernels this crate ships: the cubin on an `sm_90` device, the PTX elsewhere.
    Embedded,
    /// PTX from elsewhere (`reduce --ptx FILE`, the CUDA C twins), named `origin` in messages:
    /// always JIT-compiled.
    Ptx {
        /// The PTX text.
        text: &'a str,
        /// Its name in messages (a path).
        origin: &'a str,
    },
}

impl KernelSource<'_> {
    /// What a device of compute capability `cc` loads from this source.
    ///
    /// ```
    /// use reduce_host::kernel_image::{KernelImage, KernelSource};
    /// assert_eq!(KernelSource::Embedded.image_for((9, 0)), KernelImage::Sm90Cubin);
    /// assert_eq!(KernelSource::Embedded.image_for((10, 0)), KernelImage::Ptx);
    /// ```
    pub fn image_for(&self, cc: (u32, u32)) -> KernelImage {
        match self {
            KernelSource::Embedded if cc == CUBIN_COMPUTE_CAPABILITY => KernelImage::Sm90Cubin,
            _ => KernelImage::Ptx,
        }
    }

    /// Its name in messages.
    pub fn origin(&self) -> &str {
        match self {
            KernelSource::Embedded => EMBEDDED_ORIGIN,
            KernelSource::Ptx { origin, .. } => origin,
        }
    }
}

/// Load `source`'s kernels, in the form [`KernelSource::image_for`] picks for `device`, into the
/// current context.
pub(crate) fn load_module(device: &Device, source: KernelSource<'_>) -> Result<Module> {
    let attr = |a| {
        device
            .get_attribute(a)
            .during("reading the compute capability")
    };
    let cc = (
        attr(DeviceAttribute::ComputeCapabilityMajor)? as u32,
        attr(DeviceAttribute::ComputeCapabilityMinor)? as u32,
    );
    let image = source.image_for(cc);
    let loaded = match (source, image) {
        (KernelSource::Embedded, KernelImage::Sm90Cubin) => {
            Module::from_cubin(embedded_sm90_cubin()?, &[])
        }
        (KernelSource::Embedded, KernelImage::Ptx) => Module::from_ptx(embedded_ptx()?, &[]),
        (KernelSource::Ptx { text, .. }, _) => Module::from_ptx(text, &[]),
    };
    loaded.map_err(|e| ReduceError::Ptx {
        path: source.origin().to_string(),
        reason: format!("the driver rejected its {}: {e}", image.describe()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_cubin_is_an_sm90_elf_image() {
        let c = embedded_sm90_cubin().unwrap();
        assert_eq!(&c[..4], b"\x7fELF", "not an ELF file");
        assert_eq!(c[4], 2, "not a 64-bit ELF");
        // e_machine 190 = EM_CUDA; the low byte of e_flags holds the SM version (90) for cubins
        // of this ELF ABI version.
        assert_eq!(u16::from_le_bytes([c[18], c[19]]), 190, "not a CUDA ELF");
        let flags = u32::from_le_bytes([c[48], c[49], c[50], c[51]]);
        assert_eq!(flags & 0xff, 90, "e_flags {flags:#x} do not name sm_90");
    }

    #[test]
    fn only_the_embedded_kernels_on_sm90_select_the_cubin() {
        assert_eq!(
            KernelSource::Embedded.image_for((9, 0)),
            KernelImage::Sm90Cubin
        );
        let other = KernelSource::Ptx {
            text: ".target sm_90",
            origin: "x.ptx",
        };
        assert_eq!(other.image_for((9, 0)), KernelImage::Ptx);
        for cc in [(7, 0), (8, 0), (8, 9), (9, 1), (10, 0), (12, 0)] {
            assert_eq!(
                KernelSource::Embedded.image_for(cc),
                KernelImage::Ptx,
                "{cc:?}"
            );
        }
    }

    #[test]
    fn a_corrupt_image_is_a_typed_error_naming_it() {
        assert!(decompress(b"not zstd").is_err());
        static BAD: OnceLock<std::result::Result<Box<[u8]>, String>> = OnceLock::new();
        let e = image(&BAD, "test image", || {
            decompress(b"\x28\xb5\x2f\xfd junk").map(Vec::into)
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("test image cannot be decompressed"), "{e}");
    }

    #[test]
    fn every_kernel_of_the_ptx_is_in_the_cubin() {
        let cubin = String::from_utf8_lossy(embedded_sm90_cubin().unwrap());
        let mut n = 0;
        for line in embedded_ptx().unwrap().lines() {
            if let Some(rest) = line.trim().strip_prefix(".visible .entry ") {
                let name = rest.split('(').next().unwrap_or_default();
                // A cubin has one `.text.NAME` section per kernel.
                let section = format!(".text.{name}\0");
                assert!(cubin.contains(&section), "{name} is not in the cubin");
                n += 1;
            }
        }
        assert!(n > 50, "only {n} kernels in the PTX");
    }
}
