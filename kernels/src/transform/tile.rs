//! # A tile in registers → the op's accumulator
//!
//! What [`super::one_pass`]'s loops do with the 16-byte vectors a thread loaded: widen them
//! (exactly) to `f64` — or to `f32` for ops with [`TransformOp::F32_TILES`], in chunks of at most
//! [`F32_TILE`] values — clear sign bits for [`TransformOp::ABS_INPUT`] ops, and fold the chunks
//! into the thread's running value ([`TransformOp::Run`]).

use super::accumulate::{Running, TransformOp, Widened};
use super::to_f64;
use crate::gpu::Vec4;
use crate::primitives::tiles::unrolled;
use crate::primitives::tiles::SINGLE_PASS_UNROLL as UNROLL;
use crate::vocabulary::ElemType;
use crate::Element;

/// The values packed in one 16-byte vector, as `f64`, into `out[at..at + 16 / size_of::<T>()]`.
#[inline(always)]
fn widen<T: Element>(v: Vec4, out: &mut [f64; 8 * UNROLL], at: usize) {
    let w = v.0;
    if core::mem::size_of::<T>() == 2 {
        unrolled::<8>(|i| {
            out[at + i] = to_f64(T::from_bits64(
                ((w[i / 2] >> (16 * (i % 2))) & 0xffff) as u64,
            ));
        });
    } else if core::mem::size_of::<T>() == 4 {
        for i in 0..4 {
            out[at + i] = to_f64(T::from_bits64(w[i] as u64));
        }
    } else {
        for i in 0..2 {
            let bits = w[2 * i] as u64 | ((w[2 * i + 1] as u64) << 32);
            out[at + i] = to_f64(T::from_bits64(bits));
        }
    }
}

/// The values packed in one 16-byte vector of an `f32`, `f16` or `bf16` input, as `f32` (exact),
/// into `out[at..at + 16 / size_of::<T>()]`.
#[inline(always)]
fn widen_f32<T: Element>(v: Vec4, out: &mut [f32; 8 * UNROLL], at: usize) {
    let w = v.0;
    match T::TYPE {
        ElemType::F16 | ElemType::BF16 => unrolled::<8>(|i| {
            let bits = ((w[i / 2] >> (16 * (i % 2))) & 0xffff) as u16;
            out[at + i] = if T::TYPE == ElemType::F16 {
                crate::half::f16_bits_to_f32(bits)
            } else {
                crate::half::bf16_bits_to_f32(bits)
            };
        }),
        _ => {
            for i in 0..4 {
                out[at + i] = f32::from_bits(w[i]);
            }
        }
    }
}

/// The most values an [`TransformOp::chunk_f32`] call gets: four `f32` vectors, two of halves.
pub const F32_TILE: usize = 16;

/// Compile-time check that a tile of halves is at most two [`F32_TILE`] chunks.
struct F32TileCheck;
impl F32TileCheck {
    const OK: () = assert!(
        8 * UNROLL <= 2 * F32_TILE,
        "a tile of halves must fit two chunks"
    );
}

/// [`TransformOp::chunk_f32`] of the vectors `v` (at most [`F32_TILE`] values).
#[inline(always)]
fn f32_chunk<T: Element, O: TransformOp>(v: &[Vec4]) -> O::Acc {
    let lanes = 16 / core::mem::size_of::<T>();
    let mut xs = [0.0f32; 8 * UNROLL];
    unrolled::<UNROLL>(|u| {
        if u < v.len() {
            widen_f32::<T>(input_vec::<T, O>(v[u]), &mut xs, u * lanes);
        }
    });
    match T::TYPE {
        ElemType::F16 => O::chunk_f32::<{ Widened::F16 }>(&xs[..v.len() * lanes]),
        ElemType::BF16 => O::chunk_f32::<{ Widened::BF16 }>(&xs[..v.len() * lanes]),
        _ => O::chunk_f32::<{ Widened::F32 }>(&xs[..v.len() * lanes]),
    }
}

/// The loaded vector `v` of the (first) input as the op sees it: for an
/// [`TransformOp::ABS_INPUT`] op, the sign bit of every `T` in it cleared — one AND per 32-bit
/// word (two halves, one `f32`, or the high word of an `f64`); otherwise `v`. `T` is a float type
/// (the transform kernels are built for `f32`, `f64`, `f16` and `bf16` only; clearing an
/// integer's top bit is not its absolute value).
#[inline(always)]
fn input_vec<T: Element, O: TransformOp>(v: Vec4) -> Vec4 {
    if !O::ABS_INPUT {
        return v;
    }
    let mask = match core::mem::size_of::<T>() {
        2 => [0x7fff_7fff; 4],
        4 => [0x7fff_ffff; 4],
        _ => [u32::MAX, 0x7fff_ffff, u32::MAX, 0x7fff_ffff],
    };
    let w = v.0;
    Vec4([
        w[0] & mask[0],
        w[1] & mask[1],
        w[2] & mask[2],
        w[3] & mask[3],
    ])
}

/// The value the op sees of one scalar element (the head and the tail): `|x|` for an
/// [`TransformOp::ABS_INPUT`] op.
#[inline(always)]
pub(super) fn scalar<T: Element, O: TransformOp>(x: T) -> f64 {
    if O::ABS_INPUT {
        to_f64(x).abs()
    } else {
        to_f64(x)
    }
}

/// Fold the vectors `la` (and `lb`, for two-input ops) into `run`: one tile, or one vector of
/// the last, partial tile. Ops with [`TransformOp::F32_TILES`] take `f32`, `f16` and `bf16`
/// tiles as `f32`, in chunks of at most [`F32_TILE`] values (one for a tile of `f32`, two for a
/// tile of halves: 32 halves at once held 88 registers); everything else is widened to `f64`
/// first ([`TransformOp::ABS_INPUT`] ops' signs cleared first) and folded as one chunk.
#[inline(always)]
pub(super) fn tile_into<T: Element, O: TransformOp>(run: &mut O::Run, la: &[Vec4], lb: &[Vec4]) {
    let lanes = 16 / core::mem::size_of::<T>();
    let k = la.len() * lanes;
    if O::F32_TILES && matches!(T::TYPE, ElemType::F32 | ElemType::F16 | ElemType::BF16) {
        let () = F32TileCheck::OK;
        if la.len() * lanes <= F32_TILE {
            run.add(f32_chunk::<T, O>(la));
        } else {
            let half = la.len() / 2;
            run.add(f32_chunk::<T, O>(&la[..half]));
            run.add(f32_chunk::<T, O>(&la[half..]));
        }
        return;
    }
    // Room for 8 halves per vector; `f32`/`f64` use the first 16 / 8 (the rest is optimized away
    // with the loops fully unrolled).
    let mut xs = [0.0f64; 8 * UNROLL];
    let mut ys = [0.0f64; 8 * UNROLL];
    unrolled::<UNROLL>(|u| {
        if u < la.len() {
            widen::<T>(input_vec::<T, O>(la[u]), &mut xs, u * lanes);
            if O::TWO_INPUTS {
                widen::<T>(lb[u], &mut ys, u * lanes);
            }
        }
    });
    run.add(O::chunk(&xs[..k], &ys[..k]));
}
