#!/usr/bin/env bash
# The one GPU runner: timing suites, the GPU tests and the sanitizers, and the side-by-side proof
# against an older build, on a GPU machine that has no Rust toolchain (the binaries are built
# elsewhere and staged in bin/; see benches/README.md).
#
#     bash benches/gpu.sh OUTDIR SUITE... [options]
#
# Suites (run in the order given; `all` = every suite below but proof):
#   ladder     stages 1-7 and stage 8 against their CUDA C twins (nvcc), f32 sums
#   stage8     stage 8's sums, ops and types, plain and gated, against CUB and torch/CuPy
#   axis       sums along rows, columns and ragged segments against torch and CUB segmented
#   toolbox    argmin/argmax, the custom operator, NumPy-style ops, f16/bf16, transform-reduce
#              (norms, dot, mean, var, std), each against torch and CUB where they have it
#   exact      the correctly rounded sums against CUB's determinism levels and torch; accuracy
#              on adversarial data; the reproducibility matrix
#   host       data that starts in host memory (pageable, pinned, zero-copy) against torch/CuPy
#   multi      one GPU's part always; with two GPUs or more the NCCL reduction, exact sums and
#              every op x type across GPUs, against torch.distributed
#   sanitizer  the GPU test suite (bin/gpu-tests), `reduce stress`, the CLI's own checks, then
#              compute-sanitizer memcheck, racecheck, initcheck and synccheck over every kernel
#              family (stages, wide sums, axis, arg, transform, halves, exact, host, multi)
#   interop    device memory from cudarc reduced in place, bad pointers, the caller's streams, a
#              CUDA graph (bin/borrowed-tests); the cudarc example; borrowed against buffer,
#              enqueue host time and graph replay timings (bin/interop-bench); the Python
#              extension (bin/reduce.abi3.so) against torch (python/torch_ext.py)
#   proof      the proof cases run by the old `reduce` (--baseline) and this one alternating:
#              result bits and min/median times side by side (proof/proof.md)
# After ladder or stage8, bin/report turns their records into report/results.md and plots; after
# any of stage8, axis, toolbox, exact, host or multi, `bin/report OUTDIR --readme` writes the
# README's performance tables, one per family, to OUTDIR/readme-tables.md.
#
# Options:
#   --bin DIR         the binaries (default: bin/ beside this script)
#   --baseline DIR    the old binaries for proof (default: bin-old/ beside this script)
#   --rounds N        proof rounds per binary, old/new alternating ABBA (default 2)
#   --exps LIST       stage 8's sizes, e.g. 12,20,30 (default 12,14,...,30)
#   --budget S        the whole run's seconds: each suite's limit is cut to what is left, and
#                     no suite starts with less than 30 s left (a suite's own limit:
#                     LIMIT_<suite>=S)
#   --pack            leave in OUTDIR only summary.md, console.log, environment.txt,
#                     readme-tables.md and results.tar (one .tgz per suite, appended as each
#                     ends): what a device call can bring back (8 files at most)
#   --ncu             ladder: also profile stages 1-8 with Nsight Compute (needs ncu)
#   --criterion       ladder: also run the criterion benchmarks (bin/bench-*)
#   --kernels K       which form of the embedded kernels every run loads: sass (the default: the
#                     cubin of the GPU's architecture) or ptx (the PTX, JIT-compiled kernel by
#                     kernel, as on a GPU no cubin runs on); exported as REDUCE_KERNEL_IMAGE
#
# Exit status: 0 when every suite that ran passed; OUTDIR/summary.md says which failed and why
# (each suite's status.txt and logs/ hold the details).
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LIB=$HERE/lib
ALL_SUITES="ladder stage8 axis toolbox exact host multi sanitizer interop"

usage() { sed -n '2,/^set -u/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

OUTDIR="" SUITES=() BIN=$HERE/bin BASELINE=$HERE/bin-old ROUNDS=2 BUDGET=0 PACK=0
EXPS=12,14,16,18,20,22,24,26,28,30 NCU=0 CRITERION=0
while [ $# -gt 0 ]; do
    case $1 in
        --bin | --baseline | --rounds | --exps | --budget | --kernels)
            [ $# -ge 2 ] || { echo "gpu.sh: $1 needs a value" >&2; exit 2; }
            case $1 in
                --bin) BIN=$2 ;;
                --baseline) BASELINE=$2 ;;
                --rounds) ROUNDS=$2 ;;
                --exps) EXPS=$2 ;;
                --budget) BUDGET=$2 ;;
                --kernels)
                    case $2 in
                        sass | ptx) export REDUCE_KERNEL_IMAGE=$2 ;;
                        *) echo "gpu.sh: --kernels takes sass or ptx" >&2; exit 2 ;;
                    esac ;;
            esac
            shift ;;
        --pack) PACK=1 ;;
        --ncu) NCU=1 ;;
        --criterion) CRITERION=1 ;;
        -h | --help) usage; exit 0 ;;
        -*) echo "gpu.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        all) read -r -a more <<<"$ALL_SUITES"; SUITES+=("${more[@]}") ;;
        *)
            if [ -z "$OUTDIR" ]; then
                OUTDIR=$1
            elif [ -f "$LIB/$1.sh" ] && [ "$1" != steps ]; then
                SUITES+=("$1")
            else
                echo "gpu.sh: no suite '$1' (suites: $ALL_SUITES proof)" >&2
                exit 2
            fi ;;
    esac
    shift
done
if [ -z "$OUTDIR" ] || [ ${#SUITES[@]} -eq 0 ]; then
    usage >&2
    exit 2
fi
case $EXPS,$ROUNDS,$BUDGET in
    *[!0-9,]*) echo "gpu.sh: --exps, --rounds and --budget take numbers" >&2; exit 2 ;;
esac
mkdir -p "$OUTDIR" || exit 2
OUTDIR=$(cd "$OUTDIR" && pwd)
BIN=$(cd "$BIN" 2>/dev/null && pwd) || { echo "gpu.sh: no binaries folder $BIN" >&2; exit 2; }
[ -d "$BASELINE" ] && BASELINE=$(cd "$BASELINE" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-sh.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# With --pack the suites write under WORK and only the packed files land in OUTDIR.
RESULTS=$OUTDIR
[ "$PACK" = 1 ] && RESULTS=$WORK/results
mkdir -p "$RESULTS"
export HERE LIB BIN BASELINE WORK EXPS ROUNDS NCU CRITERION
# shellcheck source=/dev/null # lib/steps.sh, checked on its own
. "$LIB/steps.sh"
exec > >(tee -a "$OUTDIR/console.log") 2>&1

REDUCE=$(bin_path reduce) || { echo "gpu.sh: no $BIN/reduce (nor reduce.xz): stage the binaries first (benches/README.md)"; exit 2; }
export REDUCE
if [ -z "${REDUCE_REPORT_FONT:-}" ]; then
    for f in "$HERE"/fonts/*.ttf "$BIN"/*.ttf; do [ -f "$f" ] && export REDUCE_REPORT_FONT=$f && break; done
fi
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(hostname 2>/dev/null || echo '?')"
    echo "suites: ${SUITES[*]}"
    echo "kernels: REDUCE_KERNEL_IMAGE=${REDUCE_KERNEL_IMAGE:-sass}"
    echo "reduce: $REDUCE ($("$REDUCE" --version 2>&1))"
    nvidia-smi 2>&1
    command -v nvcc >/dev/null 2>&1 && nvcc --version 2>&1
    "$REDUCE" --backend gpu info 2>&1
} >"$OUTDIR/environment.txt"
say "gpu.sh: ${SUITES[*]} -> $OUTDIR ($(gpu_count) GPU(s))"

# The CUDA baselines the suites need compile in the background from the start.
for s in "${SUITES[@]}"; do
    SUITE_DIR=$RESULTS/$s
    # shellcheck source=/dev/null
    . "$LIB/$s.sh"
    if declare -F "${s}_prebuild" >/dev/null; then "${s}_prebuild"; fi
done

START=0 # bash's SECONDS count from the start of this script
declare -A DEFAULT_LIMIT=([proof]=420 [ladder]=200 [stage8]=200 [axis]=200 [toolbox]=420
    [exact]=200 [host]=200 [multi]=300 [sanitizer]=540 [interop]=200)
SUMMARY=()
status=0

# pack SUITE: append SUITE's folder, compressed, to OUTDIR/results.tar (--pack).
pack() {
    [ "$PACK" = 1 ] || return 0
    tar czf "$WORK/$1.tgz" -C "$RESULTS" "$1" && tar rf "$OUTDIR/results.tar" -C "$WORK" "$1.tgz"
    rm -f "$WORK/$1.tgz"
}

# The report of the ladder and stage 8 (bin/report): their records together in RESULTS/report.
report() {
    local f d
    SUITE_DIR=$RESULTS/report
    mkdir -p "$SUITE_DIR"
    for f in sweep.jsonl cub.jsonl python.jsonl twins.jsonl; do
        for d in ladder stage8; do
            [ -f "$RESULTS/$d/$f" ] && cat "$RESULTS/$d/$f"
        done >"$SUITE_DIR/$f"
        [ -s "$SUITE_DIR/$f" ] || rm -f "$SUITE_DIR/$f"
    done
    FAILED=()
    if rep=$(bin_path report); then
        step report - "$rep" "$SUITE_DIR"
    else
        fail report "no $BIN/report"
    fi
    SUMMARY+=("| report | $([ ${#FAILED[@]} -eq 0 ] && echo ok || echo FAILED) | | report/results.md |")
    [ ${#FAILED[@]} -eq 0 ] || status=1
    pack report
}

# readme_tables: the README's performance tables from every suite's records (bin/report --readme)
# -> OUTDIR/readme-tables.md; its log in RESULTS/readme.
readme_tables() {
    SUITE_DIR=$RESULTS/readme
    mkdir -p "$SUITE_DIR"
    FAILED=()
    [ "$RESULTS" = "$OUTDIR" ] || cp "$OUTDIR/environment.txt" "$RESULTS/environment.txt"
    if ! rep=$(bin_path report); then
        skip readme "no $BIN/report"
        SUMMARY+=("| readme | skipped: no bin/report | | |")
        return
    fi
    step readme - "$rep" "$RESULTS" --readme "$OUTDIR/readme-tables.md"
    SUMMARY+=("| readme | $([ ${#FAILED[@]} -eq 0 ] && echo ok || echo FAILED) | | readme-tables.md |")
    [ ${#FAILED[@]} -eq 0 ] || status=1
    pack readme
}

# summary: OUTDIR/summary.md, every suite's verdict so far, then the tables that matter most
# (rewritten after each suite, so that a run cut short still has one).
summary() {
    {
        echo "# gpu.sh: $(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')"
        echo
        echo "| suite | verdict | seconds | tables |"
        echo "|---|---|---|---|"
        printf '%s\n' "${SUMMARY[@]}"
        for t in proof/proof.md sanitizer/sanitizer.md report/results.md axis/axis.md \
            interop/interop.md interop/torch_ext.md toolbox/arg.md toolbox/transform.md toolbox/toolbox-ops.md toolbox/toolbox-halves.md \
            exact/exact.md host/host.md multi/multi.md; do
            [ -f "$RESULTS/$t" ] || continue
            echo
            echo "## $t"
            echo
            cat "$RESULTS/$t"
        done
    } >"$OUTDIR/summary.md"
}

for s in "${SUITES[@]}"; do
    limit=${DEFAULT_LIMIT[$s]:-300}
    v=LIMIT_$s
    limit=${!v:-$limit}
    if [ "$BUDGET" -gt 0 ]; then
        left=$((BUDGET - (SECONDS - START)))
        if [ "$left" -lt 30 ]; then
            say "==> $s: skipped (the --budget of $BUDGET s is spent)"
            SUMMARY+=("| $s | skipped: out of budget | | |")
            continue
        fi
        [ "$left" -lt "$limit" ] && limit=$left
    fi
    SUITE_DIR=$RESULTS/$s
    mkdir -p "$SUITE_DIR/logs"
    export SUITE_DIR
    say "==> $s (limit $limit s, at $((SECONDS - START)) s)"
    t0=$SECONDS
    # shellcheck disable=SC2016 # expanded by the suite's own bash
    timeout -k 10 "$limit" bash -c '. "$1/steps.sh" && . "$1/$2.sh" && "$2_run"' _ "$LIB" "$s"
    rc=$?
    case $rc in
        0) verdict=ok ;;
        124 | 137) verdict="CUT at $limit s" ;;
        *) verdict="FAILED (exit $rc)" ;;
    esac
    [ "$rc" -eq 0 ] || status=1
    say "<== $s: $verdict ($((SECONDS - t0)) s)"
    SUMMARY+=("| $s | $verdict | $((SECONDS - t0)) | $(find "$SUITE_DIR" -maxdepth 1 -name '*.md' -printf '%f ') |")
    pack "$s"
    summary
done
case " ${SUITES[*]} " in
    *" ladder "* | *" stage8 "*) report ;;
esac
case " ${SUITES[*]} " in
    *" stage8 "* | *" axis "* | *" toolbox "* | *" exact "* | *" host "* | *" multi "*) readme_tables ;;
esac

summary
say ""
printf '%s\n' "${SUMMARY[@]}"
say "gpu.sh: $([ $status -eq 0 ] && echo 'all passed' || echo 'FAILED'); summary in $OUTDIR/summary.md"
exit $status
