# shellcheck shell=bash
# proof: the same cases run by an old `reduce` (BASELINE/reduce) and this one (BIN/reduce),
# alternating case by case in ABBA order (old, new, new, old, ... for ROUNDS rounds each), in the
# same call on the same GPU; then python/proof_table.py: per case the result's bits (or the
# decimal text the old CLI prints, which round-trips) old and new, min and median µs old and new
# (min of 50 timed runs each), their ratio and whether it is within ±2%. Writes proof.jsonl
# (every record, tagged with the binary, round and case), proof.md (the table); with a cold-open
# binary beside both reduce binaries, cold opens too (cold-open.txt).
#
# PROOF_ONLY=NAME,NAME... runs those cases only. PROOF_ENV_OLD / PROOF_ENV_NEW: VAR=VALUE words
# set for one side's runs only — with --baseline pointing at the same binaries,
# PROOF_ENV_NEW=REDUCE_KERNEL_IMAGE=ptx sets a build's cubin against its PTX, JIT-compiled. Both binaries must accept every command below, so the cases use only options both have.
# Timings: stage 8 and the exact sums use the gated protocol (GPU time only); axis, arg,
# transform and half time plain CUDA-event windows (the only protocol those commands have).

# case NAME|ARGS (after `reduce --backend gpu`): stage 8 at every even exponent 12-30, one axis
# shape per kind (2^26 elements; segments: about 2^27), argmax, the L2 norm, the variance and the
# bf16 sums (`half`: stage 8's, f32 result; `transform --op total`: f64) at 2^20 (launch-bound) and
# 2^26 (bandwidth-bound), the exact sums at 2^24 and 2^30; then rows, argmax, the norm and the
# exact f32 sum at the sizes the others skip (2^20, 2^26, 2^30 for every family).
PROOF_CASES=(
    "stage8|sweep --exps 12,14,16,18,20,22,24,26,28,30 --types f32,f64 --ops sum --protocol gated --warmup 10 --runs 50"
    "axis-rows|axis --rows 65536 --cols 1024 --axis rows --data random --runs 50 --format json"
    "axis-cols|axis --rows 4096 --cols 16384 --axis cols --data random --runs 50 --format json"
    "axis-segments|axis --axis segments --segments 2000 --max-len 1048576 --seed 42 --data random --runs 50 --format json"
    "argmax|arg --ops argmax,argmin --types f32,f64 --exps 20,26 --warmup 10 --runs 50 --format json"
    "transform-20|transform --op norm2,var --n 1048576 --runs 50 --format json"
    "transform-26|transform --op norm2,var --n 67108864 --runs 50 --format json"
    "bf16-sum|half --types bf16 --ops sum --exps 20,26 --warmup 10 --runs 50 --format json"
    "bf16-total-20|transform --type bf16 --op total --n 1048576 --runs 50 --format json"
    "bf16-total-26|transform --type bf16 --op total --n 67108864 --runs 50 --format json"
    "exact-f32-24|exact --type f32 --n 16777216 --runs 50 --format json"
    "exact-f64-24|exact --type f64 --n 16777216 --runs 50 --format json"
    "exact-f32-30|exact --type f32 --n 1073741824 --runs 50 --no-reference --format json"
    "exact-f64-30|exact --type f64 --n 1073741824 --runs 50 --no-reference --format json"
    "axis-rows-20|axis --rows 1024 --cols 1024 --axis rows --data random --runs 50 --format json"
    "axis-rows-30|axis --rows 1048576 --cols 1024 --axis rows --data random --runs 20 --format json"
    "argmax-30|arg --ops argmax --types f32 --exps 30 --warmup 5 --runs 20 --format json"
    "transform-30|transform --op norm2 --n 1073741824 --runs 20 --format json"
    "exact-f32-20|exact --type f32 --n 1048576 --runs 50 --format json"
    "exact-f32-26|exact --type f32 --n 67108864 --runs 50 --format json"
)

# proof_one BIN_LABEL EXE ROUND CASE ARGS...: one invocation, its JSON lines tagged into J; a
# failed invocation leaves a record of its exit status.
proof_one() {
    local label=$1 exe=$2 round=$3 name=$4 t0=$SECONDS rc envs=()
    shift 4
    if [ "$label" = old ]; then
        read -r -a envs <<<"${PROOF_ENV_OLD:-}"
    else
        read -r -a envs <<<"${PROOF_ENV_NEW:-}"
    fi
    timeout 300 env "${envs[@]}" "$exe" --backend gpu "$@" 2>>"$SUITE_DIR/logs/$label.log" \
        | tag "proof_bin=\"$label\"" "proof_round=$round" "proof_case=\"$name\"" >>"$J"
    rc=${PIPESTATUS[0]}
    if [ "$rc" -ne 0 ]; then
        say "{\"proof_bin\":\"$label\",\"proof_round\":$round,\"proof_case\":\"$name\",\"exit\":$rc}" >>"$J"
    fi
    say "    $name $label round $round: exit $rc ($((SECONDS - t0)) s)"
}

proof_run() {
    local old new_exe r c name args order=()
    J=$SUITE_DIR/proof.jsonl
    : >"$J"
    old=$(bin_path reduce "$BASELINE") || {
        fail proof "no old binary: stage it as $BASELINE/reduce (or reduce.xz), or pass --baseline DIR"
        finish
        return
    }
    new_exe=$REDUCE
    for ((r = 1; r <= ROUNDS; r++)); do
        if ((r % 2)); then order+=("old:$r" "new:$r"); else order+=("new:$r" "old:$r"); fi
    done
    say "    old: $old ($("$old" --version 2>&1)); new: $new_exe ($("$new_exe" --version 2>&1))"
    for c in "${PROOF_CASES[@]}"; do
        name=${c%%|*}
        # PROOF_ONLY=stage8,exact-f32-30: those cases only.
        [ -z "${PROOF_ONLY:-}" ] || [[ ",$PROOF_ONLY," == *",$name,"* ]] || continue
        read -r -a args <<<"${c#*|}"
        for o in "${order[@]}"; do
            if [ "${o%%:*}" = old ]; then
                proof_one old "$old" "${o#*:}" "$name" "${args[@]}"
            else
                proof_one new "$new_exe" "${o#*:}" "$name" "${args[@]}"
            fi
        done
    done
    proof_cold_open
    step table "$SUITE_DIR/proof.md" python3 "$HERE/python/proof_table.py" "$J"
    cat "$SUITE_DIR/proof.md"
    finish
}

# Cold opens (CUDA_CACHE_DISABLE=1, the embedded kernels), old and new alternating, 3 each, when
# both folders hold a cold-open binary.
proof_cold_open() {
    local old new i
    if ! old=$(bin_path cold-open "$BASELINE") || ! new=$(bin_path cold-open); then
        skip cold-open "no cold-open binary in both $BASELINE and $BIN"
        return 0
    fi
    for i in 1 2 3; do
        for b in "old:$old" "new:$new"; do
            say "${b%%:*} $i: $(CUDA_CACHE_DISABLE=1 timeout 120 "${b#*:}" --embedded 2>&1 | grep 'cold open' | head -n 1)"
        done
    done >"$SUITE_DIR/cold-open.txt"
    # The new build's first start on each path, whole: the open, the first f32 sum and the first
    # call of every family — its cubin, then its PTX JIT-compiled by the driver kernel by kernel,
    # as on a GPU no cubin runs on (PROOF_JIT=0 skips the PTX).
    {
        say "new, cubin, first calls:"
        CUDA_CACHE_DISABLE=1 timeout 120 "$new" --embedded 2>&1
        if [ "${PROOF_JIT:-1}" != 0 ]; then
            say "new, PTX (REDUCE_KERNEL_IMAGE=ptx), first calls:"
            CUDA_CACHE_DISABLE=1 timeout 200 "$new" --ptx 2>&1
        fi
    } >>"$SUITE_DIR/cold-open.txt"
    cat "$SUITE_DIR/cold-open.txt"
}
