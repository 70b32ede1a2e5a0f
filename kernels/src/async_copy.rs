//! # A thread's copy ring: `cp.async` from global into shared memory (sm_80+)
//!
//! A load (`ld.global`) keeps a register busy from the moment it is issued until its bytes
//! arrive, about a microsecond under load; so the bytes a thread can have in flight are bounded by
//! its registers, and a kernel whose arithmetic needs many registers (the `f16` moments: 72) keeps
//! few bytes in flight per SM. `cp.async` (Ampere's asynchronous copy) sends the bytes to shared
//! memory instead: nothing in the register file waits for them.
//!
//! [`CopyRing`] gives each thread `STAGES` slots of `UNROLL` 16-byte vectors in the block's
//! dynamic shared memory (from byte 0, or from a byte offset with [`CopyRing::new_at`]), **its
//! own**: thread `t`'s vector `u` of stage `s` lives at index `(s · UNROLL + u) · blockDim.x + t`
//! (16-byte units from the ring's start), so a warp's 32 copies or reads of one
//! vector are 512 consecutive bytes (four shared-memory wavefronts, the minimum) and no other
//! thread ever touches them — no barrier is needed between a copy and its read, only the thread's
//! own `cp.async.wait_group`. The protocol, per slot: [`CopyRing::fetch`] issues a copy,
//! [`CopyRing::commit`] closes the thread's open copies into a group, [`CopyRing::wait`] retires
//! all but the newest `N` groups, then [`CopyRing::read`] may read the slot — and only after that
//! read may the slot be fetched into again.
//!
//! **Emulator.** The copies are queued per thread and performed when a `wait` retires their
//! group, so a kernel that reads a slot too early reads stale bytes — and the ring panics first,
//! naming the slot: a read of a slot with a copy pending, or a fetch into one, is a test failure,
//! not a silent race. Every performed copy and every read goes through the emulator's shared-
//! memory race check ([`crate::emu::shared_access`]).
//!
//! | CUDA C | here |
//! |---|---|
//! | `__pipeline_memcpy_async(dst, src, 16)` / `cp.async.cg.shared.global` | [`CopyRing::fetch`] |
//! | `__pipeline_commit()` | [`CopyRing::commit`] |
//! | `__pipeline_wait_prior(N)` | [`CopyRing::wait`] |

use crate::gpu::imp;
use crate::gpu::{fail, Global, Vec4};
use crate::Element;

/// `STAGES × UNROLL` 16-byte slots per thread in the block's dynamic shared memory (see the
/// module docs). Needs `STAGES · UNROLL · 16 · blockDim.x` bytes of it, from byte 0 ([`CopyRing::new`])
/// or from a chosen offset ([`CopyRing::new_at`]).
pub struct CopyRing<const STAGES: usize, const UNROLL: usize> {
    base: *mut Vec4,
    /// The ring's first slot, in 16-byte units from the start of dynamic shared memory (for the
    /// emulator's bounds and race checks).
    #[cfg(not(target_arch = "nvptx64"))]
    first: usize,
    tid: usize,
    block: usize,
    #[cfg(not(target_arch = "nvptx64"))]
    emu: core::cell::RefCell<emu_ring::Pending>,
}

impl<const STAGES: usize, const UNROLL: usize> CopyRing<STAGES, UNROLL> {
    /// Shared-memory bytes the ring takes for a block of `block` threads.
    pub const fn bytes(block: usize) -> usize {
        STAGES * UNROLL * 16 * block
    }

    /// The calling thread's ring. Checks that the launch reserved [`CopyRing::bytes`]`(blockDim.x)`
    /// bytes of dynamic shared memory (`%dynamic_smem_size`): fewer stop the kernel ([`fail`]).
    ///
    /// # Safety
    /// Nothing else in the kernel reads or writes those bytes until every thread of the block
    /// has [`CopyRing::drain`]ed its ring and passed a block barrier.
    #[inline(always)]
    pub unsafe fn new() -> Self {
        // SAFETY: the caller's contract is `new_at(0)`'s.
        unsafe { Self::new_at(0) }
    }

    /// [`CopyRing::new`] for a ring that starts `offset` bytes into the block's dynamic shared
    /// memory (a multiple of 16; the bytes before it are the kernel's own). Checks that the
    /// launch reserved `offset +` [`CopyRing::bytes`]`(blockDim.x)` bytes and that `offset` is a
    /// multiple of 16: otherwise it stops the kernel ([`fail`]).
    ///
    /// # Safety
    /// As [`CopyRing::new`], for the ring's bytes `offset..offset + bytes(blockDim.x)`.
    #[inline(always)]
    pub unsafe fn new_at(offset: usize) -> Self {
        let block = crate::thread::block_dim_x() as usize;
        if !offset.is_multiple_of(16)
            || (imp::dynamic_shared_bytes() as usize) < offset + Self::bytes(block)
        {
            fail("a copy ring needs offset + STAGES * UNROLL * 16 * blockDim.x bytes of dynamic shared memory, from a 16-byte boundary");
        }
        let first = offset / 16;
        CopyRing {
            // SAFETY: `first` 16-byte units are inside the reserved dynamic shared memory (just
            // checked), so the pointer stays inside it.
            base: unsafe { crate::shared::dynamic_shared_mem::<Vec4>().add(first) },
            #[cfg(not(target_arch = "nvptx64"))]
            first,
            tid: crate::thread::thread_idx_x() as usize,
            block,
            #[cfg(not(target_arch = "nvptx64"))]
            emu: core::cell::RefCell::new(emu_ring::Pending::default()),
        }
    }

    /// Index (in 16-byte units) of this thread's vector `u` of stage `stage`.
    #[inline(always)]
    fn slot(&self, stage: usize, u: usize) -> usize {
        #[cfg(not(target_arch = "nvptx64"))]
        assert!(
            stage < STAGES && u < UNROLL,
            "copy ring slot ({stage}, {u}) outside {STAGES} stages of {UNROLL} vectors"
        );
        (stage * UNROLL + u) * self.block + self.tid
    }

    /// Issue the copy of `src`'s `v`-th 16-byte vector from element `start` (as
    /// [`Global::get_vec4`]) into slot `(stage, u)`.
    ///
    /// # Safety
    /// As [`Global::get_vec4_unchecked`] (`start + (v + 1) · L <= src.len()`, element `start` on a
    /// 16-byte boundary); `stage < STAGES`, `u < UNROLL`; the slot has no copy pending (every
    /// earlier copy into it was retired by a [`CopyRing::wait`] and then [`CopyRing::read`]).
    #[inline(always)]
    pub unsafe fn fetch<T: Element>(
        &self,
        src: &Global<T>,
        start: usize,
        v: usize,
        stage: usize,
        u: usize,
    ) {
        let slot = self.slot(stage, u);
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: the source vector is in bounds and aligned (the caller's contract, as
        // `get_vec4_unchecked`); the slot lies in the reserved shared memory (`new`'s contract,
        // `stage < STAGES`, `u < UNROLL`), is this thread's alone and has no copy pending.
        unsafe {
            imp::cp_async_16(self.base.add(slot), src.vec4_ptr(start, v))
        };
        #[cfg(not(target_arch = "nvptx64"))]
        {
            // The emulator reads the source now (checked: it panics out of bounds; nothing
            // writes a `Global` during a launch, so this is the value the copy would deliver)
            // and writes the slot when a `wait` retires the group.
            let value = src.get_vec4(start, v);
            self.emu.borrow_mut().issue(slot, value);
        }
    }

    /// Close this thread's copies issued since the last commit into one group (possibly empty).
    #[inline(always)]
    pub fn commit(&self) {
        #[cfg(target_arch = "nvptx64")]
        imp::cp_async_commit();
        #[cfg(not(target_arch = "nvptx64"))]
        self.emu.borrow_mut().commit();
    }

    /// Wait until at most the `N` newest committed groups are pending: the copies of all older
    /// groups are then in their slots.
    #[inline(always)]
    pub fn wait<const N: u32>(&self) {
        #[cfg(target_arch = "nvptx64")]
        imp::cp_async_wait::<N>();
        #[cfg(not(target_arch = "nvptx64"))]
        self.emu
            .borrow_mut()
            .retire(N as usize, self.base, self.first);
    }

    /// The vector in slot `(stage, u)`.
    ///
    /// # Safety
    /// `stage < STAGES`, `u < UNROLL`, and a copy into the slot was issued, committed and retired
    /// by a [`CopyRing::wait`] since the slot was last read.
    #[inline(always)]
    pub unsafe fn read(&self, stage: usize, u: usize) -> Vec4 {
        let slot = self.slot(stage, u);
        #[cfg(not(target_arch = "nvptx64"))]
        self.emu.borrow().check_read(slot, self.first);
        // SAFETY: the slot lies in the reserved shared memory and is this thread's alone
        // (`new`'s contract); its copy has landed (the caller's contract).
        unsafe { imp::load_shared_vec4(self.base.add(slot)) }
    }

    /// Retire every copy (`cp.async.wait_group 0`) and give the ring up. After this, and a block
    /// barrier, the block may use the ring's shared memory for something else.
    #[inline(always)]
    pub fn drain(self) {
        self.wait::<0>();
        #[cfg(not(target_arch = "nvptx64"))]
        self.emu.borrow().check_drained();
    }

    /// Wait until at most the `STAGES - 1` newest groups are pending ([`CopyRing::wait`] with
    /// that count: the instruction takes it as an immediate, so the match picks the constant).
    #[inline(always)]
    fn wait_all_but_newest_stages(&self) {
        match STAGES {
            0 | 1 => self.wait::<0>(),
            2 => self.wait::<1>(),
            3 => self.wait::<2>(),
            4 => self.wait::<3>(),
            5 => self.wait::<4>(),
            6 => self.wait::<5>(),
            7 => self.wait::<6>(),
            _ => self.wait::<7>(),
        }
    }

    /// The ring's whole loop: `steps` steps, whose `UNROLL` vectors — vector `u` of step `s` is
    /// `src`'s 16-byte vector `vector(s, u)` counted from element `start` — are copied up to
    /// `STAGES` steps ahead and handed to `consume(s, vectors)` in step order; a step's slots are
    /// refilled only after `consume` returned. Then the ring is drained.
    ///
    /// # Safety
    /// [`CopyRing::fetch`]'s source contract for every `vector(s, u)`, `s < steps`, `u < UNROLL`
    /// (`start + (vector(s, u) + 1) · L <= src.len()`, element `start` on a 16-byte boundary).
    #[inline(always)]
    pub unsafe fn stream<T: Element>(
        self,
        src: &Global<T>,
        start: usize,
        steps: usize,
        vector: impl Fn(usize, usize) -> usize,
        mut consume: impl FnMut(usize, [Vec4; UNROLL]),
    ) {
        let fetch = |step: usize| {
            for u in 0..UNROLL {
                // SAFETY: the source vector is valid (this function's contract, `step < steps`);
                // `step % STAGES < STAGES`, `u < UNROLL`; the slot's previous copy (step - STAGES)
                // was retired and read in that step's iteration, which precedes this fetch.
                unsafe { self.fetch(src, start, vector(step, u), step % STAGES, u) };
            }
        };
        for step in 0..STAGES {
            if step < steps {
                fetch(step);
            }
            self.commit();
        }
        for step in 0..steps {
            // STAGES + step groups are committed: all but the newest STAGES - 1 are step's or
            // older.
            self.wait_all_but_newest_stages();
            let mut v = [Vec4([0; 4]); UNROLL];
            for (u, x) in v.iter_mut().enumerate() {
                // SAFETY: `step % STAGES < STAGES`, `u < UNROLL`; step's copies were fetched
                // (before the loop, or in iteration step - STAGES), committed and retired above.
                *x = unsafe { self.read(step % STAGES, u) };
            }
            consume(step, v);
            if step + STAGES < steps {
                fetch(step + STAGES);
            }
            self.commit();
        }
        self.drain();
    }
}

/// The emulator's pending copies of one thread.
#[cfg(not(target_arch = "nvptx64"))]
mod emu_ring {
    use crate::gpu::Vec4;
    use std::collections::VecDeque;
    use std::vec::Vec;

    /// Copies issued but not yet committed, and committed groups not yet retired (oldest first).
    #[derive(Default)]
    pub struct Pending {
        open: Vec<(usize, Vec4)>,
        groups: VecDeque<Vec<(usize, Vec4)>>,
    }

    impl Pending {
        fn pending(&self, slot: usize) -> bool {
            self.open
                .iter()
                .chain(self.groups.iter().flatten())
                .any(|c| c.0 == slot)
        }
        pub fn issue(&mut self, slot: usize, value: Vec4) {
            assert!(
                !self.pending(slot),
                "cp.async into copy-ring slot {slot} while an earlier copy into it is pending"
            );
            self.open.push((slot, value));
        }
        pub fn commit(&mut self) {
            let group = core::mem::take(&mut self.open);
            self.groups.push_back(group);
        }
        /// Perform the copies of every group but the newest `keep`.
        /// (`base` is the ring's first slot, `first` 16-byte units into shared memory.)
        pub fn retire(&mut self, keep: usize, base: *mut Vec4, first: usize) {
            while self.groups.len() > keep {
                for (slot, value) in self.groups.pop_front().unwrap_or_default() {
                    crate::emu::shared_access((first + slot) * 16, 16, true);
                    // SAFETY: `shared_access` just checked that the 16 bytes lie in the block's
                    // reserved shared memory (it panics otherwise); 16-byte aligned (the
                    // emulator's shared memory is, and `slot` counts 16-byte units).
                    unsafe { base.add(slot).write(value) };
                }
            }
        }
        pub fn check_read(&self, slot: usize, first: usize) {
            assert!(
                !self.pending(slot),
                "read of copy-ring slot {slot} before cp.async.wait_group retired its copy"
            );
            crate::emu::shared_access((first + slot) * 16, 16, false);
        }
        pub fn check_drained(&self) {
            assert!(
                self.open.is_empty() && self.groups.is_empty(),
                "copy ring drained with copies never committed"
            );
        }
    }
}
