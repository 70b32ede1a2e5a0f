#!/usr/bin/env bash
# The benchmark of issue #13 (reductions along an axis and over segments), for the bundle made by
# `cargo xtask bundle` (which copies this script next to bin/reduce, cuda/ and python/):
#
#     bash axis-on-gpu.sh OUTDIR
#
# For the six shapes of the issue and both axes (f32 sum, ones): ours (`bin/reduce axis`), torch
# `sum(dim=1)`/`sum(dim=0)` (python/axis_torch.py), CUB DeviceSegmentedReduce::Sum over the rows
# and a read-only kernel on the same bytes (cuda/cub_segmented.cu, built here with nvcc
# -arch=sm_90); ragged segments (lengths log-uniform in 1..2^20), ours vs CUB; one max f32 and
# one sum f64 per shape. Minimum and median of 50 CUDA-event runs. Writes OUTDIR/axis.jsonl,
# OUTDIR/axis.md (the table) and OUTDIR/axis_bandwidth.png; logs in OUTDIR/logs/. Then the axis
# GPU tests (OUTDIR/axis-gpu-tests.txt) and compute-sanitizer memcheck/racecheck on small runs
# (OUTDIR/axis-sanitize-*.log). Exit status non-zero if anything failed.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results}}"
mkdir -p "$OUT/logs"
J="$OUT/axis.jsonl"
: > "$J"
SHAPES="1048576:16 65536:1024 4096:16384 256:1048576 16:16777216 16384:16384"
R="$HERE/bin/reduce"
status=0
for s in $SHAPES; do
    r="${s%%:*}"; c="${s##*:}"
    for axis in rows cols; do
        "$R" --backend gpu axis --rows "$r" --cols "$c" --axis "$axis" --runs 50 --format json \
            >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours $axis $r x $c failed" >&2; status=1; }
    done
    "$R" --backend gpu axis --rows "$r" --cols "$c" --axis rows --op max --runs 50 --format json >> "$J" 2>> "$OUT/logs/ours.log" || status=1
    "$R" --backend gpu axis --rows "$r" --cols "$c" --axis cols --op max --runs 50 --format json >> "$J" 2>> "$OUT/logs/ours.log" || status=1
    "$R" --backend gpu axis --rows "$r" --cols "$c" --axis rows --type f64 --runs 50 --format json >> "$J" 2>> "$OUT/logs/ours.log" || status=1
done
"$R" --backend gpu axis --axis segments --segments 2000 --max-len 1048576 --seed 42 --runs 50 --format json \
    >> "$J" 2>> "$OUT/logs/ours.log" || status=1
echo "ours: done" >&2

# The policy sweep. Columns: the 8-deep column kernel (col_unroll=8: 70 registers, so 3 blocks
# per SM fit, against 4 of the 4-deep one's 62), the grid and the split. Rows: the grid of
# block-per-row launches, where a row gets a block, and the split of few long rows.
SWEEP_COLS="col_unroll=8 col_unroll=8,col_blocks_per_sm=3 col_blocks_per_sm=3 col_blocks_per_sm=2
col_unroll=8,col_blocks_per_sm=2 min_piece_rows=256 col_unroll=8,min_piece_rows=256
max_col_parts=132 col_unroll=8,col_blocks_per_sm=3,max_col_parts=264 col_tile=128
col_unroll=8,col_tile=128 min_col_tiles=32 col_unroll=8,min_col_tiles=32"
SWEEP_ROWS="long_row_blocks_per_sm=6 long_row_blocks_per_sm=8 long_row_blocks_per_sm=24
long_row_blocks_per_sm=32 block_run=4096 block_run=16384 block_run=32768 min_piece=65536
blocks_per_sm=8 vectors_per_lane=8 vectors_per_lane=2"
SJ="$OUT/axis-sweep.jsonl"
: > "$SJ"
for s in $SHAPES; do
    r="${s%%:*}"; c="${s##*:}"
    for axis in rows cols; do
        grid="$SWEEP_ROWS"; [ "$axis" = cols ] && grid="$SWEEP_COLS"
        args=(--policy "")
        for p in $grid; do args+=(--policy "$p"); done
        args+=(--policy "")  # the default again last: the spread of the two is the noise
        "$R" --backend gpu axis --rows "$r" --cols "$c" --axis "$axis" --runs 50 --format json \
            "${args[@]}" >> "$SJ" 2>> "$OUT/logs/sweep.log" || { echo "sweep $axis $r x $c failed" >&2; status=1; }
    done
done
echo "sweep: done" >&2

NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
if [ -n "$NVCC" ] && "$NVCC" -O3 -arch="${NVCC_ARCH:-sm_90}" -std=c++17 -o "$OUT/cub_segmented" \
        "$HERE/cuda/cub_segmented.cu" 2> "$OUT/logs/nvcc.log"; then
    for s in $SHAPES; do
        "$OUT/cub_segmented" rows "${s%%:*}" "${s##*:}" >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    done
    "$OUT/cub_segmented" ragged 2000 1048576 42 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    echo "cub: done" >&2
else
    echo "nvcc missing or failed (see logs/nvcc.log): no CUB / roof rows" >&2
    status=1
fi
python3 "$HERE/python/axis_torch.py" $(echo $SHAPES | tr ':' ' ') >> "$J" 2>> "$OUT/logs/torch.log" \
    || { echo "torch baseline failed (logs/torch.log)" >&2; status=1; }
python3 "$HERE/python/axis_report.py" "$OUT" || status=1
python3 "$HERE/python/axis_sweep.py" "$OUT" || status=1

# Correctness on the GPU: the axis GPU tests (bin/gpu-tests, filtered), and compute-sanitizer's
# memcheck and racecheck over small rows / cols / segments runs (every kernel shape: sub-warp,
# block, split, vector and scalar columns, and columns of a single row lane: no barrier).
if [ -x "$HERE/bin/gpu-tests" ]; then
    "$HERE/bin/gpu-tests" axis > "$OUT/axis-gpu-tests.txt" 2>&1 || { echo "axis GPU tests FAILED" >&2; status=1; }
    tail -3 "$OUT/axis-gpu-tests.txt" >&2
fi
if command -v compute-sanitizer > /dev/null 2>&1; then
    for tool in memcheck racecheck; do
        for a in "--rows 37 --cols 301 --axis rows" "--rows 3 --cols 70001 --axis rows" \
                 "--rows 301 --cols 37 --axis cols" "--rows 20000 --cols 8 --axis cols" \
                 "--rows 5 --cols 8195 --axis cols" "--rows 3 --cols 8192 --axis cols" \
                 "--axis segments --segments 50 --max-len 100000" \
                 "--rows 20000 --cols 8 --axis cols --policy col_unroll=8" \
                 "--rows 5 --cols 8195 --axis cols --policy col_unroll=8"; do
            compute-sanitizer --tool "$tool" --error-exitcode 9 "$R" --backend gpu axis $a --runs 0 \
                --data random >> "$OUT/axis-sanitize-$tool.log" 2>&1 || { echo "$tool: $a FAILED" >&2; status=1; }
        done
        echo "$tool: $(grep -cE 'ERROR SUMMARY: 0|RACECHECK SUMMARY: 0' "$OUT/axis-sanitize-$tool.log") clean runs of 9" >&2
    done
fi
exit $status
