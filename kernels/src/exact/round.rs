//! # The one rounding: a long fixed-point integer to the nearest `f32`/`f64`, ties to even
//!
//! **What.** The exact sum ends as an integer `S = Σ words[k] · 2^(32k)` in units of
//! `2^-unit_exp` ([`super::accumulator`]); rounding it to the bits of the nearest value of the
//! result type takes full carry propagation into 32-bit digits, the sign, the highest set bit,
//! the top 24 or 53 bits, the guard bit and the sticky bits below it, ties to even, subnormals
//! (no hidden bit; exactly representable when the value has fewer bits than the precision) and
//! overflow to ±inf. Two implementations of the same function:
//!
//! * [`round_warp`], what the kernels run: **a whole warp**, lane `l` holding digit words
//!   `3l..3l + 3` in registers. Carries move up one lane per round of shuffles until a vote says
//!   none is left (one or two rounds for most sums, at most 23); the sign, the lowest and the
//!   highest non-zero digit and the sticky bits are votes (`__ballot_sync`), the 53 bits under
//!   the top are gathered with three shuffles.
//! * [`round`], one thread over an array: the reference [`round_warp`] is tested against, and
//!   the multi-GPU combine's (which runs once per call on a handful of words).
//!
//! **Why the warp version.** This is the one part of the exact sum whose time does not shrink
//! with `N`. One thread doing it (the first kernels' rounding) walked the 68 words of an f64 sum
//! several times through local memory — the arrays indexed at run time, zeroed byte by byte —
//! which cost about 5 µs (f32) and 14 µs (f64) per launch over stage 8's plain sum (measured:
//! the exact sum at 2^12 against stage 8 at 2^12, `benches/exact-on-gpu.sh`). The warp version
//! keeps every digit in a register and has no loop longer than three words or the carry rounds.
//!
//! **What it costs.** A few dozen shuffles and votes by one warp of the last block, once per
//! launch.

use super::accumulator::{Format, MAX_SLOTS};
use crate::gpu::{ballot, shfl_idx_u32};
use crate::warp;

/// Round the integer `Σ words[k] · 2^(32k)` (units of `2^-unit_exp`; each `|words[k]| < 2^62`) once
/// to the nearest value of `f`'s type, ties to even: the result's bits (±0 → `+0.0`; an exact sum
/// beyond the largest finite value → ±inf).
pub fn round(words: &[i64], f: Format) -> u64 {
    let w = f.words;
    // Full carry propagation into 32-bit digits of a two's-complement number.
    let mut d = [0u32; MAX_SLOTS];
    let mut carry: i64 = 0;
    for k in 0..w {
        let t = words[k] + carry;
        d[k] = t as u32;
        carry = t >> 32;
    }
    // The value fits in 32·W - 1 bits, so the final carry is the sign extension (0 or -1).
    let negative = (d[w - 1] as i32) < 0 || carry < 0;
    if negative {
        let mut c = 1u64;
        for x in d.iter_mut().take(w) {
            let t = (!*x) as u64 + c;
            *x = t as u32;
            c = t >> 32;
        }
    }
    let mut top = w;
    while top > 0 && d[top - 1] == 0 {
        top -= 1;
    }
    if top == 0 {
        return 0;
    }
    let p = (top - 1) * 32 + (31 - d[top - 1].leading_zeros() as usize); // highest set bit
    let prec = f.precision as usize;
    let bits_at = |pos: usize| -> u64 {
        // 64 bits of the magnitude starting at bit `pos`.
        let (k, off) = (pos / 32, pos % 32);
        let mut v: u128 = 0;
        for j in 0..4 {
            if k + j < w {
                v |= (d[k + j] as u128) << (32 * j);
            }
        }
        (v >> off) as u64
    };
    let (q, shift) = if p < prec {
        // Exactly representable (a subnormal, or a normal with no bits below the unit).
        (bits_at(0) & ((1 << prec) - 1), 0)
    } else {
        let shift = p + 1 - prec;
        let mut q = bits_at(shift) & ((1 << prec) - 1);
        let guard = bits_at(shift - 1) & 1 != 0;
        let below = shift - 1; // bits [0, below) are the sticky bits
        let mut sticky = d[..below / 32].iter().any(|&x| x != 0);
        if !below.is_multiple_of(32) {
            sticky |= d[below / 32] & ((1u32 << (below % 32)) - 1) != 0;
        }
        if guard && (sticky || q & 1 != 0) {
            q += 1; // may carry into 2^prec: the exponent below absorbs it
        }
        (q, shift)
    };
    assemble(q, shift, negative, f)
}

/// The bits of `±q·2^(shift - unit_exp)` (`q < 2^prec`, or `= 2^prec` after rounding up, and
/// `shift = 0` for a value with fewer bits than the precision): adding `q` to the shifted
/// exponent field puts its hidden bit into the exponent (normal) or leaves a subnormal; past the
/// largest finite value, ±inf.
#[inline(always)]
fn assemble(q: u64, shift: usize, negative: bool, f: Format) -> u64 {
    let mut r = ((shift as u64) << (f.precision - 1)) + q;
    if r >= f.inf_bits() {
        r = f.inf_bits();
    }
    if negative {
        r |= f.sign_bit();
    }
    r
}

/// Digit words per lane in [`round_warp`]: 23 lanes hold an f64 sum's 68 words, 4 an f32 sum's 11.
const PER_LANE: usize = 3;

/// `d[j]` for a `j` every lane has alike, without indexing the array at run time (which would put
/// it in local memory).
#[inline(always)]
fn pick(d: &[u32; PER_LANE], j: usize) -> u32 {
    match j {
        0 => d[0],
        1 => d[1],
        _ => d[2],
    }
}

/// [`round`] by a whole warp (see the module docs): the same bits, in every lane. `word(k)` is
/// carry-save word `k < f.words` (each below 2^62 in magnitude); lanes call it for their own
/// words only. All 32 lanes of the warp must call `round_warp` together with the same `f`.
#[inline(always)]
pub fn round_warp(word: impl Fn(usize) -> i64, f: Format) -> u64 {
    let lane = warp::lane_id() as usize;
    let active = f.words.div_ceil(PER_LANE); // lanes with digits: the others hold zeros
                                             // 1. The lane's three words carried into 32-bit digits; `c` (|c| < 2^31) goes to the lane above.
    let mut d = [0u32; PER_LANE];
    let mut c = 0i64;
    if lane < active {
        for (j, x) in d.iter_mut().enumerate() {
            let k = PER_LANE * lane + j;
            let t = if k < f.words { word(k) } else { 0 } + c;
            *x = t as u32;
            c = t >> 32;
        }
    }
    // 2. Carries up one lane per round until none is left (the top lane's is the sign extension
    //    of a number that fits in 3·active digits: dropped). After the first round every carry
    //    is -1, 0 or 1, and the lowest lane still owed one moves up each round.
    loop {
        let out = if lane + 1 < active { c } else { 0 };
        if ballot(out != 0) == 0 {
            break;
        }
        let from_below = shfl_idx_u32(out as u32, lane.saturating_sub(1) as u32) as i32 as i64;
        let mut t = if lane == 0 { 0 } else { from_below };
        for x in d.iter_mut() {
            t += *x as i64;
            *x = t as u32;
            t >>= 32;
        }
        c = t;
    }
    // 3. The sign (the top digit's top bit), then the magnitude: -D = !D + 1, the +1 absorbed by
    //    the lowest non-zero lane (the lanes below it are zero and stay zero).
    let negative = (shfl_idx_u32(d[PER_LANE - 1], active as u32 - 1) as i32) < 0;
    let nonzero = ballot(d != [0; PER_LANE]);
    if nonzero == 0 {
        return 0;
    }
    if negative {
        let low = nonzero.trailing_zeros() as usize;
        if lane == low {
            let mut t = 1u64;
            for x in d.iter_mut() {
                t += (!*x) as u64;
                *x = t as u32;
                t >>= 32;
            }
        } else if lane > low && lane < active {
            for x in d.iter_mut() {
                *x = !*x;
            }
        }
    }
    // 4. The highest set bit `p`, from the highest lane with a non-zero digit.
    let top_lane = 31 - ballot(d != [0; PER_LANE]).leading_zeros();
    let mut mine = 0;
    for (j, &x) in d.iter().enumerate() {
        if x != 0 {
            mine = 32 * (PER_LANE * lane + j) + 31 - x.leading_zeros() as usize;
        }
    }
    let p = shfl_idx_u32(mine as u32, top_lane) as usize;
    // Digit `g` of the magnitude, from the lane holding it (every lane asks for the same `g`).
    let digit = |g: usize| shfl_idx_u32(pick(&d, g % PER_LANE), (g / PER_LANE) as u32) as u128;
    let prec = f.precision as usize;
    let (q, shift) = if p < prec {
        // Exactly representable (a subnormal, or a normal with no bits below the unit).
        (((digit(1) << 32 | digit(0)) as u64) & ((1 << prec) - 1), 0)
    } else {
        // Bits [shift - 1, shift + prec): the guard bit and q, within three digits (≤ 31 + 54 bits).
        let shift = p + 1 - prec;
        let g0 = (shift - 1) / 32;
        let v = (digit(g0) | digit(g0 + 1) << 32 | digit(g0 + 2) << 64) >> ((shift - 1) % 32);
        let guard = v & 1 != 0;
        let mut q = (v >> 1) as u64 & ((1 << prec) - 1);
        // The sticky bits: any set bit below the guard bit, bits [0, shift - 1).
        let below = shift - 1;
        let mut set = false;
        for (j, &x) in d.iter().enumerate() {
            let lo = 32 * (PER_LANE * lane + j);
            if lo + 32 <= below {
                set |= x != 0;
            } else if lo < below {
                set |= x & ((1u32 << (below - lo)) - 1) != 0;
            }
        }
        if guard && (ballot(set) != 0 || q & 1 != 0) {
            q += 1; // may carry into 2^prec: the exponent absorbs it
        }
        (q, shift)
    };
    assemble(q, shift, negative, f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::accumulator::place;

    fn words_of(values: &[f64], f: Format) -> std::vec::Vec<i64> {
        let mut w = std::vec![0i64; f.words];
        for &v in values {
            if let Some((k, d)) = place(v, f.unit_exp) {
                for j in 0..3 {
                    w[k + j] += d[j];
                }
            }
        }
        w
    }

    #[test]
    fn single_values_round_trip() {
        for v in [
            1.0f64,
            -1.5,
            f64::MAX,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1e300,
            std::f64::consts::PI,
        ] {
            assert_eq!(
                round(&words_of(&[v], Format::F64), Format::F64),
                v.to_bits()
            );
        }
        for v in [
            1.0f32,
            -3.25,
            f32::MAX,
            1e-45,
            -1e-45,
            f32::MIN_POSITIVE,
            0.1,
        ] {
            let w = words_of(&[v as f64], Format::F32);
            assert_eq!(round(&w, Format::F32), v.to_bits() as u64);
        }
    }

    #[test]
    fn ties_go_to_even_and_overflow_to_infinity() {
        let f = Format::F64;
        // 1 + 2^-53 is halfway between 1 and its successor: ties to even gives 1.
        let w = words_of(&[1.0, 2f64.powi(-53)], f);
        assert_eq!(round(&w, f), 1.0f64.to_bits());
        // 1 + 2^-52 + 2^-53: halfway, odd below: rounds up.
        let w = words_of(&[1.0 + 2f64.powi(-52), 2f64.powi(-53)], f);
        assert_eq!(round(&w, f), (1.0 + 2.0 * 2f64.powi(-52)).to_bits());
        // Just above halfway: sticky.
        let w = words_of(&[1.0, 2f64.powi(-53), 2f64.powi(-1000)], f);
        assert_eq!(round(&w, f), (1.0 + 2f64.powi(-52)).to_bits());
        let w = words_of(&[f64::MAX, f64::MAX], f);
        assert_eq!(round(&w, f), f64::INFINITY.to_bits());
        let w = words_of(&[-f64::MAX, -f64::MAX], f);
        assert_eq!(round(&w, f), f64::NEG_INFINITY.to_bits());
        let w = words_of(&[1e30, 1.0, -1e30], f);
        assert_eq!(round(&w, f), 1.0f64.to_bits());
        assert_eq!(round(&words_of(&[2.0, -2.0], f), f), 0);
    }

    /// `round_warp` on one emulated warp: every lane's bits.
    fn on_a_warp(w: &[i64], f: Format) -> std::vec::Vec<u64> {
        let got = std::sync::Mutex::new(std::vec::Vec::new());
        let cfg = crate::emu::LaunchConfig {
            grid_dim: 1,
            block_dim: 32,
            shared_bytes: 0,
        };
        crate::emu::launch(cfg, &|| {
            let bits = round_warp(|k| w[k], f);
            got.lock().unwrap().push(bits);
        })
        .unwrap();
        got.into_inner().unwrap()
    }

    #[test]
    fn the_warp_rounds_like_one_thread() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || crate::test_rng::xorshift64(&mut state);
        for f in [Format::F32, Format::F64] {
            let w = f.words;
            let mut cases: std::vec::Vec<std::vec::Vec<i64>> = std::vec![
                std::vec![0; w],
                words_of(&[1.0, 2f64.powi(-53)], f),
                words_of(&[1.0 + 2f64.powi(-52), 2f64.powi(-53)], f),
                words_of(&[1e30, 1.0, -1e30], f),
                words_of(&[-(2f64.powi(-f.unit_exp))], f),
                words_of(&[2.0, -2.0], f),
            ];
            // -1 unit: the borrow ripples through every digit and lane.
            let mut minus_one = std::vec![0i64; w];
            minus_one[0] = -1;
            cases.push(minus_one);
            // All-ones digits up to k, then +1 at the bottom: a carry through k digits.
            for k in [3, 7, w - 2] {
                let mut v = std::vec![0i64; w];
                v[..k].fill(0xffff_ffff);
                v[0] += 1;
                cases.push(v.clone());
                v.iter_mut().for_each(|x| *x = -*x);
                cases.push(v);
            }
            // Random carry-save words below a random top (|word| < 2^61, the value in range).
            for _ in 0..300 {
                let top = (next() as usize) % (w - 2);
                let mut v = std::vec![0i64; w];
                for x in &mut v[..=top] {
                    let r = next();
                    *x = match r % 4 {
                        0 => 0,
                        1 => (r >> 40) as i64 - (1 << 23),
                        _ => (r >> 3) as i64 - (1 << 60),
                    };
                }
                cases.push(v);
            }
            // Sums of random doubles of the format's range, both signs.
            for _ in 0..200 {
                let vals: std::vec::Vec<f64> = (0..5)
                    .map(|_| {
                        let r = next();
                        let v = if f == Format::F32 {
                            f32::from_bits(r as u32) as f64
                        } else {
                            f64::from_bits(r)
                        };
                        if v.is_finite() {
                            v
                        } else {
                            1.5
                        }
                    })
                    .collect();
                cases.push(words_of(&vals, f));
            }
            for v in &cases {
                let want = round(v, f);
                let got = on_a_warp(v, f);
                assert_eq!(got.len(), 32);
                assert!(
                    got.iter().all(|&b| b == want),
                    "{f:?} words {v:?}: want {want:#x}, got {got:x?}"
                );
            }
        }
    }
}
