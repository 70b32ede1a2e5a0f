//! The PyTorch column of `reduce table`: `torch.sum()` on the same input, timed like the table
//! times the stages (kernel only, CUDA events, the same warm-ups and runs).

use crate::args::Data;
use reduce_host::ElemType;

/// Mean ms of PyTorch's `sum()` over `runs` runs after `warmup`; the reason when it cannot run.
pub fn mean_ms(
    n: usize,
    ty: ElemType,
    data: Data,
    warmup: usize,
    runs: usize,
) -> Result<f64, String> {
    let dtype = match ty {
        ElemType::F32 => "float32",
        ElemType::F64 => "float64",
        ElemType::I32 => "int32",
        ElemType::I64 => "int64",
        _ => return Err(format!("torch has no {ty} sum")),
    };
    let fill = match data {
        Data::Ones => format!("x = torch.ones({n}, dtype=torch.{dtype}, device='cuda')"),
        Data::Random => format!("x = (torch.rand({n}, device='cuda') * 1000).to(torch.{dtype})"),
    };
    let script = format!(
        "import torch\nassert torch.cuda.is_available(), 'torch sees no GPU'\n{fill}\n\
         s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)\nts = []\n\
         for i in range({}):\n    s.record(); y = x.sum(); e.record(); e.synchronize()\n    \
         if i >= {warmup}: ts.append(s.elapsed_time(e))\nprint(sum(ts) / len(ts))\n",
        warmup + runs
    );
    let out = std::process::Command::new("python3")
        .args(["-c", &script])
        .output()
        .map_err(|e| format!("python3 not runnable: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().last().unwrap_or("python3 failed").to_string();
        return Err(last);
    }
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse::<f64>()
        .map_err(|e| format!("unreadable torch timing: {e}"))
}
