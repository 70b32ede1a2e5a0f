//! # Device layer: one launch reduces the whole input (stage 8's scheme, for any item)
//!
//! What: each block walks one contiguous run of tiles of `BLOCK * UNROLL` indices
//! ([`super::tiles`], stage 8's schedule), each thread `UNROLL` loads in flight before it combines
//! them; the block reduces its threads' items
//! ([`super::block::reduce`]); thread 0 stores the block's partial and takes a ticket from an
//! `atom.acq_rel.gpu` counter ([`crate::gpu::Counter::take_ticket`]); the block that draws the last
//! ticket combines every partial **in block order** and writes the result, then resets the counter.
//! The memory-model argument is stage 8's ([`crate::stages::s8_shuffle_vectorized`], step 4).
//!
//! Why faster than a second launch (stages 1–7): no round trip through the host and no second
//! kernel; the partials stay in L2. Cost: one atomic per block, and the last block's extra pass
//! over `gridDim.x` partials.
//!
//! Deterministic: the indices each thread visits, the order it combines them, the block tree and
//! the final order over the partials depend only on `n`, the grid and `BLOCK`.

use super::tiles::{self, EvenShare};
use super::{block, load_item, store_item, Combine, Item, ItemCheck};
use crate::gpu::{fail, sync_threads_or, Coherent, Counter, GlobalMut, Shared};
use crate::thread;

/// The device memory one launch of [`reduce`] works in, beside its input and result.
#[derive(Clone, Copy)]
pub struct Workspace {
    /// Dynamic shared memory: [`block::shared_words`]`(BLOCK, WORDS)` words.
    pub smem: Shared<u32>,
    /// One item per block: `gridDim.x * WORDS` words (unused with one block).
    pub partials: Coherent<u32>,
    /// The ticket counter, 0 before the launch (and after it).
    pub counter: Counter,
}

/// Reduce `load(0), …, load(n - 1)` with `C` into `out` (`WORDS` words), in one launch.
///
/// `load(i)` is called only with `i < n`, once per index; keep it branch-free (a 16-byte load and
/// a few combines) so that the `UNROLL` loads of a step are all in flight at once. `seed` is this
/// thread's item for anything the caller reads outside the tiled loop (stage 8's misaligned
/// head and short tail); pass `C::identity()` for none. Launch with `blockDim.x == BLOCK` (a
/// multiple of 32, at most 1024) and any grid; the views must be as [`Workspace`] says. A launch
/// that breaks this (another block size, a view too small) stops on entry: a trap on the GPU, a
/// panic in the emulator. An empty input (`n == 0`) writes `C::identity()`.
#[inline(always)]
pub fn reduce<C: Combine, const BLOCK: usize, const UNROLL: usize>(
    n: usize,
    load: impl Fn(usize) -> C::Item,
    seed: C::Item,
    ws: Workspace,
    out: GlobalMut<u32>,
) {
    check::<C::Item, BLOCK>(&ws, &out);
    let tid = thread::thread_idx_x() as usize;
    let blk = thread::block_idx_x() as usize;
    let grid = thread::grid_dim_x() as usize;

    // Contiguous per-block tiles, UNROLL independent loads in flight per step.
    let share = EvenShare::new(n, BLOCK * UNROLL, grid, blk);
    let mut acc = seed;
    tiles::for_each::<C::Item, BLOCK, UNROLL>(share, tid, &load, |_, x| {
        acc = C::combine(acc, x);
    });
    finish::<C, BLOCK>(acc, ws, out)
}

/// The launch checks of [`reduce`] and [`finish`]: `blockDim.x == BLOCK` (a multiple of 32) and
/// the [`Workspace`]'s and `out`'s sizes; a launch that breaks them stops here (a trap on the
/// GPU, a panic in the emulator).
#[inline(always)]
pub fn check<I: Item, const BLOCK: usize>(ws: &Workspace, out: &GlobalMut<u32>) {
    let () = ItemCheck::<I>::OK;
    let words = I::WORDS;
    let grid = thread::grid_dim_x() as usize;
    if thread::block_dim_x() as usize != BLOCK
        || !BLOCK.is_multiple_of(32)
        || ws.partials.len() < grid * words
        || (ws.smem.len() as usize) < block::shared_words(BLOCK, words)
        || out.len() < words
    {
        fail("device::reduce needs blockDim.x == BLOCK and the Workspace's sizes");
    }
}

/// The second half of [`reduce`], for a kernel that accumulates its threads' items its own way
/// (argmin/argmax keep a value and a 32-bit position in the hot loop, [`crate::argreduce`]):
/// every thread passes its item `acc`; the block reduces them, publishes its partial, takes a
/// ticket, and the last block combines the partials in block order into `out`. Same contract as
/// [`reduce`] (call [`check`] first; all threads of every block call it).
#[inline(always)]
pub fn finish<C: Combine, const BLOCK: usize>(acc: C::Item, ws: Workspace, out: GlobalMut<u32>) {
    let tid = thread::thread_idx_x() as usize;
    let blk = thread::block_idx_x() as usize;
    let grid = thread::grid_dim_x() as usize;
    let block_total = block::reduce::<C, BLOCK>(acc, ws.smem);
    if grid == 1 {
        if tid == 0 {
            store_item(&out, 0, block_total);
        }
        return;
    }

    // Publish the partial, then take a ticket (release: the partial; acquire: everyone's).
    let mut last = false;
    if tid == 0 {
        store_item(&ws.partials, blk, block_total);
        last = ws.counter.take_ticket() as usize == grid - 1;
    }
    // The barrier tells every thread whether its block was last, orders thread 0's acquire before
    // the other threads' loads, and lets `smem` be reused.
    if sync_threads_or(last) {
        let total = combine_stored::<C, BLOCK>(&ws.partials, grid, ws.smem);
        if tid == 0 {
            store_item(&out, 0, total);
            ws.counter.reset();
        }
    }
}

/// The items `partials[0..count]` folded in [`finish`]'s fixed order (its last block's step):
/// thread `t` combines items `t, t + BLOCK, …` in turn, then the block tree. All `BLOCK` threads
/// of one block call it; `smem` holds [`block::shared_words`]`(BLOCK, WORDS)` words; the result
/// is thread 0's.
#[inline(always)]
pub fn combine_stored<C: Combine, const BLOCK: usize>(
    partials: &Coherent<u32>,
    count: usize,
    smem: Shared<u32>,
) -> C::Item {
    let mut acc = C::identity();
    let mut p = thread::thread_idx_x() as usize;
    while p < count {
        acc = C::combine(acc, load_item::<C::Item>(partials, p));
        p += BLOCK;
    }
    block::reduce::<C, BLOCK>(acc, smem)
}

/// An item kernel's raw entry point, `(input, n, partials, counter, out)` (see [`item_pass`]): the
/// `#[no_mangle]` export on the GPU calls it, and the emulator calls it as a Rust function.
pub type ItemEntry<T> = unsafe fn(*const T, usize, *mut u32, *mut u32, *mut u32);

/// The item ABI → safe views: `(const T* input, size_t n, u32* partials, u32* counter, u32* out)`,
/// the entry-point signature of every item kernel (argmin/argmax, `examples/custom-op`), with
/// `partials` holding `gridDim.x * WORDS` words, `out` `WORDS` words, and
/// [`block::shared_words`]`(blockDim.x, WORDS)` words of dynamic shared memory, where `WORDS` is
/// `I::WORDS`.
///
/// # Safety
/// `input` holds `n` initialized elements nobody writes during the launch; `partials` and `out`
/// hold the words above and only this launch accesses them; `counter` is a zeroed `u32` only this
/// launch accesses; the launch reserves the shared memory above.
#[inline(always)]
pub unsafe fn item_pass<T: crate::Element, I: Item>(
    body: impl Fn(crate::gpu::Global<T>, Workspace, GlobalMut<u32>),
    input: *const T,
    n: usize,
    partials: *mut u32,
    counter: *mut u32,
    out: *mut u32,
) {
    let () = ItemCheck::<I>::OK;
    let grid = thread::grid_dim_x() as usize;
    let smem_words = block::shared_words(thread::block_dim_x() as usize, I::WORDS) as u32;
    // SAFETY: this function's contract: `n` read-only input elements, `grid * WORDS` partial words
    // and `WORDS` result words only this launch touches, a zeroed counter, the shared memory.
    let (input, ws, out) = unsafe {
        (
            crate::gpu::Global::from_raw(input, n),
            Workspace {
                smem: Shared::dynamic(smem_words),
                partials: Coherent::from_raw(partials, grid * I::WORDS),
                counter: Counter::from_raw(counter),
            },
            GlobalMut::from_raw(out, I::WORDS),
        )
    };
    body(input, ws, out)
}
