//! `reduce arg`: argmin/argmax (NumPy's rules) over sizes and types: each result checked against
//! the CPU reference, then timed with CUDA events (the emulator: the wall clock); one line per
//! (op, type, size), as text or one JSON object per line.

use crate::args::{count, exponent, op_in, Data, Format};
use crate::data::make_data;
use crate::output::verdict;
use reduce_host::argreduce::reference_arg;
use reduce_host::measure::{time_queued, TimingSpec};
use reduce_host::{
    with_elem_type, ArgPolicy, Backend, ElemType, Op, PreparedArg, ReduceError, Scalar,
};

/// What `reduce arg` runs.
#[derive(clap::Args, Clone)]
pub struct ArgCmd {
    /// Operations.
    #[arg(long, value_delimiter = ',', default_values_t = [Op::ArgMin, Op::ArgMax],
          value_parser = op_in(&Op::ARG, "an arg-reduction"))]
    ops: Vec<Op>,
    /// Types.
    #[arg(long, value_delimiter = ',', default_values_t = [ElemType::F32])]
    types: Vec<ElemType>,
    /// Exponents: N = 2^e.
    #[arg(long, value_delimiter = ',', value_parser = exponent(), default_values_t = [12u32, 20])]
    exps: Vec<u32>,
    /// Input values.
    #[arg(long, value_enum, default_value_t = Data::Random)]
    data: Data,
    /// Seed for `--data random`.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Warm-up runs.
    #[arg(long, value_parser = count(0), default_value_t = 5)]
    warmup: usize,
    /// Timed runs.
    #[arg(long, value_parser = count(1), default_value_t = 50)]
    runs: usize,
    /// Output format (`json`: one object per line; `csv` prints JSON too).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Launch shapes to run, each `block=256|512,bps=N,unroll=4|8,lane=reload|loop`, or
    /// `tuned` (the measured default of each type and size); `;` separates several (each is
    /// checked and timed). Empty: `tuned`.
    #[arg(long, default_value = "")]
    policy: String,
}

pub fn run(backend: &Backend, cmd: &ArgCmd) -> Result<bool, ReduceError> {
    // `None`: the measured default for each type and size (`ArgPolicy::tuned`), spelled `tuned`.
    let mut policies = cmd
        .policy
        .split(';')
        .filter(|p| !p.trim().is_empty())
        .map(|p| match p.trim() {
            "tuned" => Ok(None),
            text => ArgPolicy::parse(text).map(Some),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if policies.is_empty() {
        policies.push(None);
    }
    let mut ok = true;
    for &e in &cmd.exps {
        for &ty in &cmd.types {
            ok &= with_elem_type!(ty, T => one::<T>(backend, cmd, 1usize << e, &policies)?);
        }
    }
    Ok(ok)
}

fn one<T: Scalar>(
    backend: &Backend,
    cmd: &ArgCmd,
    n: usize,
    policies: &[Option<ArgPolicy>],
) -> Result<bool, ReduceError> {
    let data = make_data::<T>(n, cmd.data, cmd.seed)?;
    let input = backend.upload(&data)?;
    let mut ok = true;
    for &op in &cmd.ops {
        // The CPU reference once per op; every launch shape is checked against it.
        let want = reference_arg(op, &data).ok_or(ReduceError::AllNanArg { op: op.name() })?;
        ok &= shapes::<T>(backend, cmd, op, &input, want, policies)?;
    }
    Ok(ok)
}

/// `op` over `input` with each of `policies`: checked against `want`, timed, one line each.
fn shapes<T: Scalar>(
    backend: &Backend,
    cmd: &ArgCmd,
    op: Op,
    input: &reduce_host::Buffer<T>,
    want: (usize, T),
    policies: &[Option<ArgPolicy>],
) -> Result<bool, ReduceError> {
    let n = input.len();
    let mut ok = true;
    for &policy in policies {
        let policy = policy.unwrap_or_else(|| ArgPolicy::tuned(T::TYPE, n));
        let p = PreparedArg::<T>::with_policy(backend, op, n, policy)?;
        let got = p.run(backend, input, 0)?;
        let good = got.0 == want.0 && got.1.to_bits64() == want.1.to_bits64();
        ok &= good;
        let spec = TimingSpec::kernels(cmd.warmup, cmd.runs);
        let t = time_queued(backend, &spec, || p.enqueue(backend, input, 0))?;
        let bytes = (n * T::TYPE.size()) as f64;
        let gbps = bytes / (t.min() * 1e-3) / 1e9;
        if cmd.format == Format::Text {
            println!(
                "{op} of 2^{} {}: index {} value {} (reference {} {}) {}   min {:.2} us  median {:.2} us  {:.1} GB/s  grid {} ({})",
                n.trailing_zeros(),
                T::TYPE,
                got.0,
                got.1,
                want.0,
                want.1,
                verdict(good),
                t.min() * 1e3,
                t.median() * 1e3,
                gbps,
                p.grid(),
                policy.text()
            );
        } else {
            let line = serde_json::json!({
                "impl": format!("rust_{op}"),
                "op": op.name(),
                "type": T::TYPE.name(),
                "n": n,
                "index": got.0,
                "value": got.1.to_f64(),
                "ok": good,
                "grid": p.grid(),
                "policy": policy.text(),
                "runs": t.runs_ms.len(),
                "min_us": t.min() * 1e3,
                "median_us": t.median() * 1e3,
                "gbps": gbps,
                "device": backend.caps().name,
            });
            println!("{line}");
        }
    }
    Ok(ok)
}
