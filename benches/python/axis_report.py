"""Markdown table and bar chart for `benches/gpu.sh axis`: reads OUTDIR/axis.jsonl, writes
OUTDIR/axis.md and OUTDIR/axis_bandwidth.png (matplotlib, if installed).

    python3 axis_report.py OUTDIR
"""
import json
import os
import sys


def main():
    out = sys.argv[1]
    rows = [json.loads(l) for l in open(os.path.join(out, "axis.jsonl")) if l.startswith("{")]
    for r in rows:
        r.setdefault("impl", "ours")
    key = lambda r: (r["axis"], r["rows"], r["cols"], r["segments"])
    shapes = []
    for r in rows:
        if key(r) not in shapes and r["impl"] == "ours" and r["op"] == "sum" and r["type"] == "f32":
            shapes.append(key(r))
    get = lambda k, impl, op="sum", ty="f32": next(
        (r for r in rows if key(r) == k and r["impl"] == impl and r["op"] == op and r["type"] == ty), None)
    roof_of = lambda k: get(k, "read_roof", "read") or get(("rows",) + k[1:], "read_roof", "read")
    us = lambda r: "%.1f µs" % (r["min_ms"] * 1e3) if r else "–"
    # Honest bytes: the results written count too (64 MiB of them for 16 x 2^24 columns). The
    # roof for read + written bytes is the read-only kernel's time scaled by their ratio.
    size = {"f32": 4, "f64": 8, "i32": 4, "u32": 4, "i64": 8, "u64": 8}
    written = lambda r: {"rows": r["rows"], "cols": r["cols"]}.get(r["axis"], r["segments"]) * size[r["type"]]
    lines = ["| axis | shape | ours (f32 sum) | GB/s (r+w) | % of roof (r+w) | torch | CUB segmented | roof (read-only) | roof (r+w) | vs torch | vs CUB | ok |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    plot = []
    for k in shapes:
        o, t, c, roof = get(k, "ours"), get(k, "torch"), get(k, "cub_segmented"), roof_of(k)
        shape = "%d segments (1..2^20)" % k[3] if k[0] == "segments" else "%d x %d" % (k[1], k[2])
        moved = o["bytes"] + written(o)
        gbps = moved / (o["min_ms"] * 1e-3) / 1e9
        pct = "%.0f%%" % (100 * gbps / roof["gbps"]) if roof else "–"
        rw = "%.1f µs" % (roof["min_ms"] * 1e3 * moved / o["bytes"]) if roof and o["bytes"] else "–"
        sp = lambda b: "%.2fx" % (b["min_ms"] / o["min_ms"]) if b else "–"
        lines.append("| %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            k[0], shape, us(o), gbps, pct, us(t), us(c), us(roof), rw, sp(t), sp(c),
            "yes" if o["ok"] else "NO"))
        plot.append((k[0] + " " + shape, o, t, c, roof))
    lines += ["", "Other operators and types: bandwidth as a share of the f32 sum's on the same shape (target: within 10%):", "",
              "| axis | shape | op | type | time | GB/s | vs f32 sum | ok |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["impl"] == "ours" and (r["op"], r["type"]) != ("sum", "f32"):
            base = get(key(r), "ours")
            rel = "%.0f%%" % (100 * r["gbps"] / base["gbps"]) if base else "–"
            lines.append("| %s | %d x %d | %s | %s | %s | %.0f | %s | %s |" % (
                r["axis"], r["rows"], r["cols"], r["op"], r["type"], us(r), r["gbps"], rel,
                "yes" if r["ok"] else "NO"))
    open(os.path.join(out, "axis.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: no plot")
        return
    fig, ax = plt.subplots(figsize=(14, 5))
    w = 0.2
    for j, (name, idx) in enumerate((("ours", 1), ("torch", 2), ("CUB segmented", 3), ("read-only roof", 4))):
        ax.bar([i + (j - 1.5) * w for i in range(len(plot))],
               [p[idx]["gbps"] if p[idx] else 0 for p in plot], w, label=name)
    ax.set_xticks(range(len(plot)))
    ax.set_xticklabels([p[0] for p in plot], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("GB/s (input bytes / min time)")
    ax.set_title("f32 sum along an axis / over segments")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "axis_bandwidth.png"), dpi=120)


if __name__ == "__main__":
    main()
