#!/usr/bin/env python3
"""Data that starts on the host: the baselines and the report of `benches/gpu.sh host`.

    python3 host_stream.py baselines --exps 16,20,22,26,28 [--runs 10] [--big-exp 30 --big-runs 3]
    python3 host_stream.py report OUTDIR

``baselines`` prints one JSON object per line, the schema of ``reduce host --format json``
(``"kind":"host"``, ``"impl"`` names the library and input): f32 ones from a NumPy array,
wall clock (``time.perf_counter``) around the whole call until the result is on the host,
after 3 warm-ups; min and median of the runs:

* ``torch_pageable``: ``torch.from_numpy(x).cuda().sum().item()``
* ``torch_pinned``:   ``xp.cuda().sum().item()`` with ``xp = torch.from_numpy(x).pin_memory()``
  (pinned once, outside the timing)
* ``cupy_pageable``:  ``float(cupy.asarray(x).sum())``

``report`` reads OUTDIR/host.jsonl (the ``reduce host`` rows, the link row and these) and writes
OUTDIR/host.md (GB/s, % of the link, speedups) and, from OUTDIR/timeline.json, OUTDIR/timeline.png.
"""
import json
import statistics
import sys
import time


def timed(fn, warmup, runs):
    for _ in range(warmup):
        fn()
    secs = []
    value = None
    for _ in range(runs):
        t = time.perf_counter()
        value = fn()
        secs.append(time.perf_counter() - t)
    return value, min(secs), statistics.median(secs)


def baselines(exps, runs, big_exp, big_runs):
    import numpy as np

    try:
        import torch
    except ImportError:
        torch = None
    try:
        import cupy
    except ImportError:
        cupy = None
    sizes = [(e, runs) for e in exps] + ([(big_exp, big_runs)] if big_exp else [])
    for e, r in sizes:
        n = 1 << e
        x = np.ones(n, dtype=np.float32)
        impls, xp = [], None
        if torch is not None and torch.cuda.is_available():
            impls.append(("torch_pageable", lambda: torch.from_numpy(x).cuda().sum().item()))
            xp = torch.from_numpy(x).pin_memory()
            impls.append(("torch_pinned", lambda: xp.cuda().sum().item()))
        if cupy is not None:
            impls.append(("cupy_pageable", lambda: float(cupy.asarray(x).sum())))
        for name, fn in impls:
            try:
                value, lo, med = timed(fn, 3, r)
            except Exception as err:  # out of memory and the like: report, go on
                print(f"{name} 2^{e}: {err}", file=sys.stderr)
                continue
            print(json.dumps({
                "kind": "host", "impl": name, "ty": "f32", "op": "sum", "n": n,
                "value": str(value), "correct": value == float(n), "runs": r,
                "min_ms": lo * 1e3, "median_ms": med * 1e3, "gbps": 4 * n / lo / 1e9,
            }), flush=True)
        if xp is not None:
            del xp
            torch.cuda.empty_cache()


def report(outdir):
    rows, link = [], None
    with open(f"{outdir}/host.jsonl") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if r.get("kind") == "link":
                link = r
            elif r.get("kind") == "host":
                r.setdefault("impl", "ours_" + r.get("input", "?"))
                rows.append(r)
    impls = ["ours_pageable", "ours_pinned", "ours_zero-copy", "torch_pageable", "torch_pinned",
             "cupy_pageable"]
    ns = sorted({r["n"] for r in rows})
    by = {(r["impl"], r["n"]): r for r in rows}
    out = ["# Data that starts on the host: end to end, f32 sum of ones", ""]
    if link:
        out.append(f"Link: pinned `cuMemcpyHtoD` of {link['bytes'] / 2**30:.0f} GiB: "
                   f"**{link['gbps']:.1f} GB/s** (min of {link['runs']}) on {link['device']}.")
        out.append("")
    out.append("Wall clock until the result is on the host; min (median) of the runs; GB/s and "
               "% of the link from the min.")
    out.append("")
    out.append("| N | " + " | ".join(impls) + " | ours pageable vs torch/cupy pageable | "
               "ours pinned vs torch pinned |")
    out.append("|---|" + "---|" * (len(impls) + 2))
    for n in ns:
        cells = []
        for i in impls:
            r = by.get((i, n))
            if r is None:
                cells.append("–")
                continue
            pct = f", {100 * r['gbps'] / link['gbps']:.0f}%" if link else ""
            bad = "" if r.get("correct", True) else " **WRONG**"
            cells.append(f"{r['min_ms'] * 1e3:,.0f} µs ({r['median_ms'] * 1e3:,.0f}) "
                         f"{r['gbps']:.1f} GB/s{pct}{bad}")

        def ratio(a, b):
            ra, rb = by.get((a, n)), by.get((b, n))
            return rb["min_ms"] / ra["min_ms"] if ra and rb else None

        tp, cp = ratio("ours_pageable", "torch_pageable"), ratio("ours_pageable", "cupy_pageable")
        pp = ratio("ours_pinned", "torch_pinned")
        fmt = lambda v: f"{v:.2f}×" if v else "–"
        out.append(f"| 2^{n.bit_length() - 1} | " + " | ".join(cells)
                   + f" | {fmt(tp)} / {fmt(cp)} | {fmt(pp)} |")
    with open(f"{outdir}/host.md", "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))
    plot_timeline(outdir)


def plot_timeline(outdir):
    try:
        with open(f"{outdir}/timeline.json") as f:
            timelines = json.load(f)
    except OSError:
        return
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: no timeline.png", file=sys.stderr)
        return

    lanes = ["host", "copy", "compute", "combine"]
    colors = {"host": "tab:orange", "copy": "tab:blue", "compute": "tab:green",
              "combine": "tab:red"}
    fig, axes = plt.subplots(len(timelines), 1, figsize=(12, 2.2 * len(timelines) + 0.6),
                             squeeze=False)
    for ax, t in zip(axes[:, 0], timelines):
        for s in t["spans"]:
            y = lanes.index(s["lane"])
            ax.barh(y, s["end_ms"] - s["start_ms"], left=s["start_ms"], height=0.7,
                    color=colors[s["lane"]], edgecolor="black", linewidth=0.3)
        ax.set_yticks(range(len(lanes)), ["host staging", "copy stream", "compute stream",
                                          "combine"])
        ax.invert_yaxis()
        ax.set_xlabel("ms since the call started")
        ax.set_title(f"{t['input']}: {t['n']} × {t['ty']}, {t['chunks']} chunks of "
                     f"{t['chunk_elems']}, {t['total_ms']:.2f} ms until the result was on the host")
    fig.tight_layout()
    fig.savefig(f"{outdir}/timeline.png", dpi=120)


def main(argv):
    if len(argv) >= 2 and argv[0] == "report":
        report(argv[1])
        return
    if not argv or argv[0] != "baselines":
        print(__doc__)
        sys.exit(2)
    opts = dict(zip(argv[1::2], argv[2::2]))
    exps = [int(e) for e in opts.get("--exps", "16,20,22,26,28").split(",")]
    big = int(opts["--big-exp"]) if "--big-exp" in opts else None
    baselines(exps, int(opts.get("--runs", 10)), big, int(opts.get("--big-runs", 3)))


if __name__ == "__main__":
    main(sys.argv[1:])
