#!/usr/bin/env bash
# Helpers shared by the scripts that time kernel variants side by side (s13-transform, s13-cap32,
# s13-unroll2) and that sanitize the exact sums' variants (s15-exact, s16-*): source it after
# setting HERE (the bundle). Not a script to run on its own.
#   variant_start OUTDIR FILE  sets OUT, R (bin/reduce), J (OUTDIR/FILE, emptied) and status=0,
#                             makes OUTDIR/logs, builds the read-only kernel and warms the GPU up
#   find_nvcc                 sets NVCC: nvcc on PATH, else /usr/local/cuda/bin/nvcc, else empty
#   build_half_roof           compiles cuda/half_roof.cu (the read-only kernel) to $OUT/half_roof
#   warm_up                   one untimed f32 sum of 2^24 elements, 200 runs
#   tag NAME                  stdin's JSON lines into $J, each with "variant": NAME first
#   sanitize_exact SHAPES EXTRA POLICY...
#                             compute-sanitizer memcheck, racecheck and synccheck of `reduce exact`
#                             (binades, f32 and f64) at each of SHAPES (';'-separated "N [--grid G]";
#                             memcheck also at EXTRA when not empty) under each POLICY; logs in
#                             $OUT/sanitize-TOOL.log, one summary line per tool on stderr
#   sanitize_var TYPES [ARGS...]
#                             compute-sanitizer memcheck and racecheck of `reduce transform --op var`
#                             for each of TYPES (space-separated) at N = 100003 and 4000037, ARGS
#                             passed on (e.g. --ptx FILE); logs in $OUT/sanitize-TOOL.log, one
#                             "TOOL: K clean runs of M" line per tool on stdout
#   one NAME PTX TYPE OPS EXP [ARGS...]
#                             `reduce transform` of 2^EXP elements, 50 runs, JSON, tagged NAME;
#                             with `--ptx PTX` when PTX is not empty; a line in logs/progress.log

variant_start() {
    OUT="$1"
    mkdir -p "$OUT/logs"
    R="$HERE/bin/reduce"
    J="$OUT/$2"
    : > "$J"
    status=0
    build_half_roof
    warm_up
}

find_nvcc() {
    NVCC="$(command -v nvcc 2>/dev/null || true)"
    [ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
    return 0
}

build_half_roof() {
    find_nvcc
    "$NVCC" -O3 -arch=sm_90 -std=c++17 -o "$OUT/half_roof" "$HERE/cuda/half_roof.cu" \
        2> "$OUT/logs/nvcc.log" || status=1
}

warm_up() {
    "$R" --backend gpu transform --type f32 --op sum --n $((1 << 24)) --runs 200 > /dev/null 2>&1
}

tag() {
    # The name goes into a sed replacement: its `/` and `&` are escaped (a `/` in a tag broke
    # session 17's call 4); it must hold no `"` or `\` (it becomes a JSON string as it is).
    local name
    name=$(printf '%s' "$1" | sed 's/[/&]/\\&/g')
    sed "s/^{/{\"variant\":\"$name\",/" >> "$J"
}

one() {
    local name="$1" ptx="$2" ty="$3" op="$4" e="$5"
    shift 5
    local p=()
    [ -n "$ptx" ] && p=(--ptx "$ptx")
    echo "$(date +%T) $name $ty $op 2^$e $*" >> "$OUT/logs/progress.log"
    "$R" --backend gpu transform "${p[@]}" --type "$ty" --op "$op" --n $((1 << e)) --runs 50 \
        --format json "$@" 2>> "$OUT/logs/err.log" | tag "$name" \
        || { echo "$name $ty $op failed" >&2; status=1; }
}

sanitize_exact() {
    local shapes_text="$1" extra="$2" tool ty shape pol
    shift 2
    if ! command -v compute-sanitizer > /dev/null 2>&1; then
        echo "no compute-sanitizer: sanitizer runs skipped" >&2
        return 0
    fi
    for tool in memcheck racecheck synccheck; do
        local shapes=()
        IFS=';' read -r -a shapes <<< "$shapes_text"
        [ $tool = memcheck ] && [ -n "$extra" ] && shapes+=("$extra")
        for ty in f32 f64; do
            for shape in "${shapes[@]}"; do
                for pol in "$@"; do
                    # shellcheck disable=SC2086 # shape is "N [--grid G]"
                    compute-sanitizer --tool "$tool" --error-exitcode 9 "$HERE/bin/reduce" \
                        --backend gpu exact --type $ty --n $shape --data binades --runs 0 \
                        --policy "$pol" >> "$OUT/sanitize-$tool.log" 2>&1 \
                        || { echo "$tool $ty n=$shape $pol FAILED" >&2; status=1; }
                done
            done
        done
        echo "$tool: $(grep -h "SUMMARY" "$OUT/sanitize-$tool.log" | sort | uniq -c | tr -s ' ')" >&2
    done
}

sanitize_var() {
    local types="$1" tool ty n runs
    shift
    if ! command -v compute-sanitizer > /dev/null 2>&1; then
        echo "no compute-sanitizer: sanitizer runs skipped" >&2
        return 0
    fi
    for tool in memcheck racecheck; do
        runs=0
        for ty in $types; do
            for n in 100003 4000037; do
                compute-sanitizer --tool "$tool" --error-exitcode 9 "$R" --backend gpu transform \
                    "$@" --type "$ty" --op var --n "$n" --runs 0 \
                    >> "$OUT/sanitize-$tool.log" 2>&1 || { echo "$tool $ty n=$n FAILED" >&2; status=1; }
                runs=$((runs + 1))
            done
        done
        echo "$tool: $(grep -cE 'ERROR SUMMARY: 0|RACECHECK SUMMARY: 0' "$OUT/sanitize-$tool.log") clean runs of $runs"
    done
}
