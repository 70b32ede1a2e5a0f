//! Where kernels run: an NVIDIA GPU through `cust` ([`Gpu`]), or the CPU emulator
//! ([`Emulator`]). Both take the same kernels (a [`KernelId`] of the kernel table), launch shapes
//! and arguments, so every stage runs on either.

pub use crate::buffer::{BackendId, Buffer};
pub use crate::caps::DeviceCaps;
pub use crate::emulator::Emulator;
pub use crate::gpu::Gpu;
pub(crate) use crate::gpu::{driver_result, Mapped};
pub(crate) use crate::launch::On;
pub use crate::launch::{KernelArgs, Launch};

use crate::buffer::{HostMem, Mem};
use crate::error::{CudaContext, ReduceError, Result};
use crate::types::Scalar;
use cust::memory::{CopyDestination, DeviceBuffer};
use cust::sys as cu;
use reduce_kernels::table::KernelId;

/// A device: GPU or emulator.
// One `Backend` per device, made once and then borrowed: its size does not matter, and boxing
// the GPU would put an indirection in front of every launch for nothing.
#[allow(clippy::large_enum_variant)]
pub enum Backend {
    /// An NVIDIA GPU.
    Gpu(Gpu),
    /// The CPU emulator.
    Emulator(Emulator),
}

/// Which backend to open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
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
                "a PTX file ({}) only applies to the GPU: the emulator runs the kernels' Rust source",
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

    /// This backend's identity; every [`Buffer`] it allocates carries it.
    pub fn id(&self) -> BackendId {
        match self {
            Backend::Gpu(g) => g.id,
            Backend::Emulator(e) => e.id,
        }
    }

    /// Copy `data` to the device.
    pub fn upload<T: Scalar>(&self, data: &[T]) -> Result<Buffer<T>> {
        let mem = match self {
            Backend::Gpu(g) => {
                self.check_fits::<T>(g, data.len())?;
                Mem::Gpu(DeviceBuffer::from_slice(data).during(format!(
                    "uploading {} × {}",
                    data.len(),
                    T::TYPE
                ))?)
            }
            Backend::Emulator(_) => Mem::Host(HostMem::from_vec(data.to_vec())),
        };
        Ok(Buffer::new(self.id(), mem))
    }

    /// A device buffer of `len` zeroed elements (`len` may be 0).
    pub fn zeroed<T: Scalar>(&self, len: usize) -> Result<Buffer<T>> {
        self.filled_with_bits::<T>(len, 0)
    }

    /// A buffer of `len` copies of a 4-byte `value` (`len` may be 0), filled on the device
    /// (`cuMemsetD32`) without a host copy: how tests make inputs of 2^32 elements and more.
    pub fn filled<T: Scalar>(&self, len: usize, value: T) -> Result<Buffer<T>> {
        if T::TYPE.size() != 4 {
            return Err(ReduceError::InvalidArgument(format!(
                "filled() takes 4-byte types, not {}",
                T::TYPE
            )));
        }
        self.filled_with_bits::<T>(len, value.to_bits64() as u32)
    }

    /// `len` elements whose every 4-byte word is `bits` (0 is a valid value of every `Scalar`;
    /// other patterns are only asked for 4-byte types).
    fn filled_with_bits<T: Scalar>(&self, len: usize, bits: u32) -> Result<Buffer<T>> {
        let mem = match self {
            Backend::Gpu(g) => {
                self.check_fits::<T>(g, len)?;
                // SAFETY: every byte is written by the memset below before anyone reads it, and
                // any bit pattern is a valid value of every `Scalar` (integers and floats).
                let b = unsafe { DeviceBuffer::<T>::uninitialized(len) }
                    .during(format!("allocating {len} × {}", T::TYPE))?;
                if len > 0 {
                    let words = len * T::TYPE.size() / 4;
                    // SAFETY: `b` is a live allocation of exactly `words` 4-byte words.
                    let r = unsafe { cu::cuMemsetD32_v2(b.as_device_ptr().as_raw(), bits, words) };
                    driver_result(r, "filling a buffer")?;
                }
                Mem::Gpu(b)
            }
            Backend::Emulator(e) => {
                let bytes = (len as u64).saturating_mul(T::TYPE.size() as u64);
                let too_large = ReduceError::TooLarge {
                    n: len,
                    ty: T::TYPE,
                    bytes,
                    free: e.caps.total_mem,
                };
                if bytes > e.caps.total_mem {
                    return Err(too_large);
                }
                let mut v = Vec::new();
                v.try_reserve_exact(len).map_err(|_| too_large)?;
                let value = T::from_bits64(bits as u64 | ((bits as u64) << 32));
                v.resize(len, value);
                Mem::Host(HostMem::from_vec(v))
            }
        };
        Ok(Buffer::new(self.id(), mem))
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
        self.download_range(buf, 0, len)
    }

    /// Copy elements `offset..offset + len` of `buf` back.
    pub fn download_range<T: Scalar>(
        &self,
        buf: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<Vec<T>> {
        buf.check_owner(self.id(), "the buffer to download")?;
        buf.check_range(offset, len)?;
        if let Some(v) = buf.read_host(offset, len) {
            return Ok(v);
        }
        let b = buf.device_buffer().expect("not host memory, so GPU memory");
        self.synchronize()?;
        let mut out = vec![T::default(); len];
        if len > 0 {
            b.index(offset..offset + len)
                .copy_to(&mut out[..])
                .during("copying results to the host")?;
        }
        Ok(out)
    }

    /// Overwrite the first `data.len()` elements of `buf` with `data` (host to device).
    pub fn write<T: Scalar>(&self, buf: &mut Buffer<T>, data: &[T]) -> Result<()> {
        buf.check_owner(self.id(), "the buffer to write")?;
        buf.check_span("data", 0, data.len())?;
        if data.is_empty() || buf.write_host(data) {
            return Ok(());
        }
        self.synchronize()?;
        let b = buf.device_buffer().expect("not host memory, so GPU memory");
        b.index(..data.len())
            .copy_from(data)
            .during("copying data to the device")
    }

    /// Run one raw launch on `T`-typed buffers. The safe way to run kernels is
    /// [`crate::Prepared`] (or [`crate::Reducer`], [`crate::run_stage`]), which derives every
    /// address and length from typed buffers and a checked plan.
    ///
    /// # Safety
    /// Every address in `l.args` must come from [`Buffer::addr`] of a live buffer **of this
    /// backend** whose element type is `T` (the counter: `u32`), and hold what the kernel reads
    /// and writes for this launch shape: `n` input elements, `grid` partials, a zeroed counter
    /// and one result element. `l.kernel` must take the arguments `l.args` describes, and
    /// `l.block`, `l.shared_bytes` must be what its plan gives (the const-generic kernels assume
    /// `blockDim.x` is their block size). The buffers must stay allocated until the launch has run
    /// (the GPU runs it asynchronously: synchronize before dropping them). For
    /// [`KernelArgs::Transform`], `a` and `b` (or 0) hold `n` elements of `T`, `partials` holds
    /// `3 · grid` `f64`, `out` three `f64`, and `counter` a zeroed `u32`. For
    /// [`KernelArgs::AxisTicket`], `partials` holds `grid · len` elements of `T`, `out` holds
    /// `out_len`, and `counter` is a zeroed `u32`.
    pub unsafe fn launch<T: Scalar>(&self, l: &Launch) -> Result<()> {
        // SAFETY: this function's contract.
        unsafe { self.launch_on::<T>(l, On::Own) }
    }

    /// [`Backend::launch`] on the stream `on` names (the emulator runs it at once).
    ///
    /// # Safety
    /// As [`Backend::launch`], "until the stream has run the launch" meaning `on`'s stream; a
    /// caller's stream is a live stream of this GPU's context, or null.
    pub(crate) unsafe fn launch_on<T: Scalar>(&self, l: &Launch, on: On) -> Result<()> {
        match self {
            // SAFETY: this function's contract.
            Backend::Gpu(g) => unsafe { g.launch(l, on) },
            // SAFETY: this function's contract.
            Backend::Emulator(e) => unsafe { e.launch::<T>(l) },
        }
    }

    /// Look `kernel` up now (on the per-kernel PTX path: JIT-compile and load its module), so
    /// that no later launch of it loads a module — which a CUDA stream capture would refuse.
    pub(crate) fn resolve(&self, kernel: KernelId) -> Result<()> {
        match self {
            Backend::Gpu(g) => g.function(kernel).map(drop),
            Backend::Emulator(_) => Ok(()),
        }
    }

    /// Wait for all queued work; reports asynchronous kernel faults.
    pub fn synchronize(&self) -> Result<()> {
        match self {
            Backend::Gpu(g) => g.stream().synchronize().during("waiting for the GPU"),
            Backend::Emulator(_) => Ok(()),
        }
    }

    /// Is `kernel` available (in the loaded module, or built in the kernel table for the
    /// emulator)?
    pub fn has_kernel(&self, kernel: KernelId) -> bool {
        match self {
            Backend::Gpu(g) => g.has_kernel(kernel),
            Backend::Emulator(_) => kernel.is_built(),
        }
    }
}
