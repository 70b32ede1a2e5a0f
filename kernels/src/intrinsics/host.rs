//! The intrinsics on the host: calls into the emulator ([`crate::emu`]), which runs each GPU
//! thread as a coroutine (see [`super`]).

use super::Vec4;
use super::Word;
use crate::emu;

pub fn thread_idx() -> u32 {
    emu::with_thread(|t| t.thread_idx as u32)
}
pub fn block_idx() -> u32 {
    emu::with_thread(|t| t.block_idx as u32)
}
pub fn block_dim() -> u32 {
    emu::with_thread(|t| t.block_dim as u32)
}
pub fn grid_dim() -> u32 {
    emu::with_thread(|t| t.grid_dim as u32)
}
pub fn sync_threads() {
    emu::sync_threads()
}
/// # Safety
/// None in the emulator (a mask it cannot run panics); the signature is the GPU's.
pub unsafe fn sync_warp(mask: u32) {
    emu::check_warp_mask(mask, "__syncwarp");
    emu::sync_warp()
}
pub fn sync_threads_or(pred: bool) -> bool {
    emu::sync_threads_or(pred)
}
/// # Safety
/// None in the emulator (a mask it cannot run panics); the signature is the GPU's.
pub unsafe fn shfl_down_u32(mask: u32, v: u32, delta: u32) -> u32 {
    emu::check_warp_mask(mask, "__shfl_down_sync");
    emu::shfl_down(v, delta)
}
/// # Safety
/// None in the emulator (a mask it cannot run panics); the signature is the GPU's.
pub unsafe fn shfl_idx_u32(mask: u32, v: u32, src: u32) -> u32 {
    emu::check_warp_mask(mask, "__shfl_sync");
    emu::shfl_idx(v, src)
}
/// # Safety
/// None in the emulator (a mask it cannot run panics); the signature is the GPU's.
pub unsafe fn ballot(mask: u32, pred: bool) -> u32 {
    emu::check_warp_mask(mask, "__ballot_sync");
    emu::ballot(pred)
}
pub fn thread_fence() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst)
}
pub fn global_timer_ns() -> u64 {
    static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    EPOCH
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_nanos() as u64
}
pub fn dynamic_shared<T>() -> *mut T {
    emu::shared_base() as *mut T
}
pub unsafe fn load<T: Copy>(p: *const T) -> T {
    // SAFETY: the caller's contract (a live, aligned `T` nobody writes meanwhile).
    unsafe { p.read() }
}
pub unsafe fn store<T: Copy>(p: *mut T, v: T) {
    // SAFETY: the caller's contract (a live, aligned `T` nobody else accesses meanwhile).
    unsafe { p.write(v) }
}
/// The emulator's 16-byte store: four relaxed 4-byte stores, after checking the alignment.
///
/// # Safety
/// `p` points to 16 live bytes that nobody else accesses meanwhile.
pub unsafe fn store_vec4(p: *mut Vec4, v: Vec4) {
    assert!(
        (p as usize).is_multiple_of(16),
        "misaligned 16-byte global store at {p:p}"
    );
    for (k, w) in v.0.into_iter().enumerate() {
        // SAFETY: the caller's contract (16 live bytes); word `k` lies inside them. Relaxed
        // atomic stores, as `GlobalMut::set_unchecked` (blocks run on several OS threads).
        unsafe { store_coherent((p as *mut u32).add(k), w) }
    }
}
pub unsafe fn load_vec4(p: *const Vec4) -> Vec4 {
    assert!(
        (p as usize).is_multiple_of(16),
        "misaligned 16-byte global load at {p:p}"
    );
    // SAFETY: the caller's contract (16 live bytes), aligned as just checked.
    unsafe { p.read() }
}
pub unsafe fn atomic_add_acq_rel_u32(p: *mut u32, v: u32) -> u32 {
    // SAFETY: the caller's contract (a live, aligned u32 only accessed atomically meanwhile).
    unsafe { std::sync::atomic::AtomicU32::from_ptr(p) }
        .fetch_add(v, std::sync::atomic::Ordering::AcqRel)
}
pub unsafe fn atomic_add_u64(p: *mut u64, v: u64) {
    assert!(
        (p as usize).is_multiple_of(8),
        "misaligned 64-bit atomic at {p:p}"
    );
    // SAFETY: the caller's contract (a live u64 only accessed atomically meanwhile), aligned
    // as just checked.
    unsafe { std::sync::atomic::AtomicU64::from_ptr(p) }
        .fetch_add(v, std::sync::atomic::Ordering::Relaxed);
}
pub unsafe fn load_coherent<T: Word>(p: *const T) -> T {
    use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering::Relaxed};
    // Atomic (relaxed) accesses: other emulated blocks run on other OS threads, and plain
    // accesses racing with them would be a data race in Rust's memory model.
    if core::mem::size_of::<T>() == 2 {
        // SAFETY: as below, 2 bytes (`f16` / `bf16`).
        T::from_word(unsafe { AtomicU16::from_ptr(p as *mut u16) }.load(Relaxed) as u64)
    } else if core::mem::size_of::<T>() == 4 {
        // SAFETY: the caller's contract (a live, aligned `T` of 4 bytes, only accessed
        // through these functions while the kernel runs).
        T::from_word(unsafe { AtomicU32::from_ptr(p as *mut u32) }.load(Relaxed) as u64)
    } else {
        // SAFETY: as above, 8 bytes.
        T::from_word(unsafe { AtomicU64::from_ptr(p as *mut u64) }.load(Relaxed))
    }
}
pub unsafe fn load_vec4_coherent<T: Word>(p: *const T) -> Vec4 {
    assert!(
        (p as usize).is_multiple_of(16),
        "misaligned 16-byte coherent load at {p:p}"
    );
    // Element by element with `load_coherent`'s relaxed atomics (the same access size as the
    // stores it may race with), packed as the GPU's four words.
    let size = core::mem::size_of::<T>();
    let mut w = [0u32; 4];
    for k in 0..16 / size {
        // SAFETY: the caller's contract: element `k` of the 16 live, aligned bytes.
        let bits = unsafe { load_coherent(p.add(k)) }.to_word();
        match size {
            2 => w[k / 2] |= (bits as u32) << (16 * (k % 2)),
            4 => w[k] = bits as u32,
            _ => {
                w[2 * k] = bits as u32;
                w[2 * k + 1] = (bits >> 32) as u32;
            }
        }
    }
    Vec4(w)
}
pub unsafe fn store_coherent<T: Word>(p: *mut T, v: T) {
    use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering::Relaxed};
    let bits = v.to_word();
    if core::mem::size_of::<T>() == 2 {
        // SAFETY: as in `load_coherent`, 2 bytes.
        unsafe { AtomicU16::from_ptr(p as *mut u16) }.store(bits as u16, Relaxed)
    } else if core::mem::size_of::<T>() == 4 {
        // SAFETY: as in `load_coherent`.
        unsafe { AtomicU32::from_ptr(p as *mut u32) }.store(bits as u32, Relaxed)
    } else {
        // SAFETY: as in `load_coherent`.
        unsafe { AtomicU64::from_ptr(p as *mut u64) }.store(bits, Relaxed)
    }
}
