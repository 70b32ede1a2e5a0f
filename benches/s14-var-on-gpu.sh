#!/usr/bin/env bash
# Session 14, issue #14: the moments with a thread's chunks folded around a shift (one division
# per thread instead of a Chan update per tile; `Shifted` in kernels/src/transform/moments.rs;
# the rolling f16/bf16 kernels now `reduce_transform_roll_r80_*`, 79 registers) against the
# commit before's kernels (ptxv/varold.ptx: its rolling f16/bf16 kernels, renamed to the new
# symbols, and its f32 moments kernel, JIT-compiled), with nanmean, total, the read-only kernel
# and stage 8's f32 sum beside, at 2^20 ... 2^30 (bf16 up to 2^24), 2^26 in three rounds -> OUTDIR/var.jsonl,
# OUTDIR/var.md. Nsight Compute's executed-instruction count of both f16 var kernels at 2^26;
# compute-sanitizer memcheck/racecheck of the new moments kernels.
#     bash s14-var-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=variant-lib.sh
. "$HERE/variant-lib.sh"
variant_start "${1:-./results}" var.jsonl
OLD="$HERE/ptxv/varold.ptx"
size() { # size EXP [TYPES]
    for ty in ${2:-f16 bf16}; do
        one "default" "" $ty var,nanmean,total "$1"
        one "old var" "$OLD" $ty var "$1"
    done
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" "$1" | tag "read-only"
    one "default" "" f32 sum,var "$1"
    one "old var" "$OLD" f32 var "$1"
}
for round in 1 2 3; do size 26; done
for e in 20 24; do size $e; done
for e in 28 30; do size $e f16; done
rm -f "$OUT/half_roof"
python3 "$HERE/python/runs_table.py" "$J" variant "variant" plan --gbps --n > "$OUT/var.md" || status=1
cat "$OUT/var.md"
if command -v ncu > /dev/null 2>&1; then
    for v in new old; do
        p=(); [ $v = old ] && p=(--ptx "$OLD")
        ncu --metrics smsp__inst_executed.sum,gpu__time_duration.sum,launch__registers_per_thread \
            --launch-skip 3 --launch-count 1 -k regex:'transform' "$R" --backend gpu transform "${p[@]}" \
            --type f16 --op var --n $((1 << 26)) --runs 5 > "$OUT/ncu-var-$v.txt" 2>&1 || status=1
        grep -E "inst_executed|duration|registers" "$OUT/ncu-var-$v.txt"
    done
fi
if command -v compute-sanitizer > /dev/null 2>&1; then
    for tool in memcheck racecheck; do
        for ty in f16 bf16 f32; do
            for n in 100003 4000037; do
                compute-sanitizer --tool "$tool" --error-exitcode 9 "$R" --backend gpu transform \
                    --type $ty --op var --n "$n" --runs 0 \
                    >> "$OUT/sanitize-$tool.log" 2>&1 || { echo "$tool $ty n=$n FAILED" >&2; status=1; }
            done
        done
        echo "$tool: $(grep -cE 'ERROR SUMMARY: 0|RACECHECK SUMMARY: 0' "$OUT/sanitize-$tool.log") clean runs of 6"
    done
fi
exit $status
