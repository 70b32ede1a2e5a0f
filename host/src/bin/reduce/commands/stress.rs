//! `reduce stress`: repetition (bit-identical results, no leaked device memory) and concurrency
//! (several streams at once, each with its own workspace).

use crate::args::Data;
use crate::data::make_data;
use reduce_host::plan::Plan;
use reduce_host::reference::Expected;
use reduce_host::{
    Backend, ElemType, Gpu, LaunchOverrides, Op, Prepared, ReduceError, Reducer, Stage,
};

/// Fresh reducers created (and dropped) in the leak test, at most.
const MAX_FRESH: usize = 1000;
/// Rounds of the concurrency test.
const ROUNDS: usize = 100;

pub fn run(backend: &Backend, reps: usize, n: usize, streams: usize) -> Result<bool, ReduceError> {
    let repeated = repetition(backend, reps, n)?;
    let concurrent = concurrency(backend, streams, n)?;
    Ok(repeated && concurrent)
}

/// The plan a [`Reducer`] uses for an f32 sum of `n` elements.
fn sum_plan(backend: &Backend, n: usize) -> Result<Plan, ReduceError> {
    reduce_host::plan(
        Stage::S8,
        ElemType::F32,
        Op::Sum,
        n,
        LaunchOverrides::default(),
        backend.caps(),
    )
}

/// `reps` sums with one reducer: all bit-identical, correct, and device memory unchanged (also
/// after creating and dropping fresh reducers).
fn repetition(backend: &Backend, reps: usize, n: usize) -> Result<bool, ReduceError> {
    let gpu = backend.gpu();
    let data = make_data::<f32>(n, Data::Random, 11)?;
    let input = backend.upload(&data)?;
    let mut reducer = Reducer::new(backend);
    let first = reducer.sum(&input)?; // allocates the cached workspace
    backend.synchronize()?;
    let before = gpu.map(|g| g.mem_info()).transpose()?;
    let mut identical = 0usize;
    for _ in 0..reps {
        if reducer.sum(&input)?.to_bits() == first.to_bits() {
            identical += 1;
        }
    }
    backend.synchronize()?;
    let after = gpu.map(|g| g.mem_info()).transpose()?;
    // Fresh reducers (allocate + free a workspace each time) must not leak either.
    let fresh = reps.min(MAX_FRESH);
    for _ in 0..fresh {
        Reducer::new(backend).sum(&input)?;
    }
    backend.synchronize()?;
    let after_fresh = gpu.map(|g| g.mem_info()).transpose()?;
    let plan = sum_plan(backend, n)?;
    let expected = Expected::of(Op::Sum, &data);
    let correct = expected.matches(first, &plan);
    let reference = expected.reference().map_or(f64::NAN, |r| r.sum_f64);
    println!(
        "repetition: {reps} sums of {n} f32 with one Reducer: {identical}/{reps} bit-identical \
         to the first ({first}), reference {reference} -> {}",
        if correct { "ok" } else { "WRONG" }
    );
    let leak_free = match (before, after, after_fresh) {
        (Some(b), Some(a), Some(f)) => {
            println!(
                "device free memory: before {} B, after {} B (diff {}), after {fresh} fresh \
                 reducers {} B (diff {})",
                b.0,
                a.0,
                b.0 as i64 - a.0 as i64,
                f.0,
                b.0 as i64 - f.0 as i64
            );
            b.0 == a.0 && b.0 == f.0
        }
        _ => true,
    };
    Ok(correct && identical == reps && leak_free)
}

/// Reductions of different inputs on several streams at once, each with its own workspace.
fn concurrency(backend: &Backend, streams: usize, n: usize) -> Result<bool, ReduceError> {
    if backend.is_emulator() {
        println!("concurrency: skipped on the emulator (it has one stream)");
        return Ok(true);
    }
    // Each Gpu handle owns a context reference and a stream; open one per concurrent user.
    let handles: Vec<Backend> = (0..streams)
        .map(|_| Gpu::open().map(Backend::Gpu))
        .collect::<Result<_, _>>()?;
    let datas: Vec<Vec<f32>> = (0..streams)
        .map(|s| make_data::<f32>(n, Data::Random, 100 + s as u64))
        .collect::<Result<_, _>>()?;
    let expected: Vec<Expected<f32>> = datas.iter().map(|d| Expected::of(Op::Sum, d)).collect();
    let inputs: Vec<_> = handles
        .iter()
        .zip(&datas)
        .map(|(h, d)| h.upload(d))
        .collect::<Result<_, _>>()?;
    let plan = sum_plan(backend, n)?;
    let prepared: Vec<_> = handles
        .iter()
        .map(|h| Prepared::<f32>::new(h, plan.clone()))
        .collect::<Result<_, _>>()?;
    let mut all = true;
    for round in 0..ROUNDS {
        for ((h, p), i) in handles.iter().zip(&prepared).zip(&inputs) {
            p.enqueue(h, i, 0)?; // queued on every stream before any is awaited
        }
        for (k, (h, p)) in handles.iter().zip(&prepared).enumerate() {
            let v = p.read_result(h)?;
            let good = expected[k].matches(v, &plan);
            if !good {
                let reference = expected[k].reference().map_or(f64::NAN, |r| r.sum_f64);
                println!(
                    "concurrency: round {round} stream {k}: {v} vs reference {reference} WRONG"
                );
            }
            all &= good;
        }
    }
    println!(
        "concurrency: {streams} streams x {ROUNDS} rounds of {n}-element sums, all correct: {all}"
    );
    Ok(all)
}
