//! Host data streamed through the device (`HostReducer`, any policy: small chunks so that short
//! inputs take several, invalid ones a typed error) and data sharded across ranks
//! (`MultiReducer`: `reduce`, `mean`, `count`, `nanmean`, `exact_sum`, `reduce_rows`,
//! `reduce_cols`; a wrong shard count or shards of partial rows are typed errors).

use super::*;

const STREAM_TYPES: [ElemType; 4] = [ElemType::F32, ElemType::F64, ElemType::I32, ElemType::U64];

#[derive(Clone, Debug)]
pub struct StreamCase {
    ty: ElemType,
    op: Op,
    policy: StreamPolicy,
    pinned: bool,
    data: Data,
}

/// Every op over pageable or pinned host data, against the reference at the streamed depth.
pub fn host_stream(b: &Backend, cases: u32) -> Result<Ran, String> {
    let policy = (
        prop_oneof![1 => 0usize..8, 1 => 8usize..64, 8 => 64usize..8192],
        0usize..512,
        1usize..8,
        0usize..5,
        prop_oneof![1 => Just(0usize), 6 => 1usize..4],
        prop_oneof![Just(0usize), Just(1 << 20)],
    )
        .prop_map(
            |(max_chunk, min_chunk, target, slots, threads, zero_copy)| StreamPolicy {
                max_chunk_bytes: max_chunk,
                min_chunk_bytes: min_chunk,
                target_chunks: target,
                slots,
                copy_threads: threads,
                zero_copy_max_bytes: zero_copy,
                ..StreamPolicy::default()
            },
        );
    let strategy = (
        elem_type(&STREAM_TYPES),
        prop::sample::select(Op::REDUCE.to_vec()),
        policy,
        any::<bool>(),
        data(20_000),
    )
        .prop_map(fields!(StreamCase: ty, op, policy, pinned, data));
    run_typed!("host_stream", cases, strategy, stream_check(b))
}

fn stream_check<T: Scalar>(b: &Backend, c: &StreamCase) -> Check {
    let made = HostReducer::new(b).with_policy(c.policy.clone());
    if c.policy.max_chunk_bytes < 8 || c.policy.copy_threads == 0 {
        return expect_err(&made, &ReduceError::InvalidArgument(String::new()));
    }
    let mut r = made.map_err(|e| e.to_string())?;
    let values: Vec<T> = c.data.values();
    let pinned;
    let input: HostInput<T> = if c.pinned {
        pinned = PinnedBuffer::from_slice(b, &values).map_err(|e| e.to_string())?;
        (&pinned).into()
    } else {
        (&values[..]).into()
    };
    let n = values.len();
    if c.op == Op::Mean {
        let got = r.mean_host(input);
        if n == 0 {
            return expect_err(&got, &ReduceError::EmptyInput { op: Op::Mean });
        }
        let m = got.map_err(|e| e.to_string())?;
        let depth = c
            .policy
            .error_depth(n, T::TYPE, Op::Sum, b.caps())
            .map_err(|e| e.to_string())?;
        return super::reduce::mean_matches(m, Op::Mean, &values, depth);
    }
    let got = r.reduce_host(c.op, input);
    if c.op.is_mean() {
        return expect_err(&got, &ReduceError::InvalidArgument(String::new()));
    }
    if n == 0 {
        let want = match c.op {
            op if op.is_extreme() => None,
            Op::Prod => Some(T::ONE),
            _ => Some(T::default()),
        };
        return match got {
            Ok(v) if v == want => Ok(()),
            other => Err(format!("{} of nothing: {other:?}, want {want:?}", c.op)),
        };
    }
    let depth = c.policy.error_depth(n, T::TYPE, c.op, b.caps());
    match (got, depth) {
        (Ok(Some(v)), Ok(depth)) => {
            let want = reference(c.op, &values).expect("not empty");
            matches_reference(c.op, v, &want, depth)
                .then_some(())
                .ok_or(format!("{}: {v}, want {}", c.op, want.value))
        }
        (Err(e), Err(p)) if same_kind(&e, &p) => Ok(()),
        (got, depth) => Err(format!("{}: {got:?}, depth {depth:?}", c.op)),
    }
}

#[derive(Clone, Debug)]
pub struct MultiCase {
    call: u8,
    ty: ElemType,
    op: Op,
    lens: Vec<usize>,
    cols: usize,
    data: Data,
}

/// Any of the multi-rank entry points over shards of any lengths (sometimes one too few or too
/// many), on `m`'s ranks.
pub fn multi_ranks<C: Collective>(m: &mut MultiReducer<C>, cases: u32) -> Result<Ran, String> {
    let ranks = m.ranks();
    let lens = prop::collection::vec(length(3000), ranks.saturating_sub(1)..=ranks + 1);
    let strategy = (
        0u8..6,
        elem_type(&[ElemType::F32, ElemType::F64, ElemType::I64, ElemType::U32]),
        prop::sample::select(Op::REDUCE.to_vec()),
        prop_oneof![3 => lens, 8 => prop::collection::vec(length(3000), ranks..=ranks)],
        prop_oneof![Just(0usize), 1usize..40],
        data(0),
    )
        .prop_map(fields!(MultiCase: call, ty, op, lens, cols, data));
    let m = std::cell::RefCell::new(m);
    run("multi_ranks", cases, strategy, |c| {
        let mut m = m.borrow_mut();
        match c.ty {
            ElemType::F32 => multi_check::<f32, C>(&mut m, &c, multi_exact::<f32, C>),
            ElemType::F64 => multi_check::<f64, C>(&mut m, &c, multi_exact::<f64, C>),
            ElemType::I64 => multi_check::<i64, C>(&mut m, &c, no_exact::<i64, C>),
            _ => multi_check::<u32, C>(&mut m, &c, no_exact::<u32, C>),
        }
    })
}

fn multi_check<T: Scalar, C: Collective>(
    m: &mut MultiReducer<C>,
    c: &MultiCase,
    exact: Exact<T, C>,
) -> Check {
    let ranks = m.ranks();
    let all: Vec<T> = Data {
        len: c.lens.iter().sum(),
        ..c.data.clone()
    }
    .values();
    let mut at = 0;
    let mut shards = Vec::new();
    for (r, &len) in c.lens.iter().enumerate() {
        let part = &all[at..at + len];
        at += len;
        shards.push(
            m.with_rank(r % ranks, |b| b.upload(part))
                .map_err(|e| e.to_string())?,
        );
    }
    let wrong_count = c.lens.len() != ranks;
    let n = all.len();
    match c.call {
        0 => {
            let got = m.reduce(c.op, &shards);
            if matches!(c.op, Op::Mean | Op::NanMean | Op::Count) {
                return expect_err(&got, &ReduceError::InvalidArgument(String::new()));
            }
            if wrong_count {
                return expect_bounds(&got);
            }
            let got = got.map_err(|e| e.to_string())?;
            match (got.value, reference(c.op, &all)) {
                (None, None) => Ok(()),
                (Some(v), Some(want)) if matches_reference(c.op, v, &want, got.depth) => Ok(()),
                (v, want) => Err(format!("{}: {v:?}, want {want:?}", c.op)),
            }
        }
        1 | 2 => {
            let got = if c.call == 1 {
                m.mean(&shards)
            } else {
                m.nanmean(&shards)
            };
            if wrong_count {
                return expect_bounds(&got);
            }
            if n == 0 {
                return expect_err(&got, &ReduceError::EmptyInput { op: Op::Mean });
            }
            let m = got.map_err(|e| e.to_string())?;
            // Deep enough for any shard and the combine (`reduce`'s depth is at most this).
            let op = if c.call == 1 { Op::Mean } else { Op::NanMean };
            super::reduce::mean_matches(m, op, &all, 2 * n + 200)
        }
        3 => {
            let got = m.count(&shards);
            if wrong_count {
                return expect_bounds(&got);
            }
            let want = all.iter().filter(|x| !x.to_f64().is_nan()).count() as u64;
            match got.map(|r| r.value) {
                Ok(Some(k)) if k == want => Ok(()),
                other => Err(format!("count {other:?}, want {want}")),
            }
        }
        4 => exact(m, &shards, &all, wrong_count),
        _ => multi_axis(m, c, &shards, &all, wrong_count),
    }
}

/// The exact sum across ranks: the correctly rounded sum's bits.
fn multi_exact<T: ExactFloat, C: Collective>(
    m: &mut MultiReducer<C>,
    shards: &[Buffer<T>],
    all: &[T],
    wrong_count: bool,
) -> Check {
    let got = m.exact_sum(shards);
    if wrong_count {
        return expect_bounds(&got);
    }
    let want = exact_sum(all);
    match got.map(|r| r.value) {
        Ok(Some(v)) if v.to_bits64() == want.to_bits64() || same(v, want) => Ok(()),
        other => Err(format!("exact sum {other:?}, want {want}")),
    }
}

/// No exact sum of this type.
fn no_exact<T: Scalar, C: Collective>(
    _: &mut MultiReducer<C>,
    _: &[Buffer<T>],
    _: &[T],
    _: bool,
) -> Check {
    Ok(())
}

/// One of [`multi_exact`] and [`no_exact`].
type Exact<T, C> = fn(&mut MultiReducer<C>, &[Buffer<T>], &[T], bool) -> Check;

fn multi_axis<T: Scalar, C: Collective>(
    m: &mut MultiReducer<C>,
    c: &MultiCase,
    shards: &[Buffer<T>],
    all: &[T],
    wrong_count: bool,
) -> Check {
    let cols = c.cols;
    let rows_of = |s: &Buffer<T>| s.len().checked_div(cols).unwrap_or(0);
    let whole_rows = cols > 0 && shards.iter().all(|s| s.len() % cols == 0);
    let op = c.op;
    let rows = m.reduce_rows(op, shards, cols);
    let supported = matches!(op, Op::Sum | Op::Min | Op::Max);
    if op == Op::Mean || (!supported && !wrong_count && whole_rows) {
        if !matches!(rows, Err(ReduceError::InvalidArgument(_))) {
            return Err(format!(
                "{op} along rows: {:?}, want a typed error",
                rows.err()
            ));
        }
        return Ok(());
    }
    if wrong_count || !whole_rows {
        return expect_bounds(&rows);
    }
    let rows = rows.map_err(|e| e.to_string())?;
    let mut at = 0;
    for (r, (s, out)) in shards.iter().zip(&rows).enumerate() {
        let k = rows_of(s);
        let got = m
            .with_rank(r, |b| b.download(out, k))
            .map_err(|e| e.to_string())?;
        for (i, g) in got.iter().enumerate() {
            let run = &all[at + i * cols..at + (i + 1) * cols];
            let want = reference(op, run).expect("a row of at least one").value;
            let close = match reference(op, run) {
                Some(w) => matches_reference(op, *g, &w, cols + 64),
                None => false,
            };
            if !(close || same(*g, want)) {
                return Err(format!("rank {r} row {i}: {g}, want {want}"));
            }
        }
        at += s.len();
    }
    let total_rows: usize = shards.iter().map(rows_of).sum();
    let got = m.reduce_cols(op, shards, cols).map_err(|e| e.to_string())?;
    for (r, out) in got.iter().enumerate() {
        let got = m
            .with_rank(r, |b| b.download(out, cols))
            .map_err(|e| e.to_string())?;
        for (k, g) in got.iter().enumerate() {
            let col: Vec<T> = (0..total_rows).map(|i| all[i * cols + k]).collect();
            let ok = match reference(op, &col) {
                Some(w) => matches_reference(op, *g, &w, total_rows + 64) || same(*g, w.value),
                // A column of no rows: the op's identity.
                None => true,
            };
            if !ok {
                return Err(format!("rank {r} column {k}: {g}"));
            }
        }
    }
    Ok(())
}
