#!/usr/bin/env bash
# Session 16, call 3, issue #15's missed target (>= 90% of stage 8's plain sum at N >= 2^24):
# the warm rounding (`warm_round=1`, kernels `reduce_exact_{fast_,}warm_*`,
# kernels/src/exact/warm.rs: warp 0 of every block but the last runs the rounding once on its own
# words, so the last block finds that code in L2 rather than fetching it from DRAM behind the
# stream) against the default, with stage 8, CUB's three determinism levels and torch.sum in the
# same call: exact-on-gpu.sh (time, accuracy, the reproducibility matrix — 16 variants — and the
# exact GPU tests when bin/gpu-tests is in the bundle) with the sweep
#     lean_finish=1      the default's own settings through `--policy`: a control for the
#                        policy path (calls 1 and 2 had none)
#     warm_round=1       the warm rounding (fast path for f32)
# then the probe (`--probe` and `--probe=warm_round=1`) at 2^12 (one block: the rounding alone),
# 2^20, 2^24 and 2^26, and compute-sanitizer memcheck / racecheck / synccheck of the warm kernels.
#     bash s16-warm-on-gpu.sh OUTDIR  -> OUTDIR/exact.{jsonl,md}, OUTDIR/probe.{jsonl,md},
#                                        OUTDIR/sanitize-*.log
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results}}"
mkdir -p "$OUT/logs"
status=0
EXPS="${EXPS:-12 16 20 22 24 26 28 30}" SWEEP_POLICIES="lean_finish=1;warm_round=1" \
    bash "$HERE/exact-on-gpu.sh" "$OUT" || status=1
PROBE_EXPS="12 20 24 26" PROBE_POLICIES="warm_round=1" bash "$HERE/s15-probe-on-gpu.sh" "$OUT" \
    > /dev/null || status=1
# shellcheck source=variant-lib.sh
source "$HERE/variant-lib.sh"
sanitize_exact "1001;100003;100003 --grid 7" "" "warm_round=1"
exit $status
