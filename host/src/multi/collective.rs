//! The one collective the multi-GPU reducer needs — an all-gather of one partial per rank — as a
//! trait, with two implementations: NCCL for real GPUs ([`super::nccl::Nccl`]) and an in-process
//! copy for emulated ranks ([`InMemory`], what CI runs).

use crate::backend::Backend;
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::types::Scalar;

/// An all-gather over the ranks of a [`super::MultiReducer`].
///
/// [`Collective::all_gather`] only *queues* the exchange (on each rank's stream for NCCL); the
/// reducer then waits for every rank with a timeout, calling [`Collective::progress`] while it
/// waits and [`Collective::abort`] when the timeout passes, so a failed or stuck exchange is an
/// error, never a hang.
pub trait Collective {
    /// A short name for reports (`nccl`, `in-memory`).
    fn name(&self) -> &'static str;

    /// Queue: elements `0..count` of `send[r]` (a buffer of rank `r`) go to elements
    /// `r·count..(r+1)·count` of every `recv[q]` (a buffer of rank `q` with at least
    /// `ranks.len() · count` elements). `ranks[r]` is rank `r`'s backend; the caller has made no
    /// context current.
    fn all_gather<T: Scalar>(
        &mut self,
        ranks: &[&Backend],
        send: &[&Buffer<T>],
        recv: &mut [Buffer<T>],
        count: usize,
    ) -> Result<()>;

    /// Whether the collective's own part of the exchange is done (work queued on the ranks'
    /// streams is waited for separately); an error if it has failed asynchronously (NCCL's
    /// `ncclCommGetAsyncError`).
    fn progress(&mut self) -> Result<bool>;

    /// Give up on everything queued (NCCL's `ncclCommAbort`); the collective is unusable after.
    fn abort(&mut self);
}

/// Check that [`Collective::all_gather`] may start: not after an abort (`aborted` is then the
/// error to give), and the shapes it takes: one send and one receive buffer per rank, each of
/// its own rank, a send with at least `count` elements and receives with at least `count` per
/// rank (`count` ≥ 1).
pub(crate) fn check_gather<T: Scalar>(
    aborted: Option<ReduceError>,
    ranks: &[&Backend],
    send: &[&Buffer<T>],
    recv: &[Buffer<T>],
    count: usize,
) -> Result<()> {
    if let Some(e) = aborted {
        return Err(e);
    }
    if count == 0 {
        return Err(ReduceError::InvalidArgument(
            "an all-gather of 0 elements per rank".into(),
        ));
    }
    let r = ranks.len();
    if send.len() != r || recv.len() != r {
        return Err(ReduceError::InvalidArgument(format!(
            "an all-gather over {r} ranks got {} send and {} receive buffers",
            send.len(),
            recv.len()
        )));
    }
    for (q, b) in ranks.iter().enumerate() {
        send[q].check_owner(b.id(), &format!("rank {q}'s send buffer"))?;
        recv[q].check_owner(b.id(), &format!("rank {q}'s receive buffer"))?;
        let total = r.checked_mul(count).ok_or_else(|| {
            ReduceError::InvalidArgument(format!("{r} ranks × {count} elements overflows"))
        })?;
        if send[q].len() < count || recv[q].len() < total {
            return Err(ReduceError::InvalidArgument(format!(
                "rank {q}: an all-gather of {count} element(s) over {r} ranks needs a send \
                 buffer of at least {count} and a receive buffer of at least {total} elements \
                 (got {} and {})",
                send[q].len(),
                recv[q].len()
            )));
        }
    }
    Ok(())
}

/// Make `backend`'s context current (GPUs); nothing to do for the emulator.
pub(crate) fn bind(backend: &Backend) -> Result<()> {
    match backend {
        Backend::Gpu(g) => g.make_current(),
        Backend::Emulator(_) => Ok(()),
    }
}

/// The all-gather done in this process: each partial is copied to the host and written into
/// every rank's receive buffer, in rank order. What CI's emulated ranks use; with GPUs it would
/// be the home-made exchange through the host that NCCL replaces, so the GPU reducer never
/// uses it.
#[derive(Debug, Default)]
pub struct InMemory {
    aborted: bool,
}

impl InMemory {
    /// A new in-process collective.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Collective for InMemory {
    fn name(&self) -> &'static str {
        "in-memory"
    }

    fn all_gather<T: Scalar>(
        &mut self,
        ranks: &[&Backend],
        send: &[&Buffer<T>],
        recv: &mut [Buffer<T>],
        count: usize,
    ) -> Result<()> {
        check_gather(self.aborted.then(aborted), ranks, send, recv, count)?;
        let mut gathered = Vec::with_capacity(ranks.len() * count);
        for (b, s) in ranks.iter().zip(send) {
            bind(b)?;
            gathered.extend(b.download(s, count)?);
        }
        for (b, r) in ranks.iter().zip(recv.iter_mut()) {
            bind(b)?;
            b.write(r, &gathered)?;
        }
        Ok(())
    }

    fn progress(&mut self) -> Result<bool> {
        if self.aborted {
            Err(aborted())
        } else {
            // The copies are done when `all_gather` returns.
            Ok(true)
        }
    }

    fn abort(&mut self) {
        self.aborted = true;
    }
}

fn aborted() -> ReduceError {
    ReduceError::InvalidArgument("the collective was aborted after a timeout".into())
}
