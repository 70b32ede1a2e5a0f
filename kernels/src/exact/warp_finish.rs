//! # The warp finish: a block's words by its warp 0 alone, without shared atomics or barriers
//!
//! **What changed.** After the streaming, the default kernels ([`super::lean`]) finish a block in
//! five steps with three block barriers: each warp's lane 0 adds its expansion into the block's
//! words with 64-bit shared atomics (compare-and-swap loops on sm_90, `ATOMS.CAST.SPIN.64`, eight
//! or sixteen warps contending for the same three or four words), a barrier, a carry step through
//! shared memory between two more barriers, the global adds, a barrier and a block-wide vote for
//! the ticket; the last block then stores the grid's words in shared memory behind one more
//! barrier. The warp finish keeps the first barrier only:
//!
//! 1. every warp's lane 0 stores its expansion in shared memory; **one** block barrier; the other
//!    warps are done;
//! 2. warp 0 merges the warps' expansions with shuffles (`log2(warps)` rounds, exact; a residual
//!    spills into the words, as while streaming), then lane `l` computes its three words
//!    `3l .. 3l + 3` directly: its own spills from shared memory plus the digits of the block's
//!    `hi` and `lo` that land there ([`digits3`]: a shift of the significand, no atomics), and the
//!    four flags from `hi`'s class;
//! 3. the carry step in registers: each word's low 32 bits plus the carry out of the word below,
//!    which comes from the lane below by one shuffle ([`normalize_step`]);
//! 4. the lanes add their non-zero words into the grid's words, `__syncwarp` (which orders
//!    memory among the warp's lanes, PTX ISA `bar.warp.sync`), and lane 0 takes the ticket; the
//!    last block's warp 0 reads the grid's words into shared memory (each lane its own three
//!    words), zeroes them and rounds — warp-synchronous throughout.
//!
//! **Why it should be faster.** The probe ([`super::probe`]) put the default finish of the f32
//! 2^24 sum at ~1.5 µs for the merge and the shared atomics and ~0.8 µs for the carry step, on
//! the critical path of the block that finishes streaming last (session 15). Here the only
//! block-wide wait is the first barrier; the rest is one warp's shuffles and integer arithmetic.
//!
//! **Measured and lost** (session 16, H200, `benches/results/h200-2026-12-03-finish/`): f32 2^24
//! 26.9–27.2 µs against the default's 25.6–25.7, f64 42.7–42.8 against 41.7–41.8, level at 2^30.
//! The probe: the block barrier comes sooner (1.0–1.1 µs after thread 0's streaming, median,
//! against 1.4–2.2), but warp 0's three float merge rounds, digits and shuffles take 1.2–2.3 µs:
//! one warp doing the block's work lengthens a chain of dependent latencies. Kept as a measured
//! candidate (policy `warp_finish=1`).
//!
//! **Why the bits are the same.** The block's expansion is the exact merge of the same
//! expansions (the merge is exact: what does not fit spills into the words), and its digits are
//! the same integer [`super::accumulator::place`] would add: the words' total is unchanged, and
//! the normalized words are a function of that total. The flags: `hi` is NaN exactly when a NaN
//! or both infinities were added, ±inf when only that infinity was, and `-0.0` exactly when
//! every element was `-0.0` (IEEE addition on the specials and on signed zeros), which is what
//! the kernels' rounding step tests the counts for.

use super::accumulator::{normalize_step, significand, Format, GlobalWords, SharedWords};
use super::expansion::Expansion;
use super::kernel::{round_into, sum_with, Finished, WARP_FINISH};
use super::tile::PLAIN;
use crate::gpu::{ballot, shfl_idx_u32, sync_warp, Counter, Global, GlobalMut, Shared, WARP_SIZE};
use crate::{thread, warp, Element};

/// The default kernel ([`super::lean::sum_lean`]: the lean publish, the plain loop) with the
/// warp finish; the same launch contract and the same bits.
pub fn sum_warp<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, false, WARP_FINISH, true, PLAIN, false, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum_warp`] on the fast path ([`super::lean::sum_fast_lean`], f32's default).
pub fn sum_fast_warp<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, true, WARP_FINISH, true, PLAIN, false, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum_warp`] with the probe's stamps ([`super::probe`]'s launch contract: the workspace holds
/// `slots + STAMPS · gridDim.x` words).
pub fn sum_warp_probe<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, false, WARP_FINISH, true, PLAIN, true, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// [`sum_fast_warp`] with the probe's stamps, as [`sum_warp_probe`].
pub fn sum_fast_warp_probe<T: Element, const BLOCK: usize, const UNROLL: usize>(
    input: Global<T>,
    words: GlobalWords,
    counter: Counter,
    out: GlobalMut<T>,
) {
    sum_with::<T, BLOCK, UNROLL, true, WARP_FINISH, true, PLAIN, true, false>(
        input,
        words,
        counter,
        round_into(out),
    )
}

/// Words per lane of warp 0 (24 lanes hold an f64 sum's 72 slots, 5 an f32 sum's 15), as in
/// [`super::round::round_warp`].
const PER_LANE: usize = 3;

/// `v` of lane `src`, for 64 bits (two shuffles). All 32 lanes call it together.
#[inline(always)]
fn shfl_u64(v: u64, src: u32) -> u64 {
    let lo = shfl_idx_u32(v as u32, src) as u64;
    let hi = shfl_idx_u32((v >> 32) as u32, src) as u64;
    hi << 32 | lo
}

/// Digits `k0, k0 + 1, k0 + 2` of the finite `v` in units of `2^-unit_exp` (signed like `v`,
/// each below 2^32 in magnitude): bits `[32·k0, 32·k0 + 96)` of `|v| / 2^-unit_exp`. Over all
/// `k0 = 0, 3, 6, …` they are the digits [`super::accumulator::place`] gives (zero elsewhere).
/// `v` must be a multiple of the unit (every value the kernel handles is).
#[inline(always)]
pub fn digits3(v: f64, unit_exp: i32, k0: usize) -> [i64; 3] {
    let (m, e) = significand(v);
    // |v| = m · 2^(e + unit_exp) units; the window starts at bit 32·k0 of that integer.
    let s = e + unit_exp - 32 * k0 as i32;
    let m = m as u128;
    let chunk = if s >= 96 || s <= -53 {
        0
    } else if s >= 0 {
        m << s // bits past 96 belong to higher lanes: masked below
    } else {
        m >> -s // bits below the window belong to lower lanes
    };
    let d = [0, 1, 2].map(|j| ((chunk >> (32 * j)) & 0xffff_ffff) as i64);
    if v.is_sign_negative() {
        d.map(|x| -x)
    } else {
        d
    }
}

/// The block's finish from its warps' merged expansions `e` (valid in lane 0 of each warp) to
/// the grid's words, as the module docs describe; the last block's warp 0 calls `last` on the
/// grid's words in shared memory (`smem[..slots]`), as [`super::lean::last_block`] does. `base`
/// is where the warps' expansions go in `smem` (2 words per warp), `acc` the block's words
/// (`smem[..slots]`, which hold the streaming's spills). Every thread of the block calls it.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn warp_finish<const BLOCK: usize, const PROBE: bool>(
    e: Expansion,
    smem: &Shared<i64>,
    base: usize,
    acc: &SharedWords,
    f: Format,
    words: GlobalWords,
    counter: Counter,
    n: usize,
    last: impl FnOnce(&Shared<i64>, Format, usize),
) -> Finished {
    let warps = (BLOCK / WARP_SIZE as usize) as u32;
    let (warp, lane) = (thread::thread_idx_x() / WARP_SIZE, warp::lane_id());
    if lane == 0 {
        let at = base as u32 + 2 * warp;
        smem.set(at, e.hi.to_bits() as i64);
        smem.set(at + 1, e.lo.to_bits() as i64);
    }
    // The only block barrier: every warp's expansion and every spill are in shared memory.
    thread::sync_threads();
    let stamp = || if PROBE { crate::gpu::clock64() } else { 0 };
    let merged = stamp();
    if warp != 0 {
        return Finished {
            last: false,
            merged,
            carried: 0,
        };
    }

    // Warp 0 from here on. The warps' expansions merged (exact; residuals spill into `acc`).
    let mut r = Expansion::EMPTY;
    if lane < warps {
        let at = base as u32 + 2 * lane;
        r = Expansion {
            hi: f64::from_bits(smem.get(at) as u64),
            lo: f64::from_bits(smem.get(at + 1) as u64),
        };
    }
    let mut offset = warps / 2;
    while offset > 0 {
        let o = Expansion {
            hi: r.hi.shfl_down(offset),
            lo: r.lo.shfl_down(offset),
        };
        if lane < offset {
            r.merge(o, acc);
        }
        offset /= 2;
    }
    // The merges' spills (shared atomics by any lane) before the loads below.
    sync_warp();
    let hi = f64::from_bits(shfl_u64(r.hi.to_bits(), 0));
    let lo = f64::from_bits(shfl_u64(r.lo.to_bits(), 0));
    let flags = [
        hi.is_nan(),
        hi == f64::INFINITY,
        hi == f64::NEG_INFINITY,
        hi.to_bits() != (-0.0f64).to_bits(),
    ];

    // This lane's words: spills + the block's digits (or flags), then the carry step.
    let (w, slots, l) = (f.words, f.slots(), lane as usize);
    let k0 = PER_LANE * l;
    let (dh, dl) = if hi.is_finite() && k0 < w {
        (digits3(hi, f.unit_exp, k0), digits3(lo, f.unit_exp, k0))
    } else {
        ([0; 3], [0; 3])
    };
    let mut t = [0i64; PER_LANE];
    for j in 0..PER_LANE {
        let k = k0 + j;
        if k < w {
            t[j] = smem.get(k as u32) + dh[j] + dl[j];
        } else if k < slots {
            t[j] = smem.get(k as u32) + flags[k - w] as i64;
        }
    }
    let below = shfl_u64(t[PER_LANE - 1] as u64, l.saturating_sub(1) as u32) as i64;
    let carry_in = if l == 0 { 0 } else { below >> 32 };
    let mine = [
        normalize_step(t[0], carry_in, k0, w),
        normalize_step(t[1], t[0] >> 32, k0 + 1, w),
        normalize_step(t[2], t[1] >> 32, k0 + 2, w),
    ];
    let carried = stamp();

    let grid = thread::grid_dim_x();
    if grid == 1 {
        for (j, &x) in mine.iter().enumerate() {
            if k0 + j < slots {
                smem.set((k0 + j) as u32, x);
            }
        }
        sync_warp();
        last(smem, f, n);
        return Finished {
            last: true,
            merged,
            carried,
        };
    }
    for (j, &x) in mine.iter().enumerate() {
        if k0 + j < slots && x != 0 {
            words.add(k0 + j, x);
        }
    }
    // The lanes' atomics are ordered before lane 0's release by the warp barrier (it orders
    // memory among the lanes that take part: PTX ISA, `bar.warp.sync`), as the block barrier
    // orders the threads' atomics in `last_block`.
    sync_warp();
    let mut took_last = false;
    if lane == 0 {
        took_last = counter.take_ticket() == grid - 1;
    }
    let is_last = ballot(took_last) != 0;
    if is_last {
        // Lane 0's acquire before every lane's loads (the warp barrier again).
        sync_warp();
        for j in 0..PER_LANE {
            let k = k0 + j;
            if k < slots {
                smem.set(k as u32, words.get(k));
                words.set(k, 0);
            }
        }
        sync_warp();
        last(smem, f, n);
        if lane == 0 {
            counter.reset();
        }
    }
    Finished {
        last: is_last,
        merged,
        carried,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::accumulator::place;

    /// `digits3` over the lanes' windows gives `place`'s digits for values across the range.
    #[test]
    fn digits3_match_place() {
        let mut values = std::vec![
            1.0,
            -1.0,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            f64::MAX,
            -f64::MAX,
            0.1,
            -3.75e300,
            1.5e-300
        ];
        values.extend([2f64.powi(-149), -(f32::MAX as f64), 1e30, 0.0, -0.0]);
        for (f, vs) in [(Format::F64, &values[..]), (Format::F32, &values[10..])] {
            for &v in vs {
                let mut want = std::vec![0i64; f.words + 2];
                if let Some((k, d)) = place(v, f.unit_exp) {
                    for (j, x) in d.iter().enumerate() {
                        want[k + j] += x;
                    }
                }
                want.truncate(f.words);
                let got: std::vec::Vec<i64> = (0..f.words)
                    .step_by(PER_LANE)
                    .flat_map(|k0| digits3(v, f.unit_exp, k0))
                    .take(f.words)
                    .collect();
                assert_eq!(got, want, "{v:e} in {f:?}");
            }
        }
    }
}
