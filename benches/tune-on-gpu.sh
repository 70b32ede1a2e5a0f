#!/usr/bin/env bash
# The tuning sweep of issues #13 (axis) and #16 (host data), for the bundle made by
# `cargo xtask bundle` (which copies this script next to bin/reduce, cuda/ and python/):
#
#     bash tune-on-gpu.sh OUTDIR
#
# Runs a grid of candidate policies (`--policy key=value,...`, repeated: one process per case
# checks and times every policy on the same input) next to the baselines, in about 2 minutes on
# an H200 (every step has a timeout; the whole stays under 4 minutes):
#
#   axis   the six shapes of issue #13, both axes, f32 sum of ones (rows grid / cols grid), and the
#          ragged segments (2000, lengths log-uniform in 1..2^20, seed 42; segments grid): min
#          and median of 30 CUDA-event runs per policy. Baselines: torch sum(dim=1)/sum(dim=0)
#          (python/axis_torch.py), CUB DeviceSegmentedReduce::Sum over rows and segments and the
#          read-only roof kernel (cuda/cub_segmented.cu, built here with nvcc -arch=sm_90 while
#          ours runs).
#   host   the link (pinned cuMemcpyHtoD of 1 GiB), then N = 2^16, 2^22, 2^26, 2^28 f32 ones
#          from pageable memory (pageable grid: staging threads, chunk sizes, slots, in-place
#          registration) and from pinned memory (pinned grid: chunk sizes, chunk counts, the
#          zero-copy threshold); wall clock until the result is on the host. Baselines: torch
#          pageable / pin_memory and CuPy (python/host_stream.py baselines).
#
# Writes OUTDIR/tune.jsonl (every record: ours with "policy", the baselines with "impl"),
# OUTDIR/tune.md (per case: the default policy, the best policy and its time against the
# baselines and the roof or link) and OUTDIR/tune_best.jsonl (one line per case); logs in
# OUTDIR/logs/. Exit status non-zero if a step failed or a result was wrong.
#
# For a dry run elsewhere (the emulator, small sizes): TUNE_BACKEND=emu TUNE_SHAPES="R:C ..."
# TUNE_SEGMENTS=K:MAX TUNE_HOST_EXPS="E ..." TUNE_RUNS=N override the backend, the shapes, the
# ragged case, the host sizes and the timed runs.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results-tune}}"
mkdir -p "$OUT/logs"
J="$OUT/tune.jsonl"
: > "$J"
R="$HERE/bin/reduce"
status=0
T0=$(date +%s)
elapsed() { echo "$(( $(date +%s) - T0 )) s"; }

# CUB and the roof kernel compile while ours runs.
NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
nvcc_pid=
if [ -n "$NVCC" ]; then
    "$NVCC" -O3 -arch="${NVCC_ARCH:-sm_90}" -std=c++17 -o "$OUT/cub_segmented" \
        "$HERE/cuda/cub_segmented.cu" > "$OUT/logs/nvcc.log" 2>&1 &
    nvcc_pid=$!
else
    echo "nvcc not found: no CUB / roof rows" >&2
    status=1
fi

# ---- the grids (each list starts with the default policy, "") ----
rows_grid() {
    echo ""
    for bps in 4 6 8 16; do
        for br in 1024 2048 8192 32768 2^30; do
            for vpl in 2 4 8; do
                echo "blocks_per_sm=$bps,long_row_blocks_per_sm=0,block_run=$br,vectors_per_lane=$vpl"
            done
        done
    done
    for lbps in 6 8 12 24 32; do echo "long_row_blocks_per_sm=$lbps"; done
    for mp in 4096 65536 2^18; do echo "min_piece=$mp"; done
    for mp in 4096 65536; do echo "min_piece=$mp,long_row_blocks_per_sm=32"; done
    for w in 2 4; do echo "row_waves=$w"; echo "row_waves=$w,min_piece=4096"; done
}
cols_grid() {
    echo ""
    for cbps in 4 8; do
        for tile in 8 32 64 256; do
            for mpr in 16 64 256; do
                for fin in 0 32; do
                    echo "col_blocks_per_sm=$cbps,col_tile=$tile,min_col_tiles=1,min_piece_rows=$mpr,finish_piece_rows=$fin"
                done
            done
        done
    done
    for mct in 1 4 16 32; do echo "min_col_tiles=$mct"; echo "min_col_tiles=$mct,finish_piece_rows=32"; done
    for cbps in 2 4; do
        for mcp in 32 132 264 528; do
            echo "col_blocks_per_sm=$cbps,max_col_parts=$mcp"
            echo "col_blocks_per_sm=$cbps,max_col_parts=$mcp,finish_piece_rows=16"
        done
    done
}
segments_grid() {
    echo ""
    for sp in 2^12 2^13 2^14 2^16 2^18; do
        for vpl in 2 4 8; do
            for br in 2048 8192 2^15; do
                for bps in 6 8; do
                    echo "segment_piece=$sp,vectors_per_lane=$vpl,block_run=$br,segment_blocks_per_sm=$bps"
                done
            done
        done
    done
}
pageable_grid() {
    echo ""
    for th in 4 8 12 16; do
        for mc in 4M 16M 64M; do
            for sl in 3 4; do
                echo "copy_threads=$th,max_chunk_bytes=$mc,slots=$sl"
            done
        done
    done
    echo "register_min_bytes=0"
    for tc in 1 4 8; do echo "target_chunks=$tc"; done
}
pinned_grid() {
    echo ""
    for mc in 2M 4M 16M 64M; do
        for tc in 1 2 4 8 16; do
            echo "max_chunk_bytes=$mc,target_chunks=$tc,min_chunk_bytes=256K"
        done
    done
    for z in 0 16M 2^30; do echo "zero_copy_max_bytes=$z"; done
    for tc in 1 4 8; do echo "target_chunks=$tc"; done
}
policies() { # grid name -> --policy arguments in POL
    POL=()
    while IFS= read -r p; do POL+=(--policy "$p"); done < <("$1")
}

# ---- axis: ours ----
B="${TUNE_BACKEND:-gpu}"
SHAPES="${TUNE_SHAPES:-1048576:16 65536:1024 4096:16384 256:1048576 16:16777216 16384:16384}"
SEGS="${TUNE_SEGMENTS:-2000:1048576}"
ARUNS="${TUNE_RUNS:-30}"
for s in $SHAPES; do
    r="${s%%:*}"; c="${s##*:}"
    for axis in rows cols; do
        policies "${axis}_grid"
        timeout 60 "$R" --backend "$B" axis --rows "$r" --cols "$c" --axis "$axis" --runs "$ARUNS" \
            --format json "${POL[@]}" >> "$J" 2>> "$OUT/logs/ours-axis.log" \
            || { echo "ours $axis $r x $c failed (logs/ours-axis.log)" >&2; status=1; }
    done
    echo "axis $r x $c: done ($(elapsed))" >&2
done
policies segments_grid
timeout 60 "$R" --backend "$B" axis --axis segments --segments "${SEGS%%:*}" --max-len "${SEGS##*:}" \
    --seed 42 --runs "$ARUNS" --format json "${POL[@]}" >> "$J" 2>> "$OUT/logs/ours-axis.log" \
    || { echo "ours segments failed (logs/ours-axis.log)" >&2; status=1; }
echo "axis segments: done ($(elapsed))" >&2

# ---- host: ours (the link first) ----
first=1
for e in ${TUNE_HOST_EXPS:-16 22 26 28}; do
    runs=20; [ "$e" -ge 26 ] && runs=5
    [ -n "${TUNE_RUNS:-}" ] && runs="$TUNE_RUNS"
    link=(); [ "$first" = 1 ] && [ "$B" = gpu ] && link=(--link-bytes $((1 << 30)))
    first=0
    for input in pageable pinned; do
        policies "${input}_grid"
        timeout 90 "$R" --backend "$B" host --n $((1 << e)) --input "$input" --runs "$runs" \
            --warmup 1 --format json "${link[@]}" "${POL[@]}" >> "$J" 2>> "$OUT/logs/ours-host.log" \
            || { echo "ours host $input 2^$e failed (logs/ours-host.log)" >&2; status=1; }
        link=()
    done
    echo "host 2^$e: done ($(elapsed))" >&2
done

# ---- baselines ----
timeout 60 python3 "$HERE/python/axis_torch.py" $(echo $SHAPES | tr ':' ' ') >> "$J" \
    2>> "$OUT/logs/torch-axis.log" || { echo "torch axis baseline failed (logs/torch-axis.log)" >&2; status=1; }
timeout 90 python3 "$HERE/python/host_stream.py" baselines --exps "$(echo ${TUNE_HOST_EXPS:-16 22 26 28} | tr ' ' ',')" --runs 10 >> "$J" \
    2>> "$OUT/logs/host-baselines.log" || { echo "host baselines failed (logs/host-baselines.log)" >&2; status=1; }
if [ -n "$nvcc_pid" ]; then
    if wait "$nvcc_pid"; then
        for s in $SHAPES; do
            timeout 30 "$OUT/cub_segmented" rows "${s%%:*}" "${s##*:}" >> "$J" 2>> "$OUT/logs/cub.log" || status=1
        done
        timeout 30 "$OUT/cub_segmented" ragged "${SEGS%%:*}" "${SEGS##*:}" 42 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    else
        echo "nvcc failed (logs/nvcc.log): no CUB / roof rows" >&2
        status=1
    fi
fi
echo "baselines: done ($(elapsed))" >&2

python3 "$HERE/python/tune_report.py" "$OUT" || status=1
echo "tune-on-gpu: $(elapsed), exit $status" >&2
exit $status
