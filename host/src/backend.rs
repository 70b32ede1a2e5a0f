//! Where kernels run: an NVIDIA GPU through `cust`, or the CPU emulator. Both take the same kernel
//! names, launch shapes and arguments, so every stage runs on either.

use crate::error::{CudaContext, ReduceError, Result};
use crate::{ElemType, Scalar};
use cust::memory::{CopyDestination, DeviceBuffer, DeviceCopy};
use cust::sys as cu;
use std::cell::{RefCell, UnsafeCell};
use std::collections::HashMap;
use std::ffi::c_void;

/// What the planner needs to know about the device.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DeviceCaps {
    /// Marketing name (`NVIDIA H200`) or `CPU emulator`.
    pub name: String,
    /// Streaming multiprocessors.
    pub sm_count: usize,
    /// Resident threads per SM.
    pub max_threads_per_sm: usize,
    /// Device memory in bytes.
    pub total_mem: u64,
    /// Compute capability (major, minor); (0, 0) for the emulator.
    pub compute_capability: (u32, u32),
}

pub use crate::kernel_image::EMBEDDED_PTX;

/// Arguments of one launch, as device addresses (the emulator's are host addresses).
#[derive(Clone, Copy, Debug)]
pub enum KernelArgs {
    /// Stages 1–7: `(input, n, partials)`.
    Ladder {
        /// Input address.
        input: u64,
        /// Input length.
        n: usize,
        /// Output (one per block) address.
        partials: u64,
    },
    /// Stage 8: `(input, n, partials, counter, out)`.
    SinglePass {
        /// Input address.
        input: u64,
        /// Input length.
        n: usize,
        /// Per-block partials.
        partials: u64,
        /// Zeroed ticket counter.
        counter: u64,
        /// Result address.
        out: u64,
    },
}

/// A launch: kernel symbol, shape, arguments.
#[derive(Clone, Debug)]
pub struct Launch<'a> {
    /// Kernel symbol (`reduce_s3_sequential_f32`).
    pub kernel: &'a str,
    /// Blocks.
    pub grid: usize,
    /// Threads per block.
    pub block: usize,
    /// Dynamic shared memory bytes.
    pub shared_bytes: usize,
    /// Arguments.
    pub args: KernelArgs,
}

/// A real GPU.
pub struct Gpu {
    // Field order = drop order: the module and stream go before the context.
    module: cust::module::Module,
    stream: cust::stream::Stream,
    functions: RefCell<HashMap<String, cu::CUfunction>>,
    ptx_origin: String,
    caps: DeviceCaps,
    _context: cust::context::Context,
}

impl Gpu {
    /// Open GPU 0 and load the embedded kernels (see [`crate::kernel_image`]).
    pub fn open() -> Result<Self> {
        Self::open_with_ptx(EMBEDDED_PTX, crate::kernel_image::EMBEDDED_ORIGIN)
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
    pub fn open_with_ptx(ptx: &str, origin: &str) -> Result<Self> {
        if !ptx.contains(".entry") || !ptx.contains(".target") {
            return Err(ReduceError::Ptx {
                path: origin.to_string(),
                reason: "it is not PTX (no .target / .entry lines)".into(),
            });
        }
        cust::init(cust::CudaFlags::empty()).map_err(ReduceError::NoDriver)?;
        let count = cust::device::Device::num_devices().during("counting devices")?;
        if count == 0 {
            return Err(ReduceError::NoDevice);
        }
        let device = cust::device::Device::get_device(0).during("opening device 0")?;
        let context = cust::context::Context::new(device).during("creating a context")?;
        // The sm_90 cubin for the embedded PTX on an sm_90 device, the PTX otherwise.
        let module = crate::kernel_image::load_module(&device, ptx, origin)?;
        let stream = cust::stream::Stream::new(cust::stream::StreamFlags::NON_BLOCKING, None)
            .during("creating a stream")?;
        use cust::device::DeviceAttribute as A;
        let attr = |a| device.get_attribute(a).during("reading device attributes");
        let caps = DeviceCaps {
            name: device.name().during("reading the device name")?,
            sm_count: attr(A::MultiprocessorCount)? as usize,
            max_threads_per_sm: attr(A::MaxThreadsPerMultiprocessor)? as usize,
            total_mem: device.total_memory().during("reading device memory")? as u64,
            compute_capability: (
                attr(A::ComputeCapabilityMajor)? as u32,
                attr(A::ComputeCapabilityMinor)? as u32,
            ),
        };
        Ok(Gpu {
            module,
            stream,
            functions: RefCell::new(HashMap::new()),
            ptx_origin: origin.to_string(),
            caps,
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

    fn function(&self, name: &str) -> Result<cu::CUfunction> {
        if let Some(f) = self.functions.borrow().get(name) {
            return Ok(*f);
        }
        let f = self
            .module
            .get_function(name)
            .map_err(|_| ReduceError::MissingKernel {
                name: name.to_string(),
                path: self.ptx_origin.clone(),
            })?
            .to_raw();
        self.functions.borrow_mut().insert(name.to_string(), f);
        Ok(f)
    }

    /// Is `name` in the loaded module?
    pub fn has_kernel(&self, name: &str) -> bool {
        self.function(name).is_ok()
    }

    fn launch(&self, l: &Launch<'_>) -> Result<()> {
        // Every argument is 64 bits wide; the driver reads as many as the kernel declares.
        let mut words: [u64; 5] = match l.args {
            KernelArgs::Ladder { input, n, partials } => [input, n as u64, partials, 0, 0],
            KernelArgs::SinglePass {
                input,
                n,
                partials,
                counter,
                out,
            } => [input, n as u64, partials, counter, out],
        };
        // SAFETY: every kernel of this crate takes 64-bit pointers and a 64-bit length, in the
        // order `KernelArgs` lists them; the buffers behind the addresses are owned by the caller
        // for the duration of the launch (the stream is synchronized before they are freed).
        unsafe { self.launch_words(l.kernel, l.grid, l.block, l.shared_bytes, &mut words) }
    }

    /// Queue the benchmarks' gate kernel (`bench_gate`, one thread): it holds this stream until
    /// the host writes a non-zero `u32` at `flag`, or `timeout_ns` passes (then it writes 1 at
    /// `flag + 4`). See `reduce_kernels::bench_gate`.
    ///
    /// # Safety
    /// `flag` is the device address of two `u32` in pinned, mapped host memory that stay
    /// allocated until the stream has passed the gate.
    pub(crate) unsafe fn launch_gate(&self, flag: u64, timeout_ns: u64) -> Result<()> {
        self.launch_words("bench_gate", 1, 1, 0, &mut [flag, timeout_ns])
    }

    /// `cuLaunchKernel` with 64-bit arguments.
    ///
    /// # Safety
    /// `words` must match the kernel's parameters, and every address in them must stay valid
    /// until the kernel has run.
    unsafe fn launch_words(
        &self,
        kernel: &str,
        grid: usize,
        block: usize,
        shared_bytes: usize,
        words: &mut [u64],
    ) -> Result<()> {
        const MAX_ARGS: usize = 5;
        assert!(
            words.len() <= MAX_ARGS,
            "at most {MAX_ARGS} kernel arguments"
        );
        let f = self.function(kernel)?;
        let base = words.as_mut_ptr();
        // The driver reads one pointer per declared parameter; the rest stay null.
        let mut params: [*mut c_void; MAX_ARGS] = [std::ptr::null_mut(); MAX_ARGS];
        for (i, p) in params.iter_mut().take(words.len()).enumerate() {
            // SAFETY: `i < words.len()`.
            *p = unsafe { base.add(i) } as *mut c_void;
        }
        // SAFETY: the caller's contract; `words` outlives the call, which copies the arguments.
        let r = unsafe {
            cu::cuLaunchKernel(
                f,
                grid as u32,
                1,
                1,
                block as u32,
                1,
                1,
                shared_bytes as u32,
                self.stream.as_inner(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        driver_result(
            r,
            format!("launching {kernel} <<<{grid}, {block}, {shared_bytes}>>>"),
        )
    }
}

/// Pinned host memory mapped into the device's address space: kernels read and write it through
/// [`Mapped::device_addr`], the host through volatile reads and writes.
pub(crate) struct Mapped<T: DeviceCopy> {
    host: cust::memory::LockedBuffer<T>,
    dev: u64,
}

impl<T: DeviceCopy + Default> Mapped<T> {
    /// `len` elements, each `T::default()`. Needs a current context (a [`Gpu`]).
    pub(crate) fn new(len: usize) -> Result<Self> {
        let mut host = cust::memory::LockedBuffer::new(&T::default(), len)
            .during("allocating pinned memory")?;
        let mut dev: cu::CUdeviceptr = 0;
        // SAFETY: `host` is a live pinned allocation of the current context.
        let r = unsafe { cu::cuMemHostGetDevicePointer_v2(&mut dev, host.as_mut_ptr().cast(), 0) };
        driver_result(r, "mapping pinned memory into the device")?;
        Ok(Mapped { host, dev })
    }

    /// The device address of element 0.
    pub(crate) fn device_addr(&self) -> u64 {
        self.dev
    }

    /// Element `i`, read from host RAM now (not a cached copy). Panics if `i` is out of range.
    pub(crate) fn read(&self, i: usize) -> T {
        assert!(
            i < self.host.len(),
            "mapped element {i} of {}",
            self.host.len()
        );
        // SAFETY: in bounds of the live allocation; through a raw pointer (no reference to memory
        // the device may be writing), and the types used here (integers, floats) have no
        // invalid bit patterns.
        unsafe { std::ptr::read_volatile(self.host.as_ptr().add(i)) }
    }

    /// Store `v` in element `i` now. Panics if `i` is out of range.
    pub(crate) fn write(&mut self, i: usize, v: T) {
        assert!(
            i < self.host.len(),
            "mapped element {i} of {}",
            self.host.len()
        );
        // SAFETY: in bounds of the live allocation, through a raw pointer.
        unsafe { std::ptr::write_volatile(self.host.as_mut_ptr().add(i), v) }
    }
}

/// Map a raw driver status (from the few calls made through `cust::sys`) to our error.
pub(crate) fn driver_result(r: cu::CUresult, what: impl Into<String>) -> Result<()> {
    if r == cu::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    let mut text: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: cuGetErrorString writes a pointer to a static string (or leaves it null).
    unsafe { cu::cuGetErrorString(r, &mut text) };
    let message = if text.is_null() {
        format!("{r:?}")
    } else {
        format!(
            "{r:?}: {}",
            unsafe { std::ffi::CStr::from_ptr(text) }.to_string_lossy()
        )
    };
    Err(ReduceError::Driver {
        what: what.into(),
        message,
    })
}

/// The CPU emulator.
pub struct Emulator {
    caps: DeviceCaps,
}

impl Default for Emulator {
    fn default() -> Self {
        Emulator {
            caps: DeviceCaps {
                name: "CPU emulator".into(),
                // A small pretend device keeps the grid-stride stages' grids (and run times) small.
                sm_count: 4,
                max_threads_per_sm: 2048,
                total_mem: 1 << 34,
                compute_capability: (0, 0),
            },
        }
    }
}

/// A ladder kernel's body, as the emulator calls it.
type LadderBody<T> = fn(reduce_kernels::gpu::Global<T>, reduce_kernels::gpu::GlobalMut<T>);

/// The Rust function behind a ladder kernel symbol (the emulator runs the kernels' source).
fn ladder_body<T: Scalar>(kernel: &str, block: usize) -> Option<LadderBody<T>> {
    use reduce_kernels::stages::*;
    // The const-generic stages exist for each instantiated block size.
    macro_rules! by_block {
        ($($f:ident)::+) => {
            match block {
                64 => Some($($f)::+::<T, 64> as LadderBody<T>),
                128 => Some($($f)::+::<T, 128>),
                256 => Some($($f)::+::<T, 256>),
                512 => Some($($f)::+::<T, 512>),
                1024 => Some($($f)::+::<T, 1024>),
                _ => None,
            }
        };
    }
    let stem = kernel.strip_suffix(T::TYPE.name())?;
    match stem {
        "reduce_s1_interleaved_divergent_" => Some(s1_interleaved_divergent::reduce::<T>),
        "reduce_s2_interleaved_strided_" => Some(s2_interleaved_strided::reduce::<T>),
        "reduce_s3_sequential_" => Some(s3_sequential::reduce::<T>),
        "reduce_s4_first_add_during_load_" => Some(s4_first_add_during_load::reduce::<T>),
        "reduce_s5_unroll_last_warp_" => Some(s5_unroll_last_warp::reduce::<T>),
        _ if stem.starts_with("reduce_s6_complete_unroll_b") => {
            by_block!(s6_complete_unroll::reduce)
        }
        _ if stem.starts_with("reduce_s7_grid_stride_b") => by_block!(s7_grid_stride::reduce),
        "reduce_broken_racy_last_warp_" => Some(broken::reduce_racy_last_warp::<T>),
        "reduce_broken_missing_barrier_" => Some(broken::reduce_missing_barrier::<T>),
        _ => None,
    }
}

impl Emulator {
    fn launch<T: Scalar>(&self, l: &Launch<'_>) -> Result<()> {
        use reduce_kernels::exports::{ladder, single_pass};
        use reduce_kernels::stages::s8_shuffle_vectorized::reduce as s8;
        use reduce_kernels::{Max, Min, Sum};
        const U: usize = reduce_kernels::exports::SINGLE_PASS_UNROLL;
        let missing = || ReduceError::MissingKernel {
            name: l.kernel.to_string(),
            path: "the CPU emulator".into(),
        };
        if !l.kernel.ends_with(&format!("_{}", T::TYPE.name())) {
            return Err(ReduceError::InvalidArgument(format!(
                "kernel {} launched with {} buffers",
                l.kernel,
                T::TYPE
            )));
        }
        let cfg = reduce_kernels::emu::LaunchConfig {
            grid_dim: l.grid,
            block_dim: l.block,
            shared_bytes: l.shared_bytes,
        };
        let run = |body: &(dyn Fn() + Sync)| {
            reduce_kernels::emu::launch(cfg, body).map_err(|source| ReduceError::Emulator {
                kernel: l.kernel.to_string(),
                source,
            })
        };
        match l.args {
            KernelArgs::Ladder { input, n, partials } => {
                let f = ladder_body::<T>(l.kernel, l.block).ok_or_else(missing)?;
                run(&|| unsafe {
                    ladder(
                        f,
                        input as usize as *const T,
                        n,
                        partials as usize as *mut T,
                    )
                })
            }
            KernelArgs::SinglePass {
                input,
                n,
                partials,
                counter,
                out,
            } => {
                type F<T> = fn(
                    reduce_kernels::gpu::Global<T>,
                    reduce_kernels::gpu::GlobalMut<T>,
                    reduce_kernels::gpu::Counter,
                    reduce_kernels::gpu::GlobalMut<T>,
                );
                let op = l.kernel.split('_').nth(2).unwrap_or_default();
                let f: F<T> = match (op, l.block) {
                    ("sum", 256) => s8::<T, Sum, 256, U>,
                    ("sum", 512) => s8::<T, Sum, 512, U>,
                    ("sum", 1024) => s8::<T, Sum, 1024, U>,
                    ("min", 256) => s8::<T, Min, 256, U>,
                    ("min", 512) => s8::<T, Min, 512, U>,
                    ("min", 1024) => s8::<T, Min, 1024, U>,
                    ("max", 256) => s8::<T, Max, 256, U>,
                    ("max", 512) => s8::<T, Max, 512, U>,
                    ("max", 1024) => s8::<T, Max, 1024, U>,
                    _ => return Err(missing()),
                };
                let (i, p, c, o) = (
                    input as usize,
                    partials as usize,
                    counter as usize,
                    out as usize,
                );
                run(&|| unsafe {
                    single_pass(f, i as *const T, n, p as *mut T, c as *mut u32, o as *mut T)
                })
            }
        }
    }
}

/// A device: GPU or emulator.
pub enum Backend {
    /// An NVIDIA GPU.
    Gpu(Gpu),
    /// The CPU emulator.
    Emulator(Emulator),
}

/// Which backend to open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum BackendChoice {
    /// The GPU if there is one, else the emulator.
    Auto,
    /// The GPU; an error if there is none.
    Gpu,
    /// The CPU emulator.
    Emu,
}

impl Backend {
    /// Open the backend `choice` asks for. With `Auto`, a missing driver or GPU falls back to the
    /// emulator (any other GPU error is returned).
    pub fn open(choice: BackendChoice) -> Result<Self> {
        Self::open_with_ptx(choice, None)
    }

    /// Like [`Backend::open`], loading the GPU's kernels from `ptx` instead of the embedded PTX.
    pub fn open_with_ptx(choice: BackendChoice, ptx: Option<&std::path::Path>) -> Result<Self> {
        let gpu = || match ptx {
            Some(p) => Gpu::open_with_ptx_file(p),
            None => Gpu::open(),
        };
        if let (Some(p), BackendChoice::Emu) = (ptx, choice) {
            return Err(ReduceError::InvalidArgument(format!(
                "--ptx {} only applies to the GPU: the emulator runs the kernels' Rust source",
                p.display()
            )));
        }
        match choice {
            BackendChoice::Gpu => gpu().map(Backend::Gpu),
            BackendChoice::Emu => Ok(Backend::Emulator(Emulator::default())),
            BackendChoice::Auto => match gpu() {
                Ok(g) => Ok(Backend::Gpu(g)),
                Err(ReduceError::NoDriver(_) | ReduceError::NoDevice) => {
                    Ok(Backend::Emulator(Emulator::default()))
                }
                Err(e) => Err(e),
            },
        }
    }

    /// Device properties.
    pub fn caps(&self) -> &DeviceCaps {
        match self {
            Backend::Gpu(g) => &g.caps,
            Backend::Emulator(e) => &e.caps,
        }
    }

    /// Is this the emulator?
    pub fn is_emulator(&self) -> bool {
        matches!(self, Backend::Emulator(_))
    }

    /// The GPU, if this is one.
    pub fn gpu(&self) -> Option<&Gpu> {
        match self {
            Backend::Gpu(g) => Some(g),
            Backend::Emulator(_) => None,
        }
    }

    /// Copy `data` to the device.
    pub fn upload<T: Scalar>(&self, data: &[T]) -> Result<Buffer<T>> {
        match self {
            Backend::Gpu(g) => {
                self.check_fits::<T>(g, data.len())?;
                Ok(Buffer::Gpu(DeviceBuffer::from_slice(data).during(
                    format!("uploading {} × {}", data.len(), T::TYPE),
                )?))
            }
            Backend::Emulator(_) => Ok(Buffer::Host(UnsafeCell::new(data.to_vec()))),
        }
    }

    /// A device buffer of `len` zeroed elements.
    pub fn zeroed<T: Scalar>(&self, len: usize) -> Result<Buffer<T>> {
        match self {
            Backend::Gpu(g) => {
                self.check_fits::<T>(g, len)?;
                // SAFETY: filled with zero bytes right away, a valid value of every Scalar.
                let b = unsafe { DeviceBuffer::<T>::uninitialized(len.max(1)) }
                    .during(format!("allocating {len} × {}", T::TYPE))?;
                let r = unsafe {
                    cu::cuMemsetD8_v2(b.as_device_ptr().as_raw(), 0, len.max(1) * T::TYPE.size())
                };
                driver_result(r, "zeroing a buffer")?;
                Ok(Buffer::Gpu(b))
            }
            Backend::Emulator(_) => Ok(Buffer::Host(UnsafeCell::new(vec![
                T::default();
                len.max(1)
            ]))),
        }
    }

    /// A buffer of `len` copies of a 4-byte `value`, filled on the device (`cuMemsetD32`) without
    /// a host copy: how tests make inputs of 2^32 elements and more.
    pub fn filled<T: Scalar>(&self, len: usize, value: T) -> Result<Buffer<T>> {
        if T::TYPE.size() != 4 {
            return Err(ReduceError::InvalidArgument(format!(
                "filled() takes 4-byte types, not {}",
                T::TYPE
            )));
        }
        match self {
            Backend::Gpu(g) => {
                self.check_fits::<T>(g, len)?;
                // SAFETY: every element is written by the memset below.
                let b = unsafe { DeviceBuffer::<T>::uninitialized(len.max(1)) }
                    .during(format!("allocating {len} × {}", T::TYPE))?;
                let bits = value.to_bits64() as u32;
                let r = unsafe { cu::cuMemsetD32_v2(b.as_device_ptr().as_raw(), bits, len.max(1)) };
                driver_result(r, "filling a buffer")?;
                Ok(Buffer::Gpu(b))
            }
            Backend::Emulator(_) => Ok(Buffer::Host(UnsafeCell::new(vec![value; len.max(1)]))),
        }
    }

    fn check_fits<T: Scalar>(&self, g: &Gpu, len: usize) -> Result<()> {
        let bytes = (len as u64).saturating_mul(T::TYPE.size() as u64);
        let (free, _) = g.mem_info()?;
        if bytes > free {
            return Err(ReduceError::TooLarge {
                n: len,
                ty: T::TYPE,
                bytes,
                free,
            });
        }
        Ok(())
    }

    /// Copy the first `len` elements of `buf` back.
    pub fn download<T: Scalar>(&self, buf: &Buffer<T>, len: usize) -> Result<Vec<T>> {
        if len > buf.len() {
            return Err(ReduceError::InvalidArgument(format!(
                "cannot read {len} elements of a {}-element buffer",
                buf.len()
            )));
        }
        match buf {
            Buffer::Gpu(b) => {
                self.synchronize()?;
                let mut out = vec![T::default(); len];
                if len > 0 {
                    b.index(..len)
                        .copy_to(&mut out[..])
                        .during("copying results to the host")?;
                }
                Ok(out)
            }
            Buffer::Host(v) => Ok(unsafe { &*v.get() }[..len].to_vec()),
        }
    }

    /// Run one launch on `T`-typed buffers.
    pub fn launch<T: Scalar>(&self, l: &Launch<'_>) -> Result<()> {
        match self {
            Backend::Gpu(g) => g.launch(l),
            Backend::Emulator(e) => e.launch::<T>(l),
        }
    }

    /// Wait for all queued work; reports asynchronous kernel faults.
    pub fn synchronize(&self) -> Result<()> {
        match self {
            Backend::Gpu(g) => g.stream.synchronize().during("waiting for the GPU"),
            Backend::Emulator(_) => Ok(()),
        }
    }

    /// Is `kernel` available (in the PTX, or known to the emulator)?
    pub fn has_kernel(&self, kernel: &str, ty: ElemType) -> bool {
        match self {
            Backend::Gpu(g) => g.has_kernel(kernel),
            Backend::Emulator(_) => kernel.ends_with(ty.name()),
        }
    }
}

/// Device memory holding `T`s (host memory under the emulator).
pub enum Buffer<T: DeviceCopy> {
    /// On the GPU.
    Gpu(DeviceBuffer<T>),
    /// In host memory, for the emulator.
    Host(UnsafeCell<Vec<T>>),
}

impl<T: DeviceCopy> Buffer<T> {
    /// Elements.
    pub fn len(&self) -> usize {
        match self {
            Buffer::Gpu(b) => b.len(),
            Buffer::Host(v) => unsafe { &*v.get() }.len(),
        }
    }
    /// `len() == 0`.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Address of element `offset` as the kernels see it.
    pub fn addr(&self, offset: usize) -> u64 {
        match self {
            Buffer::Gpu(b) => {
                b.as_device_ptr().as_raw() + (offset * std::mem::size_of::<T>()) as u64
            }
            Buffer::Host(v) => unsafe { (*v.get()).as_mut_ptr().add(offset) as usize as u64 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Op, Stage};

    #[test]
    fn the_emulator_knows_every_ladder_kernel_the_host_can_name() {
        for stage in &Stage::ALL[..7] {
            for &block in stage.blocks() {
                let f32_name = stage.kernel_name(crate::ElemType::F32, Op::Sum, block);
                let i32_name = stage.kernel_name(crate::ElemType::I32, Op::Sum, block);
                assert!(ladder_body::<f32>(&f32_name, block).is_some(), "{f32_name}");
                assert!(ladder_body::<i32>(&i32_name, block).is_some(), "{i32_name}");
                assert!(
                    ladder_body::<f32>(&i32_name, block).is_none(),
                    "{i32_name} is not an f32 kernel"
                );
            }
        }
        assert!(ladder_body::<f32>("reduce_s6_complete_unroll_b96_f32", 96).is_none());
        assert!(ladder_body::<f32>("reduce_broken_racy_last_warp_f32", 256).is_some());
        assert!(ladder_body::<f32>("no_such_kernel_f32", 256).is_none());
    }
}
