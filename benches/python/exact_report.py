"""The exact sums' report: OUTDIR/exact.jsonl -> OUTDIR/exact.md (and exact.png when matplotlib
is there). Tables: time per N (min / median µs) for ours (exact), stage 8, CUB's three determinism
levels and torch, f32 and f64, with the targets (exact >= 90% of stage 8's throughput at N >= 2^24;
faster than CUB gpu_to_gpu at every N); accuracy (ulps from the correctly rounded sum) of every
implementation on the same data; the cross-checks of the correctly rounded sum (Rust host
reference, Python integers, math.fsum); the reproducibility matrix.

    python3 exact_report.py OUTDIR
"""
import json
import math
import os
import sys
from collections import defaultdict


def key(bits, ty):
    """Order-preserving integer of a float's bits (for ulps)."""
    width = 32 if ty == "f32" else 64
    sign = 1 << (width - 1)
    return -(bits & (sign - 1)) if bits & sign else bits


def is_nan(bits, ty):
    exp_mask, frac_mask = ((0xff << 23), (1 << 23) - 1) if ty == "f32" else ((0x7ff << 52), (1 << 52) - 1)
    return bits & exp_mask == exp_mask and bits & frac_mask != 0


def ulps(a, b, ty):
    if is_nan(a, ty) or is_nan(b, ty):
        return 0 if is_nan(a, ty) and is_nan(b, ty) else "NaN"
    return abs(key(a, ty) - key(b, ty))


def fmt_n(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def main():
    out = sys.argv[1]
    rows = []
    with open(os.path.join(out, "exact.jsonl")) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    md = ["# Exact sums", ""]
    ok = True

    # Time.
    t = defaultdict(dict)  # (ty, n) -> impl -> (min, median)
    for r in rows:
        if r.get("kind") == "exact" and r.get("exact_min_us") is not None and r["data"] == "uniform":
            t[(r["type"], r["n"])]["exact (ours)"] = (r["exact_min_us"], r["exact_median_us"])
            t[(r["type"], r["n"])]["stage 8 (ours, plain)"] = (r["s8_min_us"], r["s8_median_us"])
        elif r.get("mode") == "time":
            t[(r["type"], r["n"])][r["impl"]] = (r["min_us"], r["median_us"])
    impls = ["exact (ours)", "stage 8 (ours, plain)", "cub_not_guaranteed", "cub_run_to_run",
             "cub_gpu_to_gpu", "torch"]
    md += ["## Time: min / median of 50 CUDA-event runs, µs (uniform data)", "",
           "| type | N | " + " | ".join(impls) + " | exact vs stage 8 throughput | exact vs gpu_to_gpu |",
           "|---|---|" + "---|" * (len(impls) + 2)]
    for (ty, n) in sorted(t):
        c = t[(ty, n)]
        cells = [f"{c[i][0]:.1f} / {c[i][1]:.1f}" if i in c else "—" for i in impls]
        r8 = g2g = "—"
        if "exact (ours)" in c and "stage 8 (ours, plain)" in c:
            pct = 100 * c["stage 8 (ours, plain)"][0] / c["exact (ours)"][0]
            r8 = f"{pct:.0f}%"
            if n >= 1 << 24 and pct < 90:
                r8 += " (below 90%)"
        if "exact (ours)" in c and "cub_gpu_to_gpu" in c:
            x = c["cub_gpu_to_gpu"][0] / c["exact (ours)"][0]
            g2g = f"{x:.2f}× faster" if x > 1 else f"{1 / x:.2f}× SLOWER"
        md.append(f"| {ty} | {fmt_n(n)} | " + " | ".join(cells) + f" | {r8} | {g2g} |")
    md.append("")

    # Accuracy: same data, every implementation vs the correctly rounded sum.
    acc = defaultdict(dict)  # (ty, n, data) -> impl -> bits
    exact_ref = {}
    for r in rows:
        if r.get("kind") == "exact" and r.get("reference_bits"):
            k = (r["type"], r["n"], r["data"])
            exact_ref[k] = int(r["reference_bits"], 16)
            acc[k]["exact (ours)"] = int(r["exact_bits"], 16)
            acc[k]["stage 8"] = int(r["s8_bits"], 16)
    for r in rows:
        if r.get("mode") == "file" and r.get("bits") and r.get("data"):
            acc[(r["type"], r["n"], r["data"])][r["impl"]] = int(r["bits"], 16)
    aimpls = ["exact (ours)", "stage 8", "cub_not_guaranteed", "cub_run_to_run", "cub_gpu_to_gpu",
              "torch", "numpy", "fsum", "python_exact"]
    md += ["## Accuracy: ulps from the correctly rounded sum (same data)", "",
           "`python_exact` is the correctly rounded sum from Python integers, `fsum` is "
           "`math.fsum` (correctly rounded in f64; for f32 data it is then rounded again to f32).",
           "", "| type | N | data | " + " | ".join(aimpls) + " |", "|---|---|---|" + "---|" * len(aimpls)]
    for k in sorted(exact_ref):
        ty, n, data = k
        ref = exact_ref[k]
        cells = []
        for i in aimpls:
            b = acc[k].get(i)
            cells.append("—" if b is None else str(ulps(b, ref, ty)))
        for must in ("exact (ours)", "python_exact"):
            if acc[k].get(must) is not None and ulps(acc[k][must], ref, ty) != 0:
                ok = False
        md.append(f"| {ty} | {fmt_n(n)} | {data} | " + " | ".join(cells) + " |")
    md.append("")

    # Reproducibility.
    rep = defaultdict(list)
    for r in rows:
        if r.get("kind") == "exact_repro":
            rep[(r["type"], r["n"], r["data"])].append(r)
    md += ["## Reproducibility: one input, every kernel × grid × block × offset", "",
           "| type | N | data | launches | kernels | grids | blocks | offsets | distinct results | = reference |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for k in sorted(rep):
        cells = rep[k]
        distinct = sorted({c["bits"] for c in cells})
        refok = all(c.get("matches_reference") for c in cells)
        ok &= len(distinct) == 1 and refok
        kernels = len({c.get("kernel") for c in cells})
        md.append(f"| {k[0]} | {fmt_n(k[1])} | {k[2]} | {len(cells)} | {kernels} | "
                  f"{sorted({c['grid'] for c in cells})} | {sorted({c['block'] for c in cells})} | "
                  f"{sorted({c['offset'] for c in cells})} | {len(distinct)} ({', '.join(distinct)}) | "
                  f"{'yes' if refok else 'NO'} |")
    md.append("")

    # The policy sweep (`reduce exact --policy …`): every setting's time and bits, and the best.
    sw = defaultdict(dict)  # (ty, n) -> policy -> record
    main_bits = {(r["type"], r["n"]): r["exact_bits"] for r in rows
                 if r.get("kind") == "exact" and r.get("data") == "uniform"}
    for r in rows:
        if r.get("kind") == "exact_policy" and r.get("min_us") is not None:
            sw[(r["type"], r["n"])][r["policy"]] = r
    if sw:
        pols = []
        for k in sorted(sw):
            for p in sw[k]:
                if p not in pols:
                    pols.append(p)
        md += ["## Policy sweep: min µs of 50 runs (uniform data; `--policy` settings, "
               "`(default)` = no setting); every cell checked against the reference", "",
               "| type | N | " + " | ".join(f"`{p or '(default)'}`" for p in pols) + " | best |",
               "|---|---|" + "---|" * len(pols) + "---|"]
        for k in sorted(sw):
            cells, best = [], None
            for p in pols:
                r = sw[k].get(p)
                if r is None:
                    cells.append("—")
                    continue
                good = (r.get("exact_matches_reference") is not False
                        and main_bits.get(k, r["exact_bits"]) == r["exact_bits"])
                ok &= good
                cells.append(f"{r['min_us']:.1f}" + ("" if good else " WRONG"))
                if good and (best is None or r["min_us"] < best[1]):
                    best = (p, r["min_us"])
            tail = f" | `{best[0] or '(default)'}` |" if best else " | — |"
            md.append(f"| {k[0]} | {fmt_n(k[1])} | " + " | ".join(cells) + tail)
        md.append("")
    with open(os.path.join(out, "exact.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
