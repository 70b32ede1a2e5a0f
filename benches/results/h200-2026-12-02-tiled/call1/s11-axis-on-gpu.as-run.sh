#!/usr/bin/env bash
# Session 11, issue #13: the official axis table with the defaults of the build, and the
# candidates around this session's two changes, in ONE device call (run from the bundle made by
# `cargo xtask bundle`):
#
#     bash s11-axis-on-gpu.sh OUTDIR
#
# Session 10's misses and near-misses (benches/results/h200-2026-12-02-s10/call4): columns of
# 2^20 x 16 at 84-86% of the read-only roof, 2^16 x 1024 and 2^12 x 2^14 at 86% (target 85%).
# This session's changes:
#   * the split column plans (too few column tiles for the grid) run in ONE launch,
#     `AxisColumnsTiled`: a ticket per tile, the block finishing a tile's last piece folds its
#     partials (`col_ticket=1`, tiles of at most `col_ticket_tile=64` vector columns) -- where
#     session 10 ran the plain kernel and a second, finishing launch (`col_ticket=0`);
#   * the one-launch column kernels' ticket lost its per-writer `fence.sc.gpu` (the block
#     barrier and thread 0's release atomic order every writer's partials), so the flat kernel of
#     2^20 x 16 is timed against session 10's PTX (`ptx/s10.ptx`, loaded with `--ptx`; rows
#     labelled `[s10 PTX]`).
#
# 1. The official table (as s9-axis-on-gpu.sh): the six shapes of the issue, both axes, f32 sum
#    of ones; max f32 on both axes and sum f64 on rows per shape; the ragged segments; CUB
#    DeviceSegmentedReduce and the read-only roof (cuda/cub_segmented.cu), torch sum(dim=1/0);
#    min / median of 50 CUDA-event runs: OUTDIR/axis.jsonl, OUTDIR/axis.md,
#    OUTDIR/axis_bandwidth.png.
# 2. The candidates on the shapes they touch, the default first and last: OUTDIR/s11-axis.jsonl,
#    OUTDIR/s11-axis.md (sum), OUTDIR/s11-axis-max.md (max, against the roof only).
# 3. The GPU tests of the axis paths and compute-sanitizer memcheck / racecheck on small runs of
#    the defaults (the tiled kernel on vector and scalar rows) and the candidates.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results}}"
mkdir -p "$OUT/logs"
J="$OUT/axis.jsonl"
CJ="$OUT/s11-axis.jsonl"
: > "$J"
: > "$CJ"
SHAPES="${SHAPES:-1048576:16 65536:1024 4096:16384 256:1048576 16:16777216 16384:16384}"
QUICK="${QUICK:-0}"
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
[ "$QUICK" = 1 ] || "$R" --backend gpu axis --axis segments --segments 2000 --max-len 1048576 --seed 42 --runs $RUNS \
    --format json >> "$J" 2>> "$OUT/logs/ours.log" || status=1
echo "ours (defaults): done ($(( $(date +%s) - t0 )) s)" >&2

# 2. The candidates, default first and last.
candidates() { # axis op rows cols policies...
    local axis="$1" op="$2" r="$3" c="$4"; shift 4
    local to="$CJ"; [ "$op" = sum ] || to="$OUT/s11-axis-$op.jsonl"
    local args=(--policy "")
    for p in "$@"; do args+=(--policy "$p"); done
    args+=(--policy "")
    "$R" --backend gpu axis --rows "$r" --cols "$c" --axis "$axis" --op "$op" --runs $RUNS --format json \
        "${args[@]}" >> "$to" 2>> "$OUT/logs/candidates.log" \
        || { echo "candidates $axis $r x $c failed" >&2; status=1; }
}
for op in sum max; do
    candidates cols $op 1048576 16 "col_flat_unroll=8,col_flat_blocks_per_sm=2"
    candidates cols $op 65536 1024 "col_ticket=0" "col_ticket_tile=16" "col_ticket_tile=8"
    candidates cols $op 4096 16384 "col_ticket=0" "col_ticket_tile=32" "col_ticket_tile=128" "col_ticket_tile=256"
    candidates cols $op 16384 16384 "col_ticket=0" "col_ticket_tile=32"
done
# Session 10's PTX (the per-writer fence, no tiled kernel) on the flat kernel's shape.
if [ -f "$HERE/ptx/s10.ptx" ]; then
    for op in sum max; do
        to="$CJ"; [ "$op" = sum ] || to="$OUT/s11-axis-$op.jsonl"
        "$R" --ptx "$HERE/ptx/s10.ptx" --backend gpu axis --rows 1048576 --cols 16 --axis cols --op "$op" \
            --runs $RUNS --format json --policy "" --policy "col_flat_unroll=8,col_flat_blocks_per_sm=2" \
            2>> "$OUT/logs/candidates.log" | sed 's/"policy":"/"policy":"[s10 PTX] /' >> "$to" || status=1
        "$R" --backend gpu axis --rows 1048576 --cols 16 --axis cols --op "$op" --runs $RUNS --format json \
            --policy "" >> "$to" 2>> "$OUT/logs/candidates.log" || status=1
    done
fi
echo "ours (candidates): done ($(( $(date +%s) - t0 )) s)" >&2

wait
if [ -x "$OUT/cub_segmented" ]; then
    for s in $SHAPES; do
        "$OUT/cub_segmented" rows "${s%%:*}" "${s##*:}" >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    done
    [ "$QUICK" = 1 ] || "$OUT/cub_segmented" ragged 2000 1048576 42 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
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
python3 "$HERE/python/s7_axis_report.py" "$CJ" > "$OUT/s11-axis.md" || status=1
cat "$OUT/s11-axis.md"
# The max candidates against the roof only (torch and CUB were timed on sums).
grep 'read_roof' "$J" >> "$OUT/s11-axis-max.jsonl"
python3 "$HERE/python/s7_axis_report.py" "$OUT/s11-axis-max.jsonl" > "$OUT/s11-axis-max.md" || status=1
cat "$OUT/s11-axis-max.md"

# 3. Correctness on the GPU: the column paths' tests and compute-sanitizer on small runs.
if [ "$QUICK" != 1 ] && [ -x "$HERE/bin/gpu-tests" ]; then
    for t in axis_column_candidates axis_rows_cols_segments_every_op_and_type axis_tuned_policies; do
        "$HERE/bin/gpu-tests" "$t" >> "$OUT/s11-axis-gpu-tests.txt" 2>&1 || { echo "GPU tests $t FAILED" >&2; status=1; }
    done
    grep "test result" "$OUT/s11-axis-gpu-tests.txt" >&2
fi
if [ "$QUICK" != 1 ] && command -v compute-sanitizer > /dev/null 2>&1; then
    for tool in memcheck racecheck; do
        # Unsplit plans on the short kernel (one block per SM: 33,792 vector columns suffice):
        # 16 rows (all loaded at once), 23 rows (longer items), a scalar row (not whole vectors).
        for a in "--rows 16 --cols 135168 --axis cols --policy wide_col_blocks_per_sm=1" \
                 "--rows 23 --cols 135172 --axis cols --policy wide_col_blocks_per_sm=1" \
                 "--rows 5 --cols 135171 --axis cols --policy wide_col_blocks_per_sm=1" \
                 "--rows 20000 --cols 16 --axis cols --op max" \
                 "--rows 20001 --cols 12 --axis cols --policy col_once_blocks_per_sm=1" \
                 "--rows 30001 --cols 128 --axis cols" \
                 "--rows 600 --cols 3000 --axis cols" \
                 "--rows 4001 --cols 1001 --axis cols --op min" \
                 "--rows 7 --cols 20001 --axis rows" \
                 "--rows 20000 --cols 16 --axis cols --policy col_flat_unroll=8,col_flat_fine=0" \
                 "--rows 301 --cols 20001 --axis rows --type f64"; do
            compute-sanitizer --tool "$tool" --error-exitcode 9 "$R" --backend gpu axis $a --runs 0 \
                --data random >> "$OUT/s11-axis-sanitize-$tool.log" 2>&1 || { echo "$tool: $a FAILED" >&2; status=1; }
        done
        echo "$tool: $(grep -cE 'ERROR SUMMARY: 0|RACECHECK SUMMARY: 0' "$OUT/s11-axis-sanitize-$tool.log") clean runs of 11" >&2
    done
fi
echo "s11-axis: $(( $(date +%s) - t0 )) s" >&2
exit $status
