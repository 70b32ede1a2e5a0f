"""torch.argmax / torch.argmin baselines for the argmin/argmax rows of `benches/gpu.sh toolbox`:
f32, f16 and bf16 at N = 2^E for each exponent given, f64 at 2^26; `torch.rand(N, dtype)` on
the GPU, 10 warm-ups, min and median of 50 CUDA-event runs. One JSON object per line (impl
torch_argmin / torch_argmax), `ok` when the index is the first occurrence of the extreme value.

    python3 arg_torch.py 12,20,26,30
"""
import json
import sys

import torch


def main():
    exps = [int(e) for e in sys.argv[1].split(",")]
    dev = torch.device("cuda")
    cases = [(t, e) for t in ("f32", "f16", "bf16") for e in exps] + [("f64", 26)]
    dtypes = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
              "f64": torch.float64}
    for ty, e in cases:
        n = 1 << e
        x = torch.rand(n, device=dev, dtype=dtypes[ty])
        for op in ("argmin", "argmax"):
            f = getattr(torch, op)
            for _ in range(10):
                f(x)
            torch.cuda.synchronize()
            times = []
            for _ in range(50):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                r = f(x)
                b.record()
                b.synchronize()
                times.append(a.elapsed_time(b) * 1e3)
            times.sort()
            idx = int(r.item())
            # The first occurrence of the extreme value, found on the GPU another way (uniform
            # data, no NaN): NumPy on the host takes minutes at 2^30.
            m = x.max() if op == "argmax" else x.min()
            want = int((x == m).nonzero()[0])
            print(json.dumps({"impl": f"torch_{op}", "op": op, "type": ty, "n": n, "runs": 50,
                              "min_us": times[0], "median_us": (times[24] + times[25]) / 2,
                              "gbps": n * x.element_size() / (times[0] * 1e-6) / 1e9,
                              "index": idx, "value": float(x[idx]), "ok": idx == want}),
                  flush=True)
        del x


if __name__ == "__main__":
    main()
