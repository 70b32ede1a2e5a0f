"""Markdown table for the f16/bf16 rows of `benches/gpu.sh toolbox`: reads
OUTDIR/toolbox-halves.jsonl (lines of `reduce half`, half_ops_torch.py and cuda/half_roof.cu),
writes OUTDIR/toolbox-halves.md.

    python3 half_ops_report.py OUTDIR

"% of read-only": the read-only kernel's time on the same 2N bytes over ours (100% = as fast as
only reading the bytes); the target is >= 90% at large N.
"""
import json
import os
import sys


def main():
    out = sys.argv[1]
    rows = []
    path = os.path.join(out, "toolbox-halves.jsonl")
    for line in open(path):
        if line.startswith("{"):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    roof = {r["n"]: r for r in rows if r.get("impl") == "read_roof"}
    sweep = [r for r in rows if r.get("impl") == "ours" and r.get("overrides", "default") != "default"]
    rows = [r for r in rows if r.get("impl") != "ours" or r.get("overrides", "default") == "default"]
    ns = sorted({r["n"] for r in rows if r.get("impl") == "ours"})
    ops = []
    for r in rows:
        if r.get("impl") == "ours" and r["op"] not in ops:
            ops.append(r["op"])
    us = lambda r: "%.1f (%.1f)" % (r["min_ms"] * 1e3, r["median_ms"] * 1e3) if r else "–"
    gb = lambda r: "%.0f" % r["gbps"] if r else "–"
    okc = lambda r: {True: "yes", False: "NO"}.get(r.get("ok")) if r else "–"
    lines = [
        "f16 / bf16, stage 8's operators (ours: `reduce half`, each half widened exactly and "
        "combined in f32, f32 result; torch: same-dtype ops, f32 accumulation, dtype result). "
        "Minimum (median) of 50 CUDA-event runs, µs; GB/s on 2N bytes at the minimum; "
        "read-only = cuda/half_roof.cu on the same bytes. nanmean = one launch of the NaN-ignoring "
        "sum and its count in f64 (`reduce_transform_r64_nantotal_*`); torch nanmax = nan_to_num + amax.",
        "",
        "| op | type | N | ours µs | ours GB/s | % of read-only | torch µs | torch GB/s | "
        "torch/ours | read-only µs | ours ok | torch ok |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for op in ops:
        for ty in ("f16", "bf16"):
            for n in ns:
                o = next((r for r in rows if r.get("impl") == "ours" and r["op"] == op
                          and r["type"] == ty and r["n"] == n), None)
                t = next((r for r in rows if r.get("impl") == "torch" and r["op"] == op
                          and r["type"] == ty and r["n"] == n), None)
                if not o and not t:
                    continue
                ro = roof.get(n)
                pct = "%.0f%%" % (100 * ro["min_ms"] / o["min_ms"]) if o and ro else "–"
                ratio = "%.2f" % (t["min_ms"] / o["min_ms"]) if o and t else "–"
                lines.append("| %s | %s | 2^%d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    op, ty, n.bit_length() - 1, us(o), gb(o), pct, us(t), gb(t), ratio,
                    us(ro), okc(o), okc(t)))
    if sweep:
        lines += ["", "Launch-shape sweep (ours, `reduce half --block/--grid`) against the default "
                  "policy at the same N (default row from its own run):", "",
                  "| op | type | N | launch | block | grid | µs | GB/s | % of read-only | default µs | "
                  "default/this |", "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in sweep:
            n = r["n"]
            d = next((x for x in rows if x.get("impl") == "ours" and x["op"] == r["op"]
                      and x["type"] == r["type"] and x["n"] == n), None)
            ro = roof.get(n)
            lines.append("| %s | %s | 2^%d | %s | %d | %d | %s | %s | %s | %s | %s |" % (
                r["op"], r["type"], n.bit_length() - 1, r["overrides"], r["block"], r["grid"],
                us(r), gb(r), "%.0f%%" % (100 * ro["min_ms"] / r["min_ms"]) if ro else "–",
                us(d), "%.3f" % (d["min_ms"] / r["min_ms"]) if d else "–"))
        rows += sweep
    with open(os.path.join(out, "toolbox-halves.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    bad = [r for r in rows if r.get("impl") == "ours" and r.get("ok") is not True]
    if bad:
        print("%d of our results did not match the reference" % len(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
