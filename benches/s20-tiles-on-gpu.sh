#!/usr/bin/env bash
# Session 20, issue #14: the halves' kernels with their tiles interleaved over the blocks (tile k
# to block k mod grid: `reduce_transform_tiles_r64_*`, `--loop tiles`, for total, sumsq, l1,
# nanmean, dot; `reduce_transform_shift_tiles_r80_*`, `--loop shifted-tiles`, for the moments)
# against the plan's defaults (each block one contiguous run of tiles) and the read-only kernel on
# the same bytes (cuda/half_roof.cu): 2^26 in three rounds (f16, bf16)
# -> OUTDIR/tiles.jsonl, OUTDIR/tiles.md. A CUDA C experiment (cuda/roof_schedules.cu, session 20's
# first call) found the interleaved schedule 0.5-1 us faster for a sum of 2^26 halves. Not yet run:
# session 20 had no device time left after that first call. Then the
# halves GPU tests (the new tiles_meet_their_bound among them) and compute-sanitizer memcheck /
# racecheck of the new kernels.
#     bash s20-tiles-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=variant-lib.sh
. "$HERE/variant-lib.sh"
variant_start "${1:-./results}" tiles.jsonl
size() { # size EXP TYPES
    for ty in $2; do
        one "runs (default)" "" $ty total,sumsq,l1,nanmean,var "$1"
        one "tiles" "" $ty total,sumsq,l1,nanmean "$1" --loop tiles
        one "tiles" "" $ty var "$1" --loop shifted-tiles
    done
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" "$1" | tag "read-only"
}
for round in 1 2 3; do size 26 "f16 bf16"; done
rm -f "$OUT/half_roof"
python3 "$HERE/python/runs_table.py" "$J" variant "variant" plan --gbps --n > "$OUT/tiles.md" || status=1
cat "$OUT/tiles.md"
grep -c '"ok":false' "$J" > /dev/null && { echo "a result outside its bound (ok:false)"; status=1; }
"$HERE/bin/gpu-tests" halves > "$OUT/halves-gpu-tests.txt" 2>&1 || { echo "halves GPU tests FAILED"; status=1; }
echo "halves: $(grep -E 'test result' "$OUT/halves-gpu-tests.txt" | tail -1)"
sanitize_var "f16" --loop shifted-tiles
if command -v compute-sanitizer > /dev/null 2>&1; then
    for tool in memcheck racecheck; do
        for n in 100003 4000037; do
            compute-sanitizer --tool $tool --error-exitcode 9 "$R" --backend gpu transform --loop tiles \
                --type bf16 --op total --n $n --runs 0 >> "$OUT/sanitize-tiles-$tool.log" 2>&1 \
                || { echo "$tool tiles n=$n FAILED"; status=1; }
        done
        echo "$tool tiles: $(grep -cE 'ERROR SUMMARY: 0|RACECHECK SUMMARY: 0' "$OUT/sanitize-tiles-$tool.log") clean runs of 2"
    done
fi
exit $status
