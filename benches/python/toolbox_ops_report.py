"""Markdown table for `benches/gpu.sh toolbox`: reads OUTDIR/toolbox-ops.jsonl (lines of
`reduce sweep` and of toolbox_ops_torch.py), writes OUTDIR/toolbox-ops.md.

    python3 toolbox_ops_report.py OUTDIR
"""
import json
import os
import sys

# (case, our (impl, op, type) or None, what the row compares)
CASES = [
    ("sum_f32", ("rust_s8_kernel", "sum", "f32"), "f32 sum (reference row)"),
    ("prod_f32", ("rust_s8_kernel", "prod", "f32"), "f32 prod"),
    ("max_f32_nan", ("rust_s8_kernel", "max", "f32"), "f32 max, NaN-propagating (torch amax)"),
    ("nanmax_f32", ("rust_s8_kernel", "nanmax", "f32"), "f32 nanmax (torch: nan_to_num + amax)"),
    ("nansum_f32", ("rust_s8_kernel", "nansum", "f32"), "f32 nansum"),
    ("sum_i32_i64", ("rust_s8_wide_kernel", "sum", "i32"),
     "i32 sum into i64 (ours: 64-bit accumulator; torch promotes)"),
    ("sum_i32_i64", ("rust_s8_kernel", "sum", "i32"),
     "i32 sum: ours wraps in i32 (CUB's), torch promotes to i64"),
    ("sum_bf16", ("ours", "total", "bf16"),
     "bf16 sum (ours: transform `total`, f64 accumulator, f64 result; torch: f32, returns bf16)"),
    ("sum_f16", ("ours", "total", "f16"),
     "f16 sum (ours: transform `total`, f64 accumulator, f64 result; torch: f32, returns f16)"),
]


def main():
    out = sys.argv[1]
    rows = []
    for line in open(os.path.join(out, "toolbox-ops.jsonl")):
        if line.startswith("{"):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    ns = sorted({r["n"] for r in rows if r.get("impl") == "torch"})
    us = lambda r: "%.1f" % (r["min_ms"] * 1e3) if r and r.get("min_ms") else "–"
    med = lambda r: "%.1f" % (r["median_ms"] * 1e3) if r and r.get("median_ms") else "–"
    lines = ["Minimum (median) of 50 CUDA-event runs, µs; ours = stage 8, result in device memory, "
             "kernel only (`rust_s8_kernel`), same protocol as torch's (events around the launch); "
             "for bf16/f16 ours = the transform kernel `total` (`reduce transform --op total`, "
             "result in mapped host memory), checked against the f64 sum of the halves.", "",
             "| case | N | ours µs | ours GB/s | torch µs | torch GB/s | ours/torch | ours ok | torch ok |",
             "|---|---|---|---|---|---|---|---|---|"]
    for case, ours, what in CASES:
        for n in ns:
            t = next((r for r in rows if r.get("impl") == "torch" and r.get("case") == case
                      and r["n"] == n), None)
            o = None
            if ours:
                o = next((r for r in rows if (r.get("impl"), r.get("op"), r.get("type")) == ours
                          and r["n"] == n), None)
            size = 2 if case.endswith(("bf16", "f16")) else 4
            gb = lambda r: "%.0f" % (n * size / (r["min_ms"] * 1e6)) if r and r.get("min_ms") else "–"
            ratio = "%.2f" % (o["min_ms"] / t["min_ms"]) if o and t and o.get("min_ms") else "–"
            lines.append("| %s | 2^%d | %s (%s) | %s | %s (%s) | %s | %s | %s | %s |" % (
                what, n.bit_length() - 1, us(o), med(o), gb(o), us(t), med(t), gb(t), ratio,
                {True: "yes", False: "NO", None: "–"}[o.get("correct", o.get("ok")) if o else None],
                {True: "yes", False: "NO", None: "–"}[t.get("ok") if t else None]))
    open(os.path.join(out, "toolbox-ops.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
