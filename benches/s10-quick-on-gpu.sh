#!/usr/bin/env bash
# Session 10, first look (issues #14 and #20) in one short device call, for the bundle made by
# `cargo xtask bundle`:
#
#     bash s10-quick-on-gpu.sh OUTDIR
#
#   small   stage 8 gated (`reduce sweep --protocol gated --runs 100`), f32 sums at 2^12, 2^14,
#           2^16, 2^20 -> OUTDIR/s8.jsonl; CUB mapped and the read-only kernel in the same call
#           (cuda/cub_bench --gated) -> OUTDIR/cub.jsonl. The one-block plan (every input of one
#           tile) no longer divides by the grid before its first load: does 2^12 catch CUB up?
#   transform  toolbox-transform-on-gpu.sh (norms, dot, mean/var/std against torch and CUB):
#           the moments kernel's `f32` tiles -> OUTDIR/transform/
# Status lines in OUTDIR/status.txt.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-./results}"
mkdir -p "$OUT/logs"
R="$HERE/bin/reduce"
WORK="$(mktemp -d)"
T0=$(date +%s)
: > "$OUT/status.txt"
step() {
    local name="$1" limit="$2" t0 rc
    shift 2
    t0=$(date +%s)
    timeout "$limit" "$@" > "$OUT/logs/$name.log" 2>&1
    rc=$?
    echo "$name rc=$rc $(( $(date +%s) - t0 ))s (at $(( $(date +%s) - T0 ))s)" | tee -a "$OUT/status.txt" >&2
    return $rc
}
NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
[ -n "$NVCC" ] && "$NVCC" -O3 -arch=sm_90 -std=c++17 -o "$WORK/cub_bench" "$HERE/cuda/cub_bench.cu" \
    > "$OUT/logs/nvcc-cub_bench.log" 2>&1 &
EXPS="${S10_EXPS:-12,14,16,20}"
step small 120 sh -c "'$R' --backend gpu sweep --protocol gated --runs 100 --warmup 10 \
    --exps $EXPS > '$OUT/s8.jsonl'"
wait
[ -x "$WORK/cub_bench" ] && step cub 60 sh -c "'$WORK/cub_bench' --gated --runs 100 ${EXPS//,/ } > '$OUT/cub.jsonl'"
step transform 200 bash "$HERE/toolbox-transform-on-gpu.sh" "$OUT/transform"
