# shellcheck shell=bash
# toolbox: the operators beyond the plain sum, each against torch (and CUB where it has one), at
# N = 2^TOOLBOX_EXPS (default 12,20,26,30), uniform data, min and median of 50 CUDA-event runs:
#   arg        argmin/argmax/nanargmax of f32, f16, bf16 (f64 at 2^26), checked against the CPU,
#              beside stage 8's max of the same bytes; torch (python/arg_torch.py) and CUB ArgMin/
#              ArgMax (cuda/cub_argreduce.cu) -> arg.jsonl, arg.md; the custom-operator example
#              (bin/custom-op-run custom_op.ptx N, when staged) -> custom-op.txt
#   ops        stage 8's f32 sum/prod/max/nanmax/nansum, i32 sums wrapping and 64-bit (`--wide`),
#              f16/bf16 sums (`transform --op total`, from the transform part) against torch
#              -> toolbox-ops.{jsonl,md};
#              stage 8's operators on f16/bf16 (`reduce half`) against torch and the read-only
#              kernel on the same bytes (cuda/half_roof.cu) -> toolbox-halves.{jsonl,md}
#   transform  sumsq, norm2, l1, dot, mean, var, std in one pass (f32, f16, bf16; f64 at 2^26)
#              against torch and CUB TransformReduce (cuda/cub_transform.cu); the variance of
#              1e6 + U(0,1) against an f64 reference -> transform.jsonl, transform.md

toolbox_prebuild() {
    cuda_start cub_argreduce cub_argreduce.cu -std=c++17
    cuda_start cub_argreduce_nohalf cub_argreduce.cu -std=c++17 -DNO_HALF_CUB
    cuda_start half_roof half_roof.cu -std=c++17
    cuda_start cub_transform cub_transform.cu -std=c++17
}

toolbox_run() {
    local exps ns=() e el
    exps=${TOOLBOX_EXPS:-12,20,26,30}
    read -r -a el <<<"${exps//,/ }"
    for e in "${el[@]}"; do ns+=($((1 << e))); done
    toolbox_arg "$exps"
    toolbox_transform "${ns[@]}"
    toolbox_ops "$exps"
    finish
}

toolbox_arg() {
    local exps=$1 J=$SUITE_DIR/arg.jsonl cub ptx run n half=1 el
    read -r -a el <<<"${exps//,/ }"
    : >"$J"
    ours arg-f32 "+$J" arg --exps "$exps" --types f32 --ops argmin,argmax,nanargmax --warmup 10 --runs 50 --format json
    ours arg-halves "+$J" arg --exps "$exps" --types f16,bf16 --warmup 10 --runs 50 --format json
    ours arg-f64 "+$J" arg --exps 26 --types f64 --warmup 10 --runs 50 --format json
    ours s8-max "+$J" sweep --exps "$exps" --ops max --types f32 --warmup 10 --runs 50
    ours s8-max-f64 "+$J" sweep --exps 26 --ops max --types f64 --warmup 10 --runs 50
    if ! cub=$(cuda_built cub_argreduce); then
        half=0
        cub=$(cuda_built cub_argreduce_nohalf) || cub=""
    fi
    if [ -n "$cub" ]; then
        step cub-arg "+$J" "$cub" "${el[@]}"
        step cub-arg-f64 "+$J" "$cub" f64 26
        if [ "$half" = 1 ]; then
            step cub-arg-f16 "+$J" "$cub" f16 "${el[@]}"
            step cub-arg-bf16 "+$J" "$cub" bf16 "${el[@]}"
        else
            skip cub-arg-halves "this CUB's ArgMax does not build for f16/bf16 (logs/nvcc-cub_argreduce.log)"
        fi
    else
        fail cub-arg "nvcc missing or failed (logs/nvcc-cub_argreduce_nohalf.log)"
    fi
    if has_torch; then py torch-arg "+$J" arg_torch.py "$exps"; else skip torch-arg "no CUDA torch"; fi
    if run=$(bin_path custom-op-run) && ptx=$(asset custom_op.ptx); then
        for n in 67108864 1073741824; do
            step "custom-op-$n" "+$SUITE_DIR/custom-op.txt" "$run" "$ptx" "$n"
        done
        grep '^{' "$SUITE_DIR/custom-op.txt" >>"$J"
    else
        skip custom-op "no custom-op-run and custom_op.ptx staged"
    fi
    py arg-table - arg_report.py "$SUITE_DIR"
}

toolbox_ops() {
    local exps=$1 J=$SUITE_DIR/toolbox-ops.jsonl HJ=$SUITE_DIR/toolbox-halves.jsonl roof el
    read -r -a el <<<"${exps//,/ }"
    : >"$J"
    : >"$HJ"
    ours ops-f32 "+$J" sweep --exps "$exps" --ops sum,prod,max,nanmax,nansum --types f32 --runs 50 --devmem
    ours ops-i32 "+$J" sweep --exps "$exps" --ops sum --types i32 --runs 50 --devmem --wide
    # The f16/bf16 sums (`transform --op total`): the transform part's rows, measured there.
    grep '"op":"total"' "$SUITE_DIR/transform.jsonl" | grep '"impl":"ours"' >>"$J"
    ours half "+$HJ" half --types f16,bf16 --ops sum,min,max,prod,nanmax,nanmean --exps "$exps" --runs 50 --format json
    if roof=$(cuda_built half_roof); then
        step half-roof "+$HJ" "$roof" "${el[@]}"
    else
        fail half-roof "nvcc missing or failed (logs/nvcc-half_roof.log)"
    fi
    if has_torch; then
        py torch-ops "+$J" toolbox_ops_torch.py "${el[@]}"
        py torch-halves "+$HJ" half_ops_torch.py "${el[@]}"
    else
        skip torch-ops "no CUDA torch"
    fi
    py ops-table - toolbox_ops_report.py "$SUITE_DIR"
    py halves-table - half_ops_report.py "$SUITE_DIR"
}

toolbox_transform() {
    local J=$SUITE_DIR/transform.jsonl n ty cub roof e exps=()
    : >"$J"
    for n in "$@"; do
        ours "transform-f32-$n" "+$J" transform --op sum,sumsq,norm2,l1,dot,mean,var,std --n "$n" --runs 50 --format json
        for ty in f16 bf16; do
            ours "transform-$ty-$n" "+$J" transform --type "$ty" --op total,nanmean,sumsq,norm2,l1,dot,mean,var,std \
                --n "$n" --runs 50 --format json
        done
        e=0
        while [ $((1 << e)) -lt "$n" ]; do e=$((e + 1)); done
        exps+=("$e")
    done
    ours transform-f64 "+$J" transform --type f64 --op sum,sumsq,l1,dot,var --n 67108864 --runs 50 --format json
    ours accuracy "$SUITE_DIR/ours-accuracy.jsonl" transform --op mean,var --shift 1e6 --ddof 0 --n 16777216 --runs 0 --format json
    if cub=$(cuda_built cub_transform); then
        step cub-transform "+$J" "$cub" "$@"
    else
        fail cub-transform "nvcc missing or failed (logs/nvcc-cub_transform.log)"
    fi
    if roof=$(cuda_built half_roof); then
        step half-roof-transform "+$J" "$roof" "${exps[@]}"
    fi
    if has_torch; then py torch-transform "+$J" transform_torch.py "$@"; else skip torch-transform "no CUDA torch"; fi
    py transform-table - transform_report.py "$SUITE_DIR"
}
