//! Settings changed after first use: every cache keyed by everything its plan depends on. A
//! reducer that has run calls under some overrides (or a streaming reducer under some policy)
//! and is then given others must answer exactly as a fresh one with the new setting does: the
//! same bits, or an error of the same kind.

use super::*;

/// One call of a reducer under some overrides.
#[derive(Clone, Debug)]
pub struct Step {
    call: u8,
    n: usize,
    seed: u64,
    o: LaunchOverrides,
}

/// The calls that use a cache (or the overrides): stage 8 (three types and ops, and the
/// prepared plan itself), the wide sum, the exact sums, a half op.
const CALLS: u8 = 8;

fn step() -> BoxedStrategy<Step> {
    (
        0..CALLS,
        prop_oneof![Just(0usize), Just(1), Just(100), Just(4099), 0usize..5000],
        any::<u64>(),
        // A grid past stage 8's 4,096 blocks but valid for the exact sums would make the
        // emulator run thousands of blocks: one past every limit instead.
        overrides().prop_map(|o| LaunchOverrides {
            grid: o.grid.map(|g| if g > 64 { (1 << 24) + 1 } else { g }),
            ..o
        }),
    )
        .prop_map(|(call, n, seed, o)| Step { call, n, seed, o })
        .boxed()
}

/// What a call gave, comparable across reducers: the result's bits, the plan, or the error's
/// kind.
#[derive(Debug, PartialEq)]
enum Outcome {
    Bits(Option<u64>),
    Plan(Plan),
    Error(std::mem::Discriminant<ReduceError>),
}

fn outcome<T: Scalar>(r: Result<Option<T>>) -> Outcome {
    match r {
        // Every NaN is one NaN here (a payload may differ between kernels that both give NaN).
        Ok(Some(v)) if v.to_f64().is_nan() => Outcome::Bits(Some(u64::MAX)),
        Ok(v) => Outcome::Bits(v.map(|v| v.to_bits64())),
        Err(e) => Outcome::Error(std::mem::discriminant(&e)),
    }
}

fn up<T: Scalar>(b: &Backend, v: Vec<T>) -> Buffer<T> {
    b.upload(&v).expect("upload")
}

fn call(r: &mut Reducer, b: &Backend, s: &Step) -> Outcome {
    let d = Data {
        len: s.n,
        seed: s.seed,
        scale: 1,
        specials: vec![],
    };
    match s.call {
        0 => outcome(r.sum(&up(b, d.values::<f32>())).map(Some)),
        1 => outcome(r.max(&up(b, d.values::<i64>()))),
        2 => outcome(r.nansum(&up(b, d.values::<f64>())).map(Some)),
        3 => outcome(r.sum(&up(b, d.values::<i32>())).map(Some)),
        4 => outcome(r.sum_exact(&up(b, d.values::<f32>())).map(Some)),
        5 => outcome(r.sum_exact(&up(b, d.values::<f64>())).map(Some)),
        6 => outcome(r.sum(&up(b, d.values::<F16>())).map(Some)),
        _ => match r.prepared::<f32>(Op::Sum, s.n) {
            Ok(p) => Outcome::Plan(p.plan.clone()),
            Err(e) => Outcome::Error(std::mem::discriminant(&e)),
        },
    }
}

/// A sequence of calls on one reducer, its overrides changed before each, against a fresh
/// reducer with the same overrides for each call.
pub fn reducer_settings(b: &Backend, cases: u32) -> Result<Ran, String> {
    let steps = prop::collection::vec(step(), 1..6);
    run("reducer_settings", cases, steps, |steps| {
        let mut used = Reducer::new(b);
        for (i, s) in steps.iter().enumerate() {
            used = used.with_overrides(s.o);
            let got = call(&mut used, b, s);
            let fresh = call(&mut Reducer::new(b).with_overrides(s.o), b, s);
            if got != fresh {
                return Err(format!(
                    "step {i}: after {:?}, got {got:?}; a fresh reducer {fresh:?}",
                    &steps[..i]
                ));
            }
            if matches!(got, Outcome::Error(_)) {
                // Counted as a case with a typed error (both reducers gave the same).
                let _ = typed_ok();
            }
        }
        Ok(())
    })
}

/// A streaming policy: small chunks so that short inputs take several, sometimes invalid.
fn stream_policy() -> BoxedStrategy<StreamPolicy> {
    (
        prop_oneof![1 => 0usize..8, 1 => 8usize..64, 6 => 64usize..4096],
        0usize..256,
        1usize..8,
        0usize..5,
        0usize..4,
    )
        .prop_map(
            |(max_chunk, min_chunk, target, slots, threads)| StreamPolicy {
                max_chunk_bytes: max_chunk,
                min_chunk_bytes: min_chunk,
                target_chunks: target,
                slots,
                copy_threads: threads,
                ..StreamPolicy::default()
            },
        )
        .boxed()
}

/// `HostReducer::with_policy` after use: the same outcome as a fresh streaming reducer.
pub fn stream_settings(b: &Backend, cases: u32) -> Result<Ran, String> {
    let steps = prop::collection::vec((stream_policy(), 0usize..3000, any::<u64>()), 1..5);
    run("stream_settings", cases, steps, |steps| {
        let mut used = Some(HostReducer::new(b));
        for (i, (policy, n, seed)) in steps.iter().enumerate() {
            let data = Data {
                len: *n,
                seed: *seed,
                scale: 1,
                specials: vec![],
            }
            .values::<f32>();
            let fresh = HostReducer::new(b).with_policy(policy.clone());
            let next = used.take().expect("kept").with_policy(policy.clone());
            match (next, fresh) {
                (Ok(mut u), Ok(mut f)) => {
                    let (got, want) = (u.sum_host(&data[..]), f.sum_host(&data[..]));
                    let (got, want) = (outcome(got.map(Some)), outcome(want.map(Some)));
                    if got != want {
                        return Err(format!("step {i}: {got:?}, a fresh reducer {want:?}"));
                    }
                    used = Some(u);
                }
                (Err(e), Err(f)) if same_kind(&e, &f) => used = Some(HostReducer::new(b)),
                (u, f) => {
                    return Err(format!(
                        "step {i}: with_policy {:?}, a fresh reducer {:?}",
                        u.err(),
                        f.err()
                    ))
                }
            }
        }
        Ok(())
    })
}
