#!/usr/bin/env bash
# Session 11, issue #14: the transform ops on f16 and bf16 at 2^26 after the register cap
# (`reduce_transform_r64_*`: the f16/bf16 moments kernels took 66 registers — one 512-thread
# block per SM — and now take 64), beside the read-only kernel on the same bytes
# (cuda/half_roof.cu, compiled first) and the f32 sum / var / std of the same call; min / median
# of 50 runs, every result checked against the host reference -> OUTDIR/halves.jsonl,
# OUTDIR/halves.md.
#     bash s11-halves-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-./results}"
mkdir -p "$OUT/logs"
R="$HERE/bin/reduce"
J="$OUT/halves.jsonl"
: > "$J"
status=0
NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
"$NVCC" -O3 -arch=sm_90 -std=c++17 -o "$OUT/half_roof" "$HERE/cuda/half_roof.cu" 2> "$OUT/logs/nvcc.log" || status=1
"$R" --backend gpu transform --type f32 --op sum --n $((1 << 24)) --runs 200 > /dev/null 2>&1  # warm-up
for round in 1 2; do
    for ty in f16 bf16; do
        "$R" --backend gpu transform --type $ty --op total,sumsq,l1,norm2,dot,mean,var,std --n $((1 << 26)) \
            --runs 50 --format json 2>> "$OUT/logs/err.log" | sed "s/^{/{\"round\":$round,/" >> "$J" || status=1
    done
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" 26 | sed "s/^{/{\"round\":$round,/" >> "$J"
    "$R" --backend gpu transform --type f32 --op sum,mean,var,std --n $((1 << 26)) --runs 50 --format json \
        2>> "$OUT/logs/err.log" | sed "s/^{/{\"round\":$round,/" >> "$J" || status=1
done
rm -f "$OUT/half_roof"
python3 - "$J" > "$OUT/halves.md" <<'PY' || status=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
print("| round | type | op | min µs | median µs | GB/s | ok |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    mn = r.get("min_us", r.get("min_ms", 0) * 1e3)
    md = r.get("median_us", r.get("median_ms", 0) * 1e3)
    print(f"| {r.get('round')} | {r.get('type')} | {r.get('op', r.get('impl'))} | {mn:.1f} | {md:.1f} | {r.get('gbps', 0):.0f} | {r.get('ok')} |")
PY
cat "$OUT/halves.md"
exit $status
