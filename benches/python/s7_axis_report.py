"""The table of `benches/s7-axis-on-gpu.sh`: reads its JSONL (ours under each `--policy`, CUB
segmented and the read-only roof from cuda/cub_segmented.cu, torch from axis_torch.py) and prints
markdown: per shape and axis, every policy's min and median time, its bandwidth on the bytes read
AND written, that as a share of the roof (the read-only kernel's bandwidth, applied to read +
written bytes, as axis_report.py), its time over the default's (the faster of the default's two
runs), and torch's and CUB's time over it (above 1: ours is faster). The target (issue #13):
>= 85% of the roof and faster than torch and CUB. Then per axis the best policy per shape.

    python3 s7_axis_report.py s7-axis.jsonl
"""
import json
import sys

SIZE = {"f32": 4, "f64": 8, "i32": 4, "u32": 4, "i64": 8, "u64": 8}


def main():
    recs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
    for r in recs:
        r.setdefault("impl", "ours")
    ours = [r for r in recs if r["impl"] == "ours"]
    base = lambda impl, axis, rows, cols: next(
        (r for r in recs if r["impl"] == impl and r["axis"] == axis and r["rows"] == rows
         and r["cols"] == cols), None)
    shapes = []
    for r in ours:
        k = (r["axis"], r["rows"], r["cols"])
        if k not in shapes:
            shapes.append(k)
    out = ["# Axis variants (f32 of ones, min / median of 50 CUDA-event runs)", "",
           "% of roof: bandwidth on read + written bytes over the read-only kernel's. vs default: "
           "time / the default's (below 1: faster). torch/ours, CUB/ours: above 1, ours is faster.",
           ""]
    best = []
    for k in shapes:
        axis, rows, cols = k
        runs = [r for r in ours if (r["axis"], r["rows"], r["cols"]) == k]
        default = min((r for r in runs if r.get("policy", "") == ""), key=lambda r: r["min_ms"],
                      default=None)
        roof = base("read_roof", "rows", rows, cols)
        torch = base("torch", axis, rows, cols)
        cub = base("cub_segmented", axis, rows, cols) if axis == "rows" else None
        out += ["## %s %d x %d" % k, "",
                "torch %s, CUB %s, roof (read-only) %s" % (
                    "%.1f µs" % (torch["min_ms"] * 1e3) if torch else "–",
                    "%.1f µs" % (cub["min_ms"] * 1e3) if cub else "–",
                    "%.1f µs" % (roof["min_ms"] * 1e3) if roof else "–"), "",
                "| policy | plan | min | median | % of roof | vs default | torch/ours | CUB/ours | target | ok |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        fastest = min(runs, key=lambda r: r["min_ms"])
        for r in runs:
            moved = r["bytes"] + {"rows": rows, "cols": cols}[axis] * SIZE[r["type"]]
            gbps = moved / (r["min_ms"] * 1e-3) / 1e9
            pct = 100 * gbps / roof["gbps"] if roof else float("nan")
            vs_t = torch["min_ms"] / r["min_ms"] if torch else float("nan")
            vs_c = cub["min_ms"] / r["min_ms"] if cub else float("nan")
            hit = pct >= 85 and (not torch or vs_t > 1) and (not cub or vs_c > 1)
            out.append("| %s%s | %s | %.1f µs | %.1f µs | %.0f%% | %.3f | %.3f | %s | %s | %s |" % (
                "`%s`" % r["policy"] if r.get("policy") else "(default)",
                " **fastest**" if r is fastest else "", r.get("plan", ""), r["min_ms"] * 1e3,
                r["median_ms"] * 1e3, pct, r["min_ms"] / default["min_ms"] if default else float("nan"),
                vs_t, "%.3f" % vs_c if cub else "–", "yes" if hit else "no",
                "yes" if r["ok"] else "NO"))
        out.append("")
        best.append((k, fastest, default))
    out += ["## Fastest policy per shape", "",
            "| axis | shape | fastest policy | min | default min | gain |", "|---|---|---|---|---|---|"]
    for k, f, d in best:
        out.append("| %s | %d x %d | %s | %.1f µs | %.1f µs | %.1f%% |" % (
            k[0], k[1], k[2], "`%s`" % f["policy"] if f.get("policy") else "(default)",
            f["min_ms"] * 1e3, d["min_ms"] * 1e3 if d else float("nan"),
            100 * (1 - f["min_ms"] / d["min_ms"]) if d else float("nan")))
    print("\n".join(out))


if __name__ == "__main__":
    main()
