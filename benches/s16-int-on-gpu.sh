#!/usr/bin/env bash
# Session 16, call 2, issue #15's missed target (>= 90% of stage 8's plain sum at N >= 2^24):
# the exact sum's integer finish (`int_finish=1`: each warp's expansions cut into a window of six
# 32-bit digit words and summed with integer shuffles, one shared-memory slot per warp, then each
# word thread adds up its word and its neighbour's for the carry step — no float merge rounds, no
# shared atomics, one block barrier; kernels `reduce_exact_{fast_,}int_*`,
# kernels/src/exact/int_finish.rs) against the default and the warp finish of call 1, with
# stage 8, CUB's three determinism levels and torch.sum in the same call: exact-on-gpu.sh (time,
# accuracy in ulps, the reproducibility matrix — 14 kernel variants, the integer and warp
# finishes among them — and the exact GPU tests when bin/gpu-tests is in the bundle) with the sweep
#     int_finish=1                   the integer finish (fast path for f32)
#     int_finish=1,fast_f32=0        on f32's plain kernel
#     warp_finish=1                  call 1's warp finish again, for the same-call comparison
# then the probe (`--probe` and `--probe=int_finish=1`) at 2^20, 2^24 and 2^26 and
# compute-sanitizer memcheck / racecheck / synccheck of the integer-finish kernels.
#     bash s16-int-on-gpu.sh OUTDIR   -> OUTDIR/exact.{jsonl,md}, OUTDIR/probe.{jsonl,md},
#                                        OUTDIR/sanitize-*.log
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results}}"
mkdir -p "$OUT/logs"
status=0
EXPS="${EXPS:-12 16 20 22 24 26 28 30}" \
    SWEEP_POLICIES="int_finish=1;int_finish=1,fast_f32=0;warp_finish=1" \
    bash "$HERE/exact-on-gpu.sh" "$OUT" || status=1
PROBE_EXPS="20 24 26" PROBE_POLICIES="int_finish=1" bash "$HERE/s15-probe-on-gpu.sh" "$OUT" \
    > /dev/null || status=1
# shellcheck source=variant-lib.sh
source "$HERE/variant-lib.sh"
sanitize_exact "1001;100003;100003 --grid 1" "4000037" "int_finish=1" "int_finish=1,fast_f32=0"
exit $status
