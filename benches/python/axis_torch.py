"""torch baselines for `reduce axis`: x.sum(dim=1) and x.sum(dim=0) of a row-major f32 matrix of
ones; minimum and median of 50 CUDA-event runs after 5 warm-ups. One JSON line per measurement.

    python3 axis_torch.py R C [R C ...]
"""
import json
import sys

import torch


def main():
    a = [int(v) for v in sys.argv[1:]]
    for rows, cols in zip(a[0::2], a[1::2]):
        x = torch.ones((rows, cols), dtype=torch.float32, device="cuda")
        for dim, axis in ((1, "rows"), (0, "cols")):
            times = []
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            for r in range(55):
                s.record()
                y = x.sum(dim=dim)
                e.record()
                e.synchronize()
                if r >= 5:
                    times.append(s.elapsed_time(e))
            ok = bool((y == float(cols if dim == 1 else rows)).all().item())
            times.sort()
            mn, med = times[0], (times[24] + times[25]) / 2
            print(json.dumps({"record": "axis", "impl": "torch", "axis": axis, "rows": rows,
                              "cols": cols, "segments": 0, "n": rows * cols, "type": "f32",
                              "op": "sum", "bytes": rows * cols * 4, "min_ms": mn,
                              "median_ms": med, "gbps": rows * cols * 4 / (mn * 1e6), "ok": ok}),
                  flush=True)
        del x
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
