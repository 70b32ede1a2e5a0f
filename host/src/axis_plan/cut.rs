//! Long caller-given segments cut into pieces: [`cut_segments`].

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
