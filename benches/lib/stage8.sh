# shellcheck shell=bash
# stage8: stage 8 (the single-pass kernel behind `Reducer::sum`) at EXPS: f32 sums in the plain
# protocol and the gated one (each run queued behind a gate kernel: GPU time only), min/max of
# f32, sums of f64/i32/u32/i64/u64 -> sweep.jsonl; CUB's DeviceReduce::Sum with its result copied
# and in mapped memory, the read-only and copy ceilings, plain and gated (cuda/cub_bench.cu) ->
# cub.jsonl; torch.sum and cupy.sum (python/baselines.py) -> python.jsonl. bin/report turns them
# into report/results.md and the plots.

stage8_prebuild() {
    cuda_start cub_bench cub_bench.cu -std=c++17
}

stage8_run() {
    local cub list
    read -r -a list <<<"${EXPS//,/ }"
    local J=$SUITE_DIR/sweep.jsonl
    : >"$J"
    ours sweep "+$J" sweep --exps "$EXPS"
    ours sweep-gated "+$J" sweep --protocol gated --exps "$EXPS"
    ours sweep-ops "+$J" sweep --ops min,max --types f32 --exps "$EXPS"
    ours sweep-types "+$J" sweep --ops sum --types f64,i32,u32,i64,u64 --exps "$EXPS"
    if cub=$(cuda_built cub_bench); then
        step cub "$SUITE_DIR/cub.jsonl" "$cub" "${list[@]}"
        step cub-gated "+$SUITE_DIR/cub.jsonl" "$cub" --gated "${list[@]}"
    else
        fail cub "nvcc missing or failed (logs/nvcc-cub_bench.log)"
    fi
    if has_torch; then
        py python "$SUITE_DIR/python.jsonl" baselines.py "${list[@]}"
    else
        skip python "no CUDA torch for python3"
    fi
    finish
}
