//! Item kernels — reductions written on the device primitives (`reduce_kernels::primitives`) —
//! launched on either backend: the library's own (argmin/argmax, [`crate::argreduce`]) and a
//! user's, built from their own `no_std` crate ([`CustomReduction`]; `examples/custom-op/`).
//!
//! Every item kernel has one calling convention, the item ABI
//! (`reduce_kernels::primitives::device::item_pass`): `(const T* input, size_t n, u32* partials,
//! u32* counter, u32* out)`, with `partials` = `gridDim.x` items and `out` one item, each item
//! `WORDS` 32-bit words, and `BLOCK / 32` items of dynamic shared memory. Items cross the API as
//! words, decoded by the safe [`Item::from_words`]: no bit pattern the kernel writes can make an
//! invalid Rust value, and no alignment is assumed.
//!
//! This module and `gpu.rs` are the only ones that load PTX modules: a user's module is loaded
//! into the backend's context (`cuModuleLoadData`, JIT-compiled by the driver) and launched like
//! the library's kernels (`Gpu::launch_words`), on the backend's stream or the caller's.

use crate::backend::{Backend, KernelArgs, Launch, On};
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::types::Scalar;
use crate::view::View;
use cust::sys as cu;
use reduce_kernels::primitives::device::ItemEntry;
use reduce_kernels::primitives::{block::shared_words, Item, Policy, Words, MAX_WORDS};
use reduce_kernels::table::KernelId;
use std::marker::PhantomData;

/// Where an item kernel's code is.
pub(crate) enum ItemCode<T> {
    /// A kernel of the library's table (the loaded module's on a GPU, the table's Rust function
    /// in the emulator).
    Library(KernelId),
    /// A user's PTX module, loaded into the GPU's context.
    Module {
        /// The entry point's handle; valid while `module` lives (declared first: dropped first).
        function: cu::CUfunction,
        /// The symbol, for messages.
        symbol: String,
        /// The loaded module.
        _module: cust::module::Module,
    },
    /// A user's kernel compiled for the host, for the emulator.
    Rust {
        /// The raw entry point.
        entry: ItemEntry<T>,
        /// The symbol, for messages.
        symbol: String,
    },
}

impl<T> ItemCode<T> {
    /// Its name, for messages.
    fn name(&self) -> String {
        match self {
            ItemCode::Library(id) => id.to_string(),
            ItemCode::Module { symbol, .. } | ItemCode::Rust { symbol, .. } => symbol.clone(),
        }
    }
}

/// The device memory of one item launch: partials, the ticket counter, the result item.
pub(crate) struct ItemWorkspace {
    pub(crate) partials: Buffer<u32>,
    pub(crate) counter: Buffer<u32>,
    pub(crate) out: Buffer<u32>,
    pub(crate) grid: usize,
    pub(crate) block: usize,
    pub(crate) words: usize,
}

/// Check a block size for the primitives: a multiple of 32 in 32..=1024.
pub(crate) fn check_block(block: usize) -> Result<()> {
    if block == 0 || block > 1024 || !block.is_multiple_of(32) {
        return Err(ReduceError::InvalidArgument(format!(
            "an item kernel's block size must be a multiple of 32 in 32..=1024, not {block}"
        )));
    }
    Ok(())
}

impl ItemWorkspace {
    /// A workspace for `n` elements, `block` threads per block and items of `words` words.
    pub(crate) fn new(backend: &Backend, n: usize, block: usize, words: usize) -> Result<Self> {
        // The default policy's threads per SM (see `DEFAULT_POLICY`), in blocks of `block`.
        let d = reduce_kernels::primitives::DEFAULT_POLICY;
        let policy = Policy {
            block,
            unroll: d.unroll,
            blocks_per_sm: (d.block * d.blocks_per_sm / block)
                .min(backend.caps().max_threads_per_sm / block.max(1))
                .max(1),
        };
        Self::with_policy(backend, n, policy, words)
    }

    /// A workspace for a kernel whose tiled loop visits `units` indices (the elements, for a
    /// kernel that loads one item per index; the 16-byte vectors, for argmin/argmax) launched as
    /// `policy` says (its block, and a grid of at most `sm_count * blocks_per_sm` blocks, fewer
    /// when `units` fills fewer tiles of `block · unroll` indices), items of `words` words.
    pub(crate) fn with_policy(
        backend: &Backend,
        units: usize,
        policy: Policy,
        words: usize,
    ) -> Result<Self> {
        let block = policy.block;
        check_block(block)?;
        if words == 0 || words > MAX_WORDS {
            return Err(ReduceError::InvalidArgument(format!(
                "an item must be 1..={MAX_WORDS} words, not {words}"
            )));
        }
        let grid = policy.grid(units, backend.caps().sm_count);
        Ok(ItemWorkspace {
            partials: backend.zeroed::<u32>(grid * words)?,
            counter: backend.zeroed::<u32>(1)?,
            out: backend.zeroed::<u32>(words)?,
            grid,
            block,
            words,
        })
    }

    /// Queue one launch of `code` over `input`, a view of exactly `n` elements, on `on`'s stream.
    ///
    /// # Safety
    /// `code` must be an item kernel (see the module docs) for `T` whose items have
    /// `self.words` words and whose block size is `self.block`; a caller's stream is a live
    /// stream of the GPU's context (or null), and the input and this workspace stay allocated
    /// until it has run the launch.
    pub(crate) unsafe fn enqueue<T: Scalar>(
        &self,
        backend: &Backend,
        code: &ItemCode<T>,
        input: View<'_, T>,
        n: usize,
        on: On,
    ) -> Result<()> {
        input.check_owner(backend.id(), "the input buffer")?;
        self.partials.check_owner(backend.id(), "the workspace")?;
        crate::borrowed::check_view_len(&input, n)?;
        let shared_bytes = shared_words(self.block, self.words) * 4;
        let (i, p, c, o) = (
            input.addr(0)?,
            self.partials.addr(0),
            self.counter.addr(0),
            self.out.addr(0),
        );
        let run_emulated = |entry: ItemEntry<T>| {
            let cfg = reduce_kernels::emu::LaunchConfig {
                grid_dim: self.grid,
                block_dim: self.block,
                shared_bytes,
            };
            let (i, p, c, o) = (i as usize, p as usize, c as usize, o as usize);
            reduce_kernels::emu::launch(cfg, &|| {
                // SAFETY: `n` input elements from `offset` (checked above), `grid * words`
                // partial words, a zeroed counter, `words` result words (allocated for this
                // shape), the shared memory of the config; `entry` is an item kernel of these
                // words (this function's contract).
                unsafe {
                    entry(
                        i as *const T,
                        n,
                        p as *mut u32,
                        c as *mut u32,
                        o as *mut u32,
                    )
                }
            })
            .map_err(|source| ReduceError::Emulator {
                kernel: code.name(),
                source,
            })
        };
        match (code, backend) {
            (ItemCode::Library(id), _) => {
                let l = Launch {
                    kernel: *id,
                    grid: self.grid,
                    block: self.block,
                    shared_bytes,
                    args: KernelArgs::SinglePass {
                        input: i,
                        n,
                        partials: p,
                        counter: c,
                        out: o,
                    },
                };
                // SAFETY: the item ABI passes the same five words as the single-pass one; the
                // addresses are this backend's live buffers of the sizes the kernel reads and
                // writes (checked above and allocated for this shape); the kernel is an item
                // kernel of `words` words and this block size, and the stream is live (this
                // function's contract).
                unsafe { backend.launch_on::<T>(&l, on) }
            }
            (ItemCode::Rust { entry, .. }, Backend::Emulator(_)) => run_emulated(*entry),
            (
                ItemCode::Module {
                    function, symbol, ..
                },
                Backend::Gpu(g),
            ) => {
                let shape = (self.grid, self.block, shared_bytes);
                // SAFETY: `function` lives in the module this code owns, loaded in `g`'s
                // context; the five words are the item ABI's (this function's contract); the
                // buffers are live, and so is the stream (this function's contract).
                unsafe {
                    g.launch_words(
                        *function,
                        symbol,
                        shape,
                        g.raw_stream(on),
                        &mut [i, n as u64, p, c, o],
                    )
                }
            }
            _ => Err(ReduceError::InvalidArgument(format!(
                "kernel {} was loaded for another kind of backend",
                code.name()
            ))),
        }
    }

    /// Read the result item back (waits for the launch).
    pub(crate) fn read<I: Item>(&self, backend: &Backend) -> Result<I> {
        if I::WORDS != self.words {
            return Err(ReduceError::InvalidArgument(format!(
                "an item of {} words read from a workspace of {}-word items",
                I::WORDS,
                self.words
            )));
        }
        let v = backend.download(&self.out, self.words)?;
        let mut w: Words = [0; MAX_WORDS];
        w[..self.words].copy_from_slice(&v);
        Ok(I::from_words(&w))
    }
}

/// A user's item kernel: its PTX (for a GPU), the same kernel compiled for the host (for the
/// emulator), its symbol and block size. `examples/custom-op` shows how one crate gives both.
#[derive(Clone, Copy)]
pub struct CustomKernel<'a, T> {
    /// The entry point's name (a `#[no_mangle]` symbol of `ptx`).
    pub symbol: &'a str,
    /// The module's PTX text, as `cargo xtask build-ptx --crate` writes it.
    pub ptx: &'a str,
    /// The same kernel as a Rust function, run by the emulator (`None`: a PTX-only kernel, which
    /// the emulator cannot run).
    pub emulated: Option<ItemEntry<T>>,
    /// `BLOCK`, the block size the kernel is instantiated for.
    pub block: usize,
}

/// A user's reduction over `T` elements into an item `I`, loaded on one backend; the generic
/// launch API of item kernels (see the module docs).
pub struct CustomReduction<'b, T: Scalar, I: Item> {
    backend: &'b Backend,
    code: ItemCode<T>,
    block: usize,
    _item: PhantomData<fn() -> I>,
}

impl<'b, T: Scalar, I: Item> CustomReduction<'b, T, I> {
    /// Load `kernel` on `backend`: the PTX module on a GPU (JIT-compiled by the driver), the Rust
    /// function on the emulator. A bad PTX text, a missing symbol or an invalid block size is a
    /// typed error.
    ///
    /// # Safety
    /// The kernel must follow the item ABI for `T` and `I`: entry point `(const T*, size_t,
    /// u32*, u32*, u32*)`, reducing items of exactly `I::WORDS` words laid out as `I`'s
    /// [`Item::to_words`] writes them, instantiated with `BLOCK == kernel.block` — which is what a
    /// kernel made with `reduce_kernels::primitives::device::item_pass` and `device::reduce` over
    /// `Combine<Item = I>` is. The library cannot check a PTX module's parameter types or item
    /// size; a kernel that is not what this says can write past the workspace on the device.
    /// (A wrong block size is safe: the primitives trap, reported as a launch error.)
    pub unsafe fn load(backend: &'b Backend, kernel: CustomKernel<'_, T>) -> Result<Self> {
        check_block(kernel.block)?;
        let () = reduce_kernels::primitives::ItemCheck::<I>::OK;
        let code = match backend {
            Backend::Emulator(_) => ItemCode::Rust {
                entry: kernel.emulated.ok_or_else(|| {
                    ReduceError::InvalidArgument(format!(
                        "{} has no host build (CustomKernel::emulated is None): the emulator runs \
                         a kernel's Rust function, not its PTX",
                        kernel.symbol
                    ))
                })?,
                symbol: kernel.symbol.to_string(),
            },
            Backend::Gpu(_) => {
                if !kernel.ptx.contains(".entry") || !kernel.ptx.contains(".target") {
                    return Err(ReduceError::Ptx {
                        path: kernel.symbol.to_string(),
                        reason: "it is not PTX (no .target / .entry lines)".into(),
                    });
                }
                let module = cust::module::Module::from_ptx(kernel.ptx, &[]).map_err(|e| {
                    ReduceError::Ptx {
                        path: format!("the module of {}", kernel.symbol),
                        reason: e.to_string(),
                    }
                })?;
                let function = module
                    .get_function(kernel.symbol)
                    .map_err(|_| ReduceError::MissingKernel {
                        name: kernel.symbol.to_string(),
                        path: "the custom PTX module".into(),
                    })?
                    .to_raw();
                ItemCode::Module {
                    function,
                    symbol: kernel.symbol.to_string(),
                    _module: module,
                }
            }
        };
        Ok(CustomReduction {
            backend,
            code,
            block: kernel.block,
            _item: PhantomData,
        })
    }

    /// A workspace for inputs of `n` elements, for repeated (timed) runs.
    pub fn prepare(&self, n: usize) -> Result<PreparedCustom<'_, 'b, T, I>> {
        Ok(PreparedCustom {
            reduction: self,
            ws: ItemWorkspace::new(self.backend, n, self.block, I::WORDS)?,
            n,
        })
    }

    /// Reduce all of `input`, a buffer or a view (a buffer's range, or borrowed device memory,
    /// [`crate::borrowed`]); an empty input gives the kernel's identity.
    pub fn reduce<'a>(&self, input: impl Into<View<'a, T>>) -> Result<I> {
        let input = input.into();
        let p = self.prepare(input.len())?;
        p.enqueue_view(input)?;
        p.read()
    }
}

/// A [`CustomReduction`] with a workspace for inputs of one length.
pub struct PreparedCustom<'r, 'b, T: Scalar, I: Item> {
    reduction: &'r CustomReduction<'b, T, I>,
    ws: ItemWorkspace,
    n: usize,
}

impl<T: Scalar, I: Item> PreparedCustom<'_, '_, T, I> {
    /// Queue one reduction of `input[offset..offset + n]` (checked: ownership and range).
    pub fn enqueue(&self, input: &Buffer<T>, offset: usize) -> Result<()> {
        let input = input.window("range", offset, self.n)?;
        // SAFETY: our own stream; the buffer is borrowed for the call, and freeing it waits for
        // the kernels reading it.
        unsafe { self.queue_on(input, On::Own) }
    }
    /// Queue one reduction of `input`, a view of exactly the prepared length (a buffer's range or
    /// borrowed device memory; a borrowed one is waited for).
    pub fn enqueue_view(&self, input: View<'_, T>) -> Result<()> {
        // SAFETY: our own stream, and the call waits for a borrowed input below.
        unsafe { self.queue_on(input, On::Own)? };
        crate::borrowed::wait_if_borrowed(self.reduction.backend, &input)
    }
    /// Queue one reduction of `input` on `on`'s stream.
    ///
    /// # Safety
    /// A caller's stream is a live stream of the GPU's context (or null); `input` stays
    /// allocated, and unwritten, until that stream has run the launch.
    pub(crate) unsafe fn queue_on(&self, input: View<'_, T>, on: On) -> Result<()> {
        let r = self.reduction;
        // SAFETY: `r.code` was loaded by `CustomReduction::load`, whose caller asserted it is an
        // item kernel for `T` and `I` with block `r.block`; the workspace was made for `I::WORDS`
        // and `r.block`; the stream and the input are this function's contract.
        unsafe { self.ws.enqueue(r.backend, &r.code, input, self.n, on) }
    }
    /// Wait for the last run and read its result.
    pub fn read(&self) -> Result<I> {
        self.ws.read(self.reduction.backend)
    }
    /// The grid each run uses.
    pub fn grid(&self) -> usize {
        self.ws.grid
    }
}
