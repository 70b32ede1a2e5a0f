//! The reproducibility matrix: one input summed with every kernel variant (the general and the
//! fast path) × grid × block size × input split, and the result bits of each (they must all be
//! equal, and equal to the exact reference).

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

/// The kernel variants of the matrix: the general path and the fast path (`fast_f32` and
/// `fast_f64` both off, then both on; the rest of the policy default).
pub fn repro_variants() -> [ExactPolicy; 2] {
    [false, true].map(|fast| ExactPolicy {
        fast_f32: fast,
        fast_f64: fast,
        ..ExactPolicy::default()
    })
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
                        kernel: p.plan.kernel.to_string(),
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
