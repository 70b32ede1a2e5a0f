# shellcheck shell=bash
# sanitizer: correctness on the GPU.
#   1. The GPU test suite: bin/gpu-tests, every test (the custom-operator test with the staged
#      custom_op.ptx) -> gpu-tests.txt; `reduce stress` (repetition, leaks, streams) -> stress.txt.
#   2. The CLI's own checks: every `reduce` command once, its exit status and verdicts, and its
#      argument errors -> cli-checks.txt.
#   3. compute-sanitizer memcheck, racecheck, initcheck and synccheck (one lane per tool, the four
#      in parallel) over the workloads below, small sizes with tails: every kernel family the
#      library ships (stages 1-8 x types x ops x block sizes, wide sums, axis rows / columns /
#      segments, argmin/argmax, transform-reduce of every type, f16/bf16 operators, every exact
#      kernel, host streaming and zero-copy, the multi-GPU path on one GPU; the custom-operator
#      example when staged) -> sanitize-TOOL.log, sanitizer.md (workload x tool: clean or not).
#      The multi-GPU workloads run memcheck with --report-api-errors no: NCCL's communicator
#      set-up (ncclCommInitAll) asks cudaFuncGetAttributes about kernels its wheel ships no image
#      of for this GPU and handles the cudaErrorNoKernelImageForDevice itself, inside libnccl;
#      memcheck still checks every access of every kernel those runs launch.
#
# SANITIZE_ONLY=NAME,NAME... runs the CLI checks and those workloads only (no GPU tests, no stress).
# SANITIZE_PARTS=tests,stress,cli,tools (the default: all four) runs those parts only, e.g.
# `tools` for the sanitizers alone, `tests` for the GPU test suite alone.

# NAME|ARGS of `reduce --backend gpu ARGS`
SANITIZE_WORKLOADS=(
    "check|check --sizes 1,33,1000,100003"
    "wide|sweep --exps 5,17 --types i32,u32 --wide --devmem --warmup 0 --runs 1"
    "axis-rows|axis --rows 37 --cols 301 --axis rows --data random --runs 0"
    "axis-long-rows|axis --rows 3 --cols 70001 --axis rows --data random --runs 0"
    "axis-rows-i32-mean|axis --rows 37 --cols 31 --axis rows --type i32 --op mean --data random --runs 0"
    "axis-cols|axis --rows 301 --cols 37 --axis cols --data random --runs 0"
    "axis-tall-cols|axis --rows 20000 --cols 8 --axis cols --data random --runs 0"
    "axis-wide-cols|axis --rows 5 --cols 8195 --axis cols --data random --runs 0"
    "axis-vector-cols|axis --rows 3 --cols 8192 --axis cols --data random --runs 0"
    "axis-cols-f64-max|axis --rows 301 --cols 37 --axis cols --type f64 --op max --data random --runs 0"
    "axis-segments|axis --axis segments --segments 50 --max-len 100000 --data random --runs 0"
    "arg|arg --exps 5,17 --types f32,f64,i32,u32,i64,u64,f16,bf16 --ops argmin,argmax,nanargmin,nanargmax --warmup 0 --runs 1"
    "transform-f32-33|transform --type f32 --op sum,sumsq,norm2,l1,dot,mean,var,std,total,nanmean --n 33 --runs 0"
    "transform-f32|transform --type f32 --op sum,sumsq,norm2,l1,dot,mean,var,std,total,nanmean --n 100003 --runs 0"
    "transform-f64|transform --type f64 --op sum,sumsq,norm2,l1,dot,mean,var,std,total,nanmean --n 100003 --runs 0"
    "transform-f16-33|transform --type f16 --op total,nanmean,sumsq,norm2,l1,dot,mean,var,std --n 33 --runs 0"
    "transform-f16|transform --type f16 --op total,nanmean,sumsq,norm2,l1,dot,mean,var,std --n 100003 --runs 0"
    "transform-bf16|transform --type bf16 --op total,nanmean,sumsq,norm2,l1,dot,mean,var,std --n 100003 --runs 0"
    "half|half --types f16,bf16 --ops sum,min,max,mean,prod,nanmin,nanmax,nansum,nanmean,count --exps 5,17 --warmup 0 --runs 1"
    "exact-f32|exact --n 20003 --type f32 --data cancellation --runs 0 --repro"
    "exact-f64|exact --n 20003 --type f64 --data binades --runs 0 --repro"
    "host|host --n 100003 --input both --warmup 0 --runs 1"
    "host-zero-copy|host --n 100003 --input zero-copy --warmup 0 --runs 1"
    "multi|multi --gpus 1 --n 100003 --data random --warmup 0 --runs 1"
    "multi-exact|multi --gpus 1 --n 100003 --exact --data random --warmup 0 --runs 1"
)

sanitizer_run() {
    local tests ptx env=()
    if ptx=$(asset custom_op.ptx); then env=("REDUCE_CUSTOM_OP_PTX=$ptx"); fi
    local parts=",${SANITIZE_PARTS:-tests,stress,cli,tools},"
    if [ -n "${SANITIZE_ONLY:-}" ]; then
        say "    SANITIZE_ONLY=$SANITIZE_ONLY: the CLI checks and those workloads only"
        parts=${parts//,tests,/,}
        parts=${parts//,stress,/,}
    fi
    if [[ $parts != *,tests,* ]]; then
        :
    elif tests=$(bin_path gpu-tests); then
        step gpu-tests "$SUITE_DIR/gpu-tests.txt" env "${env[@]}" "$tests"
        grep -E '^test result|FAILED|panicked' "$SUITE_DIR/gpu-tests.txt" | head -n 20
    else
        fail gpu-tests "no $BIN/gpu-tests"
    fi
    [[ $parts != *,stress,* ]] || ours stress "$SUITE_DIR/stress.txt" stress
    [[ $parts != *,cli,* ]] || step cli-checks "$SUITE_DIR/cli-checks.txt" cli_checks
    [[ $parts != *,tools,* ]] || sanitize_all
    finish
}

# One line per check: `ok NAME` or `FAIL NAME: ...`; fails when one failed.
cli_checks() {
    local failed=0
    # check NAME WANT_RC MUST_CONTAIN MUST_NOT_CONTAIN ARGS...
    check() {
        local name=$1 want_rc=$2 want=$3 unwanted=$4 out rc
        shift 4
        out=$("$REDUCE" --backend gpu "$@" 2>&1)
        rc=$?
        if [ "$rc" -ne "$want_rc" ] || ! grep -qF -- "$want" <<<"$out" \
            || { [ -n "$unwanted" ] && grep -qF -- "$unwanted" <<<"$out"; }; then
            echo "FAIL $name: exit $rc (want $want_rc), want '$want', not '$unwanted'"
            tail -n 8 <<<"$out" | sed 's/^/     /'
            failed=1
        else
            echo "ok   $name"
        fi
    }
    check table 0 "| 8  | Shuffles" "WRONG" table --runs 20
    check table-json 0 '"emulated": false' '"correct": false' table --format json --no-torch --n 100003
    check table-csv 0 "stage,title,seed" ",false," table --format csv --no-torch --type i32
    check profile 0 "| 8    | Shuffles" "WRONG" profile
    check sweep 0 '"impl":"rust_s8_devmem"' '"correct":false' \
        sweep --exps 20,24 --ops sum,max --types f32,i32 --devmem --stages 3,7 --warmup 2 --runs 10
    check sweep-gated 0 '"protocol":"gated"' '"correct":false' \
        sweep --exps 22 --devmem --protocol gated --warmup 2 --runs 10
    check run 0 " ok" "WRONG" run --stages 8 --op mean --type f64 --data random --n 1000003
    check check 0 ", 0 wrong" "WRONG" check
    check info 0 "stage 8" "" info
    check sweep-runs-0 2 "is not in 1..=100000" "" sweep --runs 0
    check sweep-exps-40 2 "beyond any GPU's memory" "" sweep --exps 40
    check stress-reps-0 2 "is not in 1..=100000" "" stress --reps 0
    if has_torch; then
        check table-torch 0 "| -  | PyTorch sum()" "PyTorch column: n/a" table --n 16777216
    fi
    return "$failed"
}

# The four tools in parallel, each over every workload; then sanitizer.md.
sanitize_all() {
    local cs tool pids=() w run ptx t0=$SECONDS
    cs=$(command -v compute-sanitizer || true)
    [ -z "$cs" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] && cs=/usr/local/cuda/bin/compute-sanitizer
    [ -n "$cs" ] || { fail sanitizers "no compute-sanitizer"; return; }
    # Some machines' GPU runtimes refuse the sanitizer ("Device not supported"): say so once.
    if "$cs" --tool memcheck "$REDUCE" --backend gpu run --stages 8 --n 1000 2>&1 \
        | grep -q 'Device not supported'; then
        fail sanitizers "compute-sanitizer cannot run on this machine (Device not supported)"
        return
    fi
    local workloads=("${SANITIZE_WORKLOADS[@]}")
    if run=$(bin_path custom-op-run) && ptx=$(asset custom_op.ptx); then
        workloads+=("custom-op|@$run $ptx 100003")
    fi
    if [ -n "${SANITIZE_ONLY:-}" ]; then
        local only=() keep
        for w in "${workloads[@]}"; do
            for keep in ${SANITIZE_ONLY//,/ }; do [ "${w%%|*}" = "$keep" ] && only+=("$w"); done
        done
        workloads=("${only[@]}")
    fi
    for tool in memcheck racecheck initcheck synccheck; do
        sanitize_lane "$cs" "$tool" "${workloads[@]}" &
        pids+=($!)
    done
    for w in "${pids[@]}"; do wait "$w"; done
    sanitize_table "${workloads[@]}" >"$SUITE_DIR/sanitizer.md"
    cat "$SUITE_DIR/sanitizer.md"
    if grep -q 'NOT CLEAN' "$SUITE_DIR/sanitizer.md"; then
        FAILED+=(sanitizers)
        note sanitizers 1 "$t0"
    else
        note sanitizers 0 "$t0"
    fi
}

# sanitize_lane SANITIZER TOOL WORKLOAD...: each workload under TOOL; one line per workload in
# sanitize-TOOL.tsv (name, exit status, the tool's summary line); the output in sanitize-TOOL.log.
sanitize_lane() {
    local cs=$1 tool=$2 w name args rc summary log
    log=$SUITE_DIR/sanitize-$tool.log
    shift 2
    : >"$SUITE_DIR/sanitize-$tool.tsv"
    for w in "$@"; do
        name=${w%%|*}
        # `@PROGRAM ARGS`: another program than reduce.
        case ${w#*|} in
            @*) read -r -a args <<<"${w#*|@}" ;;
            *)
                read -r -a args <<<"${w#*|}"
                args=("$REDUCE" --backend gpu "${args[@]}")
                ;;
        esac
        echo "=== $name: ${args[*]}" >>"$log"
        local api=()
        [ "$tool" = memcheck ] && [[ $name == multi* ]] && api=(--report-api-errors no)
        timeout 600 "$cs" --tool "$tool" "${api[@]}" --error-exitcode 9 "${args[@]}" >"$log.part" 2>&1
        rc=$?
        summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log.part" | tail -n 1)
        cat "$log.part" >>"$log"
        printf '%s\t%s\t%s\n' "$name" "$rc" "${summary:-no summary}" >>"$SUITE_DIR/sanitize-$tool.tsv"
    done
    rm -f "$log.part"
}

# The table: one row per workload, one column per tool.
sanitize_table() {
    local w name tool line rc summary cells
    echo "compute-sanitizer over every kernel family (exit status and summary per run; clean ="
    echo "exit 0 and no error or hazard reported)."
    echo
    echo "| workload | memcheck | racecheck | initcheck | synccheck |"
    echo "|---|---|---|---|---|"
    for w in "$@"; do
        name=${w%%|*}
        cells=""
        for tool in memcheck racecheck initcheck synccheck; do
            line=$(grep -P "^\Q$name\E\t" "$SUITE_DIR/sanitize-$tool.tsv" | head -n 1)
            rc=$(cut -f2 <<<"$line")
            summary=$(cut -f3 <<<"$line")
            if [ "$rc" = 0 ] && grep -qE 'SUMMARY: 0 (errors|hazards)' <<<"$summary"; then
                cells="$cells clean |"
            else
                cells="$cells NOT CLEAN (exit ${rc:-?}: ${summary:-no run}) |"
            fi
        done
        echo "| $name |$cells"
    done
}
