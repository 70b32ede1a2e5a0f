#!/usr/bin/env bash
# Session 10: the transform ops on f16 and bf16 inputs (issue #14: halves at >= 90% of the
# read-only kernel's bandwidth; toolbox-ops-on-gpu.sh in the same call times that kernel on the
# same bytes, `cuda/half_roof.cu`): sumsq, l1, norm2, dot, mean, var and total at 2^26 and 2^30,
# min / median of 50 runs, every result checked against the host reference -> OUTDIR/halves.jsonl.
#     bash s10-halves-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-./results}"
mkdir -p "$OUT/logs"
R="$HERE/bin/reduce"
J="$OUT/halves.jsonl"
: > "$J"
status=0
for ty in f16 bf16; do
    for n in $((1 << 26)) $((1 << 30)); do
        "$R" --backend gpu transform --type $ty --op sumsq,l1,norm2,dot,mean,var,total --n $n \
            --runs 50 --format json >> "$J" 2>> "$OUT/logs/err.log" || status=1
    done
done
exit $status
