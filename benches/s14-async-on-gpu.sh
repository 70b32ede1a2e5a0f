#!/usr/bin/env bash
# Session 14, issue #14 (and #20's asynchronous-copy item): the transform kernels' `async` loop —
# each thread keeps its next tiles in flight as `cp.async` copies into its own shared-memory
# slots (`reduce_transform_async_r80_*`, 256-thread blocks, a 48 KiB ring) — against the plan's
# loop (plain; rolling for the f16/bf16 moments) and the read-only kernel, for var, nanmean and
# total of f16/bf16/f32 (stage 8's f32 sum beside), at 2^20 ... 2^30; at 2^26 three rounds in
# alternating order. min / median of 50 runs, every result checked -> OUTDIR/async.jsonl,
# OUTDIR/async.md. Then the GPU tests (transform, halves: every loop's bits against the plain
# loop's) and compute-sanitizer memcheck/racecheck/synccheck of the async kernels.
#     bash s14-async-on-gpu.sh OUTDIR
# (As run in call 1, when the async kernels were built for f32/f16/bf16; since then only for f16, so
# the bf16 and f32 async rows of this script would be typed errors.)
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=variant-lib.sh
. "$HERE/variant-lib.sh"
variant_start "${1:-./results}" async.jsonl
pair() { # pair ROUND TYPE OPS EXP: the plan's loop and the async loop, in ROUND's order
    if [ $(($1 % 2)) -eq 1 ]; then
        one "default" "" "$2" "$3" "$4"
        one "async" "" "$2" "${3#sum,}" "$4" --loop async
    else
        one "async" "" "$2" "${3#sum,}" "$4" --loop async
        one "default" "" "$2" "$3" "$4"
    fi
}
for round in 1 2 3; do
    for ty in f16 bf16; do pair $round $ty total,nanmean,var 26; done
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" 26 | tag "read-only"
    pair $round f32 sum,total,nanmean,var 26
done
for e in 20 24 28; do
    for ty in f16 bf16; do pair 1 $ty total,nanmean,var $e; done
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" $e | tag "read-only"
    pair 2 f32 sum,total,nanmean,var $e
done
pair 1 f16 total,nanmean,var 30
pair 2 bf16 var 30
[ -x "$OUT/half_roof" ] && "$OUT/half_roof" 30 | tag "read-only"
pair 1 f32 sum,var 30
rm -f "$OUT/half_roof"
python3 "$HERE/python/runs_table.py" "$J" variant "variant" plan --gbps --n > "$OUT/async.md" || status=1
cat "$OUT/async.md"

# --- correctness on the GPU ---------------------------------------------------------------------
if [ -x "$HERE/bin/gpu-tests" ]; then
    for t in transform halves; do
        "$HERE/bin/gpu-tests" $t > "$OUT/$t-gpu-tests.txt" 2>&1 || { echo "$t GPU tests FAILED" >&2; status=1; }
        tail -3 "$OUT/$t-gpu-tests.txt"
    done
fi
if command -v compute-sanitizer > /dev/null 2>&1; then
    for tool in memcheck racecheck synccheck; do
        for ty in f16 f32; do
            for n in 33 100003 4000037; do
                compute-sanitizer --tool "$tool" --error-exitcode 9 "$R" --backend gpu transform \
                    --type $ty --op total,nanmean,var --loop async --n "$n" --runs 0 \
                    >> "$OUT/async-sanitize-$tool.log" 2>&1 || { echo "$tool $ty n=$n FAILED" >&2; status=1; }
            done
        done
        echo "$tool: $(grep -cE 'ERROR SUMMARY: 0|RACECHECK SUMMARY: 0' "$OUT/async-sanitize-$tool.log") clean runs of 6"
    done
fi
exit $status
