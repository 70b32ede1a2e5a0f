#!/usr/bin/env bash
# Session 15, call 3: after `CopyRing::stream` took over both async loops (the exact sum's
# `pipeline=2` and the transforms' `--loop async`; same copies and additions, new PTX), on the
# GPU: (1) the async loops re-timed next to the defaults (exact f32/f64 at 2^24, 2^26, 2^30;
# f16 var at 2^26), every result checked; (2) compute-sanitizer memcheck and racecheck of both
# async loops; (3) the GPU test suites they touch (exact, transform, halves), then the whole GPU
# suite under a time limit (FULL_LIMIT seconds, default 300).
#     bash s15-recheck-on-gpu.sh OUTDIR    -> OUTDIR/recheck.txt, OUTDIR/*-gpu-tests.txt
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-./results}"
mkdir -p "$OUT"
R="$HERE/bin/reduce"
T="$OUT/recheck.txt"
: > "$T"
status=0
for ty in f32 f64; do
    for e in 24 26 30; do
        "$R" --backend gpu exact --n $((1 << e)) --type $ty --runs 50 --policy pipeline=2 >> "$T" 2>&1 \
            || { echo "exact $ty 2^$e FAILED" >&2; status=1; }
    done
done
for loop in "" "--loop async"; do  # the plan's loop (rolling for f16 moments), then async
    # shellcheck disable=SC2086 # empty or two words
    "$R" --backend gpu transform --type f16 --op var --n $((1 << 26)) --runs 50 $loop >> "$T" 2>&1 \
        || { echo "transform f16 var $loop FAILED" >&2; status=1; }
done
for tool in memcheck racecheck; do
    for n in 100003 4000037; do
        compute-sanitizer --tool $tool --error-exitcode 9 "$R" --backend gpu exact --type f32 \
            --n $n --data binades --runs 0 --policy pipeline=2 --grid 7 >> "$OUT/sanitize.log" 2>&1 \
            || { echo "$tool exact n=$n FAILED" >&2; status=1; }
        compute-sanitizer --tool $tool --error-exitcode 9 "$R" --backend gpu transform --type f16 \
            --op total,nanmean,var --loop async --n $n --runs 0 >> "$OUT/sanitize.log" 2>&1 \
            || { echo "$tool transform n=$n FAILED" >&2; status=1; }
    done
done
echo "sanitizers: $(grep -h "SUMMARY" "$OUT/sanitize.log" | sort | uniq -c | tr -s ' ')"
for t in exact transform halves; do
    "$HERE/bin/gpu-tests" $t > "$OUT/$t-gpu-tests.txt" 2>&1 || { echo "$t GPU tests FAILED"; status=1; }
    echo "$t: $(grep -E 'test result' "$OUT/$t-gpu-tests.txt" | tail -1)"
done
timeout "${FULL_LIMIT:-300}" "$HERE/bin/gpu-tests" > "$OUT/all-gpu-tests.txt" 2>&1
echo "all (rc $?): $(grep -E 'test result' "$OUT/all-gpu-tests.txt" | tail -1)"
grep -E "time|policy|loop|var" "$T" | head -40
exit $status
