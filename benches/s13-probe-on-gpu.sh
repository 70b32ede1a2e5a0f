#!/usr/bin/env bash
# Session 13, issue #14: where do the f16 moments lose time that the f16 `total` does not, at 2^20
# (one tile per block) and 2^26? Nsight Compute (base clocks) on one launch each: the rolling-load
# var kernel (the plan's), the plain one (`--block 512`) and `total`; sections for occupancy,
# issue, instructions and memory, and the stall reasons per issued instruction as metrics
# -> OUTDIR/ncu-*.txt, OUTDIR/summary.txt.
#     bash s13-probe-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-./results}"
mkdir -p "$OUT"
R="$HERE/bin/reduce"
status=0
command -v ncu > /dev/null 2>&1 || { echo "no ncu" >&2; exit 1; }
SECT="--section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis"
STALLS=""
for s in no_instruction long_scoreboard short_scoreboard barrier wait math_pipe_throttle lg_throttle \
    mio_throttle membar drain branch_resolving dispatch_stall not_selected selected imc_miss sleeping; do
    STALLS="$STALLS${STALLS:+,}smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
one() {  # name exp op extra...
    local name="$1" e="$2" op="$3"; shift 3
    ncu $SECT --launch-skip 3 --launch-count 1 -k regex:'transform' "$R" --backend gpu transform \
        --type f16 --op "$op" --n $((1 << e)) --runs 5 "$@" > "$OUT/ncu-$name.txt" 2>&1 || status=1
    ncu --metrics "$STALLS,gpu__time_duration.sum,smsp__inst_executed.sum" --launch-skip 3 --launch-count 1 \
        -k regex:'transform' "$R" --backend gpu transform --type f16 --op "$op" --n $((1 << e)) --runs 5 "$@" \
        > "$OUT/ncu-stalls-$name.txt" 2>&1 || status=1
}
one total-26 26 total
one var-26 26 var
one var-plain-26 26 var --block 512
one total-20 20 total
one var-20 20 var
grep -E "^  [a-z_]+|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|DRAM Throughput|Issue Slots Busy|No Eligible|Executed Ipc|Executed Instructions  |Warp Cycles Per Issued" \
    "$OUT"/ncu-[tv]*.txt > "$OUT/summary.txt"
grep -E "^  [a-z_]+|stalled|duration|inst_executed" "$OUT"/ncu-stalls-*.txt >> "$OUT/summary.txt"
cat "$OUT/summary.txt"
exit $status
