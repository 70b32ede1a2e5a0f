//! # Argmin/argmax in two kernels: a programmatic dependent launch instead of the ticket
//!
//! What changed (a run-time candidate, `reduce arg --policy unroll=8,combine=pdl`): the grid
//! kernels ([`entry_pdl_u8`], [`entry_pdl_lean8`]) are the 8-deep candidates' loops
//! ([`super::reduce`], [`super::reduce_lean`] with `SPLIT = true`), but each block ends by
//! storing its `(index, value)` item in `partials[blockIdx.x]`
//! ([`device::finish_split`]) — no fence, no `atom.acq_rel.gpu` ticket, no block barrier on the
//! ticket's answer. A one-block kernel ([`entry_pdl_combine`]), launched by the host with
//! *programmatic stream serialization* (`cuLaunchKernelEx`, `host/src/launch_ex.rs`), waits in
//! `griddepcontrol.wait` and folds the items in block order ([`device::combine_stored`]) — stage
//! 8's two-kernel form ([`crate::stages::s8_pdl`]) for the argmin/argmax item.
//!
//! Why it may be faster: the H200 profile of f32 argmax at 2^20 (session 7) put 37% of the stall
//! samples at the per-block ticket barrier (the fence and the atomic every block waits on before
//! it may exit) and had the SMs active 54% of the time. Here a block exits right after its store;
//! every grid block executes `griddepcontrol.launch_dependents` first, so the combine block can be
//! resident, waiting, before the last grid block ends, and the wait returns once the grid has
//! completed and its stores are visible (PTX ISA, `griddepcontrol`): no release/acquire pair.
//!
//! Same bits as the ticket form: the same loop, the same block tree, and the same fold over the
//! items in block order with the same `BLOCK` ([`device::combine_stored`] is [`device::finish`]'s
//! last-block step). The emulator runs the two launches one after the other (both
//! `griddepcontrol` instructions are no-ops there), and the tests compare the two forms' results.

use super::lean::{candidate, reduce_lean};
use super::{reduce, Arg, ArgItem, Direction, DEEP_UNROLL};
use crate::gpu::{
    fail, griddepcontrol_launch_dependents, griddepcontrol_wait, Coherent, GlobalMut, Shared,
};
use crate::primitives::device::{self, item_pass, Workspace};
use crate::primitives::{block, store_item, Item, ItemCheck};
use crate::{thread, Element};

/// First thing in a grid kernel: with `SPLIT`, let the combine kernel be scheduled now (it waits
/// for this grid's completion anyway).
#[inline(always)]
pub(super) fn start<const SPLIT: bool>() {
    if SPLIT {
        griddepcontrol_launch_dependents();
    }
}

/// Last thing in a grid kernel: the ticket ([`device::finish`]) or, with `SPLIT`, the block's item
/// stored for [`entry_pdl_combine`] ([`device::finish_split`]).
#[inline(always)]
pub(super) fn finish<T: Element, D: Direction, const BLOCK: usize, const SPLIT: bool>(
    acc: ArgItem<T>,
    ws: Workspace,
    out: GlobalMut<u32>,
) {
    if SPLIT {
        device::finish_split::<Arg<T, D>, BLOCK>(acc, ws)
    } else {
        device::finish::<Arg<T, D>, BLOCK>(acc, ws, out)
    }
}

candidate!(
    /// The grid kernel of the two-kernel form over [`super::reduce`]'s loop, 8 loads in flight
    /// (`--policy unroll=8,combine=pdl`). Item ABI ([`item_pass`]); `counter` and `out` are not
    /// touched: each block writes `partials[blockIdx.x]`.
    entry_pdl_u8 => reduce, DEEP_UNROLL, true
);
candidate!(
    /// The grid kernel over [`reduce_lean`]'s loop, 8 loads in flight
    /// (`--policy unroll=8,lane=loop,combine=pdl`); as [`entry_pdl_u8`].
    entry_pdl_lean8 => reduce_lean, DEEP_UNROLL, true
);

/// The combine kernel: one block of `BLOCK` threads (the grid kernel's `BLOCK`: the fold's order
/// depends on it) waits for the grid launched before it on the stream, folds the `n` items in
/// `partials` in block order and writes the result item to `out`. The item ABI's signature, read
/// differently: `input` is not read, `n` is the grid kernel's `gridDim.x`, `counter` is not
/// touched. Shared memory: [`block::shared_words`]`(BLOCK, WORDS)` words. A launch of another
/// shape stops with an error (a trap on the GPU, a panic in the emulator).
///
/// # Safety
/// `partials` holds `n * WORDS` words that the previous launch on the stream wrote (or writes,
/// before its completion), `out` `WORDS` words only this launch accesses, and the launch reserves
/// the shared memory above; `WORDS` is `ArgItem::<T>::WORDS`.
pub unsafe fn entry_pdl_combine<T: Element, D: Direction, const BLOCK: usize>(
    _input: *const T,
    n: usize,
    partials: *mut u32,
    _counter: *mut u32,
    out: *mut u32,
) {
    // Nothing before this line touches the partials: until the wait returns, the grid may still
    // be writing them.
    griddepcontrol_wait();
    let () = ItemCheck::<ArgItem<T>>::OK;
    let words = ArgItem::<T>::WORDS;
    if thread::block_dim_x() as usize != BLOCK || thread::grid_dim_x() != 1 {
        fail("argreduce's PDL combine needs one block of BLOCK threads");
    }
    let smem_words = block::shared_words(BLOCK, words) as u32;
    // SAFETY: this function's contract: `n * WORDS` words of partials written before the wait
    // returned, `WORDS` result words, the shared memory.
    let (partials, smem, out) = unsafe {
        (
            Coherent::from_raw(partials, n.saturating_mul(words)),
            Shared::dynamic(smem_words),
            GlobalMut::from_raw(out, words),
        )
    };
    let total = device::combine_stored::<Arg<T, D>, BLOCK>(&partials, n, smem);
    if thread::thread_idx_x() == 0 {
        store_item(&out, 0, total);
    }
}
