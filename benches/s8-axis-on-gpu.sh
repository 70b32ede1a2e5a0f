#!/usr/bin/env bash
# Session 8, issue #13: the official axis table with session 8's defaults, and the column
# candidates that chose them, in ONE device call (run from the bundle made by `cargo xtask
# bundle`):
#
#     bash s8-axis-on-gpu.sh OUTDIR
#
# Session 8 ran it twice (benches/results/h200-2026-12-01-s8/PROVENANCE.md). Call 2's defaults:
# unsplit column plans (16 x 2^24, 256 x 2^20) run AxisColumnsShort16 on 3 blocks per SM
# (`wide_col_short_rows=16`, `wide_col_blocks_per_sm=3`: kept); narrow matrices of 1, 2, 4, ...,
# 32 whole vectors per row (2^20 x 16) ran the flat one-launch kernel AxisColumnsFlat on 6 blocks
# per SM (`col_once_flat=1`: lost, the default is the tile kernel on 2 blocks per SM again — run
# now, step 1 measures that and step 2 still compares both).
#
# 1. The official table, as s7b-axis-on-gpu.sh: the six shapes of the issue, both axes, f32 sum
#    of ones; max f32 on both axes and sum f64 on rows per shape; the ragged segments (2,000,
#    log-uniform lengths in 1..2^20); CUB DeviceSegmentedReduce, the read-only roof
#    (cuda/cub_segmented.cu, nvcc -arch=sm_90), torch sum(dim=1/0) (python/axis_torch.py); min /
#    median of 50 CUDA-event runs: OUTDIR/axis.jsonl, OUTDIR/axis.md, OUTDIR/axis_bandwidth.png.
# 2. The column candidates on the shapes they touch, the default first and last (each policy on
#    the same input, step 1's baselines): OUTDIR/s8-axis.jsonl, OUTDIR/s8-axis.md.
#      2^20 x 16:            the flat kernel on 4 and 8 blocks per SM; the tile kernel
#                            (col_once_flat=0: AxisColumnsOnce, 4 and 2 blocks per SM); sum and
#                            max (OUTDIR/s8-axis-max.jsonl).
#      16 x 2^24, 256 x 2^20: the plain kernel (wide_col_short_rows=0), 2 blocks per SM; sum
#                            and, on 16 x 2^24, max (the short kernel's float min/max need 109
#                            registers, ptxas 12.9: 2 blocks per SM, not 3).
# 3. The GPU tests of the column paths (bin/gpu-tests axis_column_candidates,
#    axis_rows_cols_segments_every_op_and_type) and compute-sanitizer memcheck / racecheck on
#    small runs of the new defaults and the new candidate.
# About 90 s of GPU time (this script's first version, session 8 call 1: 74 s).
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results}}"
mkdir -p "$OUT/logs"
J="$OUT/axis.jsonl"
CJ="$OUT/s8-axis.jsonl"
: > "$J"
: > "$CJ"
SHAPES="1048576:16 65536:1024 4096:16384 256:1048576 16:16777216 16384:16384"
R="$HERE/bin/reduce"
RUNS=50
status=0
t0=$(date +%s)

# The CUB baseline builds in the background while ours runs.
NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
if [ -n "$NVCC" ]; then
    ( "$NVCC" -O3 -arch="${NVCC_ARCH:-sm_90}" -std=c++17 -o "$OUT/cub_segmented" \
        "$HERE/cuda/cub_segmented.cu" ) > "$OUT/logs/nvcc.log" 2>&1 &
fi

# 1. The official table, the new defaults.
for s in $SHAPES; do
    r="${s%%:*}"; c="${s##*:}"
    for axis in rows cols; do
        "$R" --backend gpu axis --rows "$r" --cols "$c" --axis "$axis" --runs $RUNS --format json \
            >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours $axis $r x $c failed" >&2; status=1; }
        "$R" --backend gpu axis --rows "$r" --cols "$c" --axis "$axis" --op max --runs $RUNS --format json \
            >> "$J" 2>> "$OUT/logs/ours.log" || status=1
    done
    "$R" --backend gpu axis --rows "$r" --cols "$c" --axis rows --type f64 --runs $RUNS --format json \
        >> "$J" 2>> "$OUT/logs/ours.log" || status=1
done
"$R" --backend gpu axis --axis segments --segments 2000 --max-len 1048576 --seed 42 --runs $RUNS \
    --format json >> "$J" 2>> "$OUT/logs/ours.log" || status=1
echo "ours (defaults): done ($(( $(date +%s) - t0 )) s)" >&2

# 2. The candidates, default first and last.
candidates() { # op rows cols policies...
    local op="$1" r="$2" c="$3"; shift 3
    local to="$CJ"; [ "$op" = sum ] || to="$OUT/s8-axis-$op.jsonl"
    local args=(--policy "")
    for p in "$@"; do args+=(--policy "$p"); done
    args+=(--policy "")
    "$R" --backend gpu axis --rows "$r" --cols "$c" --axis cols --op "$op" --runs $RUNS --format json \
        "${args[@]}" >> "$to" 2>> "$OUT/logs/candidates.log" \
        || { echo "candidates cols $r x $c failed" >&2; status=1; }
}
for op in sum max; do
    candidates $op 1048576 16 "col_flat_blocks_per_sm=4" "col_flat_blocks_per_sm=8" \
        "col_once_flat=0" "col_once_flat=0,col_once_blocks_per_sm=2"
done
candidates sum 16 16777216 "wide_col_short_rows=0" "wide_col_blocks_per_sm=2"
candidates max 16 16777216 "wide_col_short_rows=0" "wide_col_blocks_per_sm=2"
candidates sum 256 1048576 "wide_col_short_rows=0" "wide_col_blocks_per_sm=2"
echo "ours (candidates): done ($(( $(date +%s) - t0 )) s)" >&2

wait
if [ -x "$OUT/cub_segmented" ]; then
    for s in $SHAPES; do
        "$OUT/cub_segmented" rows "${s%%:*}" "${s##*:}" >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    done
    "$OUT/cub_segmented" ragged 2000 1048576 42 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    rm -f "$OUT/cub_segmented"
    echo "cub: done ($(( $(date +%s) - t0 )) s)" >&2
else
    echo "nvcc missing or failed (see logs/nvcc.log): no CUB / roof rows" >&2
    status=1
fi
python3 "$HERE/python/axis_torch.py" $(echo $SHAPES | tr ':' ' ') >> "$J" 2>> "$OUT/logs/torch.log" \
    || { echo "torch baseline failed (logs/torch.log)" >&2; status=1; }
echo "torch: done ($(( $(date +%s) - t0 )) s)" >&2
python3 "$HERE/python/axis_report.py" "$OUT" || status=1
cat "$OUT/axis.md" 2>/dev/null
# The candidates' table reads the same call's baselines (the records with an "impl").
grep '"impl"' "$J" >> "$CJ"
python3 "$HERE/python/s7_axis_report.py" "$CJ" > "$OUT/s8-axis.md" || status=1
cat "$OUT/s8-axis.md"
# The max candidates against the roof only (torch and CUB were timed on sums).
grep 'read_roof' "$J" >> "$OUT/s8-axis-max.jsonl"
python3 "$HERE/python/s7_axis_report.py" "$OUT/s8-axis-max.jsonl" > "$OUT/s8-axis-max.md" || status=1
cat "$OUT/s8-axis-max.md"

# 3. Correctness on the GPU: the column paths' tests and compute-sanitizer on small runs.
if [ -x "$HERE/bin/gpu-tests" ]; then
    for t in axis_column_candidates axis_rows_cols_segments_every_op_and_type; do
        "$HERE/bin/gpu-tests" "$t" >> "$OUT/s8-axis-gpu-tests.txt" 2>&1 || { echo "GPU tests $t FAILED" >&2; status=1; }
    done
    grep "test result" "$OUT/s8-axis-gpu-tests.txt" >&2
fi
if command -v compute-sanitizer > /dev/null 2>&1; then
    for tool in memcheck racecheck; do
        # Unsplit plans on the short kernel (one block per SM: 33,792 vector columns suffice):
        # 16 rows (all loaded at once), 23 rows (longer items), a scalar row (not whole vectors).
        for a in "--rows 16 --cols 135168 --axis cols --policy wide_col_blocks_per_sm=1" \
                 "--rows 23 --cols 135172 --axis cols --policy wide_col_blocks_per_sm=1" \
                 "--rows 5 --cols 135171 --axis cols --policy wide_col_blocks_per_sm=1" \
                 "--rows 20000 --cols 16 --axis cols --op max" \
                 "--rows 20001 --cols 12 --axis cols --policy col_once_unroll=8" \
                 "--rows 30001 --cols 128 --axis cols" \
                 "--rows 600 --cols 3000 --axis cols" \
                 "--rows 7 --cols 20001 --axis rows"; do
            compute-sanitizer --tool "$tool" --error-exitcode 9 "$R" --backend gpu axis $a --runs 0 \
                --data random >> "$OUT/s8-axis-sanitize-$tool.log" 2>&1 || { echo "$tool: $a FAILED" >&2; status=1; }
        done
        echo "$tool: $(grep -cE 'ERROR SUMMARY: 0|RACECHECK SUMMARY: 0' "$OUT/s8-axis-sanitize-$tool.log") clean runs of 8" >&2
    done
fi
echo "s8-axis: $(( $(date +%s) - t0 )) s" >&2
exit $status
