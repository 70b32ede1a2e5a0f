#!/usr/bin/env bash
# Session 15, issue #15's missed target (>= 90% of stage 8's plain sum at N >= 2^24): the exact
# sum's async loop (`pipeline=2`: each thread copies its tiles with cp.async into its own slots of
# a shared-memory ring three tiles deep, so three tiles are in flight per thread at the plain
# loop's 80 registers; kernels `reduce_exact_{fast_,}lean_async_r80_*`) against the default, with
# stage 8, CUB's three determinism levels and torch.sum in the same call: exact-on-gpu.sh (time,
# accuracy in ulps, reproducibility matrix with the async kernels, the exact GPU tests when
# bin/gpu-tests is in the bundle) with this session's sizes and sweep —
#     pipeline=2                     the async loop (fast path for f32), 3 blocks per SM
#     pipeline=2,fast_f32=0          the async loop on f32's plain kernel
#     pipeline=2,blocks_per_sm=2     two blocks per SM (fewer, longer runs per block)
#     pipeline=2,blocks_per_sm=6     six per SM asked (two waves: a finer split)
#     pipeline=2,block=512,blocks_per_sm=1   one 512-thread block per SM (96 KiB ring)
# then compute-sanitizer memcheck / racecheck / synccheck of the async kernels (f32 and f64; many
# blocks, and one block whose ring wraps 25 times; sizes that leave a partial tile and a tail).
#     bash s15-exact-on-gpu.sh OUTDIR      -> OUTDIR/exact.{jsonl,md}, OUTDIR/sanitize-*.log
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results}}"
mkdir -p "$OUT/logs"
status=0
EXPS="12 16 20 22 24 26 28 30" \
    SWEEP_POLICIES="pipeline=2;pipeline=2,fast_f32=0;pipeline=2,blocks_per_sm=2;pipeline=2,blocks_per_sm=6;pipeline=2,block=512,blocks_per_sm=1" \
    bash "$HERE/exact-on-gpu.sh" "$OUT" || status=1
# shellcheck source=variant-lib.sh
source "$HERE/variant-lib.sh"
sanitize_exact "1001;100003;100003 --grid 1" "4000037" "pipeline=2" "pipeline=2,fast_f32=0"
exit $status
