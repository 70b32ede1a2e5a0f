#!/usr/bin/env bash
# Session 17, call 4, issue #14: is the halves' variance gap to `total` the residency (threads per
# SM, so bytes in flight) or the variance's own work? `f16` at 2^26, two rounds: `total` at its
# plan (528 x 512: 1024 threads per SM) and forced to the variance's residency (396 x 256: 768
# per SM) and below (264 x 256: 512); `var` at its plan (rolling, 396 x 256), the plain loop
# (264 x 512) and the plain loop in 256-thread blocks at four per SM (528 x 256: 1024); the
# read-only kernel beside -> OUTDIR/occ.jsonl, OUTDIR/occ.md; Nsight Compute's achieved
# occupancy, DRAM throughput and instructions of var and of total at 768 threads per SM.
#     bash s17-occupancy-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=variant-lib.sh
. "$HERE/variant-lib.sh"
variant_start "${1:-./results}" occ.jsonl
for round in 1 2; do
    one "total, plan" "" f16 total 26
    one "total, 768 per SM" "" f16 total 26 --block 256 --grid 396
    one "total, 512 per SM" "" f16 total 26 --block 256 --grid 264
    one "var, plan" "" f16 var 26
    one "var, plain 264x512" "" f16 var 26 --loop plain
    one "var, plain 528x256" "" f16 var 26 --loop plain --block 256 --grid 528
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" 26 | tag "read-only"
done
rm -f "$OUT/half_roof"
python3 "$HERE/python/runs_table.py" "$J" variant "variant" plan --gbps --n > "$OUT/occ.md" || status=1
cat "$OUT/occ.md"
if command -v ncu > /dev/null 2>&1; then
    M=sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed
    M=$M,smsp__inst_executed.sum,gpu__time_duration.sum,launch__registers_per_thread
    for c in "var" "total --block 256 --grid 396" "total"; do
        # shellcheck disable=SC2086 # c is "OP [ARGS]"
        ncu --metrics "$M" --launch-skip 3 --launch-count 1 -k regex:'transform' "$R" --backend gpu \
            transform --type f16 --op $c --n $((1 << 26)) --runs 5 > "$OUT/ncu.tmp" 2>&1 || status=1
        echo "$c: $(grep -E "sm__|dram__|inst_|duration|registers" "$OUT/ncu.tmp" | tr -s ' ' | tr '\n' ';')" \
            | tee -a "$OUT/ncu.txt"
    done
    rm -f "$OUT/ncu.tmp"
fi
exit $status
