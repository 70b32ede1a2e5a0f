//! Long caller-given segments cut into pieces: [`cut_segments`]; and the ragged benchmark
//! input, [`log_uniform_segments`].

/// Segments cut into pieces of at most `piece` elements: `(piece_begin, piece_end, first,
/// last)`, where segment `i`'s pieces are `first[i]..last[i]` (so their partials are
/// `partials[first[i]..last[i]]`, and an empty segment has none). `None` when no segment is longer
/// than `piece`.
#[allow(clippy::type_complexity)]
pub fn cut_segments(
    begin: &[u64],
    end: &[u64],
    piece: usize,
) -> Option<(Vec<u64>, Vec<u64>, Vec<u64>, Vec<u64>)> {
    let piece = piece.max(1) as u64;
    if begin
        .iter()
        .zip(end)
        .all(|(b, e)| e.saturating_sub(*b) <= piece)
    {
        return None;
    }
    let (mut pb, mut pe, mut first, mut last) = (vec![], vec![], vec![], vec![]);
    for (&b, &e) in begin.iter().zip(end) {
        first.push(pb.len() as u64);
        let mut at = b;
        while at < e {
            pb.push(at);
            at = at.saturating_add(piece).min(e);
            pe.push(at);
        }
        last.push(pb.len() as u64);
    }
    Some((pb, pe, first, last))
}

/// `count` back-to-back segments (`begin`, `end` offsets) with lengths drawn log-uniformly from
/// `1..=max` by a seeded xorshift: the ragged input of `reduce axis --axis segments`, the
/// criterion group and `benches/gpu.sh axis` (whose CUB program draws the same lengths in C).
pub fn log_uniform_segments(count: usize, max: usize, seed: u64) -> (Vec<u64>, Vec<u64>) {
    let (mut begin, mut end, mut at) = (Vec::new(), Vec::new(), 0u64);
    for x in crate::seeded::XorShift64::new(seed).take(count) {
        let u = (x >> 11) as f64 / (1u64 << 53) as f64;
        let len = ((max.max(1) as f64).powf(u) as u64).clamp(1, max.max(1) as u64);
        begin.push(at);
        end.push(at + len);
        at += len;
    }
    (begin, end)
}
