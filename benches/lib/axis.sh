# shellcheck shell=bash
# axis: reductions along an axis and over ragged segments. Six matrix shapes (2^24 or 2^28 f32
# ones), both axes: our f32 sum (`reduce axis`, every result checked), max f32 and sum f64 on the
# same shape; 2000 ragged segments (lengths log-uniform in 1..2^20, seed 42); against torch
# sum(dim=1)/sum(dim=0) (python/axis_torch.py) and CUB DeviceSegmentedReduce::Sum over the rows
# and the segments, beside a read-only kernel on the same bytes (cuda/cub_segmented.cu). Min and
# median of 50 CUDA-event runs. Writes axis.jsonl, axis.md and axis_bandwidth.png
# (python/axis_report.py).

AXIS_SHAPES="1048576:16 65536:1024 4096:16384 256:1048576 16:16777216 16384:16384"

axis_prebuild() {
    cuda_start cub_segmented cub_segmented.cu -std=c++17
}

axis_run() {
    local J=$SUITE_DIR/axis.jsonl s r c axis cub
    : >"$J"
    for s in $AXIS_SHAPES; do
        r=${s%%:*} c=${s##*:}
        for axis in rows cols; do
            ours "$axis-$r-$c" "+$J" axis --rows "$r" --cols "$c" --axis "$axis" --runs 50 --format json
            ours "$axis-$r-$c-max" "+$J" axis --rows "$r" --cols "$c" --axis "$axis" --op max --runs 50 --format json
        done
        ours "rows-$r-$c-f64" "+$J" axis --rows "$r" --cols "$c" --axis rows --type f64 --runs 50 --format json
    done
    ours segments "+$J" axis --axis segments --segments 2000 --max-len 1048576 --seed 42 --runs 50 --format json
    if cub=$(cuda_built cub_segmented); then
        for s in $AXIS_SHAPES; do
            step "cub-${s%%:*}-${s##*:}" "+$J" "$cub" rows "${s%%:*}" "${s##*:}"
        done
        step cub-ragged "+$J" "$cub" ragged 2000 1048576 42
    else
        fail cub "nvcc missing or failed (logs/nvcc-cub_segmented.log)"
    fi
    if has_torch; then
        # shellcheck disable=SC2086 # one argument per row count and column count
        py torch "+$J" axis_torch.py ${AXIS_SHAPES//:/ }
    else
        skip torch "no CUDA torch for python3"
    fi
    py report - axis_report.py "$SUITE_DIR"
    finish
}
