"""torch baselines for the f16/bf16 rows of `benches/gpu.sh toolbox` (stage 8's
operators on halves): one JSON line per (case, N); minimum and median of 50 CUDA-event runs after
5 warm-ups, the protocol of toolbox_ops_torch.py and of `reduce half`.

    python3 half_ops_torch.py EXP [EXP ...]      # N = 2^EXP

For bf16 and f16 (same-dtype torch ops; torch accumulates sums and products in f32 and returns
the input dtype):
  sum      x.sum()
  min      x.amin()                          (propagates NaN, like ours)
  max      x.amax()
  prod     p.prod()       p = 1 + (u - 0.5) / 32 in the dtype (no underflow; ours reads the same)
  nanmax   w.nan_to_num(nan=-inf).amax()     (torch has no nanmax: two passes; w = x, NaN at N/2)
  nansum   w.nansum()
  nanmean  w.nanmean()
"""
import json
import sys

import torch

from toolbox_ops_torch import timed  # the same CUDA-event timer (min, median)


def emit(ty, op, n, mn, med, result, reference, tol):
    ok = bool(abs(result - reference) <= tol * max(1.0, abs(reference))) or \
        (result != result and reference != reference)
    print(json.dumps({"record": "toolbox", "impl": "torch", "case": f"half_{op}_{ty}", "op": op,
                      "type": ty, "n": n, "bytes": 2 * n, "min_ms": mn, "median_ms": med,
                      "gbps": 2 * n / (mn * 1e6), "result": result, "reference": reference,
                      "ok": ok}), flush=True)


def main():
    g = torch.Generator(device="cuda")
    g.manual_seed(11)
    for e in (int(v) for v in sys.argv[1:]):
        n = 1 << e
        u = torch.rand(n, device="cuda", generator=g, dtype=torch.float32)
        for ty, dt in (("bf16", torch.bfloat16), ("f16", torch.float16)):
            # torch returns the dtype: its result is checked to the dtype's rounding (2^-7, 2^-10).
            tol = 2.0 ** -7 if ty == "bf16" else 2.0 ** -10
            x = u.to(dt)
            xd = x.double()
            mn, med, y = timed(lambda: x.sum())
            emit(ty, "sum", n, mn, med, float(y), float(xd.sum()), tol)
            mn, med, y = timed(lambda: x.amin())
            emit(ty, "min", n, mn, med, float(y), float(xd.min()), 0.0)
            mn, med, y = timed(lambda: x.amax())
            emit(ty, "max", n, mn, med, float(y), float(xd.max()), 0.0)
            p = (1 + (x.float() - 0.5) / 32).to(dt)
            mn, med, y = timed(lambda: p.prod())
            emit(ty, "prod", n, mn, med, float(y), float(p.double().log().sum().exp()), 4 * tol)
            del p
            w = x.clone()
            w[n // 2] = float("nan")
            kept = torch.cat((xd[: n // 2], xd[n // 2 + 1:]))
            mn, med, y = timed(lambda: w.nan_to_num(nan=float("-inf")).amax())
            emit(ty, "nanmax", n, mn, med, float(y), float(kept.max()), 0.0)
            mn, med, y = timed(lambda: w.nansum())
            emit(ty, "nansum", n, mn, med, float(y), float(kept.sum()), tol)
            mn, med, y = timed(lambda: w.nanmean())
            emit(ty, "nanmean", n, mn, med, float(y), float(kept.mean()) if n > 1 else float("nan"), tol)
            del w, kept, x, xd
            torch.cuda.empty_cache()
        del u
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
