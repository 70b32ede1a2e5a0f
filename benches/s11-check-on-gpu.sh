#!/usr/bin/env bash
# Session 11: correctness on the GPU of the build that clears the `l1` inputs' sign bits as it
# loads them (`TransformOp::ABS_INPUT`): the transform and half-precision GPU tests, and
# compute-sanitizer memcheck / racecheck on small `l1` runs of every float type (misaligned
# heads and partial tiles: n = 33, 100003). Logs in OUTDIR.
#     bash s11-check-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-./results}"
mkdir -p "$OUT"
R="$HERE/bin/reduce"
status=0
for t in transform halves; do
    "$HERE/bin/gpu-tests" $t > "$OUT/gpu-tests-$t.txt" 2>&1 || { echo "GPU tests $t FAILED" >&2; status=1; }
    grep "test result" "$OUT/gpu-tests-$t.txt" >&2
done
for tool in memcheck racecheck; do
    for ty in f32 f64 f16 bf16; do
        for n in 33 100003; do
            compute-sanitizer --tool "$tool" --error-exitcode 9 "$R" --backend gpu transform --type $ty \
                --op l1,sumsq,var --n "$n" --runs 0 >> "$OUT/sanitize-$tool.log" 2>&1 \
                || { echo "$tool $ty n=$n FAILED" >&2; status=1; }
        done
    done
    echo "$tool: $(grep -cE 'ERROR SUMMARY: 0|RACECHECK SUMMARY: 0' "$OUT/sanitize-$tool.log") clean runs of 8" >&2
done
exit $status
