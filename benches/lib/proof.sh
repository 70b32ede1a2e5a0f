# shellcheck shell=bash
# proof: the same cases run by an old `reduce` (BASELINE/reduce) and this one (BIN/reduce),
# alternating case by case in ABBA order (old, new, new, old, ... for ROUNDS rounds each), in the
# same call on the same GPU; then python/proof_table.py: per case the result's bits (or the
# decimal text the old CLI prints, which round-trips) old and new, min and median µs old and new
# (min of 50 timed runs each), their ratio and whether it is within ±2%. Writes proof.jsonl
# (every record, tagged with the binary, round and case), proof.md (the table); with a cold-open
# binary beside both reduce binaries, cold opens too (cold-open.txt).
#
# PROOF_ONLY=NAME,PREFIX*,... runs those cases only. PROOF_ENV_OLD / PROOF_ENV_NEW: VAR=VALUE words
# set for one side's runs only — with --baseline pointing at the same binaries,
# PROOF_ENV_NEW=REDUCE_KERNEL_IMAGE=ptx sets a build's cubin against its PTX, JIT-compiled. Both binaries must accept every command below, so the cases use only options both have.
# Timings: stage 8 and the exact sums use the gated protocol (GPU time only); axis, arg,
# transform and half time plain CUDA-event windows (the only protocol those commands have).

# case NAME|ARGS (after `reduce --backend gpu`): every family x every type it takes, at 2^20
# (launch-bound), 2^26 and 2^30 (bandwidth-bound): stage 8 with all ten reduce ops on f32, f64,
# i32 and u32 and the wide 64-bit sums of i32/u32 (`sweep --wide`); the halves' ten ops on f16 and
# bf16 (`half`); the four arg-reductions on all six types; the nine transform ops on f32, f64, f16
# and bf16; the exact sums on f32 and f64; sums along rows, columns and ragged segments on f32,
# f64, i32 and u32 (and min, max and mean at 2^26). Cases named `*-30` (2^30 elements: seconds of
# data generation and CPU reference per invocation, a run-to-run spread under 0.2%) run one
# round per binary (old, new); the others ROUNDS rounds each, ABBA. A family's cases share a
# prefix, so PROOF_ONLY=arg*,half* picks families.
PROOF_CASES=(
    "arg|arg --ops argmin,argmax,nanargmin,nanargmax --types f16,bf16,f32,f64,i32,u32 --exps 20,26 --warmup 10 --runs 50 --format json"
    "arg-30|arg --ops argmin,argmax,nanargmin,nanargmax --types f16,bf16,f32,f64,i32,u32 --exps 30 --warmup 5 --runs 20 --format json"
    "half|half --types f16,bf16 --ops sum,min,max,mean,prod,nanmin,nanmax,nansum,nanmean,count --exps 20,26 --warmup 10 --runs 50 --format json"
    "half-30|half --types f16,bf16 --ops sum,min,max,mean,prod,nanmin,nanmax,nansum,nanmean,count --exps 30 --warmup 5 --runs 20 --format json"
    "stage8|sweep --exps 20,26 --types f32,f64,i32,u32 --ops sum,min,max,mean,prod,nanmin,nanmax,nansum,nanmean,count --wide --protocol gated --warmup 10 --runs 50"
    "stage8-30|sweep --exps 30 --types f32,f64,i32,u32 --ops sum,min,max,mean,prod,nanmin,nanmax,nansum,nanmean,count --wide --protocol gated --warmup 5 --runs 20"
    "transform-f32-20|transform --type f32 --op sumsq,l1,norm2,dot,mean,var,std,total,nanmean --n 1048576 --runs 50 --format json"
    "transform-f32-26|transform --type f32 --op sumsq,l1,norm2,dot,mean,var,std,total,nanmean --n 67108864 --runs 50 --format json"
    "transform-f32-30|transform --type f32 --op sumsq,l1,norm2,dot,mean,var,std,total,nanmean --n 1073741824 --runs 20 --format json"
    "transform-f64-20|transform --type f64 --op sumsq,l1,norm2,dot,mean,var,std,total,nanmean --n 1048576 --runs 50 --format json"
    "transform-f64-26|transform --type f64 --op sumsq,l1,norm2,dot,mean,var,std,total,nanmean --n 67108864 --runs 50 --format json"
    "transform-f64-30|transform --type f64 --op sumsq,l1,norm2,dot,mean,var,std,total,nanmean --n 1073741824 --runs 20 --format json"
    "transform-f16-20|transform --type f16 --op sumsq,l1,norm2,dot,mean,var,std,total,nanmean --n 1048576 --runs 50 --format json"
    "transform-f16-26|transform --type f16 --op sumsq,l1,norm2,dot,mean,var,std,total,nanmean --n 67108864 --runs 50 --format json"
    "transform-f16-30|transform --type f16 --op sumsq,l1,norm2,dot,mean,var,std,total,nanmean --n 1073741824 --runs 20 --format json"
    "transform-bf16-20|transform --type bf16 --op sumsq,l1,norm2,dot,mean,var,std,total,nanmean --n 1048576 --runs 50 --format json"
    "transform-bf16-26|transform --type bf16 --op sumsq,l1,norm2,dot,mean,var,std,total,nanmean --n 67108864 --runs 50 --format json"
    "transform-bf16-30|transform --type bf16 --op sumsq,l1,norm2,dot,mean,var,std,total,nanmean --n 1073741824 --runs 20 --format json"
    "exact-f32-20|exact --type f32 --n 1048576 --warmup 10 --runs 50 --format json"
    "exact-f32-26|exact --type f32 --n 67108864 --warmup 10 --runs 50 --format json"
    "exact-f32-30|exact --type f32 --n 1073741824 --warmup 5 --runs 20 --no-reference --format json"
    "exact-f64-20|exact --type f64 --n 1048576 --warmup 10 --runs 50 --format json"
    "exact-f64-26|exact --type f64 --n 67108864 --warmup 10 --runs 50 --format json"
    "exact-f64-30|exact --type f64 --n 1073741824 --warmup 5 --runs 20 --no-reference --format json"
    "axis-rows-f32-20|axis --axis rows --rows 1024 --cols 1024 --op sum --type f32 --data random --seed 42 --runs 50 --format json"
    "axis-rows-f32-26|axis --axis rows --rows 65536 --cols 1024 --op sum --type f32 --data random --seed 42 --runs 50 --format json"
    "axis-rows-f32-30|axis --axis rows --rows 1048576 --cols 1024 --op sum --type f32 --data random --seed 42 --runs 20 --format json"
    "axis-rows-f64-20|axis --axis rows --rows 1024 --cols 1024 --op sum --type f64 --data random --seed 42 --runs 50 --format json"
    "axis-rows-f64-26|axis --axis rows --rows 65536 --cols 1024 --op sum --type f64 --data random --seed 42 --runs 50 --format json"
    "axis-rows-f64-30|axis --axis rows --rows 1048576 --cols 1024 --op sum --type f64 --data random --seed 42 --runs 20 --format json"
    "axis-rows-i32-20|axis --axis rows --rows 1024 --cols 1024 --op sum --type i32 --data random --seed 42 --runs 50 --format json"
    "axis-rows-i32-26|axis --axis rows --rows 65536 --cols 1024 --op sum --type i32 --data random --seed 42 --runs 50 --format json"
    "axis-rows-i32-30|axis --axis rows --rows 1048576 --cols 1024 --op sum --type i32 --data random --seed 42 --runs 20 --format json"
    "axis-rows-u32-20|axis --axis rows --rows 1024 --cols 1024 --op sum --type u32 --data random --seed 42 --runs 50 --format json"
    "axis-rows-u32-26|axis --axis rows --rows 65536 --cols 1024 --op sum --type u32 --data random --seed 42 --runs 50 --format json"
    "axis-rows-u32-30|axis --axis rows --rows 1048576 --cols 1024 --op sum --type u32 --data random --seed 42 --runs 20 --format json"
    "axis-cols-f32-20|axis --axis cols --rows 64 --cols 16384 --op sum --type f32 --data random --seed 42 --runs 50 --format json"
    "axis-cols-f32-26|axis --axis cols --rows 4096 --cols 16384 --op sum --type f32 --data random --seed 42 --runs 50 --format json"
    "axis-cols-f32-30|axis --axis cols --rows 65536 --cols 16384 --op sum --type f32 --data random --seed 42 --runs 20 --format json"
    "axis-cols-f64-20|axis --axis cols --rows 64 --cols 16384 --op sum --type f64 --data random --seed 42 --runs 50 --format json"
    "axis-cols-f64-26|axis --axis cols --rows 4096 --cols 16384 --op sum --type f64 --data random --seed 42 --runs 50 --format json"
    "axis-cols-f64-30|axis --axis cols --rows 65536 --cols 16384 --op sum --type f64 --data random --seed 42 --runs 20 --format json"
    "axis-cols-i32-20|axis --axis cols --rows 64 --cols 16384 --op sum --type i32 --data random --seed 42 --runs 50 --format json"
    "axis-cols-i32-26|axis --axis cols --rows 4096 --cols 16384 --op sum --type i32 --data random --seed 42 --runs 50 --format json"
    "axis-cols-i32-30|axis --axis cols --rows 65536 --cols 16384 --op sum --type i32 --data random --seed 42 --runs 20 --format json"
    "axis-cols-u32-20|axis --axis cols --rows 64 --cols 16384 --op sum --type u32 --data random --seed 42 --runs 50 --format json"
    "axis-cols-u32-26|axis --axis cols --rows 4096 --cols 16384 --op sum --type u32 --data random --seed 42 --runs 50 --format json"
    "axis-cols-u32-30|axis --axis cols --rows 65536 --cols 16384 --op sum --type u32 --data random --seed 42 --runs 20 --format json"
    "axis-segments-f32-20|axis --axis segments --segments 161 --max-len 65536 --op sum --type f32 --data random --seed 42 --runs 50 --format json"
    "axis-segments-f32-26|axis --axis segments --segments 957 --max-len 1048576 --op sum --type f32 --data random --seed 42 --runs 50 --format json"
    "axis-segments-f32-30|axis --axis segments --segments 13691 --max-len 1048576 --op sum --type f32 --data random --seed 42 --runs 20 --format json"
    "axis-segments-f64-20|axis --axis segments --segments 161 --max-len 65536 --op sum --type f64 --data random --seed 42 --runs 50 --format json"
    "axis-segments-f64-26|axis --axis segments --segments 957 --max-len 1048576 --op sum --type f64 --data random --seed 42 --runs 50 --format json"
    "axis-segments-f64-30|axis --axis segments --segments 13691 --max-len 1048576 --op sum --type f64 --data random --seed 42 --runs 20 --format json"
    "axis-segments-i32-20|axis --axis segments --segments 161 --max-len 65536 --op sum --type i32 --data random --seed 42 --runs 50 --format json"
    "axis-segments-i32-26|axis --axis segments --segments 957 --max-len 1048576 --op sum --type i32 --data random --seed 42 --runs 50 --format json"
    "axis-segments-i32-30|axis --axis segments --segments 13691 --max-len 1048576 --op sum --type i32 --data random --seed 42 --runs 20 --format json"
    "axis-segments-u32-20|axis --axis segments --segments 161 --max-len 65536 --op sum --type u32 --data random --seed 42 --runs 50 --format json"
    "axis-segments-u32-26|axis --axis segments --segments 957 --max-len 1048576 --op sum --type u32 --data random --seed 42 --runs 50 --format json"
    "axis-segments-u32-30|axis --axis segments --segments 13691 --max-len 1048576 --op sum --type u32 --data random --seed 42 --runs 20 --format json"
    "axis-rows-f32-min-26|axis --axis rows --rows 65536 --cols 1024 --op min --type f32 --data random --seed 42 --runs 50 --format json"
    "axis-rows-f32-max-26|axis --axis rows --rows 65536 --cols 1024 --op max --type f32 --data random --seed 42 --runs 50 --format json"
    "axis-rows-f32-mean-26|axis --axis rows --rows 65536 --cols 1024 --op mean --type f32 --data random --seed 42 --runs 50 --format json"
    "axis-rows-f64-min-26|axis --axis rows --rows 65536 --cols 1024 --op min --type f64 --data random --seed 42 --runs 50 --format json"
    "axis-rows-f64-max-26|axis --axis rows --rows 65536 --cols 1024 --op max --type f64 --data random --seed 42 --runs 50 --format json"
    "axis-rows-f64-mean-26|axis --axis rows --rows 65536 --cols 1024 --op mean --type f64 --data random --seed 42 --runs 50 --format json"
    "axis-rows-i32-min-26|axis --axis rows --rows 65536 --cols 1024 --op min --type i32 --data random --seed 42 --runs 50 --format json"
    "axis-rows-i32-max-26|axis --axis rows --rows 65536 --cols 1024 --op max --type i32 --data random --seed 42 --runs 50 --format json"
    "axis-rows-i32-mean-26|axis --axis rows --rows 65536 --cols 1024 --op mean --type i32 --data random --seed 42 --runs 50 --format json"
    "axis-rows-u32-min-26|axis --axis rows --rows 65536 --cols 1024 --op min --type u32 --data random --seed 42 --runs 50 --format json"
    "axis-rows-u32-max-26|axis --axis rows --rows 65536 --cols 1024 --op max --type u32 --data random --seed 42 --runs 50 --format json"
    "axis-rows-u32-mean-26|axis --axis rows --rows 65536 --cols 1024 --op mean --type u32 --data random --seed 42 --runs 50 --format json"
    "axis-cols-f32-min-26|axis --axis cols --rows 4096 --cols 16384 --op min --type f32 --data random --seed 42 --runs 50 --format json"
    "axis-cols-f32-max-26|axis --axis cols --rows 4096 --cols 16384 --op max --type f32 --data random --seed 42 --runs 50 --format json"
    "axis-cols-f32-mean-26|axis --axis cols --rows 4096 --cols 16384 --op mean --type f32 --data random --seed 42 --runs 50 --format json"
    "axis-cols-f64-min-26|axis --axis cols --rows 4096 --cols 16384 --op min --type f64 --data random --seed 42 --runs 50 --format json"
    "axis-cols-f64-max-26|axis --axis cols --rows 4096 --cols 16384 --op max --type f64 --data random --seed 42 --runs 50 --format json"
    "axis-cols-f64-mean-26|axis --axis cols --rows 4096 --cols 16384 --op mean --type f64 --data random --seed 42 --runs 50 --format json"
    "axis-cols-i32-min-26|axis --axis cols --rows 4096 --cols 16384 --op min --type i32 --data random --seed 42 --runs 50 --format json"
    "axis-cols-i32-max-26|axis --axis cols --rows 4096 --cols 16384 --op max --type i32 --data random --seed 42 --runs 50 --format json"
    "axis-cols-i32-mean-26|axis --axis cols --rows 4096 --cols 16384 --op mean --type i32 --data random --seed 42 --runs 50 --format json"
    "axis-cols-u32-min-26|axis --axis cols --rows 4096 --cols 16384 --op min --type u32 --data random --seed 42 --runs 50 --format json"
    "axis-cols-u32-max-26|axis --axis cols --rows 4096 --cols 16384 --op max --type u32 --data random --seed 42 --runs 50 --format json"
    "axis-cols-u32-mean-26|axis --axis cols --rows 4096 --cols 16384 --op mean --type u32 --data random --seed 42 --runs 50 --format json"
    "axis-segments-f32-min-26|axis --axis segments --segments 957 --max-len 1048576 --op min --type f32 --data random --seed 42 --runs 50 --format json"
    "axis-segments-f32-max-26|axis --axis segments --segments 957 --max-len 1048576 --op max --type f32 --data random --seed 42 --runs 50 --format json"
    "axis-segments-f32-mean-26|axis --axis segments --segments 957 --max-len 1048576 --op mean --type f32 --data random --seed 42 --runs 50 --format json"
    "axis-segments-f64-min-26|axis --axis segments --segments 957 --max-len 1048576 --op min --type f64 --data random --seed 42 --runs 50 --format json"
    "axis-segments-f64-max-26|axis --axis segments --segments 957 --max-len 1048576 --op max --type f64 --data random --seed 42 --runs 50 --format json"
    "axis-segments-f64-mean-26|axis --axis segments --segments 957 --max-len 1048576 --op mean --type f64 --data random --seed 42 --runs 50 --format json"
    "axis-segments-i32-min-26|axis --axis segments --segments 957 --max-len 1048576 --op min --type i32 --data random --seed 42 --runs 50 --format json"
    "axis-segments-i32-max-26|axis --axis segments --segments 957 --max-len 1048576 --op max --type i32 --data random --seed 42 --runs 50 --format json"
    "axis-segments-i32-mean-26|axis --axis segments --segments 957 --max-len 1048576 --op mean --type i32 --data random --seed 42 --runs 50 --format json"
    "axis-segments-u32-min-26|axis --axis segments --segments 957 --max-len 1048576 --op min --type u32 --data random --seed 42 --runs 50 --format json"
    "axis-segments-u32-max-26|axis --axis segments --segments 957 --max-len 1048576 --op max --type u32 --data random --seed 42 --runs 50 --format json"
    "axis-segments-u32-mean-26|axis --axis segments --segments 957 --max-len 1048576 --op mean --type u32 --data random --seed 42 --runs 50 --format json"
)

# proof_selected NAME: whether PROOF_ONLY (comma-separated names; `prefix*` matches a prefix)
# selects the case; everything when it is unset.
proof_selected() {
    local w
    [ -n "${PROOF_ONLY:-}" ] || return 0
    for w in ${PROOF_ONLY//,/ }; do
        if [[ $w == *'*' ]]; then
            [[ $1 == "${w%'*'}"* ]] && return 0
        elif [ "$1" = "$w" ]; then
            return 0
        fi
    done
    return 1
}

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
    local old new_exe r c name args rounds order
    J=$SUITE_DIR/proof.jsonl
    : >"$J"
    old=$(bin_path reduce "$BASELINE") || {
        fail proof "no old binary: stage it as $BASELINE/reduce (or reduce.xz), or pass --baseline DIR"
        finish
        return
    }
    new_exe=$REDUCE
    say "    old: $old ($("$old" --version 2>&1)); new: $new_exe ($("$new_exe" --version 2>&1))"
    for c in "${PROOF_CASES[@]}"; do
        name=${c%%|*}
        proof_selected "$name" || continue
        read -r -a args <<<"${c#*|}"
        rounds=$ROUNDS
        [[ $name == *-30 ]] && rounds=1
        order=()
        for ((r = 1; r <= rounds; r++)); do
            if ((r % 2)); then order+=("old:$r" "new:$r"); else order+=("new:$r" "old:$r"); fi
        done
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
