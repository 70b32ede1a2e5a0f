//! Launching on a [`Gpu`]: a library kernel on its own stream or the caller's, the benchmarks'
//! gate, and any function loaded in its context (a user's item kernel), each through one
//! `cuLaunchKernel` call.

use super::{driver_result, Gpu};
use crate::error::Result;
use crate::launch::Launch;
use crate::launch::On;
use cust::sys as cu;
use std::ffi::c_void;

impl Gpu {
    /// Queue `l` on this GPU's stream, or on the caller's (`on`).
    ///
    /// # Safety
    /// As [`crate::Backend::launch`]: the addresses in `l.args` are device addresses of this
    /// context, the buffers behind them hold what the kernel reads and writes for this shape,
    /// and they stay allocated until the stream has run the kernel; a caller's stream is a live
    /// stream of this context (or null, the legacy default stream).
    pub(crate) unsafe fn launch(&self, l: &Launch, on: On) -> Result<()> {
        let f = self.function(l.kernel)?;
        self.allow_shared(f, l.kernel, l.shared_bytes)?;
        let mut words = l.args.words();
        let stream = self.raw_stream(on);
        // SAFETY: every kernel of this crate takes 64-bit pointers and a 64-bit length, in the
        // order `KernelArgs` lists them; `f` is `l.kernel`; the addresses and the stream are
        // valid for the launch by this function's contract.
        unsafe {
            self.launch_words(
                f,
                &l.kernel,
                (l.grid, l.block, l.shared_bytes),
                stream,
                &mut words,
            )
        }
    }

    /// Queue the benchmarks' gate kernel ([`reduce_kernels::bench_gate::SYMBOL`], one thread):
    /// it holds this stream until the host writes a non-zero `u32` at `flag`, or `timeout_ns`
    /// passes (then it writes 1 at `flag + 4`). See `reduce_kernels::bench_gate`.
    ///
    /// # Safety
    /// `flag` is the device address of two `u32` in pinned, mapped host memory that stay
    /// allocated until the stream has passed the gate.
    pub(crate) unsafe fn launch_gate(&self, flag: u64, timeout_ns: u64) -> Result<()> {
        use reduce_kernels::bench_gate::SYMBOL;
        let f = match self.gate.get() {
            Some(f) => *f,
            None => {
                let f = self.function_named(SYMBOL)?;
                *self.gate.get_or_init(|| f)
            }
        };
        let own = self.raw_stream(On::Own);
        // SAFETY: the gate takes (u32*, u64); `flag` is valid by this function's contract.
        unsafe { self.launch_words(f, &SYMBOL, (1, 1, 0), own, &mut [flag, timeout_ns]) }
    }

    /// The `CUstream` that `on` names: this GPU's own, or the caller's.
    pub(crate) fn raw_stream(&self, on: On) -> cu::CUstream {
        match on {
            On::Own => self.stream.as_inner(),
            On::Caller(s) => s,
        }
    }

    /// `cuLaunchKernel` of `f` (named `kernel` in messages) with 64-bit arguments, `shape` =
    /// (grid, block, dynamic shared bytes), on `stream`.
    ///
    /// # Safety
    /// `f` is a function of a module loaded in this GPU's context (the kernels', or a user's);
    /// `words` must match its parameters, and every address in them must stay valid until the
    /// kernel has run; `stream` is a live stream of this context (or null).
    pub(crate) unsafe fn launch_words(
        &self,
        f: cu::CUfunction,
        kernel: &dyn std::fmt::Display,
        (grid, block, shared_bytes): (usize, usize, usize),
        stream: cu::CUstream,
        words: &mut [u64],
    ) -> Result<()> {
        let mut params = parameter_pointers(words);
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
                stream,
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        let whose = if stream == self.stream.as_inner() {
            ""
        } else {
            " on the caller's stream"
        };
        driver_result(
            r,
            format!("launching {kernel} <<<{grid}, {block}, {shared_bytes}>>>{whose}"),
        )
    }
}

/// One pointer per word (at most 10), as `cuLaunchKernel`'s `kernelParams` wants them; the
/// driver reads one per declared parameter, the rest stay null.
fn parameter_pointers(words: &mut [u64]) -> [*mut c_void; 10] {
    assert!(words.len() <= 10, "at most 10 kernel arguments");
    let base = words.as_mut_ptr();
    let mut params: [*mut c_void; 10] = [std::ptr::null_mut(); 10];
    for (i, p) in params.iter_mut().take(words.len()).enumerate() {
        // SAFETY: `i < words.len()`.
        *p = unsafe { base.add(i) } as *mut c_void;
    }
    params
}
