"""torch baselines for the transform-reduce rows of `benches/gpu.sh toolbox`: for each N given,
f32 uniform [0, 1) (and each type of HALF_TYPES, "f16 bf16" by default: the same values rounded),
torch.sum, (x * x).sum(), dot, linalg.vector_norm (ord 2 and 1), mean, var and std; min and
median of 50 CUDA-event runs after 5 warm-ups. Then the accuracy case: the population variance of
1e6 + U(0,1) in f32 (2^24 elements) against the f64 variance of the same values. One JSON object
per line.

    python3 transform_torch.py 4096 1048576 67108864 1073741824
"""
import json
import os
import sys

import torch

dev = torch.device("cuda")
name = torch.cuda.get_device_name(0)
def time(fn, runs=50, warmup=5):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for r in range(warmup + runs):
        a.record(); fn(); b.record(); b.synchronize()
        if r >= warmup:
            ts.append(a.elapsed_time(b))
    ts.sort()
    return ts[0], (ts[runs // 2 - 1] + ts[runs // 2]) / 2 if runs % 2 == 0 else ts[runs // 2]
def transforms(x, y):
    """torch's counterparts of our transform ops on x (and y), as (op, call, fn, inputs)."""
    return [
        ("sumsq", "torch.dot(x, x)", lambda: torch.dot(x, x), 1),
        ("norm2", "torch.linalg.vector_norm(x)", lambda: torch.linalg.vector_norm(x), 1),
        ("l1", "torch.linalg.vector_norm(x, 1)", lambda: torch.linalg.vector_norm(x, 1), 1),
        ("dot", "torch.dot(x, y)", lambda: torch.dot(x, y), 2),
        ("mean", "torch.mean(x)", lambda: torch.mean(x), 1),
        ("var", "torch.var(x)", lambda: torch.var(x), 1),
        ("std", "torch.std(x)", lambda: torch.std(x), 1),
    ]
def emit(ops, ty, size, n):
    """Time each (op, call, fn, inputs) and print its record (`size` bytes per element)."""
    for op, call, fn, inputs in ops:
        lo, med = time(fn)
        print(json.dumps({"record": "transform", "impl": "torch", "call": call, "device": name, "op": op,
                          "type": ty, "n": n, "runs": 50, "min_ms": lo, "median_ms": med,
                          "bytes": size * n * inputs, "value": float(fn())}), flush=True)
for n in map(int, sys.argv[1:]):
    g = torch.Generator(device=dev); g.manual_seed(42)
    x = torch.rand(n, device=dev, generator=g)
    y = torch.rand(n, device=dev, generator=g)
    # Every type: (op, call, fn, inputs); f32 adds the sum and (x * x).sum(), the halves their
    # sum (`total`) and nanmean.
    emit([("sum", "torch.sum(x)", lambda: torch.sum(x), 1)] + transforms(x, y)
         + [("sumsq", "(x * x).sum()", lambda: (x * x).sum(), 1)], "f32", 4, n)
    # The same ops on f16 / bf16 (torch accumulates in f32 and returns the input dtype).
    for ty in os.environ.get("HALF_TYPES", "f16 bf16").split():
        dt = {"f16": torch.float16, "bf16": torch.bfloat16}[ty]
        h, k = x.to(dt), y.to(dt)
        emit([("total", "torch.sum(x)", lambda: torch.sum(h), 1),
              ("nanmean", "torch.nanmean(x)", lambda: torch.nanmean(h), 1)] + transforms(h, k),
             ty, 2, n)
        del h, k
    del x, y
    torch.cuda.empty_cache()
# Accuracy: var of 1e6 + U(0,1) in f32, against the f64 variance of the same f32 values.
g = torch.Generator(device=dev); g.manual_seed(7)
x = 1e6 + torch.rand(1 << 24, device=dev, generator=g)
ref = torch.var(x.double(), correction=0).item()
got = torch.var(x, correction=0).item()
print(json.dumps({"record": "transform_accuracy", "impl": "torch", "op": "var", "type": "f32",
                  "n": 1 << 24, "shift": 1e6, "value": got, "reference": ref,
                  "rel_error": abs(got - ref) / ref}), flush=True)
