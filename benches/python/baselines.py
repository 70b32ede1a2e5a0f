#!/usr/bin/env python3
"""torch.sum and cupy.sum baselines for the f32 sum benchmark.

    python3 baselines.py            # N = 2^12, 2^14, ..., 2^30
    python3 baselines.py 20 24 30   # only these exponents

Options (the `reduce table` CLI runs this script for its PyTorch column, with
``--impl torch --n N --type T --data D --warmup W --runs R --scope kernels``):

    --impl torch|cupy       only this library (default: both)
    --n N                   exactly N elements (repeatable; instead of exponents)
    --type f32|f64|i32|i64  element type (default f32; cupy: f32 only)
    --data random|ones      input (default random: uniform [0, 1), times 1000 for integers)
    --warmup W --runs R     warm-ups and timed runs (default 10 and 50)
    --scope copy|kernels    time the sum plus the result copy (default), or the sum alone
                            (rows then carry "scope":"Kernels")

Prints one JSON object per line to stdout, the same schema as benches/cuda/cub_bench:

    {"impl":"torch","op":"sum","type":"f32","n":N,"runs":50,"min_ms":..,"median_ms":..,
     "mean_ms":..,"result":..,"reference":..,"copy":"async_pinned"}

Protocol (same as the Rust benches and cub_bench): 10 warm-ups, then 50 timed runs, each
bracketed by two CUDA events recorded on the current stream around (sum + copy of the 4-byte
result to pinned host memory):

* torch: ``s = x.sum()``; ``host.copy_(s.reshape(1), non_blocking=True)`` into a pinned
  1-element tensor; end event; ``end.synchronize()``.
* cupy:  ``s = cupy.sum(x)``; ``cudaMemcpyAsync`` of the 4 bytes into pinned memory on the
  current stream; end event; ``end.synchronize()``. If that raw copy is unavailable the script
  falls back to ``s.get()`` (a synchronizing copy, so the end event is recorded only after the
  host has seen the result: slightly pessimistic); the row then says ``"copy":"get_sync"``.

``result`` is the value of the last timed run; ``reference`` is a float64 sum of the same
tensor computed on the GPU (``torch.sum(x, dtype=torch.float64)`` / ``cupy.sum(x,
dtype=float64)``). A relative difference above 1e-5 prints a warning to stderr.

Data: ``torch.rand`` with a CUDA generator seeded 1234 (torch rows) and
``cupy.random.RandomState(1234).random_sample(n, dtype=float32)`` (cupy rows): uniform [0, 1).

Degrades gracefully: if a library cannot be imported, or no GPU is visible, or a size fails
(e.g. out of memory), it prints ``{"impl":"torch","error":"..."}`` (with "n" when it concerns
one size) and carries on. Always exits 0.
"""

import json
import os
import statistics
import sys

WARMUPS = 10
RUNS = 50
TYPES = {"f32": "float32", "f64": "float64", "i32": "int32", "i64": "int64"}
REL_TOL = 1e-5
SEED = 1234


def emit(obj):
    print(json.dumps(obj), flush=True)


def warn(msg):
    print("WARNING: " + msg, file=sys.stderr, flush=True)


def usage(msg):
    print("baselines.py: %s\nusage: baselines.py [--impl torch|cupy] [--n N ...] [--type f32|f64|i32|i64]"
          " [--data random|ones] [--warmup W] [--runs R] [--scope copy|kernels] [exponent ...]"
          "   (each exponent 0..34; N = 2^exponent)" % msg, file=sys.stderr)
    sys.exit(2)


class Config:
    """What to run: sizes, libraries, type, data, warm-ups, runs, what a timed run holds."""

    def __init__(self):
        self.sizes = []
        self.impls = ["torch", "cupy"]
        self.type = "f32"
        self.data = "random"
        self.warmups = WARMUPS
        self.runs = RUNS
        self.kernels_only = False


def count(text, name, low):
    try:
        v = int(text)
    except ValueError:
        v = low - 1
    if v < low or v > 100000:
        usage("%s must be a whole number in %d..100000, not %r" % (name, low, text))
    return v


def parse_args(argv):
    cfg = Config()
    exps = []
    it = iter(argv)
    for a in it:
        if a.startswith("--"):
            value = next(it, None)
            if value is None:
                usage("%s needs a value" % a)
            if a == "--impl" and value in ("torch", "cupy"):
                cfg.impls = [value]
            elif a == "--n":
                try:
                    n = int(value)
                except ValueError:
                    n = -1
                if n < 0 or n > 1 << 34:
                    usage("--n must be a whole number in 0..2^34, not %r" % value)
                cfg.sizes.append(n)
            elif a == "--type" and value in TYPES:
                cfg.type = value
            elif a == "--data" and value in ("random", "ones"):
                cfg.data = value
            elif a == "--warmup":
                cfg.warmups = count(value, a, 0)
            elif a == "--runs":
                cfg.runs = count(value, a, 1)
            elif a == "--scope" and value in ("copy", "kernels"):
                cfg.kernels_only = value == "kernels"
            else:
                usage("bad option %s %s" % (a, value))
            continue
        try:
            e = int(a)
        except ValueError:
            e = -1
        if e < 0 or e > 34:
            usage("bad exponent %r" % a)
        exps.append(e)
    if not cfg.sizes:
        cfg.sizes = [1 << e for e in (exps or list(range(12, 31, 2)))]
    elif exps:
        usage("give exponents or --n, not both")
    return cfg


def summarize(times_ms):
    return {
        "min_ms": round(min(times_ms), 6),
        "median_ms": round(statistics.median(times_ms), 6),
        "mean_ms": round(statistics.fmean(times_ms), 6),
    }


def json_float(x):
    """JSON has no NaN / inf: map them to null."""
    x = float(x)
    if x != x or x in (float("inf"), float("-inf")):
        return None
    return x


def check_close(impl, n, result, reference):
    err = abs(result - reference)
    scale = abs(reference)
    rel = err / scale if scale > 0 else err
    if not (rel <= REL_TOL):  # also catches NaN
        warn("%s n=%d result %.9g differs from reference %.17g (rel err %.3g > %g)"
             % (impl, n, result, reference, rel, REL_TOL))


def time_runs(cfg, once, start, end, elapsed_ms, synchronize):
    """cfg.warmups untimed calls of once(), then cfg.runs calls each between two events (start,
    end); returns the times in ms. elapsed_ms(start, end) reads an event pair of the library."""
    for _ in range(cfg.warmups):
        once()
    synchronize()
    times = []
    for _ in range(cfg.runs):
        start.record()
        once()
        end.record()
        end.synchronize()
        times.append(elapsed_ms(start, end))
    return times


def row(cfg, impl, n, stats, result, reference, copy_mode):
    out = {"impl": impl, "op": "sum", "type": cfg.type, "n": n, "runs": cfg.runs}
    out.update(stats)
    out["result"] = json_float(result)
    out["reference"] = json_float(reference)
    if cfg.kernels_only:
        out["scope"] = "Kernels"
    else:
        out["copy"] = copy_mode
    return out


# ---------------------------------------------------------------------------------------------
# torch
# ---------------------------------------------------------------------------------------------

def bench_torch(cfg):
    try:
        import torch
    except Exception as e:  # ImportError, or a broken install raising something else
        emit({"impl": "torch", "error": "import torch failed: %r" % (e,)})
        return
    try:
        if not torch.cuda.is_available():
            emit({"impl": "torch", "error": "torch.cuda.is_available() is False (no GPU or no CUDA build)"})
            return
        dev = torch.device("cuda")
        print("torch %s, CUDA %s, device %s" % (torch.__version__, torch.version.cuda,
                                                torch.cuda.get_device_name(dev)),
              file=sys.stderr, flush=True)
        gen = torch.Generator(device=dev)
        gen.manual_seed(SEED)
        host = torch.empty(1, dtype=torch.float32, pin_memory=True)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
    except Exception as e:
        emit({"impl": "torch", "error": "torch CUDA setup failed: %r" % (e,)})
        return

    dtype = getattr(torch, TYPES[cfg.type])
    for n in cfg.sizes:
        x = None
        try:
            if cfg.data == "ones":
                x = torch.ones(n, device=dev, dtype=dtype)
            else:
                x = torch.rand(n, generator=gen, device=dev, dtype=torch.float32)
                if cfg.type in ("i32", "i64"):
                    x = (x * 1000).to(dtype)
                elif cfg.type != "f32":
                    x = x.to(dtype)
            reference = float(torch.sum(x, dtype=torch.float64).item())
            last = [None]

            def once():
                s = x.sum()
                if cfg.kernels_only:
                    last[0] = s
                else:
                    host.copy_(s.reshape(1), non_blocking=True)

            times = time_runs(cfg, once, start, end, lambda a, b: a.elapsed_time(b),
                              torch.cuda.synchronize)
            result = float(last[0].item()) if cfg.kernels_only else float(host[0].item())
            check_close("torch", n, result, reference)
            emit(row(cfg, "torch", n, summarize(times), result, reference, "async_pinned"))
        except Exception as err:
            emit({"impl": "torch", "n": n, "error": repr(err)})
        finally:
            del x
            try:
                torch.cuda.empty_cache()
            except Exception:
                pass


# ---------------------------------------------------------------------------------------------
# cupy
# ---------------------------------------------------------------------------------------------

def bench_cupy(cfg):
    if cfg.type != "f32":
        emit({"impl": "cupy", "error": "this baseline sums f32 only, not %s" % cfg.type})
        return
    try:
        import numpy as np
        import cupy as cp
    except Exception as e:
        emit({"impl": "cupy", "error": "import cupy failed: %r" % (e,)})
        return
    try:
        count = cp.cuda.runtime.getDeviceCount()
        if count < 1:
            emit({"impl": "cupy", "error": "no CUDA device visible"})
            return
        props = cp.cuda.runtime.getDeviceProperties(0)
        name = props.get("name", b"?")
        if isinstance(name, bytes):
            name = name.decode(errors="replace")
        print("cupy %s, device %s, CUPY_ACCELERATORS=%s"
              % (cp.__version__, name, os.environ.get("CUPY_ACCELERATORS", "<default>")),
              file=sys.stderr, flush=True)
        rs = cp.random.RandomState(seed=SEED)
        pinned = cp.cuda.alloc_pinned_memory(4)
        host = np.frombuffer(pinned, dtype=np.float32, count=1)
        start = cp.cuda.Event()
        end = cp.cuda.Event()
    except Exception as e:
        emit({"impl": "cupy", "error": "cupy CUDA setup failed: %r" % (e,)})
        return

    d2h = getattr(cp.cuda.runtime, "memcpyDeviceToHost", 2)
    copy_mode = "async_pinned"

    def copy_async(s):
        stream = cp.cuda.get_current_stream()
        cp.cuda.runtime.memcpyAsync(host.ctypes.data, s.data.ptr, 4, d2h, stream.ptr)

    def copy_get(s):
        host[0] = s.get()

    for n in cfg.sizes:
        x = None
        try:
            if cfg.data == "ones":
                x = cp.ones(n, dtype=cp.float32)
            else:
                x = rs.random_sample(n, dtype=cp.float32)
            reference = float(cp.sum(x, dtype=cp.float64).get())

            # Pick the copy once: the async raw copy if it works, else .get().
            if copy_mode == "async_pinned":
                try:
                    copy_async(cp.sum(x))
                    cp.cuda.get_current_stream().synchronize()
                except Exception as err:
                    warn("cupy raw memcpyAsync failed (%r); falling back to .get()" % (err,))
                    copy_mode = "get_sync"
            copy = copy_async if copy_mode == "async_pinned" else copy_get

            last = [None]

            def once():
                s = cp.sum(x)
                if cfg.kernels_only:
                    last[0] = s
                else:
                    copy(s)

            times = time_runs(cfg, once, start, end, cp.cuda.get_elapsed_time,
                              cp.cuda.get_current_stream().synchronize)
            result = float(last[0].get()) if cfg.kernels_only else float(host[0])
            check_close("cupy", n, result, reference)
            emit(row(cfg, "cupy", n, summarize(times), result, reference, copy_mode))
        except Exception as err:
            emit({"impl": "cupy", "n": n, "error": repr(err)})
        finally:
            del x
            try:
                cp.get_default_memory_pool().free_all_blocks()
            except Exception:
                pass


def main():
    cfg = parse_args(sys.argv[1:])
    benches = {"torch": bench_torch, "cupy": bench_cupy}
    for bench in (benches[name] for name in cfg.impls):
        try:
            bench(cfg)
        except Exception as e:  # never let one library take the other down
            emit({"impl": bench.__name__[len("bench_"):], "error": "unexpected: %r" % (e,)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
