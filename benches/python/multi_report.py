"""The multi-GPU table of `benches/gpu.sh multi`: reads MULTI.jsonl (lines of `reduce multi`,
`reduce exact` and python/multi_torch.py) and writes MULTI.md: ours across 2 GPUs against one GPU
and torch.distributed, each GPU's read bandwidth alone, determinism, every op x type, exact sums.

    python3 multi_report.py OUTDIR/multi.jsonl OUTDIR/multi.md
"""
import json
import sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
def find(kind, **kw):
    return [r for r in rows if r.get("kind") == kind and all(r.get(k) == v for k, v in kw.items())]
out = ["# Reductions across GPUs", ""]
big = 2 * 2**30
multi = [r for r in find("multi", ranks=2) if r["n"] == big]
single = [r for r in find("single") if r["n"] == big]
alone2 = [r for r in find("rank_alone") if r["n"] == 2**30]
alone1 = [r for r in find("rank_alone") if r["n"] == big]
tdist, tsingle = find("torch_distributed"), find("torch_single")
out += ["2^31 f32 ones in all (8 GiB); host-clock time until the value is on the host, median of the runs.", "",
        "| implementation | GPUs | median ms | GB/s | x one GPU (ours) | combine ms | same bits |",
        "|---|---:|---:|---:|---:|---:|---|"]
base = single[-1]["gb_per_s"] if single else None
def ratio(g):
    return f"{g / base:.2f}" if base else "-"
for r in multi[-1:]:
    out.append(f"| ours, NCCL all-gather + rank-order combine | 2 | {r['wall_ms_median']:.4f} | {r['gb_per_s']:.1f} | {ratio(r['gb_per_s'])} | {r['combine_ms_min']:.4f} (local {', '.join(f'{x:.4f}' for x in r['local_ms'])}) | {r['distinct_bits'] == 1} ({r['runs']} runs) |")
for r in tdist[-1:]:
    out.append(f"| torch: x.sum() + dist.all_reduce (NCCL {r['nccl']}) | {r['world']} | {r['median_ms']:.4f} | {r['gb_per_s']:.1f} | {ratio(r['gb_per_s'])} | {r['allreduce_ms_median']:.4f} (all_reduce alone) | {r['distinct_bits'] == 1} ({r['runs']} runs) |")
for r in single[-1:]:
    out.append(f"| ours, one GPU (Reducer) | 1 | {r['wall_ms_median']:.4f} | {r['gb_per_s']:.1f} | 1.00 | - | - |")
for r in tsingle[-1:]:
    out.append(f"| torch, one GPU (x.sum().item()) | 1 | {r['median_ms']:.4f} | {r['gb_per_s']:.1f} | {ratio(r['gb_per_s'])} | - | - |")
out += ["", "Read bandwidth of each GPU alone (stage 8, GPU time, gated):", ""]
for r in alone2 + alone1:
    out.append(f"- GPU {r['rank']} on {r['n']} f32: {r['gpu_ms_median']:.4f} ms = {r['gb_per_s']:.1f} GB/s")
if multi and alone2:
    s = sum(r["gb_per_s"] for r in alone2)
    m = multi[-1]
    out += ["", f"Targets: {m['gb_per_s']:.1f} GB/s is {m['gb_per_s'] / base:.3f}x one GPU (target >= 1.9) and "
            f"{100 * m['gb_per_s'] / s:.1f}% of the GPUs' summed read bandwidth {s:.1f} GB/s (target >= 95%)."
            if base else ""]
rnd = [r for r in find("multi", ranks=2) if r["n"] == 2**26]
for r in rnd:
    out.append(f"\nDeterminism, 2^26 random f32 on 2 GPUs: {r['distinct_bits']} bit pattern(s) in {r['runs']} runs (sum {r['value']}).")
ops = [r for r in find("multi", ranks=2) if r["n"] == 1000003]
if ops:
    bad = [f"{r['op']} {r['type']}" for r in ops if not r["ok"] or r["distinct_bits"] != 1]
    out.append(f"\nEvery op x type on 2 GPUs (10^6+3 random): {len(ops) - len(bad)} of {len(ops)} right and deterministic{'; wrong: ' + ', '.join(bad) if bad else ''}.")
ex = find("multi_exact", ranks=2)
if ex:
    out += ["", "Exact sums across 2 GPUs (words all-gathered through NCCL, rounded once on each GPU); host-clock medians:", "",
            "| type | data | n | bits | = host exact | = one-GPU exact | bit patterns (runs) | exact ms | plain 2-GPU sum ms | exact / plain | combine ms | one-GPU exact ms |",
            "|---|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in ex:
        data = "cancellation" if r["n"] == 2**26 else "random"
        ratio_ep = r["wall_ms_median"] / r["plain_sum_wall_ms_median"] if r["plain_sum_wall_ms_median"] else float("nan")
        single_ms = r.get("single_exact_wall_ms_median")
        out.append(f"| {r['type']} | {data} | {r['n']} | {r['bits']} | {r['ok']} | {r['single_equal']} | {r['distinct_bits']} ({r['runs']}) | "
                   f"{r['wall_ms_median']:.4f} | {r['plain_sum_wall_ms_median']:.4f} | {ratio_ep:.2f} | {r['combine_ms_min_median']:.4f} | "
                   f"{single_ms if single_ms is None else f'{single_ms:.4f}'} |")
for r in find("exact"):
    out.append(f"\nOne-GPU exact kernel, {r['n']} {r['type']}: median {r['exact_median_us']:.1f} us "
               f"({r['n'] * (4 if r['type'] == 'f32' else 8) / r['exact_median_us'] / 1e3:.1f} GB/s), stage 8 {r['s8_median_us']:.1f} us (GPU time).")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
