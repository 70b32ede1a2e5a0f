#!/usr/bin/env bash
# The benchmark of issue #15 (exact sums), for the bundle made by `cargo xtask bundle` (which
# copies this script next to bin/reduce, cuda/, python/ and cccl.tar.xz, the CCCL 3.5 headers):
#
#     bash exact-on-gpu.sh OUTDIR
#
# 1. Time, N = 2^12, 2^16, 2^20, 2^24, 2^28, 2^30, f32 and f64, uniform data, min and median of
#    50 CUDA-event runs: ours (`bin/reduce exact`: the correctly rounded sum, and stage 8's plain
#    sum on the same buffer), CUB 3.5 DeviceReduce::Sum at not_guaranteed / run_to_run /
#    gpu_to_gpu (cuda/cub_determinism.cu, built here with nvcc -arch=sm_90 against the headers of
#    cccl.tar.xz, unpacked into OUTDIR/cccl), and
#    torch.sum (python/exact_torch.py).
#    The same invocations sweep the policy knobs (`--policy`, record kind exact_policy, table
#    "Policy sweep"): the fast-path kernels (fast_f32/fast_f64), the block merge (block_merge),
#    blocks per SM, block size and min_tiles (fewer, wider blocks at small N), each checked
#    against the default's bits.
# 2. Accuracy at N = 2^22 on the same data (uniform and the adversarial families: cancellation,
#    binades, subnormals, ties): every implementation's result in ulps from the correctly
#    rounded sum, which three implementations agree on (the kernels, the Rust host reference,
#    Python integers; math.fsum too for f64).
# 3. Reproducibility: `reduce exact --repro` (fast path × block merge, each off/on × grids 1, 7,
#    132, default, max × blocks 256, 512 × input offsets 0-3) on uniform and adversarial data.
# 4. The exact sums' GPU tests (bin/gpu-tests exact).
# Writes OUTDIR/exact.jsonl and OUTDIR/exact.md; logs in OUTDIR/logs/. Exit status non-zero if
# anything failed. EXPS (the sizes of step 1, powers of two) and SWEEP_POLICIES (the policies of
# the sweep, separated by ';') may be set in the environment (benches/s15-exact-on-gpu.sh does).
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results}}"
mkdir -p "$OUT/logs"
J="$OUT/exact.jsonl"
: > "$J"
R="$HERE/bin/reduce"
EXPS="${EXPS:-12 16 20 24 28 30}"
status=0
start=$(date +%s)

# CUB first (the compile takes ~40 s; it runs in the background while ours is timed).
NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
CUB="$OUT/cub_determinism"
mkdir -p "$OUT/cccl" && tar xJf "$HERE/cccl.tar.xz" -C "$OUT/cccl" 2>> "$OUT/logs/nvcc.log" \
    || echo "no cccl.tar.xz (run .ci/fetch-cccl.sh before cargo xtask bundle): CUB will not build" >&2
( [ -n "$NVCC" ] && "$NVCC" -O3 -arch="${NVCC_ARCH:-sm_90}" -std=c++17 -I"$OUT/cccl" \
    -o "$CUB" "$HERE/cuda/cub_determinism.cu" > "$OUT/logs/nvcc.log" 2>&1 ) &
NVCC_PID=$!

# 1. Ours, timing (uniform; the host reference only up to 2^28 to keep the run short — 2^30 is
#    checked by the GPU tests), and the policy sweep on the same buffer.
SWEEP=""
F="fast_f32=1,fast_f64=1"
if [ -n "${SWEEP_POLICIES:-}" ]; then
    IFS=';' read -r -a POLICIES <<< "$SWEEP_POLICIES"
else
    # The default's own settings through `--policy` first (a control for the policy path), then
    # one knob at a time away from the default (lean publish, fast f32 path, 3 blocks per SM).
    POLICIES=("lean_finish=1" "fast_f32=0,fast_f64=0" "$F" "lean_finish=0"
        "lean_finish=0,block_merge=1" "blocks_per_sm=2" "blocks_per_sm=4"
        "block=512,blocks_per_sm=2" "min_tiles=4" "warm_round=1" "warp_finish=1" "int_finish=1")
fi
for p in "${POLICIES[@]}"; do
    SWEEP="$SWEEP --policy $p"
done
for ty in f32 f64; do
    for e in $EXPS; do
        ref=""; [ "$e" -ge 30 ] && ref="--no-reference"
        "$R" --backend gpu exact --n $((1 << e)) --type $ty --data uniform --runs 50 $ref $SWEEP \
            --format json >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours $ty 2^$e failed" >&2; status=1; }
    done
done
echo "ours: timed ($(( $(date +%s) - start )) s)" >&2

wait $NVCC_PID || true
[ -x "$CUB" ] || { echo "nvcc failed (logs/nvcc.log): no CUB rows" >&2; status=1; }
for ty in f32 f64; do
    [ -x "$CUB" ] && { "$CUB" time $ty $EXPS >> "$J" 2>> "$OUT/logs/cub.log" || status=1; }
    python3 "$HERE/python/exact_torch.py" time $ty $EXPS >> "$J" 2>> "$OUT/logs/torch.log" || status=1
done
echo "cub, torch: timed ($(( $(date +%s) - start )) s)" >&2

# 2. Accuracy on the same data (2^22 elements saved by ours, read by CUB and Python).
specs=""
for ty in f32 f64; do
    for d in uniform cancellation binades subnormals ties; do
        f="$OUT/in-$ty-$d.bin"
        "$R" --backend gpu exact --n $((1 << 22)) --type $ty --data $d --runs 0 --save-input "$f" \
            --format json >> "$J" 2>> "$OUT/logs/ours.log" || status=1
        [ -x "$CUB" ] && { "$CUB" file $ty "$f" $d >> "$J" 2>> "$OUT/logs/cub.log" || status=1; }
        specs="$specs $ty:$d:$f"
    done
done
python3 "$HERE/python/exact_torch.py" file $specs >> "$J" 2>> "$OUT/logs/torch.log" || status=1
rm -f "$OUT"/in-*.bin
echo "accuracy: done ($(( $(date +%s) - start )) s)" >&2

# 3. Reproducibility matrix.
for ty in f32 f64; do
    for d in uniform binades; do
        "$R" --backend gpu exact --n $(((1 << 22) + 3)) --type $ty --data $d --runs 0 --repro \
            --format json >> "$J" 2>> "$OUT/logs/ours.log" || { echo "repro $ty $d FAILED" >&2; status=1; }
    done
done
echo "reproducibility: done ($(( $(date +%s) - start )) s)" >&2

python3 "$HERE/python/exact_report.py" "$OUT" > /dev/null || { echo "report: a check failed (see exact.md)" >&2; status=1; }

# 4. The exact sums' GPU tests.
if [ -x "$HERE/bin/gpu-tests" ]; then
    "$HERE/bin/gpu-tests" exact > "$OUT/exact-gpu-tests.txt" 2>&1 || { echo "exact GPU tests FAILED" >&2; status=1; }
    tail -3 "$OUT/exact-gpu-tests.txt" >&2
fi
echo "total $(( $(date +%s) - start )) s" >&2
exit $status
