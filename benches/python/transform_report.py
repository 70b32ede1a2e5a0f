"""The transform-reduce tables of `benches/gpu.sh toolbox`: reads OUTDIR/transform.jsonl (ours,
torch, CUB, the read-only kernel) and OUTDIR/ours-accuracy.jsonl, writes OUTDIR/transform.md: per
op the f32 times and GB/s of each implementation (ours also as a share of stage 8's sum), per
half type ours and torch against the read-only kernel, f64, and the variance's accuracy.

    python3 transform_report.py OUTDIR
"""
import collections
import json
import sys

out = sys.argv[1]
rows = [json.loads(l) for l in open(f"{out}/transform.jsonl") if l.strip().startswith("{")]
acc = [json.loads(l) for l in open(f"{out}/ours-accuracy.jsonl") if l.strip().startswith("{")]
us = lambda ms: f"{ms * 1e3:,.1f}"
def key(r):
    label = r["impl"] + ("" if r["impl"] != "cub" else f" ({r['acc']} acc)") + ("" if r["impl"] != "torch" else f" `{r['call']}`")
    return label
lines = ["# Transform-reduce on the GPU: ours vs torch vs CUB", "",
         f"Device: {next((r['device'] for r in rows if 'device' in r), '?')}. f32 uniform [0,1) unless noted; "
         "min / median of 50 CUDA-event runs, µs; GB/s = bytes read / min time. "
         "`ok` = our result within its stated bound of the host reference.", ""]
ns = sorted({r["n"] for r in rows if r["type"] == "f32"})
roof = {r["n"]: r for r in rows if r["impl"] == "ours" and r["op"] == "sum" and r["type"] == "f32"}
for op in ["norm2", "sumsq", "l1", "dot", "mean", "var", "std", "sum"]:
    lines += [f"## {op}", "", "| impl | " + " | ".join(f"2^{n.bit_length() - 1}" for n in ns) + " |",
              "|---|" + "---:|" * len(ns)]
    impls = collections.OrderedDict()
    for r in rows:
        if r["op"] == op and r["type"] == "f32" and "min_ms" in r:
            impls.setdefault(key(r), {})[r["n"]] = r
    for label, by_n in impls.items():
        cells = []
        for n in ns:
            r = by_n.get(n)
            if r is None or r["min_ms"] is None:
                cells.append("–")
                continue
            c = f"{us(r['min_ms'])} / {us(r['median_ms'])} ({r['bytes'] / r['min_ms'] / 1e6:,.0f} GB/s)"
            if r["impl"] == "ours" and op != "sum" and n in roof:
                c += f", {100 * (r['bytes'] / r['min_ms']) / (roof[n]['bytes'] / roof[n]['min_ms']):.0f}% of sum's GB/s"
            if r["impl"] == "ours":
                c += "" if r.get("ok") else " **WRONG**"
            cells.append(c)
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append("")
half_roof = {r["n"]: r for r in rows if r.get("impl") == "read_roof"}
for ty in ["f16", "bf16"]:
    hrows = [r for r in rows if r.get("type") == ty and "min_ms" in r]
    if not hrows:
        continue
    hns = sorted({r["n"] for r in hrows})
    lines += [f"## {ty}: ours vs torch, and % of the read-only kernel's GB/s (its row last)", "",
              "| op | impl | " + " | ".join(f"2^{n.bit_length() - 1}" for n in hns) + " |",
              "|---|---|" + "---:|" * len(hns)]
    for op in ["total", "nanmean", "sumsq", "norm2", "l1", "dot", "mean", "var", "std"]:
        for impl in ["ours", "torch"]:
            by_n = {r["n"]: r for r in hrows if r["op"] == op and r["impl"] == impl}
            if not by_n:
                continue
            cells = []
            for n in hns:
                r = by_n.get(n)
                if r is None:
                    cells.append("–")
                    continue
                c = f"{us(r['min_ms'])} / {us(r['median_ms'])}"
                if impl == "ours" and n in half_roof:
                    c += f", {100 * (r['bytes'] / r['min_ms']) / (half_roof[n]['bytes'] / half_roof[n]['min_ms']):.0f}%"
                    c += "" if r.get("ok") else " **WRONG**"
                cells.append(c)
            label = impl + (f" `{by_n[hns[0]]['call']}`" if impl == "torch" and hns[0] in by_n else "")
            lines.append(f"| {op} | {label} | " + " | ".join(cells) + " |")
    lines.append("| read | read-only kernel | " + " | ".join(
        f"{us(half_roof[n]['min_ms'])} / {us(half_roof[n]['median_ms'])}" if n in half_roof else "–" for n in hns) + " |")
    lines.append("")
f64 = [r for r in rows if r["type"] == "f64"]
if f64:
    lines += [f"## f64 at 2^{f64[0]['n'].bit_length() - 1} (ours)", "", "| op | min / median µs | GB/s | ok |", "|---|---:|---:|---|"]
    for r in f64:
        lines.append(f"| {r['op']} | {us(r['min_ms'])} / {us(r['median_ms'])} | {r['bytes'] / r['min_ms'] / 1e6:,.0f} | {r['ok']} |")
    lines.append("")
acc_n = acc[0]["n"] if acc else 1 << 24
lines += [f"## Accuracy: population variance of 1e6 + U(0,1), f32, {acc_n} elements (torch: 2^24)", "",
          "| impl | variance | within stated bound / relative error vs f64 reference |", "|---|---:|---:|"]
for r in acc:
    if r["op"] == "var":
        rel = abs(r["value"] - r["reference"]) / r["reference"]
        lines.append(f"| ours (one pass, f64 Welford/Chan) | {r['value']:.9g} | within bound: {r['ok']}; rel error {rel:.2e} (reference {r['reference']:.9g}) |")
for r in rows:
    if r.get("record") == "transform_accuracy":
        lines.append(f"| torch.var (f32) | {r['value']:.9g} | rel error {r['rel_error']:.2e} (reference {r['reference']:.9g}) |")
open(f"{out}/transform.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
