#!/usr/bin/env bash
# Session 12, issue #14: the moments kernels at 2^26 after the fused square-and-add (`fma.rn.f32`)
# and the f16 tiles' one finiteness test per tile (instead of a max per element), beside the
# read-only kernel on the same bytes (cuda/half_roof.cu, compiled before anything is timed), the
# f16/bf16 `total` and the f32 stage-8 sum; then the moments kernels under the other launch
# shapes (block 256 / 1024 at the same resident threads). min / median of 50 runs, each result
# checked against the host reference -> OUTDIR/moments.jsonl, OUTDIR/moments.md.
#     bash s12-moments-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-./results}"
mkdir -p "$OUT/logs"
R="$HERE/bin/reduce"
J="$OUT/moments.jsonl"
: > "$J"
status=0
NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
"$NVCC" -O3 -arch=sm_90 -std=c++17 -o "$OUT/half_roof" "$HERE/cuda/half_roof.cu" 2> "$OUT/logs/nvcc.log" || status=1
"$R" --backend gpu transform --type f32 --op sum --n $((1 << 24)) --runs 200 > /dev/null 2>&1  # warm-up
N=$((1 << 26))
tag() { sed "s/^{/{\"round\":\"$1\",/" >> "$J"; }
for round in 1 2; do
    for ty in f16 bf16; do
        "$R" --backend gpu transform --type $ty --op total,mean,var,std --n $N --runs 50 --format json \
            2>> "$OUT/logs/err.log" | tag $round || status=1
    done
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" 26 | tag $round
    "$R" --backend gpu transform --type f32 --op sum,mean,var,std --n $N --runs 50 --format json \
        2>> "$OUT/logs/err.log" | tag $round || status=1
done
for shape in "--block 256 --grid 528" "--block 1024 --grid 132"; do
    for ty in f16 bf16 f32; do
        "$R" --backend gpu transform --type $ty --op var --n $N --runs 50 --format json $shape \
            2>> "$OUT/logs/err.log" | tag "${shape// /}" || status=1
    done
done
rm -f "$OUT/half_roof"
python3 "$HERE/python/runs_table.py" "$J" round "round / shape" kernel --gbps > "$OUT/moments.md" || status=1
cat "$OUT/moments.md"
exit $status
