//! Shared memory of the running block, checked: bounds, reads of unwritten words (initcheck) and
//! unordered conflicting accesses (racecheck), by a shadow word per 4 bytes.

use super::{current_block, with_thread, EmuError, RaceKind};
use std::string::ToString;

const NOBODY: u32 = u32::MAX;
const SEVERAL: u32 = u32::MAX - 1;

/// Who last touched a 4-byte word of shared memory, and in which barrier interval.
#[derive(Clone, Copy)]
pub(crate) struct Shadow {
    pub(crate) writer: u32,
    pub(crate) w_block_epoch: u32,
    pub(crate) w_warp_epoch: u32,
    pub(crate) reader: u32,
    pub(crate) r_warp: u32,
    pub(crate) r_block_epoch: u32,
    pub(crate) r_warp_epoch: u32,
}

pub(crate) const FRESH: Shadow = Shadow {
    writer: NOBODY,
    w_block_epoch: 0,
    w_warp_epoch: 0,
    reader: NOBODY,
    r_warp: NOBODY,
    r_block_epoch: 0,
    r_warp_epoch: 0,
};

/// Base address of the running block's dynamic shared memory.
pub fn shared_base() -> *mut u8 {
    let b = current_block();
    // SAFETY: see `current_block`; only the address is taken.
    unsafe { (*b).shared.as_mut_ptr() as *mut u8 }
}

/// Bytes of dynamic shared memory the running block's launch reserved.
pub fn shared_len() -> usize {
    let b = current_block();
    // SAFETY: see `current_block`; only a field is read.
    unsafe { (*b).shared_len }
}

/// Check one shared-memory access (called by [`crate::gpu::Shared`] before it touches memory).
pub fn shared_access(byte_offset: usize, size: usize, write: bool) {
    let tid = with_thread(|t| t.thread_idx);
    // SAFETY: see `current_block`: this reference ends before the function returns, and nothing
    // in it suspends.
    let b = unsafe { &mut *current_block() };
    if byte_offset + size > b.shared_len {
        let err = EmuError::SharedOutOfBounds {
            block: b.block_idx,
            thread: tid,
            byte_offset,
            reserved: b.shared_len,
        };
        let msg = err.to_string();
        b.error.get_or_insert(err);
        panic!("{msg}");
    }
    let me = tid as u32;
    let warp = (tid / 32) as u32;
    let be = b.block_epoch;
    let we = b.warp_epoch[warp as usize];
    // Accesses by `other` (in block epoch `obe`, warp epoch `owe`) and by us are ordered when a
    // block barrier lies between them, or a warp barrier when both threads share a warp.
    let ordered =
        |other_warp: u32, obe: u32, owe: u32| obe != be || (other_warp == warp && owe != we);
    for word in byte_offset / 4..(byte_offset + size).div_ceil(4) {
        let s = &mut b.shadow[word];
        let mut found: Option<EmuError> = None;
        if write {
            if s.writer != NOBODY
                && s.writer != me
                && !ordered(s.writer / 32, s.w_block_epoch, s.w_warp_epoch)
            {
                found = Some(EmuError::SharedRace {
                    kind: RaceKind::WriteAfterWrite,
                    block: b.block_idx,
                    byte_offset: word * 4,
                    earlier_thread: s.writer as usize,
                    later_thread: tid,
                });
            } else if s.reader != NOBODY
                && (s.reader == SEVERAL || s.reader != me)
                // The recorded reads share one block epoch (older ones are dropped): a block
                // barrier since then orders all of them, however many warps read.
                && s.r_block_epoch == be
                && !(s.r_warp != SEVERAL && ordered(s.r_warp, s.r_block_epoch, s.r_warp_epoch))
            {
                found = Some(EmuError::SharedRace {
                    kind: RaceKind::WriteAfterRead,
                    block: b.block_idx,
                    byte_offset: word * 4,
                    earlier_thread: if s.reader == SEVERAL {
                        usize::MAX
                    } else {
                        s.reader as usize
                    },
                    later_thread: tid,
                });
            }
            s.writer = me;
            s.w_block_epoch = be;
            s.w_warp_epoch = we;
            s.reader = NOBODY;
            s.r_warp = NOBODY;
        } else {
            if s.writer == NOBODY {
                found = Some(EmuError::UninitializedSharedRead {
                    block: b.block_idx,
                    thread: tid,
                    byte_offset: word * 4,
                });
            } else if s.writer != me && !ordered(s.writer / 32, s.w_block_epoch, s.w_warp_epoch) {
                found = Some(EmuError::SharedRace {
                    kind: RaceKind::ReadAfterWrite,
                    block: b.block_idx,
                    byte_offset: word * 4,
                    earlier_thread: s.writer as usize,
                    later_thread: tid,
                });
            }
            let stale = s.reader == NOBODY
                || s.r_block_epoch != be
                || (s.r_warp == warp && s.r_warp_epoch != we);
            if stale {
                s.reader = me;
                s.r_warp = warp;
            } else if s.reader != me {
                s.reader = SEVERAL;
                if s.r_warp != warp {
                    s.r_warp = SEVERAL;
                }
            }
            s.r_block_epoch = be;
            s.r_warp_epoch = we;
        }
        if let Some(e) = found {
            b.error.get_or_insert(e);
        }
    }
}
