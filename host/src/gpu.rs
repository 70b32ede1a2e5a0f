//! A real GPU through `cust`: one CUDA context, the embedded kernels (the cubin of its
//! architecture, or the PTX kernel by kernel), one stream.

use crate::buffer::BackendId;
use crate::caps::DeviceCaps;
use crate::error::{CudaContext, ReduceError, Result};
use cust::sys as cu;
use reduce_kernels::table::KernelId;
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;

mod launching;

pub(crate) use crate::error::driver_result;
use crate::kernel_image::{KernelImage, KernelSource, Loaded};
pub(crate) use crate::mapped::Mapped;

/// A real GPU.
pub struct Gpu {
    // Field order = drop order: the module and stream go before the context.
    kernels: Loaded,
    stream: cust::stream::Stream,
    /// The module's functions, by kernel, resolved (through the symbol) on first use.
    functions: RefCell<HashMap<KernelId, cu::CUfunction>>,
    /// The benchmarks' gate, resolved on first use.
    gate: OnceCell<cu::CUfunction>,
    /// The dynamic shared memory each kernel was allowed above the default 48 KiB.
    shared_allowed: RefCell<HashMap<KernelId, usize>>,
    ptx_origin: String,
    image: KernelImage,
    pub(crate) caps: DeviceCaps,
    pub(crate) id: BackendId,
    ordinal: usize,
    _context: cust::context::Context,
}

impl Gpu {
    /// Open GPU 0 and load the embedded kernels (see [`crate::kernel_image`]): the cubin of its
    /// architecture, or the PTX (`REDUCE_KERNEL_IMAGE=ptx` forces the PTX).
    pub fn open() -> Result<Self> {
        Self::open_device_with(0, KernelSource::from_env()?)
    }

    /// Open GPU 0 with the kernels from `source`.
    pub fn open_source(source: KernelSource<'_>) -> Result<Self> {
        Self::open_device_with(0, source)
    }

    /// Open GPU 0 and load PTX from a file (e.g. the CUDA C twins built by nvcc).
    pub fn open_with_ptx_file(path: &std::path::Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| ReduceError::Ptx {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Self::open_with_ptx(&text, &path.display().to_string())
    }

    /// Open GPU 0 and load `ptx` (named `origin` in messages).
    ///
    /// Trust boundary: the library launches the module's kernels by name with its own calling
    /// conventions (see `reduce_kernels::exports`), so a module must implement them as
    /// `cargo xtask build-ptx` (or the CUDA C twins) does. A kernel that does not can corrupt
    /// this context's device memory and the mapped result, as any CUDA kernel can; it cannot make
    /// the host library read out of bounds (every host-side access is checked).
    pub fn open_with_ptx(ptx: &str, origin: &str) -> Result<Self> {
        if !ptx.contains(".entry") || !ptx.contains(".target") {
            return Err(ReduceError::Ptx {
                path: origin.to_string(),
                reason: "it is not PTX (no .target / .entry lines)".into(),
            });
        }
        Self::open_device_with(0, KernelSource::Ptx { text: ptx, origin })
    }

    /// How many GPUs the driver reports (0 without a driver or GPU).
    pub fn count() -> Result<usize> {
        cust::init(cust::CudaFlags::empty()).map_err(ReduceError::NoDriver)?;
        Ok(cust::device::Device::num_devices().during("counting devices")? as usize)
    }

    /// Open GPU `ordinal` (0-based, in the driver's order) with the embedded kernels. Its primary
    /// context becomes current on this thread; with several GPUs open in one thread every use of
    /// one must be preceded by [`Gpu::make_current`], which is why only the multi-GPU reducer
    /// (`crate::multi`), which does so, opens GPUs other than 0.
    pub(crate) fn open_device(ordinal: usize) -> Result<Self> {
        Self::open_device_with(ordinal, KernelSource::from_env()?)
    }

    /// Make this GPU's context current on the calling thread: every `cust` call (allocation,
    /// copy, launch) goes to the current context.
    pub fn make_current(&self) -> Result<()> {
        cust::context::CurrentContext::set_current(&self._context)
            .during("making a GPU's context current")
    }

    /// This GPU's context: the device's primary context (`cuDevicePrimaryCtxRetain`), the one
    /// the CUDA runtime, cudarc and PyTorch use.
    pub fn cu_context(&self) -> cu::CUcontext {
        self._context.as_raw()
    }

    /// The device ordinal this handle opened.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    fn open_device_with(ordinal: usize, source: KernelSource<'_>) -> Result<Self> {
        cust::init(cust::CudaFlags::empty()).map_err(ReduceError::NoDriver)?;
        let count = cust::device::Device::num_devices().during("counting devices")?;
        if count == 0 {
            return Err(ReduceError::NoDevice);
        }
        if ordinal >= count as usize {
            return Err(ReduceError::InvalidArgument(format!(
                "GPU {ordinal} does not exist: the driver reports {count} GPU(s)"
            )));
        }
        let device = cust::device::Device::get_device(ordinal as u32)
            .during(format!("opening device {ordinal}"))?;
        // The embedded image this device loads decompresses (zstd, ~14 MB) on another thread
        // while the context is made, so a cold open does not wait for both in turn. If no
        // thread can be started, it decompresses when it is loaded.
        let cc = crate::kernel_image::compute_capability(&device)?;
        let image = source.image_for(cc);
        let prefetch = std::thread::Builder::new()
            .name("reduce-image".into())
            .spawn(move || match image {
                KernelImage::Sass(arch) => crate::kernel_image::embedded_cubin(arch).is_ok(),
                KernelImage::PtxPerKernel => crate::kernel_image::embedded_split_ptx().is_ok(),
                KernelImage::Ptx => true,
            })
            .ok();
        // The device's PRIMARY context: cust 0.3.2's `Context::new` is `cuDevicePrimaryCtxRetain`
        // (+ `cuCtxSetCurrent`; released on drop), the context cudarc, the CUDA runtime and
        // PyTorch use, so their device memory is this GPU's with no context switch
        // (`crate::borrowed`; `Gpu::cu_context`, checked in `host/tests/borrowed_gpu.rs`).
        let context = cust::context::Context::new(device).during("creating a context")?;
        // Its result is cached: `load` reads it (or the typed error of a corrupt image).
        if let Some(thread) = prefetch {
            let _ = thread.join();
        }
        let (kernels, image) = crate::kernel_image::load(&device, source)?;
        let stream = cust::stream::Stream::new(cust::stream::StreamFlags::NON_BLOCKING, None)
            .during("creating a stream")?;
        use cust::device::DeviceAttribute as A;
        let attr = |a| device.get_attribute(a).during("reading device attributes");
        let caps = DeviceCaps {
            name: device.name().during("reading the device name")?,
            sm_count: attr(A::MultiprocessorCount)? as usize,
            max_threads_per_sm: attr(A::MaxThreadsPerMultiprocessor)? as usize,
            max_blocks_per_sm: raw_attr(
                &device,
                cu::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
            )?,
            registers_per_sm: attr(A::MaxRegistersPerMultiprocessor)? as usize,
            shared_per_sm: attr(A::MaxSharedMemoryPerMultiprocessor)? as usize,
            shared_per_block_optin: raw_attr(
                &device,
                cu::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?,
            l2_bytes: attr(A::L2CacheSize)? as usize,
            memory_bus_bits: attr(A::GlobalMemoryBusWidth)? as usize,
            memory_clock_khz: attr(A::MemoryClockRate)? as usize,
            total_mem: device.total_memory().during("reading device memory")? as u64,
            compute_capability: cc,
        };
        Ok(Gpu {
            kernels,
            stream,
            functions: RefCell::new(HashMap::new()),
            gate: OnceCell::new(),
            shared_allowed: RefCell::new(HashMap::new()),
            ptx_origin: source.origin().to_string(),
            image,
            caps,
            id: BackendId::fresh(),
            ordinal,
            _context: context,
        })
    }

    /// The stream every launch and copy of this handle goes to.
    pub fn stream(&self) -> &cust::stream::Stream {
        &self.stream
    }

    /// Free and total device memory in bytes (`cuMemGetInfo`).
    pub fn mem_info(&self) -> Result<(u64, u64)> {
        let (f, t) = cust::memory::mem_get_info().during("cuMemGetInfo")?;
        Ok((f as u64, t as u64))
    }

    /// `kernel`'s function in the loaded module (cached; its symbol from the kernel table).
    pub(crate) fn function(&self, kernel: KernelId) -> Result<cu::CUfunction> {
        if let Some(f) = self.functions.borrow().get(&kernel) {
            return Ok(*f);
        }
        let f = self.function_named(kernel.symbol().as_str())?;
        self.functions.borrow_mut().insert(kernel, f);
        Ok(f)
    }

    /// The kernels' entry point `symbol`, looked up in the driver (on the per-kernel PTX path,
    /// its module is JIT-compiled and loaded first).
    fn function_named(&self, symbol: &str) -> Result<cu::CUfunction> {
        self.kernels
            .function(symbol)?
            .ok_or_else(|| ReduceError::MissingKernel {
                name: symbol.to_string(),
                path: self.ptx_origin.clone(),
            })
    }

    /// The form of the kernels this GPU loaded: a cubin, or PTX the driver JIT-compiles.
    pub fn kernel_image(&self) -> KernelImage {
        self.image
    }

    /// Let `kernel` (`f`) launch with `bytes` of dynamic shared memory: above 48 KiB a kernel must
    /// opt in (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, once per kernel and size; the
    /// driver refuses more than the device's per-block maximum, a typed error).
    pub(crate) fn allow_shared(
        &self,
        f: cu::CUfunction,
        kernel: KernelId,
        bytes: usize,
    ) -> Result<()> {
        const DEFAULT: usize = 48 * 1024;
        let allowed = self.shared_allowed.borrow().get(&kernel).copied();
        if bytes <= DEFAULT || allowed.is_some_and(|a| a >= bytes) {
            return Ok(());
        }
        if bytes > self.caps.shared_per_block_optin {
            return Err(ReduceError::InvalidArgument(format!(
                "{kernel} needs {bytes} bytes of shared memory per block, more than {} allows \
                 ({} bytes)",
                self.caps.name, self.caps.shared_per_block_optin
            )));
        }
        let attr = cu::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
        let value = i32::try_from(bytes).unwrap_or(i32::MAX);
        // SAFETY: `f` is a function of this handle's module (from `function`), which lives as
        // long as `self`; setting an attribute touches nothing else.
        let r = unsafe { cu::cuFuncSetAttribute(f, attr, value) };
        driver_result(
            r,
            format!("allowing {kernel} {bytes} bytes of dynamic shared memory"),
        )?;
        self.shared_allowed.borrow_mut().insert(kernel, bytes);
        Ok(())
    }

    /// Is `kernel` among the loaded kernels? (On the per-kernel PTX path this loads nothing.)
    pub fn has_kernel(&self, kernel: KernelId) -> bool {
        self.functions.borrow().contains_key(&kernel) || self.kernels.has(kernel.symbol().as_str())
    }
}

/// A device attribute `cust`'s enum does not name, through the raw binding.
fn raw_attr(device: &cust::device::Device, attr: cu::CUdevice_attribute) -> Result<usize> {
    let mut value: i32 = 0;
    // SAFETY: `value` is a live `i32` the driver writes; the device handle is valid.
    let r = unsafe { cu::cuDeviceGetAttribute(&mut value, attr, device.as_raw()) };
    driver_result(r, format!("reading device attribute {attr:?}"))?;
    Ok(usize::try_from(value).unwrap_or(0))
}
