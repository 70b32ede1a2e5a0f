#!/usr/bin/env bash
# Session 7, issue #13: the column/row variants against the default, torch and CUB, in ONE device
# call (run from the bundle made by `cargo xtask bundle`, next to bin/reduce, cuda/ and python/):
#
#     bash s7-axis-on-gpu.sh OUTDIR
#
# For the six shapes of the issue and both axes (f32 sum of ones), one `bin/reduce axis` call per
# shape and axis times the default policy (first AND last: their spread is the noise) and every
# variant below, 50 CUDA-event runs each (min and median); then CUB DeviceSegmentedReduce over the
# rows and the read-only roof (cuda/cub_segmented.cu, nvcc -arch=sm_90) and torch sum(dim=1/0)
# (python/axis_torch.py), 50 runs each. Writes OUTDIR/s7-axis.jsonl and OUTDIR/s7-axis.md (per
# shape: each variant's min / median, % of the roof on read + written bytes, ratio to the default,
# to torch and to CUB), then the new axis GPU test (axis_one_launch_columns_and_finishing_tiles:
# OUTDIR/s7-axis-gpu-tests.txt) and compute-sanitizer memcheck / racecheck on small runs of the
# new kernels. About 120 s of GPU time (an estimate from the s5 axis step's 101 s, not yet
# measured).
#
# Variants (all `--policy` settings of host/src/axis_plan/settings.rs):
#   columns, hypothesis 1 — one launch for narrow matrices (AxisColumnsOnce, the last block
#     finishes; rows of 1..32 vectors in one tile get a compile-time width, so the 4 loads of a
#     thread are in flight together; 63 registers for f32 sum: 4 blocks of 256 per SM):
#       col_once_max_vcols=256                      (grid: col_blocks_per_sm = 4 per SM)
#       col_once_max_vcols=256,col_once_blocks_per_sm=3 | =2 | =8 (8: 2 waves)
#       col_once_max_vcols=256,min_col_tiles=1      (2^16 x 1024: one 256-wide tile, no fold)
#       col_once_max_vcols=256,min_piece_rows=4096  (2^20 x 16: 256 blocks, fewer partials)
#   columns, hypothesis 2 — the split's finishing pass with its own, narrower tile (more blocks):
#       finish_col_tile=8 | 16 | 32 | 64 (2^12 x 2^14: 16 finishing blocks of 256-wide tiles
#       by default; 32 gives 128 blocks of 8 row lanes)
#   rows, hypothesis 3 — bytes in flight for a block per row: the deeper row kernel
#     (AxisRowsDeep, 8 loads in flight per lane) with the grid of the default (16 blocks per SM)
#     and others; the s5 sweep's best grids per shape; one block per row (64 per SM: a grid as
#     large as the rows, as CUB launches):
#       row_unroll=8,  row_unroll=8,long_row_blocks_per_sm=4 | 8 | 32
#       long_row_blocks_per_sm=6 | 32 | 64
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results}}"
mkdir -p "$OUT/logs"
J="$OUT/s7-axis.jsonl"
: > "$J"
SHAPES="1048576:16 65536:1024 4096:16384 256:1048576 16:16777216 16384:16384"
R="$HERE/bin/reduce"
RUNS=50
status=0
t0=$(date +%s)

COLS="col_once_max_vcols=256
col_once_max_vcols=256,col_once_blocks_per_sm=3
col_once_max_vcols=256,col_once_blocks_per_sm=2
col_once_max_vcols=256,col_once_blocks_per_sm=8
col_once_max_vcols=256,min_col_tiles=1
col_once_max_vcols=256,min_piece_rows=4096
finish_col_tile=8
finish_col_tile=32
finish_col_tile=64
finish_col_tile=16"
ROWS="row_unroll=8
row_unroll=8,long_row_blocks_per_sm=4
row_unroll=8,long_row_blocks_per_sm=8
row_unroll=8,long_row_blocks_per_sm=32
long_row_blocks_per_sm=6
long_row_blocks_per_sm=32
long_row_blocks_per_sm=64"

for s in $SHAPES; do
    r="${s%%:*}"; c="${s##*:}"
    for axis in rows cols; do
        list="$ROWS"; [ "$axis" = cols ] && list="$COLS"
        args=(--policy "")
        while IFS= read -r p; do [ -n "$p" ] && args+=(--policy "$p"); done <<< "$list"
        args+=(--policy "")  # the default again, last
        "$R" --backend gpu axis --rows "$r" --cols "$c" --axis "$axis" --runs "$RUNS" --format json \
            "${args[@]}" >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours $axis $r x $c failed" >&2; status=1; }
    done
done
echo "ours: done ($(( $(date +%s) - t0 )) s)" >&2

NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
if [ -n "$NVCC" ] && "$NVCC" -O3 -arch="${NVCC_ARCH:-sm_90}" -std=c++17 -o "$OUT/cub_segmented" \
        "$HERE/cuda/cub_segmented.cu" 2> "$OUT/logs/nvcc.log"; then
    for s in $SHAPES; do
        "$OUT/cub_segmented" rows "${s%%:*}" "${s##*:}" >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    done
    echo "cub: done ($(( $(date +%s) - t0 )) s)" >&2
else
    echo "nvcc missing or failed (see logs/nvcc.log): no CUB / roof rows" >&2
    status=1
fi
python3 "$HERE/python/axis_torch.py" $(echo $SHAPES | tr ':' ' ') >> "$J" 2>> "$OUT/logs/torch.log" \
    || { echo "torch baseline failed (logs/torch.log)" >&2; status=1; }
echo "torch: done ($(( $(date +%s) - t0 )) s)" >&2
python3 "$HERE/python/s7_axis_report.py" "$J" > "$OUT/s7-axis.md" || status=1
cat "$OUT/s7-axis.md"

# Correctness on the GPU: the new axis GPU test (the one-launch kernel, the narrower finishing
# tiles, the deep row kernel), and compute-sanitizer on small runs of the new paths.
if [ -x "$HERE/bin/gpu-tests" ]; then
    "$HERE/bin/gpu-tests" axis_one_launch > "$OUT/s7-axis-gpu-tests.txt" 2>&1 || { echo "axis GPU tests FAILED" >&2; status=1; }
    tail -3 "$OUT/s7-axis-gpu-tests.txt" >&2
fi
if command -v compute-sanitizer > /dev/null 2>&1; then
    for tool in memcheck racecheck; do
        for a in "--rows 20000 --cols 16 --axis cols --policy col_once_max_vcols=256" \
                 "--rows 3001 --cols 7 --axis cols --policy col_once_max_vcols=256" \
                 "--rows 700 --cols 1024 --axis cols --policy col_once_max_vcols=256" \
                 "--rows 600 --cols 3000 --axis cols --policy finish_col_tile=8" \
                 "--rows 7 --cols 20001 --axis rows --policy row_unroll=8"; do
            compute-sanitizer --tool "$tool" --error-exitcode 9 "$R" --backend gpu axis $a --runs 0 \
                --data random >> "$OUT/s7-axis-sanitize-$tool.log" 2>&1 || { echo "$tool: $a FAILED" >&2; status=1; }
        done
        echo "$tool: $(grep -cE 'ERROR SUMMARY: 0|RACECHECK SUMMARY: 0' "$OUT/s7-axis-sanitize-$tool.log") clean runs of 5" >&2
    done
fi
echo "s7-axis: $(( $(date +%s) - t0 )) s" >&2
exit $status
