"""The Python extension (`examples/python`, module `reduce`) against torch, on the GPU, for the
`torch-ext` step of `benches/gpu.sh interop`. Needs `reduce.abi3.so` on PYTHONPATH and torch
with CUDA.

    PYTHONPATH=DIR python3 torch_ext.py --out OUTDIR [--exps 20,22,...] [--runs 50]

For f32 N = 2^E (torch.randn, seed 0):
1. correctness: reduce.sum against torch's f64 sum and its f32 sum; min / max bit-equal to torch;
2. async, Python call included: CUDA events around ONE call, `reduce.sum(t, out=o)` against
   `torch.sum(t, dim=0, out=o)`, synchronized before each, the two alternating rep by rep (ABBA);
3. blocking: `reduce.sum(t)` against `t.sum().item()`, perf_counter per call, alternating;
4. the stream rule: data written by torch on a side stream, reduced there without a sync; the
   out= form there; explicit stream=; the __cuda_array_interface__ path; a CUDA graph;
5. bad inputs: the exception each must raise.
Writes OUTDIR/torch_ext.md and OUTDIR/torch_ext.jsonl, prints the markdown; exits 1 if a check
fails.
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

import reduce


def med(xs):
    return statistics.median(xs)


def event_time(fn):
    """µs between two events around one call of fn on the current stream (synchronized first)."""
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1e3


def wall_time(fn):
    """µs of host time for one blocking call (synchronized first)."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e6


def alternate(timer, fns, runs, warmup=5):
    """min/median µs of each fn, timed one call at a time, the order alternating (ABBA)."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {k: [] for k in fns}
    names = list(fns)
    for rep in range(runs):
        for k in (names if rep % 2 == 0 else names[::-1]):
            times[k].append(timer(fns[k]))
    return {k: (min(v), med(v)) for k, v in times.items()}


def raises(expected, fn):
    """(ok, what happened) for a call that must raise `expected`."""
    try:
        fn()
    except expected as e:
        return True, f"{type(e).__name__}: {e}"
    except Exception as e:  # noqa: BLE001 - the report says what came instead
        return False, f"{type(e).__name__} (expected {expected.__name__}): {e}"
    return False, f"no exception (expected {expected.__name__})"


class Cai:
    """A plain object exposing a tensor through __cuda_array_interface__ (not a torch.Tensor)."""

    def __init__(self, t, **override):
        self.t = t
        self.__cuda_array_interface__ = {**t.__cuda_array_interface__, **override}


def stream_checks():
    """(name, ok, detail) of the stream rule, the interface path, graphs and small types."""
    out = []
    n = 1 << 26
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.full((n,), 0.25, device="cuda")
        for _ in range(20):  # a long queue on s, so that a kernel not ordered after it races
            x.mul_(2.0).div_(2.0)
        x.mul_(2.0)
        got = reduce.sum(x)
        out.append(("blocking on torch's current side stream", got == 0.5 * n, f"{got} (want {0.5 * n})"))
        o = torch.empty((), device="cuda")
        x.mul_(2.0)
        reduce.sum(x, out=o)
        got = o.item()
        out.append(("out= on the side stream, read there", got == 1.0 * n, f"{got} (want {1.0 * n})"))
        x.mul_(2.0)
    # Outside the context: the stream given explicitly; ours waits for nothing else.
    got = reduce.max(x, stream=s)
    out.append(("stream=torch.cuda.Stream from outside", got == 2.0, f"{got} (want 2.0)"))
    s.synchronize()
    t = torch.randn(1 << 20, device="cuda", generator=torch.Generator("cuda").manual_seed(1))
    got, want = reduce.max(Cai(t)), t.max().item()
    out.append(("__cuda_array_interface__ object (torch's dict)", got == want, f"{got} vs {want}"))
    got = reduce.min(Cai(t, stream=1), stream=0)
    out.append(("interface with stream 1, stream=0 given", got == t.min().item(), f"{got}"))
    for dt in (torch.float64, torch.int64):
        u = (t * 1000).to(dt)
        checks = [(reduce.sum(u), u.sum().item()), (reduce.min(u), u.min().item()),
                  (reduce.max(u), u.max().item())]
        ok = all(abs(a - b) <= 1e-9 * max(1.0, abs(b)) for a, b in checks)
        out.append((f"{dt} sum/min/max vs torch", ok, str(checks)))
    i32 = (t * 1000).to(torch.int32)
    o32, t32 = torch.empty((), dtype=torch.int32, device="cuda"), torch.empty((), dtype=torch.int32, device="cuda")
    reduce.sum(i32, out=o32)
    torch.sum(i32, dim=0, out=t32)
    out.append(("int32 sum into an int32 out= vs torch.sum(out=)", o32.item() == t32.item(), f"{o32.item()} vs {t32.item()}"))
    big = torch.full((1 << 20,), 1 << 30, dtype=torch.int32, device="cuda")
    got, want = reduce.sum(big), big.sum().item()
    out.append(("int32 blocking sum in 64 bits (2^20 x 2^30) vs torch", got == want, f"{got} vs {want}"))
    e = torch.empty(0, device="cuda")
    oe = torch.full((), 7.0, device="cuda")
    reduce.sum(e, out=oe)
    out.append(("empty: sum -> 0, out= -> 0", reduce.sum(e) == 0.0 and oe.item() == 0.0, f"{reduce.sum(e)}, {oe.item()}"))
    # A CUDA graph: warm up (plans are made outside the capture), capture, refill, replay.
    try:
        g, y, og = torch.cuda.CUDAGraph(), torch.ones(1 << 22, device="cuda"), torch.empty((), device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            reduce.sum(y, out=og)
        torch.cuda.current_stream().wait_stream(side)
        with torch.cuda.graph(g):
            reduce.sum(y, out=og)
        y.fill_(3.0)
        g.replay()
        got = og.item()
        out.append(("CUDA graph: captured out=, replayed after a refill", got == 3.0 * (1 << 22), f"{got}"))
    except Exception as ex:  # noqa: BLE001
        out.append(("CUDA graph: captured out=, replayed after a refill", False, f"{type(ex).__name__}: {ex}"))
    return out


def bad_inputs():
    t = torch.randn(1 << 10, device="cuda")
    o64 = torch.empty((), dtype=torch.float64, device="cuda")
    host = torch.randn(16).pin_memory()
    cases = [
        ("CPU tensor", ValueError, lambda: reduce.sum(torch.randn(16))),
        ("non-contiguous (a transpose)", ValueError, lambda: reduce.sum(t.view(32, 32).t())),
        ("float16", TypeError, lambda: reduce.sum(t.half())),
        ("bfloat16", TypeError, lambda: reduce.max(t.bfloat16())),
        ("out of another dtype", TypeError, lambda: reduce.sum(t, out=o64)),
        ("min of an empty tensor", reduce.ReduceError, lambda: reduce.min(t[:0])),
        ("pinned host memory through the interface", reduce.ReduceError,
         lambda: reduce.sum(Cai(t, data=(host.data_ptr(), False)))),
        ("an address past the allocation", reduce.ReduceError,
         lambda: reduce.sum(Cai(t, shape=(1 << 30,)))),
        ("interface stream 0 (forbidden by the spec)", ValueError, lambda: reduce.sum(Cai(t, stream=0))),
        ("not an array", TypeError, lambda: reduce.sum([1.0, 2.0])),
        ("read-only out", ValueError,
         lambda: reduce.sum(t, out=Cai(torch.empty(1, device="cuda"), data=(torch.empty(1, device="cuda").data_ptr(), True)))),
    ]
    if torch.cuda.device_count() > 1:
        cases.append(("tensor on cuda:1", ValueError, lambda: reduce.sum(torch.ones(4, device="cuda:1"))))
    return [(name, *raises(exc, fn)) for name, exc, fn in cases]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--exps", default="20,22,24,26,28,30")
    ap.add_argument("--runs", type=int, default=50)
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    gpu = torch.cuda.get_device_name()
    head = (f"GPU: {gpu}; torch {torch.__version__}; Python {sys.version.split()[0]}; "
            f"reduce {getattr(reduce, '__version__', '?')} ({reduce.__file__})")
    print(head, flush=True)
    records, failed = [], []
    correct, asyn, block = [], [], []
    for e in (int(x) for x in a.exps.split(",")):
        n = 1 << e
        t = torch.randn(n, device="cuda", generator=torch.Generator("cuda").manual_seed(0))
        r, r64, r32 = reduce.sum(t), t.double().sum().item(), t.sum().item()
        scale = t.abs().double().sum().item()
        mn, mx = reduce.min(t), reduce.max(t)
        ok = (abs(r - r64) <= 1e-6 * scale and mn == t.min().item() and mx == t.max().item())
        row = {"section": "correctness", "n": n, "reduce": r, "torch_f64": r64, "torch_f32": r32,
               "rel_err_f64": abs(r - r64) / abs(r64), "torch_rel_err_f64": abs(r32 - r64) / abs(r64),
               "rel_to_f32": abs(r - r32) / abs(r32), "err_over_abs_sum": abs(r - r64) / scale,
               "min_equal": mn == t.min().item(), "max_equal": mx == t.max().item(), "ok": ok}
        correct.append(row)
        if not ok:
            failed.append(f"correctness 2^{e}")
        o_r, o_t = torch.empty((), device="cuda"), torch.empty((), device="cuda")
        times = alternate(event_time, {"reduce": lambda: reduce.sum(t, out=o_r),
                                       "torch": lambda: torch.sum(t, dim=0, out=o_t)}, a.runs)
        asyn.append({"section": "async", "n": n, **{f"{k}_{s}_us": v[i] for k, v in times.items()
                                                   for i, s in enumerate(("min", "median"))}})
        times = alternate(wall_time, {"reduce": lambda: reduce.sum(t),
                                      "torch": lambda: t.sum().item()}, a.runs)
        block.append({"section": "blocking", "n": n, **{f"{k}_{s}_us": v[i] for k, v in times.items()
                                                       for i, s in enumerate(("min", "median"))}})
        print(f"2^{e}: sum {r:.6g} (f64 {r64:.6g}), async {asyn[-1]['reduce_median_us']:.1f} / "
              f"{asyn[-1]['torch_median_us']:.1f} us, blocking {block[-1]['reduce_median_us']:.1f} / "
              f"{block[-1]['torch_median_us']:.1f} us (reduce / torch medians)", flush=True)
        del t
        torch.cuda.empty_cache()
    streams, bad = stream_checks(), bad_inputs()
    failed += [f"stream: {n}" for n, ok, _ in streams if not ok]
    failed += [f"bad input: {n}" for n, ok, _ in bad if not ok]
    records = correct + asyn + block
    records += [{"section": "stream", "check": n, "ok": ok, "detail": d} for n, ok, d in streams]
    records += [{"section": "bad_input", "case": n, "ok": ok, "raised": d} for n, ok, d in bad]
    with open(os.path.join(a.out, "torch_ext.jsonl"), "w") as f:
        for rec in records:
            f.write(json.dumps({"gpu": gpu, **rec}) + "\n")
    md = markdown(head, correct, asyn, block, streams, bad, a.runs, failed)
    with open(os.path.join(a.out, "torch_ext.md"), "w") as f:
        f.write(md)
    print(md, flush=True)
    return 1 if failed else 0


def markdown(head, correct, asyn, block, streams, bad, runs, failed):
    lines = [f"# reduce (Python extension) against torch", "", head, ""]

    def timing(title, rows):
        lines.extend([title, "", "| N | reduce min | reduce median | torch min | torch median | torch / reduce (medians) |",
                      "|---|---|---|---|---|---|"])
        for r in rows:
            lines.append(f"| 2^{r['n'].bit_length() - 1} | {r['reduce_min_us']:.1f} | {r['reduce_median_us']:.1f} | "
                         f"{r['torch_min_us']:.1f} | {r['torch_median_us']:.1f} | "
                         f"{r['torch_median_us'] / r['reduce_median_us']:.2f}x |")
        lines.append("")

    timing(f"**Async, one call between CUDA events** (`reduce.sum(t, out=o)` vs `torch.sum(t, dim=0, out=o)`, "
           f"µs, {runs} runs each, alternating; the Python call's host time included when it exceeds the GPU's):", asyn)
    timing(f"**Blocking, host wall time per call** (`reduce.sum(t)` vs `t.sum().item()`, µs, {runs} runs each, "
           f"alternating):", block)
    lines.extend(["**Correctness**, f32 `torch.randn` (seed 0): relative error of the sum against torch's f64 sum "
                  "(torch's own f32 sum's beside it), against torch's f32 sum; min/max bit-equal to torch:", "",
                  "| N | reduce.sum | rel. err. vs f64 | torch f32 rel. err. vs f64 | rel. diff. vs torch f32 | min = | max = | ok |",
                  "|---|---|---|---|---|---|---|---|"])
    for r in correct:
        lines.append(f"| 2^{r['n'].bit_length() - 1} | {r['reduce']:.7g} | {r['rel_err_f64']:.2e} | "
                     f"{r['torch_rel_err_f64']:.2e} | {r['rel_to_f32']:.2e} | {r['min_equal']} | {r['max_equal']} | "
                     f"{'ok' if r['ok'] else 'FAILED'} |")
    lines.extend(["", "**The stream rule** (and the interface path, other types, a CUDA graph):", "",
                  "| check | ok | detail |", "|---|---|---|"])
    lines.extend(f"| {n} | {'ok' if ok else 'FAILED'} | {d} |" for n, ok, d in streams)
    lines.extend(["", "**Bad inputs**:", "", "| input | ok | raised |", "|---|---|---|"])
    lines.extend(f"| {n} | {'ok' if ok else 'FAILED'} | {d.replace('|', '/')} |" for n, ok, d in bad)
    lines.extend(["", f"verdict: {'all checks passed' if not failed else 'FAILED: ' + ', '.join(failed)}", ""])
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
