#!/usr/bin/env bash
# Session 16, issue #15's missed target (>= 90% of stage 8's plain sum at N >= 2^24): the exact
# sum's warp finish (`warp_finish=1`: after the streaming one block barrier, then warp 0 alone
# merges the warps' expansions, computes the block's words with shifts instead of contended
# 64-bit shared atomics, carries them by shuffles, publishes and takes the ticket; kernels
# `reduce_exact_{fast_,}warp_*`, kernels/src/exact/warp_finish.rs) against the default, with
# stage 8, CUB's three determinism levels and torch.sum in the same call: exact-on-gpu.sh (time,
# accuracy in ulps, the reproducibility matrix with the warp kernels, the exact GPU tests when
# bin/gpu-tests is in the bundle) with this session's sizes and sweep —
#     warp_finish=1                  the warp finish (fast path for f32), 3 blocks per SM
#     warp_finish=1,steal=1          and work stealing (warps take 16 KiB chunks from a counter:
#                                    kernels/src/exact/steal.rs)
#     warp_finish=1,fast_f32=0       on f32's plain kernel
#     warp_finish=1,steal=1,blocks_per_sm=2   stealing with two blocks per SM
# then the probe (`reduce exact --probe` and `--probe=warp_finish=1`: per-block phase stamps) at
# 2^20, 2^24 and 2^26, and compute-sanitizer memcheck / racecheck / synccheck of the warp and
# stealing kernels.
# As run in call 1 (benches/results/h200-2026-12-03-s16/call1), with the kernels of commit 5a38ff7:
# work stealing lost at every N and was removed after that call (7ff2b23), so the `steal=1`
# policies are refused by later builds (a typed policy error).
#     bash s16-exact-on-gpu.sh OUTDIR      -> OUTDIR/exact.{jsonl,md}, OUTDIR/probe.{jsonl,md},
#                                             OUTDIR/sanitize-*.log
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results}}"
mkdir -p "$OUT/logs"
status=0
EXPS="${EXPS:-12 16 20 22 24 26 28 30}" \
    SWEEP_POLICIES="warp_finish=1;warp_finish=1,steal=1;warp_finish=1,fast_f32=0;warp_finish=1,steal=1,blocks_per_sm=2" \
    bash "$HERE/exact-on-gpu.sh" "$OUT" || status=1
PROBE_EXPS="20 24 26" PROBE_POLICIES="warp_finish=1" bash "$HERE/s15-probe-on-gpu.sh" "$OUT" \
    > /dev/null || status=1
# shellcheck source=variant-lib.sh
source "$HERE/variant-lib.sh"
sanitize_exact "1001;100003;100003 --grid 1" "4000037" "warp_finish=1" "warp_finish=1,fast_f32=0" "warp_finish=1,steal=1"
exit $status
