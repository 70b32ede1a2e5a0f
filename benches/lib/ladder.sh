# shellcheck shell=bash
# ladder: stages 1-7 (kernels only) and stage 8, f32 sums at EXPS, against their CUDA C twins
# (cuda/ladder_twins.cu: the same algorithm compiled by nvcc, launched the same way by the Rust
# host). Writes sweep.jsonl and twins.jsonl (bin/report makes report/results.md of them, with
# stage8's), twins-check.txt (the twins bit for bit against the Rust kernels, when cupy is
# there); with --ncu, Nsight Compute's counters per stage (counters.md); with --criterion, the
# criterion benchmarks (bin/bench-*; HTML in criterion/).

ladder_prebuild() {
    cuda_start ladder_twins.ptx ladder_twins.cu -ptx
}

ladder_run() {
    local twins rust
    ours sweep "$SUITE_DIR/sweep.jsonl" sweep --stages 1,2,3,4,5,6,7 --exps "$EXPS"
    if twins=$(cuda_built ladder_twins.ptx); then
        ours twins "$SUITE_DIR/twins.jsonl" twins --twin-ptx "$twins" --format json
        if python3 -c 'import cupy' >/dev/null 2>&1; then
            # With the Rust PTX beside it (a bundle's reduce_kernels.ptx), bit for bit against it.
            rust=$(asset reduce_kernels.ptx) || rust=""
            try twins-check "$SUITE_DIR/twins-check.txt" python3 "$HERE/python/check_twins.py" "$twins" ${rust:+"$rust"}
        else
            skip twins-check "no cupy for python3"
        fi
    else
        fail twins "nvcc missing or failed (logs/nvcc-ladder_twins.ptx.log)"
    fi
    [ "$NCU" = 1 ] && ladder_ncu
    [ "$CRITERION" = 1 ] && ladder_criterion
    finish
}

# Nsight Compute over one `reduce run` per stage (N = 2^22 ones), clocks left as they are; the
# counters become counters.md / counters.csv / counters.png (python/counters.py).
ladder_ncu() {
    local ncu s metrics
    ncu=$(command -v ncu || true)
    [ -z "$ncu" ] && [ -x /usr/local/cuda/bin/ncu ] && ncu=/usr/local/cuda/bin/ncu
    [ -n "$ncu" ] || { fail ncu "no ncu (Nsight Compute)"; return; }
    metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
    metrics=$metrics,dram__bytes_read.sum.per_second
    metrics=$metrics,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
    metrics=$metrics,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
    metrics=$metrics,smsp__sass_average_branch_targets_threads_uniform.pct
    metrics=$metrics,smsp__sass_branch_targets_threads_divergent.sum
    metrics=$metrics,smsp__thread_inst_executed_per_inst_executed.ratio
    metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
    metrics=$metrics,launch__registers_per_thread,launch__grid_size,launch__block_size
    metrics=$metrics,sm__throughput.avg.pct_of_peak_sustained_elapsed
    metrics=$metrics,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
    mkdir -p "$SUITE_DIR/ncu"
    for s in 1 2 3 4 5 6 7 8; do
        step "ncu-stage$s" - "$ncu" --clock-control none --metrics "$metrics" \
            --kernel-name regex:'^reduce_' -f -o "$SUITE_DIR/ncu/stage$s" \
            "$REDUCE" --backend gpu run --stages "$s" --n 4194304 --data ones || return
        "$ncu" --import "$SUITE_DIR/ncu/stage$s.ncu-rep" --csv --page raw --print-units base \
            >"$SUITE_DIR/ncu/ncu-stage$s.csv"
    done
    step counters - env N=4194304 python3 "$HERE/python/counters.py" "$SUITE_DIR" "$SUITE_DIR"/ncu/ncu-stage?.csv
    rm -f "$SUITE_DIR"/ncu/*.ncu-rep
}

ladder_criterion() {
    local b found=0
    export CRITERION_HOME=$SUITE_DIR/criterion
    for b in "$BIN"/bench-*; do
        [ -x "$b" ] || continue
        found=1
        step "$(basename "$b")" "$SUITE_DIR/$(basename "$b").txt" "$b" --bench
    done
    [ "$found" = 1 ] || fail criterion "no $BIN/bench-*"
}
