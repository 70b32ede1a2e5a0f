#!/usr/bin/env bash
# Session 14: the GPU test suites the session's kernel changes touch (transform: every loop's bits
# against the plain loop's, f32; halves: the same for f16/bf16; semantics: nanmean and the NaN
# rules) -> OUTDIR/<suite>-gpu-tests.txt; then the whole suite under a time limit (FULL_LIMIT
# seconds, default 240) -> OUTDIR/all-gpu-tests.txt
#     bash s14-tests-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-./results}"
mkdir -p "$OUT"
status=0
for t in transform halves semantics; do
    "$HERE/bin/gpu-tests" $t > "$OUT/$t-gpu-tests.txt" 2>&1 || { echo "$t GPU tests FAILED"; status=1; }
    echo "$t: $(grep -E 'test result' "$OUT/$t-gpu-tests.txt" | tail -1)"
done
timeout "${FULL_LIMIT:-240}" "$HERE/bin/gpu-tests" > "$OUT/all-gpu-tests.txt" 2>&1
echo "all (rc $?): $(grep -E 'test result' "$OUT/all-gpu-tests.txt" | tail -1)"
exit $status
