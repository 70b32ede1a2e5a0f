#!/usr/bin/env bash
# Every `reduce` command once on the GPU (the CLI, the timing engine's plain and gated protocols,
# the result copy of `sweep --devmem`, the PyTorch column when torch is installed), each checked
# for its exit status and its verdicts. Prints one line per check and `all passed` at the end.
#
#   bash benches/check-cli-on-gpu.sh [path/to/reduce]   # default: builds target/release/reduce
set -u
BIN=${1:-}
if [ -z "$BIN" ]; then
    cargo build --quiet --release -p reduce-host --bin reduce || exit 1
    BIN=target/release/reduce
fi
failed=0

# check NAME WANT_RC MUST_CONTAIN MUST_NOT_CONTAIN ARGS...
check() {
    local name=$1 want_rc=$2 want=$3 unwanted=$4
    shift 4
    local out rc
    out=$("$BIN" --backend gpu "$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$want_rc" ] || ! grep -qF -- "$want" <<<"$out" \
        || { [ -n "$unwanted" ] && grep -qF -- "$unwanted" <<<"$out"; }; then
        echo "FAIL $name: exit $rc (want $want_rc), want '$want', not '$unwanted'"
        tail -8 <<<"$out" | sed 's/^/     /'
        failed=1
    else
        echo "ok   $name"
    fi
}

check table 0 "| 8  | Shuffles" "WRONG" table --runs 20
check table-json 0 '"emulated": false' '"correct": false' table --format json --no-torch --n 100003
check table-csv 0 "stage,title,seed" ",false," table --format csv --no-torch --type i32
check profile 0 "| 8  | Shuffles" "WRONG" profile
check sweep 0 '"impl":"rust_s8_devmem"' '"correct":false' \
    sweep --exps 20,24 --ops sum,max --types f32,i32 --devmem --stages 3,7 --warmup 2 --runs 10
check sweep-gated 0 '"protocol":"gated"' '"correct":false' \
    sweep --exps 22 --devmem --protocol gated --warmup 2 --runs 10
check run 0 " ok" "WRONG" run --stages 8 --op mean --type f64 --data random --n 1000003
check check 0 ", 0 wrong" "WRONG" check
check stress 0 "all correct: true" "WRONG" stress --reps 2000
check info 0 "reduce_s8_sum" "" info
check sweep-runs-0 2 "is not in 1..=100000" "" sweep --runs 0
check sweep-exps-40 2 "beyond any GPU's memory" "" sweep --exps 40
check stress-reps-0 2 "is not in 1..=100000" "" stress --reps 0
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
    check table-torch 0 "| -  | PyTorch sum()" "PyTorch column: n/a" table --n 16777216
else
    echo "skip table-torch (no CUDA torch for python3)"
fi
[ "$failed" -eq 0 ] && echo "all passed"
exit "$failed"
