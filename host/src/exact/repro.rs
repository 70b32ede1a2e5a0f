//! The reproducibility matrix: one input summed with every kernel variant (the fast path and the
//! block merge, each off and on) × grid × block size × input split, and the result bits of each (they must all be equal, and equal to the exact reference).

use super::plan::{exact_blocks, exact_plan, ExactPolicy};
use super::prepared::PreparedExact;
use super::reference::ExactFloat;
use crate::backend::Backend;
use crate::error::Result;
use crate::plan::LaunchOverrides;

/// One cell of the matrix.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ReproCell {
    /// The kernel (its symbol: the variant and the block size).
    pub kernel: String,
    /// Blocks launched.
    pub grid: usize,
    /// Threads per block.
    pub block: usize,
    /// Elements of padding before the input in its buffer: shifts the 16-byte alignment, hence
    /// how the input splits into a misaligned head, whole vectors and a tail.
    pub offset: usize,
    /// The result's bits.
    pub bits: u64,
}

/// The grids of the matrix for `n` elements on `backend`: 1, 7, 132, the policy's default, and
/// the maximum that still gives every block some input (one tile per block at the smallest block
/// size) — sorted, without repeats.
pub fn repro_grids(backend: &Backend, ty: crate::types::ElemType, n: usize) -> Result<Vec<usize>> {
    let default = exact_plan(
        ty,
        n,
        LaunchOverrides::default(),
        backend.caps(),
        ExactPolicy::default(),
    )?
    .grid;
    let lanes = 16 / ty.size();
    let tile = exact_blocks()[0] * reduce_kernels::table::SINGLE_PASS_UNROLL;
    let max = (n / lanes).div_ceil(tile).max(1);
    let mut g = vec![1, 7, 132, default, max];
    g.sort_unstable();
    g.dedup();
    Ok(g)
}

/// The kernel variants of the matrix: the fast path × the block merge, each off and on (with the
/// fenced publish, as the merge kernels are built), then the fast path off and on with the lean
/// publish (the default), with the rolling loads, with the async loop, with the warp finish, with
/// the integer finish and with the warm rounding (the rest of the policy default).
pub fn repro_variants() -> [ExactPolicy; 16] {
    let d = ExactPolicy::default();
    let fenced = ExactPolicy {
        lean_finish: false,
        ..d
    };
    let kinds = [
        fenced,
        ExactPolicy {
            block_merge: true,
            ..fenced
        },
        d,
        ExactPolicy { pipeline: 1, ..d },
        ExactPolicy { pipeline: 2, ..d },
        ExactPolicy {
            warp_finish: true,
            ..d
        },
        ExactPolicy {
            int_finish: true,
            ..d
        },
        ExactPolicy {
            warm_round: true,
            ..d
        },
    ];
    let mut out = [d; 16];
    for (i, k) in kinds.iter().enumerate() {
        for fast in [false, true] {
            out[2 * i + usize::from(fast)] = ExactPolicy {
                fast_f32: fast,
                fast_f64: fast,
                ..*k
            };
        }
    }
    out
}

/// Sum `data` on `backend` for every kernel variant ([`repro_variants`]) × grid in `grids` ×
/// block size × offset in `offsets`.
pub fn repro_matrix<T: ExactFloat>(
    backend: &Backend,
    data: &[T],
    grids: &[usize],
    offsets: &[usize],
) -> Result<Vec<ReproCell>> {
    repro_matrix_with(backend, data, grids, offsets, &repro_variants())
}

/// [`repro_matrix`] for the kernel variants of `policies` only.
pub fn repro_matrix_with<T: ExactFloat>(
    backend: &Backend,
    data: &[T],
    grids: &[usize],
    offsets: &[usize],
    policies: &[ExactPolicy],
) -> Result<Vec<ReproCell>> {
    let pad = offsets.iter().copied().max().unwrap_or(0);
    let mut padded = vec![T::default(); pad];
    padded.extend_from_slice(data);
    let mut cells = Vec::new();
    for &offset in offsets {
        // The input sits at `offset` in a buffer of its own (the elements before it are never
        // read).
        let input = backend.upload(&padded[pad - offset..])?;
        for &policy in policies {
            for &block in exact_blocks() {
                for &grid in grids {
                    let o = LaunchOverrides {
                        block: Some(block),
                        grid: Some(grid),
                    };
                    let p = PreparedExact::<T>::with_policy(backend, data.len(), o, policy)?;
                    let got = p.run(backend, &input, offset)?;
                    cells.push(ReproCell {
                        kernel: p.plan.kernel.clone(),
                        grid,
                        block,
                        offset,
                        bits: got.to_bits64(),
                    });
                }
            }
        }
    }
    Ok(cells)
}
