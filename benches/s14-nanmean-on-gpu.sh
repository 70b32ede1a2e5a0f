#!/usr/bin/env bash
# Session 14, issue #14: `nanmean` with its tiles in `f32` (the NaN test and the select in `f32`,
# the count in a `u32` per chunk: one `f64` conversion and one `f64` addition per element, as
# `total`) against `total`, `var` and the read-only kernel, f16/bf16 (and f32 beside stage 8's
# sum) at 2^20 ... 2^30, 2^26 in three rounds -> OUTDIR/nanmean.jsonl, OUTDIR/nanmean.md.
# Then where the f16 var kernel (the plan's rolling loop) spends its cycles at 2^20 and 2^26:
# Nsight Compute's source counters (warp stall samples per SASS instruction) -> OUTDIR/src-*.csv,
# and compute-sanitizer memcheck/racecheck of the changed kernels.
#     bash s14-nanmean-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=variant-lib.sh
. "$HERE/variant-lib.sh"
variant_start "${1:-./results}" nanmean.jsonl
# ptxv/ntold.ptx: the f16/bf16 nantotal kernels of the commit before (widened to f64 first, 40
# registers); ptxv/nt40.ptx: this build's, capped at 40 registers (62 uncapped: two 512-thread
# blocks per SM instead of three). Both JIT-compiled, the grid from the occupancy query.
variants() { # variants TYPE EXP
    one "old (f64 tiles)" "$HERE/ptxv/ntold.ptx" "$1" nanmean "$2"
    one "f32 tiles r40" "$HERE/ptxv/nt40.ptx" "$1" nanmean "$2"
}
for round in 1 2 3; do
    for ty in f16 bf16; do one "default" "" $ty total,nanmean,var 26; variants $ty 26; done
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" 26 | tag "read-only"
    one "default" "" f32 sum,nanmean,var 26
done
for e in 20 24 28 30; do
    for ty in f16 bf16; do one "default" "" $ty total,nanmean,var $e; variants $ty $e; done
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" $e | tag "read-only"
    one "default" "" f32 sum,nanmean $e
done
rm -f "$OUT/half_roof"
python3 "$HERE/python/runs_table.py" "$J" variant "variant" plan --gbps --n > "$OUT/nanmean.md" || status=1
cat "$OUT/nanmean.md"

if command -v ncu > /dev/null 2>&1; then
    for e in 20 26; do
        for op in var total; do
            ncu --section SourceCounters --section WarpStateStats --launch-skip 3 --launch-count 1 \
                -k regex:'transform' -o "$OUT/src-$op-$e" "$R" --backend gpu transform --type f16 \
                --op $op --n $((1 << e)) --runs 5 > "$OUT/logs/ncu-$op-$e.log" 2>&1 || status=1
            ncu -i "$OUT/src-$op-$e.ncu-rep" --page source --csv --print-source sass \
                > "$OUT/src-$op-$e.csv" 2>> "$OUT/logs/ncu-$op-$e.log" || status=1
            ncu -i "$OUT/src-$op-$e.ncu-rep" --page details > "$OUT/src-$op-$e.txt" 2>&1 || status=1
        done
    done
fi
if command -v compute-sanitizer > /dev/null 2>&1; then
    for tool in memcheck racecheck; do
        for ty in f16 bf16 f32; do
            for n in 33 100003 4000037; do
                compute-sanitizer --tool "$tool" --error-exitcode 9 "$R" --backend gpu transform \
                    --type $ty --op nanmean,var --n "$n" --runs 0 \
                    >> "$OUT/sanitize-$tool.log" 2>&1 || { echo "$tool $ty n=$n FAILED" >&2; status=1; }
            done
        done
        echo "$tool: $(grep -cE 'ERROR SUMMARY: 0|RACECHECK SUMMARY: 0' "$OUT/sanitize-$tool.log") clean runs of 9"
    done
fi
exit $status
