#!/usr/bin/env bash
# Session 13, issue #14: the L2 norm at 2^12 (one block) under the three block sizes the
# transform kernels are built for — 256 threads × 4 vectors (the plan's), 512 × 2, 1024 × 1 —
# three rounds of 200 runs each (plain protocol, as toolbox-transform-on-gpu.sh, whose CUB rows in
# the same call are the baseline) -> OUTDIR/small.jsonl, OUTDIR/small.md.
#     bash s13-small-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-./results}"
mkdir -p "$OUT/logs"
R="$HERE/bin/reduce"
J="$OUT/small.jsonl"
: > "$J"
status=0
tag() { sed "s/^{/{\"round\":\"$1\",/" >> "$J"; }
for round in 1 2 3; do
    for block in 256 512 1024; do
        "$R" --backend gpu transform --type f32 --op norm2,sumsq --n 4096 --runs 200 --format json \
            --block $block 2>> "$OUT/logs/err.log" | tag "$round" || status=1
    done
done
python3 "$HERE/python/runs_table.py" "$J" round "round" plan --n > "$OUT/small.md" || status=1
cat "$OUT/small.md"
exit $status
