#!/usr/bin/env bash
# Run every benchmark of the reduction ladder on a GPU machine that has no Rust toolchain.
#
# Built on the development machine by `cargo xtask bundle`, which copies this script into bundle/
# together with bin/reduce (the CLI), bin/report, bin/bench-reduce (the criterion benchmarks),
# reduce_kernels.ptx, cuda/ (the CUDA C twins and cub_bench sources) and python/ (baselines.py).
# Copy bundle/ to the GPU machine, then:
#
#     bash run-on-gpu.sh [OUTDIR] [--bench] [--exps 12,14,...,30]
#
#   OUTDIR      where results go (default: $OUT if set, else ./results)
#   --bench     also run the criterion benchmarks (bin/bench-reduce --bench; about 5 minutes
#               on an H200); their HTML report lands in OUTDIR/criterion/report/index.html
#   --exps L    sizes N = 2^e for the sweep and the baselines (default 12,14,...,30)
#
# Fonts: the plots' text (and criterion's HTML plots) need a TrueType font. The script uses
# $REDUCE_REPORT_FONT, else the first fonts/*.ttf of the bundle, else the system's fonts; without
# any, the PNGs have no text and criterion writes no HTML. Re-run the report anywhere later:
# `cargo run -p reduce-benches --bin report -- OUTDIR` (or bin/report OUTDIR).
#
# Steps (each prints one progress line; output and logs go to OUTDIR):
#   device     bin/reduce --backend gpu info                       -> device.txt    (required)
#   nvcc       cuda/ladder_twins.ptx and cuda/cub_bench, if nvcc exists (sm_XX from nvidia-smi,
#              or $NVCC_ARCH, e.g. NVCC_ARCH=sm_90)
#   sweep      bin/reduce sweep --stages 1..7 --exps ...           -> sweep.jsonl   (required)
#   sweep-ops  stage 8 min/max of f32 and sums of f64/i32/u32/i64/u64 -> sweep.jsonl (appended)
#   sweep-gated stage 8, f32 sum, --protocol gated (GPU time only)  -> sweep.jsonl (appended)
#   cub        cuda/cub_bench, then cuda/cub_bench --gated          -> cub.jsonl
#   python     python3 python/baselines.py (torch, cupy)            -> python.jsonl
#   twins      bin/reduce twins --twin-ptx cuda/ladder_twins.ptx    -> twins.jsonl
#   gpu-tests  bin/gpu-tests (the GPU test suite)                   -> gpu-tests.txt (required)
#   stress     bin/reduce stress (repetition, leaks, streams)       -> stress.txt
#   report     bin/report OUTDIR      -> results.md, time_vs_n.png, bandwidth_vs_n.png,
#                                        ladder_2e22.png                          (required)
#   criterion  bin/bench-reduce --bench (with --bench only; then required)
#
# A failing optional step is reported and the run goes on; the exit status is non-zero if a
# required step failed. stderr of every step is kept in OUTDIR/logs/<step>.log.

set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

usage() {
    sed -n '2,/^$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

OUTDIR=""
RUN_BENCH=0
EXPS="12,14,16,18,20,22,24,26,28,30"
while [ $# -gt 0 ]; do
    case "$1" in
        --bench) RUN_BENCH=1 ;;
        --exps)
            [ $# -ge 2 ] || { echo "run-on-gpu.sh: --exps needs a list like 12,22,30" >&2; exit 2; }
            EXPS="$2"
            shift
            ;;
        --exps=*) EXPS="${1#--exps=}" ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "run-on-gpu.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *)
            [ -z "$OUTDIR" ] || { echo "run-on-gpu.sh: more than one OUTDIR given" >&2; exit 2; }
            OUTDIR="$1"
            ;;
    esac
    shift
done
case "$EXPS" in
    *[!0-9,]*|"") echo "run-on-gpu.sh: --exps must be comma-separated numbers, got '$EXPS'" >&2; exit 2 ;;
esac
EXPS_SPACED="${EXPS//,/ }"
OUTDIR="${OUTDIR:-${OUT:-./results}}"
mkdir -p "$OUTDIR/logs" || { echo "run-on-gpu.sh: cannot create $OUTDIR" >&2; exit 2; }
OUTDIR="$(cd "$OUTDIR" && pwd)"
LOGS="$OUTDIR/logs"

REQUIRED_FAILED=()
OPTIONAL_FAILED=()
SKIPPED=()

say() { printf '%s\n' "$*"; }

# run_step NAME required|optional OUTFILE CMD...  (OUTFILE "-" discards stdout, "+F" appends to F)
run_step() {
    local name="$1" kind="$2" out="$3"
    shift 3
    local start=$SECONDS rc
    say "==> $name: $*"
    case "$out" in
        -) "$@" >"$LOGS/$name.out" 2>"$LOGS/$name.log" ;;
        +*) "$@" >>"${out#+}" 2>"$LOGS/$name.log" ;;
        *) "$@" >"$out" 2>"$LOGS/$name.log" ;;
    esac
    rc=$?
    if [ $rc -eq 0 ]; then
        say "    $name: ok ($((SECONDS - start)) s)"
        return 0
    fi
    say "    $name: FAILED (exit $rc after $((SECONDS - start)) s); last lines of logs/$name.log:"
    tail -n 5 "$LOGS/$name.log" | sed 's/^/      /'
    if [ "$kind" = required ]; then
        REQUIRED_FAILED+=("$name")
    else
        OPTIONAL_FAILED+=("$name")
    fi
    return $rc
}

skip() {
    say "==> $1: skipped ($2)"
    SKIPPED+=("$1: $2")
}

say "run-on-gpu.sh: bundle $HERE -> results $OUTDIR (N = 2^{$EXPS})"

# The plots' text and criterion's HTML plots need a TrueType font; GPU machines often have none
# in /usr/share/fonts, so the bundle may carry one in fonts/.
if [ -z "${REDUCE_REPORT_FONT:-}" ]; then
    for f in "$HERE"/fonts/*.ttf "$HERE"/fonts/*.otf; do
        if [ -f "$f" ]; then
            export REDUCE_REPORT_FONT="$f"
            break
        fi
    done
fi

REDUCE="$HERE/bin/reduce"
if [ ! -x "$REDUCE" ]; then
    say "run-on-gpu.sh: $REDUCE is missing: build the bundle with \`cargo xtask bundle\` and copy all of bundle/ here"
    exit 2
fi

# Provenance: what ran where.
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(hostname 2>/dev/null || echo '?')"
    echo "exps: $EXPS"
    echo "font: ${REDUCE_REPORT_FONT:-(system fonts)}"
    command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi 2>&1
    command -v nvcc >/dev/null 2>&1 && nvcc --version 2>&1
} >"$OUTDIR/environment.txt" 2>&1

# 1. The GPU itself (everything below needs it).
if ! run_step device required "$OUTDIR/device.txt" "$REDUCE" --backend gpu info; then
    say "run-on-gpu.sh: no usable GPU; nothing else can run"
    exit 1
fi

# 2. CUDA C baselines, built here (the development machine may have no CUDA toolkit).
NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
ARCH="${NVCC_ARCH:-}"
if [ -z "$ARCH" ]; then
    CAP="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')"
    case "$CAP" in
        [0-9][0-9]|[0-9][0-9][0-9]) ARCH="sm_$CAP" ;;
        *) ARCH="sm_90" ;;
    esac
fi
CUDA_SRC="$HERE/cuda"
CUDA_BUILD="$CUDA_SRC"
if ! { [ -d "$CUDA_BUILD" ] && [ -w "$CUDA_BUILD" ]; }; then
    CUDA_BUILD="$OUTDIR/build"
    mkdir -p "$CUDA_BUILD"
fi
TWIN_PTX=""
CUB_BENCH=""
if [ -z "$NVCC" ]; then
    skip nvcc "nvcc not found: no CUDA C twins, no CUB baseline"
elif [ ! -f "$CUDA_SRC/ladder_twins.cu" ] || [ ! -f "$CUDA_SRC/cub_bench.cu" ]; then
    skip nvcc "the CUDA sources are not in $CUDA_SRC"
else
    say "    nvcc: $NVCC, -arch=$ARCH"
    run_step nvcc-twins optional - "$NVCC" -O3 -arch="$ARCH" -ptx "$CUDA_SRC/ladder_twins.cu" \
        -o "$CUDA_BUILD/ladder_twins.ptx" && TWIN_PTX="$CUDA_BUILD/ladder_twins.ptx"
    run_step nvcc-cub optional - "$NVCC" -O3 -arch="$ARCH" -std=c++17 "$CUDA_SRC/cub_bench.cu" \
        -o "$CUDA_BUILD/cub_bench" && CUB_BENCH="$CUDA_BUILD/cub_bench"
fi

# 3. The Rust ladder: stages 1-7 (kernels only) and stage 8 (with the result copy), f32 sum.
run_step sweep required "$OUTDIR/sweep.jsonl" \
    "$REDUCE" --backend gpu sweep --stages 1,2,3,4,5,6,7 --exps "$EXPS"
# Stage 8's other ops and types (the report's "Other ops and types" table).
run_step sweep-ops optional "+$OUTDIR/sweep.jsonl" \
    "$REDUCE" --backend gpu sweep --ops min,max --types f32 --exps "$EXPS"
run_step sweep-types optional "+$OUTDIR/sweep.jsonl" \
    "$REDUCE" --backend gpu sweep --ops sum --types f64,i32,u32,i64,u64 --exps "$EXPS"
# The same f32 sums with every run queued behind the gate kernel (the report's "gated" table).
run_step sweep-gated optional "+$OUTDIR/sweep.jsonl" \
    "$REDUCE" --backend gpu sweep --protocol gated --exps "$EXPS"

# 4. Baselines.
if [ -n "$CUB_BENCH" ]; then
    # shellcheck disable=SC2086  # one argument per exponent
    run_step cub optional "$OUTDIR/cub.jsonl" "$CUB_BENCH" $EXPS_SPACED
    # shellcheck disable=SC2086
    run_step cub-gated optional "+$OUTDIR/cub.jsonl" "$CUB_BENCH" --gated $EXPS_SPACED
else
    skip cub "cub_bench was not built"
fi
if ! command -v python3 >/dev/null 2>&1; then
    skip python "python3 not found"
elif [ ! -f "$HERE/python/baselines.py" ]; then
    skip python "$HERE/python/baselines.py is not in the bundle"
else
    # shellcheck disable=SC2086
    run_step python optional "$OUTDIR/python.jsonl" python3 "$HERE/python/baselines.py" $EXPS_SPACED
fi
if [ -n "$TWIN_PTX" ]; then
    run_step twins optional "$OUTDIR/twins.jsonl" \
        "$REDUCE" twins --twin-ptx "$TWIN_PTX" --format json
else
    skip twins "the CUDA C twins were not built"
fi

# 4b. The GPU test suite (bin/gpu-tests, from `cargo test --test gpu`) and the stress run.
if [ -x "$HERE/bin/gpu-tests" ]; then
    run_step gpu-tests required "$OUTDIR/gpu-tests.txt" "$HERE/bin/gpu-tests"
else
    skip gpu-tests "bin/gpu-tests is not in the bundle"
fi
run_step stress optional "$OUTDIR/stress.txt" "$REDUCE" --backend gpu stress

# 5. The report.
if [ -x "$HERE/bin/report" ]; then
    run_step report required - "$HERE/bin/report" "$OUTDIR"
else
    say "==> report: $HERE/bin/report is missing from the bundle"
    REQUIRED_FAILED+=("report (missing)")
fi

# 6. criterion, on request.
if [ "$RUN_BENCH" = 1 ]; then
    BENCHES=("$HERE"/bin/bench-*)
    if [ -x "${BENCHES[0]}" ]; then
        export CRITERION_HOME="$OUTDIR/criterion"
        for b in "${BENCHES[@]}"; do
            name="$(basename "$b")"
            run_step "$name" required "$OUTDIR/$name.txt" "$b" --bench
        done
    else
        say "==> criterion: no bin/bench-* in the bundle"
        REQUIRED_FAILED+=("criterion (missing)")
    fi
else
    skip criterion "pass --bench to run the criterion benchmarks (about 5 minutes)"
fi

say ""
say "results in $OUTDIR:"
for f in results.md time_vs_n.png bandwidth_vs_n.png ladder_2e22.png sweep.jsonl cub.jsonl \
    python.jsonl twins.jsonl criterion/report/index.html; do
    [ -e "$OUTDIR/$f" ] && say "  $f"
done
for s in "${SKIPPED[@]+"${SKIPPED[@]}"}"; do say "skipped: $s"; done
if [ ${#OPTIONAL_FAILED[@]} -gt 0 ]; then
    say "optional steps that failed: ${OPTIONAL_FAILED[*]} (see $LOGS)"
fi
if [ ${#REQUIRED_FAILED[@]} -gt 0 ]; then
    say "FAILED: ${REQUIRED_FAILED[*]} (see $LOGS)"
    exit 1
fi
say "done"
