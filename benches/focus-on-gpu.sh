#!/usr/bin/env bash
# A short device call over a chosen few of the GPU scripts, for the bundle made by
# `cargo xtask bundle` (copy the bundle's bin/, cuda/, python/, the scripts and cccl.tar.xz):
#
#     bash focus-on-gpu.sh OUTDIR STEP [STEP ...]
#
# Steps, run in the order given, each under its own time limit (seconds, FOCUS_LIMIT_<STEP>):
#   exact     exact-on-gpu.sh (times, CUB's three levels, torch, accuracy, reproducibility, tests)
#   arg       toolbox-lib-on-gpu.sh without its launch sweep (ARG_SWEEP=0)
#   halves    toolbox-ops-on-gpu.sh's f16/bf16 part for sum and nanmean (HALVES_ONLY=1)
#   exact-sanitize  compute-sanitizer memcheck, racecheck, synccheck over `reduce exact --repro`
#                   (every exact kernel variant at grids 1, 7, 132, … and four input offsets)
#   transform-tests the transform kernels' GPU tests (`bin/gpu-tests transform`: every op, f32/f64)
# The CUDA baselines the arg and halves steps need are compiled with nvcc in the background from
# the start, while the first step runs. As soon as a step ends its results are packed into
# OUTDIR/<step>.tgz and its status appended to OUTDIR/status.txt, so a call cut short still
# returns every step that finished. Exit status non-zero if a step failed.
#
# Plan the call by these (session 6, one H200): exact 82 s; arg more than 150 s (ours, CUB,
# torch and stage 8's max took most of it: its GPU tests and sanitizer runs did not fit); halves
# about 90 s to its table; exact-sanitize about 15 s; transform-tests about 10 s. A fresh machine
# takes a minute or two to start, counted in the session's device time.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:?usage: focus-on-gpu.sh OUTDIR STEP [STEP ...]}"
shift
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
WORK="$(mktemp -d)"
NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
ARCH="${NVCC_ARCH:-sm_90}"
if [ -n "$NVCC" ]; then
    mkdir -p "$WORK/cuda"
    ( "$NVCC" -O3 -arch="$ARCH" -std=c++17 -o "$WORK/cuda/cub_argreduce" "$HERE/cuda/cub_argreduce.cu" \
        || "$NVCC" -O3 -arch="$ARCH" -std=c++17 -DNO_HALF_CUB -o "$WORK/cuda/cub_argreduce" \
            "$HERE/cuda/cub_argreduce.cu" ) > "$WORK/cuda/nvcc-arg.log" 2>&1 &
    "$NVCC" -O3 -arch="$ARCH" -std=c++17 -o "$WORK/cuda/half_roof" "$HERE/cuda/half_roof.cu" \
        > "$WORK/cuda/nvcc-roof.log" 2>&1 &
fi
start=$(date +%s)
status=0

step() {
    local name="$1" dir="$WORK/$1" rc t0
    mkdir -p "$dir"
    t0=$(date +%s)
    case "$name" in
        exact)
            timeout "${FOCUS_LIMIT_exact:-150}" bash "$HERE/exact-on-gpu.sh" "$dir" ;;
        arg)
            wait
            ARG_SWEEP=0 CUB_ARGREDUCE="$WORK/cuda/cub_argreduce" \
                timeout "${FOCUS_LIMIT_arg:-150}" bash "$HERE/toolbox-lib-on-gpu.sh" "$dir" ;;
        halves)
            wait
            HALVES_ONLY=1 HALF_OPS=sum,nanmean HALF_ROOF="$WORK/cuda/half_roof" \
                timeout "${FOCUS_LIMIT_halves:-120}" bash "$HERE/toolbox-ops-on-gpu.sh" "$dir" ;;
        exact-sanitize)
            local rc_all=0
            for tool in memcheck racecheck synccheck; do
                for ty in f32 f64; do
                    timeout "${FOCUS_LIMIT_exact_sanitize:-60}" compute-sanitizer --tool "$tool" \
                        --error-exitcode 9 "$HERE/bin/reduce" --backend gpu exact --n 20003 \
                        --type "$ty" --data cancellation --runs 0 --repro \
                        > "$dir/sanitize-$tool-$ty.log" 2>&1 || rc_all=1
                    echo "$tool $ty: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|reproducibility' \
                        "$dir/sanitize-$tool-$ty.log" | tr '\n' ' ')" >&2
                done
            done
            (exit $rc_all) ;;
        transform-tests)
            timeout "${FOCUS_LIMIT_transform_tests:-90}" "$HERE/bin/gpu-tests" transform \
                > "$dir/transform-gpu-tests.txt" 2>&1
            local rc_t=$?
            grep -E '^test |test result' "$dir/transform-gpu-tests.txt" >&2
            (exit $rc_t) ;;
        *)
            echo "focus-on-gpu.sh: unknown step $name" >&2
            false ;;
    esac
    rc=$?
    # Everything but the CUDA binaries and the unpacked CCCL headers.
    tar czf "$OUT/$name.tgz" -C "$WORK" --exclude="$name/cccl" --exclude="$name/cub_*" \
        --exclude="$name/half_roof" "$name"
    echo "$name rc=$rc $(( $(date +%s) - t0 ))s (at $(( $(date +%s) - start ))s)" | tee -a "$OUT/status.txt" >&2
    [ $rc -eq 0 ] || status=1
}

for s in "$@"; do
    step "$s"
done
[ -d "$WORK/cuda" ] && tar czf "$OUT/nvcc-logs.tgz" -C "$WORK" cuda/nvcc-arg.log cuda/nvcc-roof.log 2>/dev/null
rm -rf "$WORK"
exit $status
