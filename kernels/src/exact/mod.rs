//! # Exact sums: correctly rounded, bit-identical for every launch, at HBM speed
//!
//! A floating-point sum on a GPU usually depends on the order of its additions, hence on the
//! grid, the block size and the GPU model. The sums here do not: the result is the **exact** real
//! sum of the inputs, rounded **once** to the nearest `f32`/`f64` (ties to even) — the same bits on
//! any GPU, any launch shape, any split of the input and in the emulator.
//!
//! The route (after Collange, Defour, Graillat and Iakymchuk's ExBLAS: floating-point expansions
//! in registers in front of a Kulisch-style long accumulator), one concept per file:
//!
//! | file | concept |
//! |---|---|
//! | [`expansion`] | TwoSum and a two-term `f64` expansion per thread chain; residuals spill |
//! | [`accumulator`] | the long fixed-point accumulator (carry-save `i64` words of 32-bit digits) and its shared-memory and global atomic views |
//! | [`round`](mod@round) | the one final rounding of the integer to the nearest `f32`/`f64`: by a warp in the kernels (digits in registers, carries by shuffles, sign and top bits by votes), by one thread in the reference |
//! | `tile` | adding a tile of elements into the expansions: the general path and the fast path (3 `add.f64` while exact, the tile redone otherwise) |
//! | `merge` | merging expansions across a warp with shuffles |
//! | [`kernel`] | the launch: stream like stage 8, merge per warp, integers across blocks, last block rounds |
//! | [`lean`] | the kernels: the lean publish (no per-thread fences before the ticket), the general and the fast path |
//! | `result` | the last step: NaN and infinities from their counts, the rounding, the sign of zero |
//! | [`words`] | across GPUs: the grid's words out unrounded, the ranks' words added and rounded once |
//!
//! ## The arithmetic-intensity budget (H200)
//!
//! | resource | rate | per f32 element at 4.5 TB/s (1.1·10^12 elem/s) | per f64 element (0.56·10^12 elem/s) |
//! |---|---|---|---|
//! | HBM3e read | ~4.5 TB/s (stage 8 reaches ~4 TB/s) | 4 bytes | 8 bytes |
//! | FP64 (non-tensor) | 34 TFLOP/s = 16.7·10^12 `add.f64`/s (132 SMs × 64 lanes × 1.98 GHz) | **~15** adds | **~30** adds |
//! | INT32 | 132 × 64 × 1.98 GHz ≈ 16.7·10^12 ops/s | ~15 ops | ~30 ops |
//! | FP32 | 2 × FP64 | ~30 | ~60 |
//!
//! With the fast path ([`Expansion::add_fast`], the `fast_*` kernels) an element whose addition
//! to the running sum is exact — nearly every f32 of ordinary data — costs **3 `add.f64` and 2
//! compares** (and the conversion); the others, and every element without the fast path, take
//! the general path:
//!
//! The general path's cost per element is two TwoSums = **12 `add.f64`** plus one compare-and-branch
//! (and an exact `cvt.f64.f32` for f32 inputs, which runs on a separate conversion path): within
//! the f64 budget, nearly all of it for f32. A per-element long-accumulator update (a shift,
//! a 3-word split and three 64-bit adds, ~15–20 integer instructions) would be at or past the
//! budget, which is why the integers are only touched once per warp, per rare residual and per
//! block. Binned (ReproBLAS/CUB `gpu_to_gpu`) summation needs a first pass or a running max and
//! 2–3 extraction steps per element, and is reproducible but not correctly rounded.
//!
//! ## Semantics
//!
//! * finite inputs: round-to-nearest-even of the exact sum; an exact sum beyond the largest
//!   finite value gives ±inf;
//! * any NaN gives NaN; +inf and -inf together give NaN; otherwise an infinity gives itself;
//! * a zero exact sum is `+0.0`, except `-0.0` when every input is `-0.0` (IEEE); the empty
//!   sum is `+0.0`;
//! * a NaN result is the canonical quiet NaN (`0x7fc00000`, `0x7ff8000000000000`).

pub mod accumulator;
pub mod expansion;
pub mod kernel;
pub mod lean;
mod merge;
mod result;
pub mod round;
mod tile;
pub mod words;

pub use accumulator::{Format, GlobalWords, FLAGS, MAX_SLOTS};
pub use expansion::{two_sum, Expansion, Spill};
pub use round::round;
