#!/usr/bin/env python3
"""torch.sum and cupy.sum baselines for the f32 sum benchmark.

    python3 baselines.py            # N = 2^12, 2^14, ..., 2^30
    python3 baselines.py 20 24 30   # only these exponents

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
REL_TOL = 1e-5
SEED = 1234


def emit(obj):
    print(json.dumps(obj), flush=True)


def warn(msg):
    print("WARNING: " + msg, file=sys.stderr, flush=True)


def parse_exponents(argv):
    exps = []
    for a in argv:
        try:
            e = int(a)
        except ValueError:
            e = -1
        if e < 0 or e > 34:
            print("usage: baselines.py [exponent ...]   (each 0..34; N = 2^exponent)", file=sys.stderr)
            sys.exit(2)
        exps.append(e)
    return exps or list(range(12, 31, 2))


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


def time_runs(once, start, end, elapsed_ms, synchronize):
    """WARMUPS untimed calls of once(), then RUNS calls each between two events (start, end);
    returns the RUNS times in ms. elapsed_ms(start, end) reads an event pair of the library."""
    for _ in range(WARMUPS):
        once()
    synchronize()
    times = []
    for _ in range(RUNS):
        start.record()
        once()
        end.record()
        end.synchronize()
        times.append(elapsed_ms(start, end))
    return times


def row(impl, n, stats, result, reference, copy_mode):
    out = {"impl": impl, "op": "sum", "type": "f32", "n": n, "runs": RUNS}
    out.update(stats)
    out["result"] = json_float(result)
    out["reference"] = json_float(reference)
    out["copy"] = copy_mode
    return out


# ---------------------------------------------------------------------------------------------
# torch
# ---------------------------------------------------------------------------------------------

def bench_torch(exps):
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

    for e in exps:
        n = 1 << e
        x = None
        try:
            x = torch.rand(n, generator=gen, device=dev, dtype=torch.float32)
            reference = float(torch.sum(x, dtype=torch.float64).item())

            def once():
                s = x.sum()
                host.copy_(s.reshape(1), non_blocking=True)

            times = time_runs(once, start, end, lambda a, b: a.elapsed_time(b),
                              torch.cuda.synchronize)
            result = float(host[0].item())
            check_close("torch", n, result, reference)
            emit(row("torch", n, summarize(times), result, reference, "async_pinned"))
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

def bench_cupy(exps):
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

    for e in exps:
        n = 1 << e
        x = None
        try:
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

            def once():
                s = cp.sum(x)
                copy(s)

            times = time_runs(once, start, end, cp.cuda.get_elapsed_time,
                              cp.cuda.get_current_stream().synchronize)
            result = float(host[0])
            check_close("cupy", n, result, reference)
            emit(row("cupy", n, summarize(times), result, reference, copy_mode))
        except Exception as err:
            emit({"impl": "cupy", "n": n, "error": repr(err)})
        finally:
            del x
            try:
                cp.get_default_memory_pool().free_all_blocks()
            except Exception:
                pass


def main():
    exps = parse_exponents(sys.argv[1:])
    for bench in (bench_torch, bench_cupy):
        try:
            bench(exps)
        except Exception as e:  # never let one library take the other down
            emit({"impl": bench.__name__[len("bench_"):], "error": "unexpected: %r" % (e,)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
