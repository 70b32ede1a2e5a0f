# shellcheck shell=bash
# exact: the correctly rounded sums (`reduce exact`, the default policy).
#   1. Time, f32 and f64, uniform data, N = 2^EXACT_EXPS (default 12 16 20 24 28 30), min and
#      median of 50 gated runs: ours, stage 8's plain sum on the same buffer, CUB 3.5
#      DeviceReduce::Sum at not_guaranteed / run_to_run / gpu_to_gpu (cuda/cub_determinism.cu,
#      built against the CCCL headers of cccl.tar.xz) and torch.sum (python/exact_torch.py).
#   2. Accuracy at 2^22 on uniform, cancellation, binades, subnormals and ties data: every
#      implementation's ulps from the correctly rounded sum (which the kernels, the Rust host
#      reference and Python's integers agree on).
#   3. Reproducibility: `reduce exact --repro` (every grid x block x input offset) on uniform and
#      binades data.
# Writes exact.jsonl and exact.md (python/exact_report.py).

exact_prebuild() {
    local cccl
    mkdir -p "$WORK/cccl"
    if cccl=$(asset cccl.tar.xz) && tar xJf "$cccl" -C "$WORK/cccl" 2>/dev/null; then
        cuda_start cub_determinism cub_determinism.cu -std=c++17 -I"$WORK/cccl"
    fi
}

exact_run() {
    local J=$SUITE_DIR/exact.jsonl ty e d f ref cub specs=() exps
    read -r -a exps <<<"${EXACT_EXPS:-12 16 20 24 28 30}"
    : >"$J"
    for ty in f32 f64; do
        for e in "${exps[@]}"; do
            # The host's exact reference up to 2^28 (2^30 is checked by the GPU tests).
            ref=()
            [ "$e" -ge 30 ] && ref=(--no-reference)
            ours "$ty-$e" "+$J" exact --n $((1 << e)) --type "$ty" --data uniform --runs 50 "${ref[@]}" --format json
        done
    done
    cub=$(cuda_built cub_determinism) \
        || fail cub "no CUB: cccl.tar.xz not staged, or nvcc missing or failed (logs/nvcc-cub_determinism.log)"
    for ty in f32 f64; do
        [ -n "$cub" ] && step "cub-$ty" "+$J" "$cub" time "$ty" "${exps[@]}"
        if has_torch; then py "torch-$ty" "+$J" exact_torch.py time "$ty" "${exps[@]}"; fi
    done
    for ty in f32 f64; do
        for d in uniform cancellation binades subnormals ties; do
            f=$WORK/exact-$ty-$d.bin
            ours "accuracy-$ty-$d" "+$J" exact --n $((1 << 22)) --type "$ty" --data "$d" --runs 0 --save-input "$f" --format json
            [ -n "$cub" ] && step "cub-file-$ty-$d" "+$J" "$cub" file "$ty" "$f" "$d"
            specs+=("$ty:$d:$f")
        done
    done
    # torch.sum, NumPy, math.fsum and Python's exact integers on the same files (torch if it is there).
    py python-file "+$J" exact_torch.py file "${specs[@]}"
    rm -f "$WORK"/exact-*.bin
    for ty in f32 f64; do
        for d in uniform binades; do
            ours "repro-$ty-$d" "+$J" exact --n $(((1 << 22) + 3)) --type "$ty" --data "$d" --runs 0 --repro --format json
        done
    done
    py table - exact_report.py "$SUITE_DIR"
    finish
}
