"""torch.sum and an independent exact check for the exact sums' benchmark (`benches/gpu.sh exact`).

    python3 exact_torch.py time f32|f64 EXP...   # torch.sum of uniform data: min and median of 50
                                                 # CUDA-event runs after 10 warm-ups
    python3 exact_torch.py file TYPE:LABEL:PATH...  # for each raw file: torch.sum,
                                                 # numpy's sum, math.fsum, and the correctly rounded
                                                 # sum from Python integers (exact, a third
                                                 # implementation next to the Rust host reference
                                                 # and the kernels)

One JSON line per measurement on stdout.
"""
import json
import math
import struct
import sys

import numpy as np


def bits(x, ty):
    return struct.unpack("<I", struct.pack("<f", x))[0] if ty == "f32" else \
        struct.unpack("<Q", struct.pack("<d", x))[0]


def exact_int(a, unit):
    """The exact sum of the finite values of `a` (f32 or f64) in units of 2^-unit, a Python int."""
    v = a.astype(np.float64)
    v = v[np.isfinite(v)]
    m, e = np.frexp(v)                      # v = m · 2^e, 0.5 <= |m| < 1
    mi = (m * 2.0 ** 53).astype(np.int64)   # exact: |mi| < 2^53
    order = np.argsort(e, kind="stable")
    e, mi = e[order], mi[order]
    exps, starts = np.unique(e, return_index=True)
    ends = list(starts[1:]) + [len(e)]
    total = 0
    for ex, a0, a1 in zip(exps, starts, ends):
        g = mi[a0:a1]
        pad = (-len(g)) % 512
        g = np.concatenate([g, np.zeros(pad, np.int64)]).reshape(-1, 512).sum(axis=1)  # < 2^62
        s = sum(int(x) for x in g)
        shift = int(ex) - 53 + unit
        total += s << shift if shift >= 0 else s >> -shift  # exact: the low bits are zero
    return total


def round_int(s, unit, prec, top_exp):
    """s · 2^-unit rounded once to `prec` significant bits, ties to even (±inf past 2^top_exp)."""
    if s == 0:
        return 0.0
    neg, m = s < 0, abs(s)
    p = m.bit_length() - 1
    shift = 0
    if p >= prec:
        shift = p + 1 - prec
        q, rem, half = m >> shift, m & ((1 << shift) - 1), 1 << (shift - 1)
        if rem > half or (rem == half and q & 1):
            q += 1
        m = q
    if m.bit_length() + shift - unit > top_exp:
        r = math.inf
    else:
        r = math.ldexp(m, shift - unit)
    return -r if neg else r


def specials(a):
    nan = bool(np.isnan(a).any())
    pinf, ninf = bool(np.isposinf(a).any()), bool(np.isneginf(a).any())
    if nan or (pinf and ninf):
        return math.nan
    if pinf:
        return math.inf
    if ninf:
        return -math.inf
    return None


def file_mode(ty, label, path):
    dt = np.float32 if ty == "f32" else np.float64
    a = np.fromfile(path, dtype=dt)
    unit, prec, top = (149, 24, 128) if ty == "f32" else (1074, 53, 1024)
    sp = specials(a)
    exact = sp if sp is not None else round_int(exact_int(a, unit), unit, prec, top)
    if exact == 0 and len(a) and np.all(np.signbit(a)) and not np.any(a):
        exact = -0.0
    exact = float(dt(exact))
    try:
        fsum = math.fsum(a.astype(np.float64).tolist())
    except (OverflowError, ValueError):
        fsum = None
    try:
        import torch
        t = float(torch.from_numpy(a).cuda().sum().item())
    except Exception as err:  # no torch or no GPU: the exact rows still come out
        print(f"torch: {err}", file=sys.stderr)
        t = None
    npsum = float(a.sum())
    for impl, val in (("python_exact", exact), ("fsum", fsum), ("torch", t), ("numpy", npsum)):
        if val is None:
            print(json.dumps({"impl": impl, "mode": "file", "type": ty, "n": len(a),
                              "data": label, "result": None, "note": "OverflowError"}), flush=True)
            continue
        v = float(dt(val))
        print(json.dumps({"impl": impl, "mode": "file", "type": ty, "n": len(a), "data": label,
                          "result": v if math.isfinite(v) else str(v),
                          "bits": hex(bits(v, ty))}), flush=True)


def time_mode(ty, exps):
    import torch
    dt = torch.float32 if ty == "f32" else torch.float64
    for e in exps:
        n = 1 << e
        x = torch.rand(n, dtype=dt, device="cuda")
        s, t = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for r in range(60):
            s.record()
            y = x.sum()
            t.record()
            t.synchronize()
            if r >= 10:
                times.append(s.elapsed_time(t))
        times.sort()
        print(json.dumps({"impl": "torch", "mode": "time", "type": ty, "n": n, "runs": 50,
                          "min_us": times[0] * 1e3, "median_us": times[25] * 1e3,
                          "result": float(y.item())}), flush=True)
        del x
        torch.cuda.empty_cache()


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "file":
        for spec in sys.argv[2:]:
            ty, label, path = spec.split(":", 2)
            file_mode(ty, label, path)
    else:
        time_mode(sys.argv[2], [int(v) for v in sys.argv[3:]])
