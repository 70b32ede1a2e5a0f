//! The kernels this crate ships, and which form of them a GPU loads.
//!
//! `cargo xtask build-ptx` builds the kernels to PTX and has `ptxas` assemble that PTX into SASS for
//! `sm_90` (a cubin); both are committed in `host/prebuilt/` and embedded here at compile time, so
//! the crate needs no GPU toolchain to build. On an `sm_90` device (H100, H200) the cubin is
//! loaded as is; anywhere else the driver JIT-compiles the PTX. The PTX holds ~100 kernels: JIT
//! compilation of all of them takes seconds on a cold start (2.7 s on an H200 with
//! `CUDA_CACHE_DISABLE=1`), loading the cubin takes milliseconds.
//!
//! CI (`cargo xtask build-ptx --check`) proves the committed files are exactly what the kernels'
//! source builds to, so the cubin is always the embedded PTX, assembled.

use crate::error::{CudaContext, ReduceError, Result};
use cust::device::{Device, DeviceAttribute};
use cust::module::Module;

/// The kernels' PTX (`host/prebuilt/reduce_kernels.ptx`), for any GPU of compute capability 9.0
/// or later.
pub const EMBEDDED_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/reduce_kernels.ptx"));

/// [`EMBEDDED_PTX`] assembled by `ptxas -arch sm_90 -O3` (`host/prebuilt/reduce_kernels.sm_90.cubin`).
pub const EMBEDDED_SM90_CUBIN: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/reduce_kernels.sm_90.cubin"));

/// The compute capability [`EMBEDDED_SM90_CUBIN`] runs on.
pub const CUBIN_COMPUTE_CAPABILITY: (u32, u32) = (9, 0);

/// How [`crate::Backend::open`] names the embedded kernels in messages.
pub const EMBEDDED_ORIGIN: &str = "the embedded kernels (host/prebuilt/)";

/// A loadable form of the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelImage<'a> {
    /// Machine code for [`CUBIN_COMPUTE_CAPABILITY`]: loads without compiling.
    Sm90Cubin(&'a [u8]),
    /// PTX: the driver JIT-compiles it for the device when it is loaded.
    Ptx(&'a str),
}

impl KernelImage<'_> {
    /// `sm_90 cubin` or `PTX (JIT)`.
    pub fn describe(&self) -> &'static str {
        match self {
            KernelImage::Sm90Cubin(_) => "sm_90 cubin",
            KernelImage::Ptx(_) => "PTX (JIT-compiled by the driver)",
        }
    }
}

/// What a device of compute capability `cc` loads for `ptx`: the shipped cubin when `ptx` is the
/// embedded PTX (the cubin is that PTX assembled) and the device is `sm_90`; the PTX otherwise
/// (another GPU, or PTX from elsewhere, such as `reduce --ptx FILE`).
///
/// ```
/// use reduce_host::kernel_image::{select, KernelImage, EMBEDDED_PTX};
/// assert!(matches!(select(EMBEDDED_PTX, (9, 0)), KernelImage::Sm90Cubin(_)));
/// assert_eq!(select(EMBEDDED_PTX, (10, 0)), KernelImage::Ptx(EMBEDDED_PTX));
/// ```
pub fn select(ptx: &str, cc: (u32, u32)) -> KernelImage<'_> {
    if cc == CUBIN_COMPUTE_CAPABILITY && !EMBEDDED_SM90_CUBIN.is_empty() && ptx == EMBEDDED_PTX {
        KernelImage::Sm90Cubin(EMBEDDED_SM90_CUBIN)
    } else {
        KernelImage::Ptx(ptx)
    }
}

/// Load `ptx` (named `origin` in errors), or the cubin [`select`] picks for `device`, into the
/// current context.
pub(crate) fn load_module(device: &Device, ptx: &str, origin: &str) -> Result<Module> {
    let attr = |a| {
        device
            .get_attribute(a)
            .during("reading the compute capability")
    };
    let cc = (
        attr(DeviceAttribute::ComputeCapabilityMajor)? as u32,
        attr(DeviceAttribute::ComputeCapabilityMinor)? as u32,
    );
    let image = select(ptx, cc);
    let loaded = match image {
        KernelImage::Sm90Cubin(cubin) => Module::from_cubin(cubin, &[]),
        KernelImage::Ptx(ptx) => Module::from_ptx(ptx, &[]),
    };
    loaded.map_err(|e| ReduceError::Ptx {
        path: origin.to_string(),
        reason: format!("the driver rejected its {}: {e}", image.describe()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_cubin_is_an_sm90_elf_image() {
        let c = EMBEDDED_SM90_CUBIN;
        assert_eq!(&c[..4], b"\x7fELF", "not an ELF file");
        assert_eq!(c[4], 2, "not a 64-bit ELF");
        // e_machine 190 = EM_CUDA; the low byte of e_flags holds the SM version (90) for cubins
        // of this ELF ABI version.
        assert_eq!(u16::from_le_bytes([c[18], c[19]]), 190, "not a CUDA ELF");
        let flags = u32::from_le_bytes([c[48], c[49], c[50], c[51]]);
        assert_eq!(flags & 0xff, 90, "e_flags {flags:#x} do not name sm_90");
    }

    #[test]
    fn only_the_embedded_ptx_on_sm90_selects_the_cubin() {
        assert_eq!(
            select(EMBEDDED_PTX, (9, 0)),
            KernelImage::Sm90Cubin(EMBEDDED_SM90_CUBIN)
        );
        for cc in [(8, 0), (8, 9), (9, 1), (10, 0), (12, 0)] {
            assert_eq!(
                select(EMBEDDED_PTX, cc),
                KernelImage::Ptx(EMBEDDED_PTX),
                "{cc:?}"
            );
        }
        let other = format!("{EMBEDDED_PTX}\n");
        assert_eq!(select(&other, (9, 0)), KernelImage::Ptx(&other));
    }

    #[test]
    fn every_kernel_of_the_ptx_is_in_the_cubin() {
        let cubin = String::from_utf8_lossy(EMBEDDED_SM90_CUBIN);
        let mut n = 0;
        for line in EMBEDDED_PTX.lines() {
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
