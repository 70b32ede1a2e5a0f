#!/usr/bin/env bash
# Session 10: the moments kernel's tiles in `f32` (the default for f32/f16/bf16 inputs) against
# the same kernel with its tiles widened to `f64` first (ptx/f64tiles.ptx: `Moments::F32_TILES`
# off, everything else equal), on the default plan (264 blocks of 512 on the H200); f32 and f16
# var at 2^26, f32 sum beside them; min / median of 50 runs -> OUTDIR/var.jsonl.
#     bash s10-var-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-./results}"
mkdir -p "$OUT/logs"
R="$HERE/bin/reduce"
J="$OUT/var.jsonl"
: > "$J"
for n in $((1 << 26)); do
    for v in embedded f64tiles; do
        pa=""; [ "$v" != embedded ] && pa="--ptx $HERE/ptx/$v.ptx"
        for to in f32:var,sum f16:var,total; do
            "$R" --backend gpu $pa transform --type ${to%%:*} --op ${to##*:} --n $n --runs 50 \
                --format json 2>> "$OUT/logs/err.log" | sed "s/^{/{\"variant\":\"$v\",/" >> "$J"
        done
    done
done
