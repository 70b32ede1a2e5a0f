//! `cuLaunchKernelEx` (CUDA 12+): a kernel launch with launch attributes — here the one stage 8's
//! two-kernel form needs, *programmatic stream serialization* (a programmatic dependent launch,
//! PDL: the kernel may start while the one before it on the stream still runs, and waits for it
//! with `griddepcontrol.wait`; see `reduce_kernels::stages::s8_pdl`).
//!
//! **Binding.** `cust` 0.3.2's raw bindings stop at CUDA 11.4, before `cuLaunchKernelEx`. The C
//! types (`CUlaunchConfig`, `CUlaunchAttribute` and its 64-byte value union) are `cudarc`'s
//! (`cudarc::driver::sys`, the bindgen output of CUDA 13.0's `cuda.h`, a crate the host already
//! depends on for NCCL's types): a maintained, generated copy of the header is a better source of
//! an ABI than a hand transcription, and the layout the driver reads is pinned by the tests below
//! (sizes and offsets as `cuda.h` declares them since CUDA 12.0). `cudarc`'s *loader* is not used:
//! it panics when a symbol is missing, where an older driver must give a typed error. So the
//! entry point is resolved here with `libloading` from `libcuda.so.1` — the library `cust` has
//! already loaded, so this adds a reference, never a second copy — after checking
//! `cuDriverGetVersion` ≥ 12.0; anything missing becomes [`ReduceError::LaunchUnsupported`], and
//! the caller can fall back to the one-kernel (ticket) combine.

use crate::error::{ReduceError, Result};
use cudarc::driver::sys::{
    CUlaunchAttribute, CUlaunchAttributeID, CUlaunchAttributeValue, CUlaunchConfig,
};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

/// The driver library `cust` links (its soname).
const LIBCUDA: &str = "libcuda.so.1";
/// `cuLaunchKernelEx` and its attributes arrived with CUDA 12.0 (`cuDriverGetVersion` = 12000).
const FIRST_DRIVER: c_int = 12000;

/// `CUresult` is a C enum (4 bytes); taken as a plain integer so that a code newer than the
/// bindings can never become an invalid Rust enum value.
type RawResult = u32;
type LaunchKernelExFn = unsafe extern "C" fn(
    *const CUlaunchConfig,
    cust::sys::CUfunction,
    *mut *mut c_void,
    *mut *mut c_void,
) -> RawResult;
type DriverGetVersionFn = unsafe extern "C" fn(*mut c_int) -> RawResult;
type GetErrorStringFn = unsafe extern "C" fn(RawResult, *mut *const c_char) -> RawResult;

/// `cuLaunchKernelEx`, resolved from the loaded driver (see the module docs).
pub(crate) struct LaunchKernelEx {
    launch: LaunchKernelExFn,
    error_string: Option<GetErrorStringFn>,
}

static ENTRY: OnceLock<std::result::Result<LaunchKernelEx, String>> = OnceLock::new();

impl LaunchKernelEx {
    /// The entry point, for a device of compute capability `cc`: an error if the device predates
    /// Hopper (no `griddepcontrol`) or the driver predates CUDA 12.0.
    pub(crate) fn get(cc: (u32, u32)) -> Result<&'static LaunchKernelEx> {
        check_compute_capability(cc)?;
        ENTRY
            .get_or_init(|| resolve(LIBCUDA))
            .as_ref()
            .map_err(|why| unsupported(why.clone()))
    }

    /// Queue `f` on `stream` as a programmatic dependent launch of the kernel queued before it:
    /// `grid` blocks of `block` threads with `shared` bytes of dynamic shared memory. The
    /// driver's error text on failure.
    ///
    /// # Safety
    /// `f` is a kernel of the current context whose parameters are the first pointers of
    /// `params` (each pointing to a live value of the parameter's type), every address those
    /// values hold stays valid until the kernel has run, `stream` belongs to the current context,
    /// and the kernel executes `griddepcontrol.wait` before it accesses memory that the previous
    /// launch on `stream` writes.
    pub(crate) unsafe fn programmatic(
        &self,
        f: cust::sys::CUfunction,
        (grid, block, shared): (usize, usize, usize),
        stream: cust::sys::CUstream,
        params: &mut [*mut c_void; 10],
    ) -> std::result::Result<(), String> {
        let mut value = CUlaunchAttributeValue { pad: [0; 64] };
        value.programmaticStreamSerializationAllowed = 1;
        let mut attrs = [CUlaunchAttribute {
            id: CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
            pad: [0; 4],
            value,
        }];
        let config = CUlaunchConfig {
            gridDimX: dim(grid, "grid")?,
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: dim(block, "block")?,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: dim(shared, "shared memory")?,
            // The same `CUstream_st*` as `cust`'s, under `cudarc`'s name for the opaque type.
            hStream: stream.cast(),
            attrs: attrs.as_mut_ptr(),
            numAttrs: attrs.len() as u32,
        };
        // SAFETY: `config` and `attrs` are valid `cuda.h` structs (layout pinned by the tests)
        // that outlive the call; the rest is this function's contract. The driver copies the
        // arguments before it returns.
        let r = unsafe { (self.launch)(&config, f, params.as_mut_ptr(), std::ptr::null_mut()) };
        if r == 0 {
            Ok(())
        } else {
            Err(self.message(r))
        }
    }

    /// The driver's name and text for a `CUresult`.
    fn message(&self, r: RawResult) -> String {
        let mut text: *const c_char = std::ptr::null();
        if let Some(get) = self.error_string {
            // SAFETY: `cuGetErrorString` writes a pointer to a static string, or leaves it null.
            unsafe { get(r, &mut text) };
        }
        if text.is_null() {
            format!("CUresult {r}")
        } else {
            // SAFETY: non-null, so the driver's static NUL-terminated message.
            let text = unsafe { CStr::from_ptr(text) };
            format!("CUresult {r}: {}", text.to_string_lossy())
        }
    }
}

fn dim(x: usize, what: &str) -> std::result::Result<u32, String> {
    u32::try_from(x).map_err(|_| format!("{what} {x} does not fit a launch dimension"))
}

fn unsupported(why: String) -> ReduceError {
    ReduceError::LaunchUnsupported {
        what: "stage 8's programmatic dependent launch (cuLaunchKernelEx)".into(),
        why,
    }
}

/// `griddepcontrol` needs sm_90.
fn check_compute_capability((major, minor): (u32, u32)) -> Result<()> {
    if major >= 9 {
        Ok(())
    } else {
        Err(unsupported(format!(
            "the device is compute capability {major}.{minor}, and griddepcontrol needs 9.0 \
             (Hopper) or newer"
        )))
    }
}

/// `cuDriverGetVersion`'s value, checked.
fn check_driver_version(version: c_int) -> std::result::Result<(), String> {
    if version >= FIRST_DRIVER {
        Ok(())
    } else {
        Err(format!(
            "the driver supports CUDA {}.{}, and cuLaunchKernelEx needs 12.0",
            version / 1000,
            version % 1000 / 10
        ))
    }
}

/// Load `library` (for the driver: already loaded, so this only takes a reference) and resolve
/// the entry points, or say what is missing.
fn resolve(library: &str) -> std::result::Result<LaunchKernelEx, String> {
    // SAFETY: loading the CUDA driver runs its initialisers, which only set up its own state (and
    // `cust` has loaded it already). The handle is leaked: the functions stay valid for the life
    // of the process.
    let lib =
        unsafe { libloading::Library::new(library) }.map_err(|e| format!("{library}: {e}"))?;
    let lib: &'static libloading::Library = Box::leak(Box::new(lib));
    let version_fn: DriverGetVersionFn =
        // SAFETY: `cuDriverGetVersion(int*)`'s C signature (cuda.h).
        *unsafe { lib.get(b"cuDriverGetVersion\0") }
            .map_err(|e| format!("{library} has no cuDriverGetVersion (not a CUDA driver): {e}"))?;
    let mut version: c_int = 0;
    // SAFETY: a valid out-pointer.
    let r = unsafe { version_fn(&mut version) };
    if r != 0 {
        return Err(format!("cuDriverGetVersion failed (CUresult {r})"));
    }
    check_driver_version(version)?;
    // SAFETY: `cuLaunchKernelEx(const CUlaunchConfig*, CUfunction, void**, void**)`'s C
    // signature (cuda.h, CUDA 12.0+; the driver is at least that, checked above).
    let launch: LaunchKernelExFn = *unsafe { lib.get(b"cuLaunchKernelEx\0") }
        .map_err(|e| format!("{library} (CUDA {version}) has no cuLaunchKernelEx: {e}"))?;
    // SAFETY: `cuGetErrorString(CUresult, const char**)`'s C signature.
    let error_string = unsafe { lib.get::<GetErrorStringFn>(b"cuGetErrorString\0") }
        .ok()
        .map(|s| *s);
    Ok(LaunchKernelEx {
        launch,
        error_string,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn the_structs_have_cuda_h_layout() {
        // cuda.h (12.0+): CUlaunchAttribute = { CUlaunchAttributeID id; char pad[8 - 4];
        // CUlaunchAttributeValue value; } with a 64-byte value union; CUlaunchConfig = seven
        // unsigned ints, then CUstream, CUlaunchAttribute*, unsigned numAttrs.
        assert_eq!(size_of::<CUlaunchAttributeValue>(), 64);
        assert_eq!(offset_of!(CUlaunchAttribute, value), 8);
        assert_eq!(size_of::<CUlaunchAttribute>(), 72);
        assert_eq!(offset_of!(CUlaunchConfig, sharedMemBytes), 24);
        assert_eq!(offset_of!(CUlaunchConfig, hStream), 32);
        assert_eq!(offset_of!(CUlaunchConfig, attrs), 40);
        assert_eq!(offset_of!(CUlaunchConfig, numAttrs), 48);
        assert_eq!(size_of::<CUlaunchConfig>(), 56);
        assert_eq!(
            CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION as u32,
            6
        );
    }

    #[test]
    fn old_devices_and_drivers_are_typed_errors() {
        for cc in [(7, 0), (8, 0), (8, 9)] {
            let e = check_compute_capability(cc).unwrap_err();
            assert!(matches!(e, ReduceError::LaunchUnsupported { .. }), "{e}");
            assert!(e.to_string().contains("9.0"), "{e}");
            assert!(e.to_string().contains("--combine ticket"), "{e}");
        }
        assert!(check_compute_capability((9, 0)).is_ok());
        assert!(check_compute_capability((10, 0)).is_ok());
        let e = check_driver_version(11080).unwrap_err();
        assert!(e.contains("CUDA 11.8"), "{e}");
        assert!(check_driver_version(12000).is_ok());
        assert!(check_driver_version(13000).is_ok());
    }

    #[test]
    fn a_library_without_the_entry_points_is_an_error_not_a_crash() {
        // No such library at all.
        let e = resolve("libno-such-cuda-driver.so.1")
            .err()
            .expect("cannot load");
        assert!(e.contains("libno-such-cuda-driver"), "{e}");
        // A real library that is not the driver: the version query is missing.
        let e = resolve("libc.so.6")
            .err()
            .expect("libc has no cuDriverGetVersion");
        assert!(e.contains("cuDriverGetVersion"), "{e}");
    }
}
