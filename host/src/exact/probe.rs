//! The exact kernel's phase stamps (`reduce_kernels::exact::probe`): per block, read back from
//! the workspace after a probe launch ([`crate::exact::PreparedExact::stamps`]), and summarized
//! over the blocks ([`ProbeSummary`], printed by `reduce exact --probe`).

use reduce_kernels::exact::probe::STAMPS;

/// One block's stamps (see the kernels' `exact::probe` for where each is taken).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BlockStamps {
    /// `%globaltimer` at entry and exit (ns, GPU-wide, about a microsecond per step).
    pub entry_ns: u64,
    /// See `entry_ns`.
    pub exit_ns: u64,
    /// SM cycles: entry, streamed (thread 0's tiles), merged (every warp's, after the barrier),
    /// carried, exit.
    pub cycles: [u64; 5],
    /// `%smid`.
    pub sm: u32,
    /// Whether this block took the last ticket (it read, zeroed and rounded the grid's words).
    pub last: bool,
}

impl BlockStamps {
    /// Block `b`'s stamps from the words after the grid's `slots` words (`words[slots + 8 · b ..]`),
    /// or `None` when `words` is too short.
    pub fn from_words(words: &[i64], slots: usize, b: usize) -> Option<Self> {
        let w = words.get(slots + STAMPS * b..slots + STAMPS * (b + 1))?;
        let c = |i: usize| w[2 + i] as u64;
        Some(BlockStamps {
            entry_ns: w[0] as u64,
            exit_ns: w[1] as u64,
            cycles: [c(0), c(1), c(2), c(3), c(4)],
            sm: w[7] as u32,
            last: (w[7] >> 32) & 1 == 1,
        })
    }

    /// The four phases in cycles: streaming, merging (waiting for the block's other warps, the
    /// warp merges, the shared-memory adds), the carry step, and publishing (the global adds
    /// and the ticket; for the last block, also reading and rounding the grid's words).
    pub fn phases(&self) -> [u64; 4] {
        let c = self.cycles;
        [1, 2, 3, 4].map(|i| c[i].saturating_sub(c[i - 1]))
    }
}

/// Median and maximum of one phase over the blocks, in cycles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Spread {
    /// Median over the blocks (the lower middle for an even count).
    pub median: u64,
    /// Maximum over the blocks.
    pub max: u64,
}

impl Spread {
    fn of(mut v: Vec<u64>) -> Spread {
        v.sort_unstable();
        Spread {
            median: v.get(v.len().saturating_sub(1) / 2).copied().unwrap_or(0),
            max: v.last().copied().unwrap_or(0),
        }
    }
}

/// A probe launch summarized over its blocks.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ProbeSummary {
    /// Blocks.
    pub blocks: usize,
    /// Distinct SMs the blocks ran on.
    pub sms: usize,
    /// Streaming, merging, carry and publish phases of the blocks that did not take the last
    /// ticket, cycles ([`BlockStamps::phases`]).
    pub stream: Spread,
    /// See `stream`.
    pub merge: Spread,
    /// See `stream`.
    pub carry: Spread,
    /// See `stream`.
    pub publish: Spread,
    /// The last block's phases (cycles): streaming, merging, carry, and publish + finish (read,
    /// zero and round the grid's words).
    pub last_block: [u64; 4],
    /// `%globaltimer` span of the launch: last exit − first entry (ns).
    pub span_ns: u64,
    /// Last entry − first entry (ns): how long the grid took to start.
    pub entry_spread_ns: u64,
    /// The last block's exit − the latest exit of the others (ns): the finish after everyone else.
    pub tail_ns: u64,
}

impl ProbeSummary {
    /// Summarize `stamps` (one per block; empty gives the default).
    pub fn of(stamps: &[BlockStamps]) -> ProbeSummary {
        if stamps.is_empty() {
            return ProbeSummary::default();
        }
        let others: Vec<&BlockStamps> = stamps.iter().filter(|s| !s.last).collect();
        let phase = |i: usize| Spread::of(others.iter().map(|s| s.phases()[i]).collect());
        let first_entry = stamps.iter().map(|s| s.entry_ns).min().unwrap_or(0);
        let last_entry = stamps.iter().map(|s| s.entry_ns).max().unwrap_or(0);
        let last_exit = stamps.iter().map(|s| s.exit_ns).max().unwrap_or(0);
        let last = stamps.iter().find(|s| s.last);
        let others_exit = others
            .iter()
            .map(|s| s.exit_ns)
            .max()
            .unwrap_or(first_entry);
        let mut sms: Vec<u32> = stamps.iter().map(|s| s.sm).collect();
        sms.sort_unstable();
        sms.dedup();
        ProbeSummary {
            blocks: stamps.len(),
            sms: sms.len(),
            stream: phase(0),
            merge: phase(1),
            carry: phase(2),
            publish: phase(3),
            last_block: last.map(|s| s.phases()).unwrap_or_default(),
            span_ns: last_exit.saturating_sub(first_entry),
            entry_spread_ns: last_entry - first_entry,
            tail_ns: last.map_or(0, |s| s.exit_ns.saturating_sub(others_exit)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(entry: u64, exit: u64, c: [u64; 5], sm: u32, last: bool) -> Vec<i64> {
        let mut w = vec![entry as i64, exit as i64];
        w.extend(c.iter().map(|&x| x as i64));
        w.push(sm as i64 | (last as i64) << 32);
        w
    }

    #[test]
    fn stamps_read_back_and_summarize() {
        let slots = 3;
        let mut words = vec![0i64; slots];
        words.extend(block(1000, 5000, [10, 110, 130, 140, 150], 4, false));
        words.extend(block(1200, 5100, [20, 220, 250, 260, 280], 5, false));
        words.extend(block(1100, 7000, [30, 130, 140, 150, 950], 4, true));
        let s: Vec<BlockStamps> = (0..3)
            .map(|b| BlockStamps::from_words(&words, slots, b).unwrap())
            .collect();
        assert!(BlockStamps::from_words(&words, slots, 3).is_none());
        assert_eq!(s[2].phases(), [100, 10, 10, 800]);
        assert!(s[2].last && !s[0].last && s[1].sm == 5);
        let p = ProbeSummary::of(&s);
        assert_eq!((p.blocks, p.sms), (3, 2));
        assert_eq!(
            p.stream,
            Spread {
                median: 100,
                max: 200
            }
        );
        assert_eq!(
            p.merge,
            Spread {
                median: 20,
                max: 30
            }
        );
        assert_eq!(
            p.publish,
            Spread {
                median: 10,
                max: 20
            }
        );
        assert_eq!(p.last_block, [100, 10, 10, 800]);
        assert_eq!((p.span_ns, p.entry_spread_ns, p.tail_ns), (6000, 200, 1900));
        assert_eq!(ProbeSummary::of(&[]), ProbeSummary::default());
    }
}
