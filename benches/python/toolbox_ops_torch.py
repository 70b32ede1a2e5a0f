"""torch baselines for `benches/gpu.sh toolbox`: the operators and types
of the NumPy/PyTorch-semantics work, one JSON line per (case, N); minimum and median of 50
CUDA-event runs after 5 warm-ups, the same protocol as `reduce sweep --protocol plain`.

    python3 toolbox_ops_torch.py EXP [EXP ...]      # N = 2^EXP

Cases (what torch calls, and the bytes it must read):
  sum   bf16 / f16  x.sum()                  (torch accumulates in f32, returns bf16/f16)
  sum   f32         x.sum()
  sum   i32         x.sum()                  (torch promotes: an int64 result)
  prod  f32         x.prod()                 (data in [1 - 2^-6, 1 + 2^-6]: no overflow)
  max   f32         x.amax()                 (propagates NaN, like ours)
  nanmax f32        x.nan_to_num(nan=-inf).amax()   (torch has no nanmax: two passes)
  nansum f32        x.nansum()
"""
import json
import sys

import torch


def timed(fn, runs=50, warmup=5):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times, y = [], None
    for r in range(warmup + runs):
        s.record()
        y = fn()
        e.record()
        e.synchronize()
        if r >= warmup:
            times.append(s.elapsed_time(e))
    times.sort()
    m = len(times)
    med = times[m // 2] if m % 2 else (times[m // 2 - 1] + times[m // 2]) / 2
    return times[0], med, y


def emit(case, ty, op, n, size, mn, med, result, reference):
    ok = None
    if reference is not None:
        ok = bool(abs(result - reference) <= 1e-2 * max(1.0, abs(reference))) or \
            (result != result and reference != reference)
    print(json.dumps({"record": "toolbox", "impl": "torch", "case": case, "op": op, "type": ty,
                      "n": n, "bytes": n * size, "min_ms": mn, "median_ms": med,
                      "gbps": n * size / (mn * 1e6), "result": result, "reference": reference,
                      "ok": ok}), flush=True)


def main():
    g = torch.Generator(device="cuda")
    g.manual_seed(7)
    for e in (int(v) for v in sys.argv[1:]):
        n = 1 << e
        u = torch.rand(n, device="cuda", generator=g, dtype=torch.float32)
        ref64 = float(u.double().sum())
        for ty, dt in (("bf16", torch.bfloat16), ("f16", torch.float16)):
            x = u.to(dt)
            mn, med, y = timed(lambda: x.sum())
            emit(f"sum_{ty}", ty, "sum", n, 2, mn, med, float(y), float(x.double().sum()))
            del x
        mn, med, y = timed(lambda: u.sum())
        emit("sum_f32", "f32", "sum", n, 4, mn, med, float(y), ref64)
        xi = (u * 2000 - 1000).to(torch.int32)
        mn, med, y = timed(lambda: xi.sum())
        assert y.dtype == torch.int64
        emit("sum_i32_i64", "i32", "sum", n, 4, mn, med, float(y), float(xi.double().sum()))
        del xi
        p = 1 + (u - 0.5) / 32
        mn, med, y = timed(lambda: p.prod())
        emit("prod_f32", "f32", "prod", n, 4, mn, med, float(y), float(p.double().log().sum().exp()))
        del p
        w = u.clone()
        w[n // 2] = float("nan")
        mn, med, y = timed(lambda: w.amax())
        emit("max_f32_nan", "f32", "max", n, 4, mn, med, float(y), float("nan"))
        mn, med, y = timed(lambda: w.nan_to_num(nan=float("-inf")).amax())
        rest = torch.cat((u[: n // 2], u[n // 2 + 1:]))
        emit("nanmax_f32", "f32", "nanmax", n, 4, mn, med, float(y), float(rest.max()))
        del rest
        mn, med, y = timed(lambda: w.nansum())
        emit("nansum_f32", "f32", "nansum", n, 4, mn, med, float(y), ref64 - float(u[n // 2]))
        del w, u
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
