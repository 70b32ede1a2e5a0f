#!/usr/bin/env python3
"""Nsight Compute counters per rung of the ladder -> counters.csv/.jsonl, counters.md, counters.png.

Usage: counters.py OUTDIR ncu-stage1.csv ... ncu-stage8.csv
Each input is `ncu --import R --csv --page raw --print-units base` of one `reduce run --stages S`:
one row per kernel launch (a ladder stage launches several passes; stage 8 one). The row for a
stage is its first pass (the one that reads the input, where the lesson is), plus the time summed
over all its passes. The limiter follows ncu's Speed-of-Light rule: below 60% of peak in both
compute and memory throughput a kernel is latency-bound; otherwise the higher of the two limits it.
"""
import csv
import json
import math
import os
import re
import sys


def count(v):
    """An integer counter; NaN (ncu printed n/a) stays NaN instead of failing the run."""
    return v if math.isnan(v) else int(v)


COLUMNS = [
    # (output column, ncu metric, how to format)
    ("time_us", "gpu__time_duration.sum", lambda v: v / 1e3),
    ("dram_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed", float),
    ("dram_gbs", "dram__bytes_read.sum.per_second", lambda v: v / 1e9),
    ("smem_ld_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", count),
    ("smem_st_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", count),
    ("branch_uniform_pct", "smsp__sass_average_branch_targets_threads_uniform.pct", float),
    ("divergent_targets", "smsp__sass_branch_targets_threads_divergent.sum", count),
    ("threads_per_inst", "smsp__thread_inst_executed_per_inst_executed.ratio", float),
    ("occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active", float),
    ("warp_insts", "smsp__inst_executed.sum", count),
    ("registers", "launch__registers_per_thread", count),
    ("grid", "launch__grid_size", count),
    ("block", "launch__block_size", count),
    ("sm_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed", float),
    ("mem_pct", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", float),
]

TITLES = {
    1: "Interleaved addressing (divergent)",
    2: "Interleaved addressing (strided index)",
    3: "Sequential addressing",
    4: "First add during load",
    5: "Unroll last warp",
    6: "Complete unroll",
    7: "Grid-stride loop",
    8: "Shuffles + 16-byte loads, one pass",
}


def number(text):
    text = text.replace(",", "").strip()
    if text in ("", "n/a"):
        return float("nan")
    return float(text)


def launches(path):
    """The launch rows of one ncu raw CSV (the second row holds units)."""
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("ID", "").strip().isdigit()]
    if not rows:
        raise SystemExit(f"{path}: no kernel launches in the ncu CSV")
    return rows


def limiter(sm_pct, mem_pct):
    if max(sm_pct, mem_pct) < 60.0:
        return "latency"
    return "memory" if mem_pct >= sm_pct else "compute"


def stage_row(path):
    rows = launches(path)
    name = rows[0]["Kernel Name"]
    m = re.search(r"reduce_s(\d)", name)
    if not m:
        raise SystemExit(f"{path}: first kernel {name!r} is not a ladder stage")
    out = {"stage": int(m.group(1)), "kernel": name.split("(")[0], "passes": len(rows)}
    for col, metric, conv in COLUMNS:
        if metric not in rows[0]:
            raise SystemExit(f"{path}: ncu did not report {metric}")
        out[col] = conv(number(rows[0][metric]))
    out["time_all_passes_us"] = sum(number(r["gpu__time_duration.sum"]) for r in rows) / 1e3
    out["limiter"] = limiter(out["sm_pct"], out["mem_pct"])
    return out


def main():
    outdir, paths = sys.argv[1], sys.argv[2:]
    table = sorted((stage_row(p) for p in paths), key=lambda r: r["stage"])
    keys = ["stage", "kernel", "passes", "time_all_passes_us"] + [c for c, _, _ in COLUMNS] + ["limiter"]
    with open(f"{outdir}/counters.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in table:
            w.writerow({k: (f"{r[k]:.4g}" if isinstance(r[k], float) else r[k]) for k in keys})

    with open(f"{outdir}/counters.jsonl", "w") as f:
        for r in table:
            f.write(json.dumps({k: (None if isinstance(r[k], float) and math.isnan(r[k]) else r[k])
                                for k in keys}) + "\n")

    head = ("| # | stage | time µs (pass 1 / all) | DRAM % / GB/s | smem conflicts ld / st "
            "| uniform branches % | divergent targets | threads / warp inst | occupancy % "
            "| warp insts | regs | limiter |")
    lines = [head, "|" + "|".join(["---"] * (head.count("|") - 1)) + "|"]
    for r in table:
        lines.append(
            f"| {r['stage']} | {TITLES.get(r['stage'], '')} | {r['time_us']:.1f} / {r['time_all_passes_us']:.1f} "
            f"| {r['dram_pct']:.0f} / {r['dram_gbs']:.0f} | {r['smem_ld_conflicts']:,} / {r['smem_st_conflicts']:,} "
            f"| {r['branch_uniform_pct']:.1f} | {r['divergent_targets']:,} | {r['threads_per_inst']:.1f} "
            f"| {r['occupancy_pct']:.0f} | {r['warp_insts']:,} | {r['registers']} | {r['limiter']} |"
        )
    with open(f"{outdir}/counters.md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no counters.png", file=sys.stderr)
        return
    stages = [r["stage"] for r in table]
    panels = [
        ("kernel time, pass 1 (µs)", "time_us", False),
        ("DRAM throughput (% of peak)", "dram_pct", False),
        ("shared-memory load bank conflicts", "smem_ld_conflicts", True),
        ("divergent branch targets", "divergent_targets", True),
        ("active threads per warp instruction", "threads_per_inst", False),
        ("warp instructions executed", "warp_insts", True),
    ]
    fig, axes = plt.subplots(2, 3, figsize=(13, 7))
    for ax, (title, key, log) in zip(axes.flat, panels):
        vals = [max(r[key], 0.5) if log else r[key] for r in table]
        ax.bar([str(s) for s in stages], vals, color="#3b6ea5")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("stage")
        if log:
            ax.set_yscale("log")
    n = int(os.environ.get("N", "4194304"))
    size = f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else f"{n:,}"
    fig.suptitle(f"The ladder's lessons in Nsight Compute counters (N = {size} f32, first pass)")
    fig.tight_layout()
    fig.savefig(f"{outdir}/counters.png", dpi=110)


if __name__ == "__main__":
    main()
