#!/usr/bin/env bash
# Session 7 round 2, issue #13: the official table with the NEW defaults (session 7's winners:
# row_unroll=8, long_row_blocks_per_sm=32, col_once_max_vcols=32, col_once_blocks_per_sm=2,
# finish_col_tile=16) against torch, CUB and the read-only roof, and the new column candidates,
# in ONE device call (run from the bundle made by `cargo xtask bundle`):
#
#     bash s7b-axis-on-gpu.sh OUTDIR
#
# 1. As axis-on-gpu.sh without its sweep: the six shapes of the issue, both axes, f32 sum of
#    ones; max f32 on both axes and sum f64 on rows per shape (the other ops/types rows); the
#    ragged segments (2,000, lengths log-uniform in 1..2^20); CUB DeviceSegmentedReduce over
#    the rows and the ragged segments, the read-only roof (cuda/cub_segmented.cu, nvcc
#    -arch=sm_90), torch sum(dim=1/0) (python/axis_torch.py); min / median of 50 CUDA-event
#    runs. OUTDIR/axis.jsonl, OUTDIR/axis.md (the table), OUTDIR/axis_bandwidth.png.
# 2. The column candidates on every column shape (and the old defaults on both axes, for the
#    gain), default first and last: OUTDIR/s7b-axis.jsonl and OUTDIR/s7b-axis.md (per shape each
#    policy's min / median, % of the read + write roof, vs default, torch/ours, CUB/ours; the
#    baselines are step 1's, same call). Candidates (`--policy` keys, host/src/axis_plan/):
#       col_vec_store=1          16-byte result stores (AxisColumnsVst)
#       col_short_rows=16        + items of <= 16 rows loaded at once (AxisColumnsShort16)
#       col_maxnreg=40           AxisColumnsVst and AxisColumnsOnce capped at 40 registers
#     each with the grids its register count allows (col_blocks_per_sm / col_once_blocks_per_sm).
# 3. The GPU tests of the new paths and of the new defaults (bin/gpu-tests
#    axis_column_candidates_agree, axis_rows_cols_segments_every_op_and_type:
#    OUTDIR/s7b-axis-gpu-tests.txt) and compute-sanitizer memcheck / racecheck on small runs of
#    the new kernels and the new defaults.
# About 130 s of GPU time (an estimate, not measured: s7-axis-on-gpu.sh took 75 s, of which 31 s
# its one GPU test; this one has the official table's 31 runs besides the candidates).
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results}}"
mkdir -p "$OUT/logs"
J="$OUT/axis.jsonl"
CJ="$OUT/s7b-axis.jsonl"
: > "$J"
: > "$CJ"
SHAPES="1048576:16 65536:1024 4096:16384 256:1048576 16:16777216 16384:16384"
R="$HERE/bin/reduce"
RUNS=50
status=0
t0=$(date +%s)

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

# 2. The candidates (columns) and the old defaults (both axes), default first and last.
OLD="row_unroll=4,long_row_blocks_per_sm=16,col_once_max_vcols=0,col_once_blocks_per_sm=0,finish_col_tile=0"
COLS="$OLD
col_vec_store=1
col_vec_store=1,col_blocks_per_sm=3
col_short_rows=16
col_short_rows=16,col_blocks_per_sm=3
col_short_rows=16,col_blocks_per_sm=2
col_maxnreg=40
col_maxnreg=40,col_blocks_per_sm=6
col_maxnreg=40,col_once_blocks_per_sm=4
col_maxnreg=40,col_once_blocks_per_sm=6
col_once_blocks_per_sm=4
col_once_blocks_per_sm=1"
for s in $SHAPES; do
    r="${s%%:*}"; c="${s##*:}"
    for axis in rows cols; do
        list="$OLD"; [ "$axis" = cols ] && list="$COLS"
        args=(--policy "")
        while IFS= read -r p; do [ -n "$p" ] && args+=(--policy "$p"); done <<< "$list"
        args+=(--policy "")
        "$R" --backend gpu axis --rows "$r" --cols "$c" --axis "$axis" --runs $RUNS --format json \
            "${args[@]}" >> "$CJ" 2>> "$OUT/logs/candidates.log" || { echo "candidates $axis $r x $c failed" >&2; status=1; }
    done
done
echo "ours (candidates): done ($(( $(date +%s) - t0 )) s)" >&2

NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
if [ -n "$NVCC" ] && "$NVCC" -O3 -arch="${NVCC_ARCH:-sm_90}" -std=c++17 -o "$OUT/cub_segmented" \
        "$HERE/cuda/cub_segmented.cu" 2> "$OUT/logs/nvcc.log"; then
    for s in $SHAPES; do
        "$OUT/cub_segmented" rows "${s%%:*}" "${s##*:}" >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    done
    "$OUT/cub_segmented" ragged 2000 1048576 42 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
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
python3 "$HERE/python/s7_axis_report.py" "$CJ" > "$OUT/s7b-axis.md" || status=1
cat "$OUT/s7b-axis.md"

# 3. Correctness on the GPU: the new paths' tests and compute-sanitizer on small runs.
if [ -x "$HERE/bin/gpu-tests" ]; then
    for t in axis_column_candidates axis_rows_cols_segments_every_op_and_type; do
        "$HERE/bin/gpu-tests" "$t" >> "$OUT/s7b-axis-gpu-tests.txt" 2>&1 || { echo "GPU tests $t FAILED" >&2; status=1; }
    done
    grep "test result" "$OUT/s7b-axis-gpu-tests.txt" >&2
fi
if command -v compute-sanitizer > /dev/null 2>&1; then
    for tool in memcheck racecheck; do
        for a in "--rows 16 --cols 40000 --axis cols --policy col_short_rows=16" \
                 "--rows 23 --cols 3000 --axis cols --policy col_short_rows=16,min_piece_rows=3" \
                 "--rows 9 --cols 2060 --axis cols --policy col_vec_store=1" \
                 "--rows 16 --cols 40000 --axis cols --policy col_maxnreg=40" \
                 "--rows 20000 --cols 16 --axis cols --policy col_maxnreg=40" \
                 "--rows 20000 --cols 16 --axis cols" \
                 "--rows 600 --cols 3000 --axis cols" \
                 "--rows 7 --cols 20001 --axis rows"; do
            compute-sanitizer --tool "$tool" --error-exitcode 9 "$R" --backend gpu axis $a --runs 0 \
                --data random >> "$OUT/s7b-axis-sanitize-$tool.log" 2>&1 || { echo "$tool: $a FAILED" >&2; status=1; }
        done
        echo "$tool: $(grep -cE 'ERROR SUMMARY: 0|RACECHECK SUMMARY: 0' "$OUT/s7b-axis-sanitize-$tool.log") clean runs of 8" >&2
    done
fi
echo "s7b-axis: $(( $(date +%s) - t0 )) s" >&2
exit $status
