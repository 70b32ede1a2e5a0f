"""The policy sweep of `benches/axis-on-gpu.sh`: reads OUTDIR/axis-sweep.jsonl (every shape and
axis, f32 sum, under each `--policy` beside the default "") and OUTDIR/axis.jsonl (the read-only
roof), writes OUTDIR/axis-sweep.md.

Per shape: each policy's minimum time, its bandwidth counting the bytes read AND written (the
results: `rows` or `cols` elements), that as a share of the roof (the read-only kernel's
bandwidth on the input, applied to read + written bytes), and its time over the default's
(below 1: faster; the default runs first and last, the faster of the two is the baseline). Per axis: each policy's geometric mean of that ratio over the shapes and its
worst shape — the policy to make the default is the one with the lowest mean and no shape
much worse.

    python3 axis_sweep.py OUTDIR
"""
import json
import math
import os
import sys

SIZE = {"f32": 4, "f64": 8, "i32": 4, "u32": 4, "i64": 8, "u64": 8}


def written(r):
    n = {"rows": r["rows"], "cols": r["cols"]}.get(r["axis"], r.get("segments", 0))
    return n * SIZE[r["type"]]


def main():
    out = sys.argv[1]
    load = lambda f: [json.loads(l) for l in open(os.path.join(out, f)) if l.startswith("{")]
    sweep = [r for r in load("axis-sweep.jsonl") if r.get("record") == "axis"]
    base = load("axis.jsonl") if os.path.exists(os.path.join(out, "axis.jsonl")) else []
    roofs = {(r["rows"], r["cols"]): r for r in base if r.get("impl") == "read_roof"}
    shapes = []
    for r in sweep:
        k = (r["axis"], r["rows"], r["cols"])
        if k not in shapes:
            shapes.append(k)
    lines = ["# Axis policy sweep (f32 sum of ones, min of 50 CUDA-event runs)", "",
             "GB/s and % of roof count the bytes read plus the results written; the roof is the "
             "read-only kernel's bandwidth (CUB run of `cuda/cub_segmented.cu`) on the same input.", ""]
    ratios = {}  # (axis, policy) -> [time / default time]
    for k in shapes:
        runs = [r for r in sweep if (r["axis"], r["rows"], r["cols"]) == k]
        # The default runs first and last: the faster of the two is the baseline.
        default = min((r for r in runs if r.get("policy", "") == ""), key=lambda r: r["min_ms"], default=None)
        roof = roofs.get((k[1], k[2]))
        lines += ["## %s %d x %d" % k, "",
                  "| policy | plan | time | GB/s (r+w) | % of roof | vs default | ok |",
                  "|---|---|---|---|---|---|---|"]
        best = min(runs, key=lambda r: r["min_ms"])
        for r in runs:
            moved = r["bytes"] + written(r)
            gbps = moved / (r["min_ms"] * 1e-3) / 1e9
            pct = "%.0f%%" % (100 * gbps / roof["gbps"]) if roof else "–"
            rel = r["min_ms"] / default["min_ms"] if default else float("nan")
            ratios.setdefault((k[0], r.get("policy", "")), []).append((rel, "%d x %d" % k[1:]))
            lines.append("| %s%s | %s | %.1f µs | %.0f | %s | %.3f | %s |" % (
                "`%s`" % r["policy"] if r.get("policy") else "(default)",
                " **best**" if r is best else "", r.get("plan", ""), r["min_ms"] * 1e3, gbps, pct,
                rel, "yes" if r["ok"] else "NO"))
        lines.append("")
    lines += ["## One policy per axis", "",
              "| axis | policy | geomean time / default | worst shape | shapes |", "|---|---|---|---|---|"]
    for axis in ("rows", "cols"):
        rows = []
        for (a, pol), rs in ratios.items():
            if a != axis or not rs:
                continue
            g = math.exp(sum(math.log(x) for x, _ in rs) / len(rs))
            worst = max(rs)
            rows.append((g, pol, worst, len(rs)))
        for g, pol, worst, n in sorted(rows):
            lines.append("| %s | %s | %.3f | %.3f (%s) | %d |" % (
                axis, "`%s`" % pol if pol else "(default)", g, worst[0], worst[1], n))
    text = "\n".join(lines) + "\n"
    open(os.path.join(out, "axis-sweep.md"), "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
