#!/usr/bin/env bash
# Session 11, issue #14: two probes in one device call (run from the bundle):
#     bash s11-probe-on-gpu.sh OUTDIR
# 1. f64 argmax at 2^26 (session 10: 130.2 µs against CUB's 128.1): our launch shapes (block,
#    blocks per SM, loads in flight, lane tracking) beside CUB ArgMax and our f64 max, min /
#    median of 50 runs -> OUTDIR/arg64.jsonl, OUTDIR/arg64.md.
# 2. Nsight Compute on the f16 moments kernel at 2^26 (session 10: f16 var 50.5 µs against the
#    f16 sum's 36.9): speed of light, occupancy, warp states, scheduler and instruction mix of
#    the var kernel and of the f16 sum beside it -> OUTDIR/ncu-*.txt. (Nsight Compute locks the
#    clocks to base: compare within this folder only.)
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-./results}"
mkdir -p "$OUT/logs"
R="$HERE/bin/reduce"
status=0
NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
( "$NVCC" -O3 -arch=sm_90 -std=c++17 -DNO_HALF_CUB -o "$OUT/cub_argreduce" "$HERE/cuda/cub_argreduce.cu" ) \
    > "$OUT/logs/nvcc.log" 2>&1 &
J="$OUT/arg64.jsonl"
: > "$J"
SHAPES="block=256,bps=4;block=256,bps=8;block=512,bps=2;block=512,bps=4;block=256,bps=4,unroll=8;block=512,bps=2,unroll=8;block=512,bps=4,unroll=8;block=256,bps=4,lane=loop;block=512,bps=2,unroll=8,lane=loop;block=256,bps=4"
"$R" --backend gpu arg --exps 26 --types f64 --ops argmax --policy "$SHAPES" --warmup 10 --runs 50 \
    --format json >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours: arg f64 failed" >&2; status=1; }
"$R" --backend gpu sweep --exps 26 --ops max --types f64 --warmup 10 --runs 50 --format json \
    >> "$J" 2>> "$OUT/logs/ours.log" || status=1
wait
if [ -x "$OUT/cub_argreduce" ]; then
    "$OUT/cub_argreduce" f64 26 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    "$OUT/cub_argreduce" f64 26 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    rm -f "$OUT/cub_argreduce"
else
    echo "no CUB (logs/nvcc.log)" >&2; status=1
fi
python3 - "$J" > "$OUT/arg64.md" <<'PY' || status=1
import json, sys
print("| what | policy / impl | min µs | median µs |")
print("|---|---|---|---|")
for l in open(sys.argv[1]):
    if not l.startswith("{"):
        continue
    r = json.loads(l)
    who = r.get("impl") or r.get("policy") or r.get("stage") or "?"
    mn = r.get("min_us") or (r.get("min_ms", 0) * 1e3)
    md = r.get("median_us") or (r.get("median_ms", 0) * 1e3)
    print(f"| {r.get('op', r.get('ops', '?'))} {r.get('type', '?')} | {who} | {mn:.1f} | {md:.1f} |")
PY
cat "$OUT/arg64.md"
if command -v ncu > /dev/null 2>&1; then
    SECT="--section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis"
    for op in var total; do
        ncu $SECT --launch-skip 3 --launch-count 1 -k regex:'transform|moments|reduce_' "$R" --backend gpu transform \
            --type f16 --op $op --n $((1 << 26)) --runs 5 > "$OUT/ncu-f16-$op.txt" 2>&1 || status=1
    done
    grep -E "^  [a-z_]+|Duration|Registers|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|DRAM Throughput|Issue Slots Busy|No Eligible|Executed Ipc" \
        "$OUT"/ncu-f16-*.txt | head -60
fi
exit $status
