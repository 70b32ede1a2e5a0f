//! The optimization ladder — all eight stages — one stage per file. Read them in order: each file's doc comment says
//! what changed from the previous stage, why it is faster, and which seed step it is.
//!
//! Words used everywhere in this project: the **ladder** is all eight stages; stages 1–7 are the
//! **multi-pass** stages, stage 8 the **single-pass** one.
//!
//! Stages 1–7 are block-level reductions: each block reduces its slice of the input to one
//! partial value in `partials[blockIdx.x]`; the host launches the same kernel again on the
//! partials until one value is left (every pass runs on the GPU). Stage 8 does it all in one
//! launch.
//!
//! Every stage handles any `n`: threads whose index falls past the end contribute the
//! identity (0 for a sum) instead of reading out of bounds — the seeds assume `n` is a multiple
//! of the block's span; these kernels do not.

pub mod s1_interleaved_divergent;
pub mod s2_interleaved_strided;
pub mod s3_sequential;
pub mod s4_first_add_during_load;
pub mod s5_unroll_last_warp;
pub mod s6_complete_unroll;
pub mod s7_grid_stride;
pub mod s8_shuffle_vectorized;

pub mod broken;
