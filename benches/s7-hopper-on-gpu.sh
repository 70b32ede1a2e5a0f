#!/usr/bin/env bash
# Issue #20 on the H200 in one device call: stage 8's two cross-block combines — the ticket (one
# kernel, the default) and PDL (two kernels joined by a programmatic dependent launch,
# `--combine pdl`) — against the read-only kernel and CUB, plus the PDL path's GPU tests and
# compute-sanitizer runs, and the SASS of CUB's single-tile kernel next to ours. For the bundle
# made by `cargo xtask bundle` (run from the bundle: bin/reduce, bin/gpu-tests, cuda/, python/,
# reduce_kernels.ptx):
#
#     bash s7-hopper-on-gpu.sh OUTDIR
#
# Steps (each under a timeout; a failed step does not stop the others; OUTDIR/status.txt gets one
# line per step with its exit status and seconds):
#   sweep     bin/reduce sweep --protocol gated --runs 100 --combine ticket,pdl, f32 sums at
#             N = 2^12, 2^14, ..., 2^30: rows rust_s8 (ticket) and rust_s8_pdl, min / median,
#             each checked against the reference and for the same bits after its timed runs
#             -> OUTDIR/s8.jsonl
#   rerun     the same sweep in a second process (5 runs) at 2^16..2^28, for bit-identity across
#             processes -> OUTDIR/s8_rerun.jsonl
#   small-bB  2^12 as one block of B = 256, 512, 1024 threads (--grid 1 --block B), the 2^12 gap
#             to CUB's single tile by block shape -> OUTDIR/s8_small.jsonl
#   cub       cuda/cub_bench --gated --runs 100 (CUB mapped = CUB writing into mapped memory, the
#             form comparable to stage 8; read_kernel = the read-only kernel for N >= 2^20)
#             -> OUTDIR/cub.jsonl
#   hopper    cuda/hopper_combine (the CUDA C read / ticket / cluster / pdl variants of
#             benches/results/tuning-2026-11-30-s4-hopper; its `read` is the read-only kernel at
#             every N, its ticket and pdl the CUDA C twins of ours) -> OUTDIR/hopper.jsonl
#   tests     bin/gpu-tests pdl (the PDL GPU tests: ticket bits for every op and type, reruns,
#             back-to-back launches) -> OUTDIR/logs/tests.log
#   sanitize  compute-sanitizer memcheck, racecheck, synccheck over the PDL path (`reduce sweep
#             --combine pdl`: f32/f64/i32 sum and max at 2^10 and 2^17 with a forced grid of 7
#             (and 512-thread blocks, the PDL pair's),
#             f32/i32 sum and nanmax at 2^21 with the policy's grid of 256)
#             -> OUTDIR/logs/sanitize-*.log
#   sass      CUB's kernels (cuda/cub_single_tile.cu: cub::DeviceReduce::Sum of 4096 f32) and
#             ours (ptxas -e on reduce_kernels.ptx: stage 8's one-block kernel at 2^12,
#             reduce_s8_sum_b256_f32, its 512-thread form, the PDL pair) disassembled with
#             cuobjdump -sass, with their register use, and Nsight Compute's launch statistics of
#             both at 2^12 where ncu exists -> OUTDIR/sass/
#   report    python/hopper_report.py -> OUTDIR/s7-hopper.md (the table and the checks)
# Exit status non-zero if a step failed or a check did not hold.
#
# Planned at about 150-200 s on one H200, none of it measured yet (estimates: sweep 30-40 s — it
# generates, checks and uploads 4 GiB at 2^30 —, rerun and small 15 s, cub 30 s, hopper 20 s,
# tests 30 s, six sanitizer runs 5-10 s each, sass 20 s); every step has a timeout (sum of the
# limits 900 s). nvcc builds the three CUDA programs in the background while the sweep runs.
#
# Dry run elsewhere: HOPPER_BACKEND=emu HOPPER_EXPS=12,16 HOPPER_RUNS=3 (the emulator: no CUB,
# no sanitizer, no SASS).
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:?usage: s7-hopper-on-gpu.sh OUTDIR}"
mkdir -p "$OUT/logs" "$OUT/sass"
OUT="$(cd "$OUT" && pwd)"
R="$HERE/bin/reduce"
BACKEND="${HOPPER_BACKEND:-gpu}"
EXPS="${HOPPER_EXPS:-12,14,16,18,20,22,24,26,28,30}"
EXPS_SPACED="${EXPS//,/ }"
RUNS="${HOPPER_RUNS:-100}"
WORK="$(mktemp -d)"
T0=$(date +%s)
status=0
: > "$OUT/status.txt"

step() {
    local name="$1" limit="$2" t0 rc
    shift 2
    t0=$(date +%s)
    timeout "$limit" "$@" > "$OUT/logs/$name.log" 2>&1
    rc=$?
    echo "$name rc=$rc $(( $(date +%s) - t0 ))s (at $(( $(date +%s) - T0 ))s)" | tee -a "$OUT/status.txt" >&2
    [ $rc -eq 0 ] || status=1
    return $rc
}

# The CUDA programs compile while stage 8 runs.
NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
ARCH="${NVCC_ARCH:-sm_90}"
if [ -n "$NVCC" ] && [ "$BACKEND" = gpu ]; then
    for prog in cub_bench hopper_combine cub_single_tile; do
        "$NVCC" -O3 -arch="$ARCH" -std=c++17 -o "$WORK/$prog" "$HERE/cuda/$prog.cu" \
            > "$OUT/logs/nvcc-$prog.log" 2>&1 &
    done
fi
{
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total \
        --format=csv 2>&1
    [ -n "$NVCC" ] && "$NVCC" --version 2>&1 | tail -2
    command -v ptxas > /dev/null && ptxas --version | tail -1
} > "$OUT/gpu.txt" 2>&1

# ---- stage 8, both combines, same process, same input ----
step sweep 150 sh -c "'$R' --backend $BACKEND sweep --protocol gated --runs $RUNS --warmup 10 \
    --exps $EXPS --combine ticket,pdl > '$OUT/s8.jsonl'"
step rerun 60 sh -c "'$R' --backend $BACKEND sweep --protocol gated --runs 5 --warmup 1 \
    --exps ${HOPPER_RERUN_EXPS:-16,20,24,28} --combine ticket,pdl > '$OUT/s8_rerun.jsonl'"
# 2^12 as one block of each size stage 8 has (the policy's is 256 = one tile of 4 vectors per
# thread; sass/ncu-cub-single-tile.txt says CUB's block): is the gap to CUB the block shape?
: > "$OUT/s8_small.jsonl"
for b in 256 512 1024; do
    step "small-b$b" 30 sh -c "'$R' --backend $BACKEND sweep --protocol gated --runs $RUNS \
        --warmup 10 --exps 12 --block $b --grid 1 >> '$OUT/s8_small.jsonl'"
done

if [ "$BACKEND" = gpu ]; then
    wait # the nvcc builds
    # ---- CUB and the read-only kernel; the CUDA C variants ----
    if [ -x "$WORK/cub_bench" ]; then
        step cub 120 sh -c "'$WORK/cub_bench' --gated --runs $RUNS $EXPS_SPACED > '$OUT/cub.jsonl'"
    else
        echo "cub_bench was not built (logs/nvcc-cub_bench.log): no CUB rows" >&2
        status=1
    fi
    if [ -x "$WORK/hopper_combine" ]; then
        # Its default sizes, 2^12..2^28 (at 2^30 cub_bench's read_kernel is the floor).
        step hopper 90 sh -c "'$WORK/hopper_combine' ${HOPPER_C_EXPS:-12 14 16 18 20 22 24 26 28} \
            > '$OUT/hopper.jsonl'"
    fi

    # ---- the PDL path's GPU tests and sanitizer runs ----
    step tests 150 "$HERE/bin/gpu-tests" pdl
    grep -E '^test |test result' "$OUT/logs/tests.log" >&2
    if command -v compute-sanitizer > /dev/null; then
        for tool in memcheck racecheck synccheck; do
            step "sanitize-$tool-grid7" 60 compute-sanitizer --tool "$tool" --error-exitcode 9 \
                "$R" --backend gpu sweep --combine pdl --runs 1 --warmup 0 --grid 7 --block 512 \
                --exps 10,17 --types f32,f64,i32 --ops sum,max
            step "sanitize-$tool-policy" 60 compute-sanitizer --tool "$tool" --error-exitcode 9 \
                "$R" --backend gpu sweep --combine pdl --runs 1 --warmup 0 \
                --exps 21 --types f32,i32 --ops sum,nanmax
            grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/logs/sanitize-$tool-"*.log >&2
        done
    else
        echo "compute-sanitizer not found: no sanitizer runs" >&2
        status=1
    fi

    # ---- SASS: CUB's single-tile kernel next to stage 8's one-block kernel (2^12) ----
    S="$OUT/sass"
    if [ -x "$WORK/cub_single_tile" ] && command -v cuobjdump > /dev/null; then
        "$WORK/cub_single_tile" 4096 > "$S/cub_single_tile-run.txt" 2>&1
        cuobjdump -sass "$WORK/cub_single_tile" > "$S/cub-all.sass" 2>&1
        cuobjdump -res-usage "$WORK/cub_single_tile" > "$S/cub-res-usage.txt" 2>&1
        # The single-tile kernel's own listing (its mangled name holds "SingleTile").
        awk '/Function :/{keep = ($0 ~ /SingleTile/)} keep' "$S/cub-all.sass" > "$S/cub-single-tile.sass"
    else
        echo "no cub_single_tile or cuobjdump: no CUB SASS" >&2
    fi
    OURS="reduce_s8_sum_b256_f32 reduce_s8_sum_b512_f32 reduce_s8_pdl_partials_sum_b512_f32 reduce_s8_pdl_combine_sum_b512_f32"
    if command -v ptxas > /dev/null && command -v cuobjdump > /dev/null; then
        # Only these entries (-e): seconds instead of the whole 14 MB module. Same PTX as the
        # embedded cubin; this machine's ptxas (gpu.txt) may differ from the one that built it.
        ptxas -arch=sm_90 -O3 $(printf -- '-e %s ' $OURS) "$HERE/reduce_kernels.ptx" \
            -o "$WORK/ours.cubin" > "$S/ptxas.log" 2>&1 \
            && cuobjdump -sass "$WORK/ours.cubin" > "$S/ours-all.sass" 2>&1 \
            && cuobjdump -res-usage "$WORK/ours.cubin" > "$S/ours-res-usage.txt" 2>&1
        for k in $OURS; do
            awk -v k="$k" '/Function :/{keep = ($3 == k)} keep' "$S/ours-all.sass" > "$S/$k.sass"
        done
    fi
    {
        echo "SASS instructions per kernel (lines with an address):"
        for f in "$S"/cub-single-tile.sass "$S"/reduce_s8_*.sass; do
            [ -f "$f" ] && echo "$(grep -cE '^\s+/\*[0-9a-f]{4}\*/' "$f") $(basename "$f")"
        done
    } > "$S/summary.txt"
    if command -v ncu > /dev/null; then
        [ -x "$WORK/cub_single_tile" ] && timeout 60 ncu --kernel-name regex:SingleTile \
            --section LaunchStats --section Occupancy --section SchedulerStats \
            --section WarpStateStats "$WORK/cub_single_tile" 4096 > "$S/ncu-cub-single-tile.txt" 2>&1
        timeout 60 ncu --kernel-name reduce_s8_sum_b256_f32 --section LaunchStats \
            --section Occupancy --section SchedulerStats --section WarpStateStats \
            "$R" --backend gpu run --stages 8 --n 4096 > "$S/ncu-s8-b256.txt" 2>&1
    fi
    cat "$S/summary.txt" >&2
fi

# ---- the table and the checks ----
python3 "$HERE/python/hopper_report.py" "$OUT" > "$OUT/s7-hopper.md" || status=1
cat "$OUT/s7-hopper.md"
echo "total $(( $(date +%s) - T0 ))s, status $status" | tee -a "$OUT/status.txt" >&2
rm -rf "$WORK"
exit $status
