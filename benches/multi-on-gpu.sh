#!/usr/bin/env bash
# The benchmark of issue #17 (reductions across the GPUs of a host, through NCCL), for the bundle
# made by `cargo xtask bundle` (which copies this script next to bin/reduce, bin/gpu-tests and
# python/):
#
#     bash multi-on-gpu.sh OUTDIR
#
# 1. One GPU (always): `reduce multi --gpus 1` over 2^31 f32 ones (the bytes of the 2-GPU run):
#    GPU 0's stage-8 read bandwidth (GPU time, gated) and ours on one GPU (host clock).
# 2. With 2 GPUs or more: `reduce multi --gpus 2` over 2 x 2^30 f32 ones, one shard per GPU,
#    filled on the devices, 100 runs (the same bits in all of them, on both GPUs), with the phase
#    times (local reduction per GPU; all-gather + combine per GPU) and --compare: each GPU alone
#    on its shard (read bandwidth) and GPU 0 alone on all 2^31; the same with random data (2^26,
#    made on the host) for determinism where the order of float additions matters; every op x
#    type on 10^6+3 random elements, checked against the CPU reference.
#    Exact sums (--exact): 100 runs of the 2-GPU correctly rounded sum of 2 x 2^30 random f32
#    and of 2 x 2^29 random f64 (made on the host): the same bits in every run on both GPUs,
#    equal to the host's exact sum and to GPU 0's single-GPU exact sum of the same data, timed
#    against the 2-GPU plain sum of the same shards; a cancellation-heavy f64 input too; and
#    count / nanmean (u64 counts across GPUs) in the op x type loop. The single-GPU exact kernel
#    alone (`reduce exact`, 2^30 f32 and 2^29 f64: GPU time) for comparison with earlier runs.
# 3. torch: x.sum() on one GPU, and x.sum() + torch.distributed.all_reduce (NCCL, 2 processes)
#    on the same data (python/multi_torch.py).
# 4. The multi-GPU tests of bin/gpu-tests, with NCCL required.
# Writes OUTDIR/multi.jsonl and OUTDIR/multi.md (the table); logs in OUTDIR/logs/. On a machine
# with one GPU it prints "needs 2 GPUs" after part 1 and exits 0. Sized to stay inside 4 minutes
# on 2 x H200 (parts 1-4 took well under 3 before the exact runs; those add an estimated 60 s,
# mostly making 16 GiB of random data and its exact sum on the host).
set -u
# NVLink multicast stays off (on shared GPU hosts a program using it can take the GPUs out of
# service): NCCL, PyTorch and NVSHMEM, for this script and every process it starts.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results-multi}}"
mkdir -p "$OUT/logs"
J="$OUT/multi.jsonl"
: > "$J"
R="$HERE/bin/reduce"
status=0
NGPU="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)"
NGPU="${NGPU:-0}"
# libnccl: the library searches $NCCL_LIBRARY, Python's site-packages and the linker path itself;
# pointing it at the wheel that python3 imports makes the choice explicit (and logged).
if [ -z "${NCCL_LIBRARY:-}" ]; then
    NCCL_LIBRARY="$(python3 - <<'EOF' 2>/dev/null
import os, site, sys
dirs = list(site.getsitepackages()) + [site.getusersitepackages()] + sys.path
for d in dirs:
    for rel in ("nvidia/nccl/lib/libnccl.so.2", "torch/lib/libnccl.so.2"):
        p = os.path.join(d, rel)
        if os.path.exists(p):
            print(p)
            sys.exit(0)
EOF
)"
    [ -n "$NCCL_LIBRARY" ] && export NCCL_LIBRARY
fi
{
    echo "GPUs: $NGPU"
    nvidia-smi -L 2>/dev/null
    nvidia-smi topo -m 2>/dev/null
    echo "NCCL_LIBRARY=${NCCL_LIBRARY:-<unset: the library searches itself>}"
    echo "NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE TORCH_SYMM_MEM_DISABLE_MULTICAST=$TORCH_SYMM_MEM_DISABLE_MULTICAST"
} | tee "$OUT/logs/setup.txt" >&2
N=1073741824 # 2^30 per GPU

ours() {
    local log="$1"
    shift
    "$R" --backend gpu multi --format json "$@" >> "$J" 2>> "$OUT/logs/$log.log" \
        || { echo "reduce multi $* FAILED (logs/$log.log)" >&2; status=1; }
}

# 1. One GPU.
ours single --gpus 1 --n $((2 * N)) --on-device --warmup 5 --runs 50 --compare
echo "one GPU: done" >&2

if [ "$NGPU" -ge 2 ]; then
    # 2. Two GPUs.
    ours multi --gpus 2 --n $((2 * N)) --on-device --warmup 5 --runs 100 --compare
    ours random --gpus 2 --n $((1 << 26)) --data random --warmup 2 --runs 100
    ours exact --gpus 2 --n $((2 * N)) --exact --data random --type f32 --warmup 3 --runs 100 --compare
    ours exact --gpus 2 --n "$N" --exact --data random --type f64 --warmup 3 --runs 100 --compare
    ours exact --gpus 2 --n $((1 << 26)) --exact --exact-data cancellation --type f64 --warmup 2 --runs 20 --compare
    for spec in "f32 $N" "f64 $((N / 2))"; do
        set -- $spec
        ty="$1"
        "$R" --backend gpu exact --n "$2" --type "$ty" --warmup 5 --runs 50 \
            --no-reference --format json >> "$J" 2>> "$OUT/logs/exact.log" \
            || { echo "reduce exact $ty FAILED (logs/exact.log)" >&2; status=1; }
    done
    for ty in f32 f64 i32 u32 i64 u64; do
        for op in sum min max mean count nanmean; do
            ours ops --gpus 2 --n 1000003 --data random --type "$ty" --op "$op" --warmup 0 --runs 3
        done
    done
    echo "two GPUs: done" >&2
fi

# 3. torch (one GPU; two processes over NCCL when there are two GPUs).
WORLD=2
[ "$NGPU" -lt 2 ] && WORLD=1
python3 "$HERE/python/multi_torch.py" "$N" 100 "$WORLD" >> "$J" 2>> "$OUT/logs/torch.log" \
    || { echo "torch baseline FAILED (logs/torch.log)" >&2; status=1; }
echo "torch: done" >&2

# 4. The multi-GPU tests, NCCL required.
if [ -x "$HERE/bin/gpu-tests" ]; then
    MULTI_REQUIRE_NCCL=1 "$HERE/bin/gpu-tests" multi_gpu --nocapture > "$OUT/multi-gpu-tests.txt" 2>&1 \
        || { echo "multi GPU tests FAILED" >&2; status=1; }
    tail -3 "$OUT/multi-gpu-tests.txt" >&2
fi

# The table.
python3 - "$J" "$OUT/multi.md" <<'EOF' || status=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
def find(kind, **kw):
    return [r for r in rows if r.get("kind") == kind and all(r.get(k) == v for k, v in kw.items())]
out = ["# Reductions across GPUs (issue #17)", ""]
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
EOF

if [ "$NGPU" -lt 2 ]; then
    echo "needs 2 GPUs for the multi-GPU part (found $NGPU): ran the one-GPU part only" >&2
    exit 0
fi
exit $status
