//! The PyTorch column of `reduce table`: `torch.sum()` on an input of the same size, type and
//! kind (ones, or seeded random values), timed like the table times the stages (kernel only,
//! CUDA events, the same warm-ups and runs) by `benches/python/baselines.py` — the one copy of
//! the PyTorch timing code, built into this binary and run with `python3 -c`.

use crate::args::Data;
use reduce_host::measure::Record;
use reduce_host::ElemType;

/// `benches/python/baselines.py`.
const BASELINES_PY: &str = include_str!("../../../../../benches/python/baselines.py");

/// Mean ms of PyTorch's `sum()` over `runs` runs after `warmup`; the reason when it cannot run.
pub fn mean_ms(
    n: usize,
    ty: ElemType,
    data: Data,
    warmup: usize,
    runs: usize,
) -> Result<f64, String> {
    if matches!(ty, ElemType::U32 | ElemType::U64) {
        return Err(format!("torch has no {ty} sum"));
    }
    let data = match data {
        Data::Ones => "ones",
        Data::Random => "random",
    };
    let args = [
        "--impl".to_string(),
        "torch".into(),
        "--n".into(),
        n.to_string(),
        "--type".into(),
        ty.to_string(),
        "--data".into(),
        data.into(),
        "--warmup".into(),
        warmup.to_string(),
        "--runs".into(),
        runs.to_string(),
        "--scope".into(),
        "kernels".into(),
    ];
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(BASELINES_PY)
        .args(&args)
        .output()
        .map_err(|e| format!("python3 not runnable: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    for line in stdout.lines() {
        match Record::parse_line(line) {
            Some(Record::Timing(t)) => {
                return t
                    .mean_ms
                    .ok_or_else(|| "torch printed no mean time".to_string())
            }
            Some(Record::Error(e)) => return Err(e.error),
            _ => {}
        }
    }
    let err = String::from_utf8_lossy(&out.stderr);
    Err(err
        .lines()
        .last()
        .unwrap_or("python3 printed no timing")
        .to_string())
}
