//! The axis forms across ranks, for a row-major matrix whose rows are split across the ranks
//! (shard `r` holds `rows_r × cols`, the rows in rank order):
//!
//! * [`MultiReducer::reduce_cols`] — each rank reduces the columns of its rows
//!   ([`crate::Reducer::reduce_cols_into`]), an all-gather of `cols` partials per rank puts an
//!   `R × cols` matrix of partials on every rank, and every rank reduces its columns with the
//!   same kernel: the column results on every rank, combined in rank order (deterministic).
//! * [`MultiReducer::reduce_rows`] — a row lies in one shard, so each rank reduces its own rows
//!   and keeps their results: nothing to exchange.

use super::{Collective, MultiReducer};
use crate::backend::Backend;
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::reducer::Reducer;
use crate::types::{Op, Scalar};
use std::borrow::Borrow;

impl<C: Collective> MultiReducer<C> {
    /// The rows of each shard, checking that there is one shard per rank, on its rank, holding
    /// whole rows of `cols` elements, and that `op` is sum, min or max.
    fn row_blocks<T: Scalar>(
        &self,
        op: Op,
        shards: &[&Buffer<T>],
        cols: usize,
    ) -> Result<Vec<usize>> {
        if op == Op::Mean {
            return Err(ReduceError::InvalidArgument(
                "the multi-GPU axis forms compute sum, min and max".into(),
            ));
        }
        if cols == 0 {
            return Err(ReduceError::bounds(
                "cols",
                "a matrix of 0 columns: cols must be at least 1",
            ));
        }
        if shards.len() != self.ranks.len() {
            return Err(ReduceError::bounds(
                "shards",
                format!(
                    "{} shards for {} ranks: pass one buffer per rank (an empty one is fine)",
                    shards.len(),
                    self.ranks.len()
                ),
            ));
        }
        shards
            .iter()
            .zip(&self.ranks)
            .enumerate()
            .map(|(r, (s, rank))| {
                s.check_owner(rank.backend.id(), &format!("shard {r}"))?;
                if s.len() % cols != 0 {
                    return Err(ReduceError::bounds(
                        "shards",
                        format!(
                            "shard {r} holds {} elements, not whole rows of {cols}",
                            s.len()
                        ),
                    ));
                }
                Ok(s.len() / cols)
            })
            .collect()
    }

    /// `op` of each of the `cols` columns of the matrix whose row blocks are `shards` (shard `r`
    /// holds `rows_r × cols`, rows in rank order): each rank reduces the columns of its rows, an
    /// all-gather of the `cols` partials puts the `R × cols` partials on every rank, and every
    /// rank reduces their columns with the same kernel — one buffer of `cols` results per rank,
    /// all holding the same bits, combined in rank order.
    pub fn reduce_cols<T: Scalar, B: Borrow<Buffer<T>>>(
        &mut self,
        op: Op,
        shards: &[B],
        cols: usize,
    ) -> Result<Vec<Buffer<T>>> {
        let shards: Vec<&Buffer<T>> = shards.iter().map(|s| s.borrow()).collect();
        let rows = self.row_blocks(op, &shards, cols)?;
        let nranks = self.ranks.len();
        let mut sends = Vec::with_capacity(nranks);
        for (r, s) in shards.iter().enumerate() {
            sends.push(self.with_rank(r, |b| {
                let mut part = b.zeroed::<T>(cols)?;
                // A block of no rows gives each column's identity.
                Reducer::new(b).reduce_cols_into(op, s, rows[r], cols, &mut part)?;
                Ok(part)
            })?);
        }
        let mut recv = (0..nranks)
            .map(|r| self.with_rank(r, |b| b.zeroed::<T>(nranks * cols)))
            .collect::<Result<Vec<_>>>()?;
        let backends: Vec<&Backend> = self.ranks.iter().map(|k| &k.backend).collect();
        let send_refs: Vec<&Buffer<T>> = sends.iter().collect();
        self.collective
            .all_gather(&backends, &send_refs, &mut recv, cols)?;
        let mut out = Vec::with_capacity(nranks);
        for (r, gathered) in recv.iter().enumerate() {
            out.push(self.with_rank(r, |b| {
                let mut o = b.zeroed::<T>(cols)?;
                Reducer::new(b).reduce_cols_into(op, gathered, nranks, cols, &mut o)?;
                Ok(o)
            })?);
        }
        self.wait("the ranks' column reductions and the all-gather")?;
        Ok(out)
    }

    /// `op` of each row of each shard (rows of `cols` elements): rank `r`'s buffer holds the
    /// results of its own rows, in order.
    pub fn reduce_rows<T: Scalar, B: Borrow<Buffer<T>>>(
        &mut self,
        op: Op,
        shards: &[B],
        cols: usize,
    ) -> Result<Vec<Buffer<T>>> {
        let shards: Vec<&Buffer<T>> = shards.iter().map(|s| s.borrow()).collect();
        let rows = self.row_blocks(op, &shards, cols)?;
        let out = shards
            .iter()
            .enumerate()
            .map(|(r, s)| self.with_rank(r, |b| Reducer::new(b).reduce_rows(op, s, rows[r], cols)))
            .collect::<Result<Vec<_>>>()?;
        self.wait("the ranks' row reductions")?;
        Ok(out)
    }
}
