#!/usr/bin/env bash
# Session 8, the rest of the one device call (run from the bundle made by `cargo xtask bundle`,
# after s8-axis-on-gpu.sh):
#
#     bash s8-extra-on-gpu.sh OUTDIR
#
# 1. Issue #14, argmax grids not measured before, beside CUB's ArgMax in the same call: f32 at
#    2^20 and 2^26, f64 at 2^26, min / median of 50 CUDA-event runs, every result checked
#    against the CPU reference. The lean loop with 4 loads in flight needs 36-38 registers
#    (ptxas 12.9), so 1536-1792 of its threads fit an SM, which no measured grid used (session 7
#    measured 256 x 4 and 256 x 6 with it; 512 x 2 with 8 loads in flight is the tuned default
#    at 2^26): `block=512,bps=3,lane=loop`, `block=256,bps=7,lane=loop`.
#    OUTDIR/s8-arg.jsonl, OUTDIR/s8-arg.md.
# 2. Nsight Compute (`--set full`) on the one-launch column kernel of 2^20 x 16 (the default and
#    `col_once_unroll=8`) and on CUB's ArgMax at 2^26 f32 (its grid, registers and DRAM rate,
#    to compare with session 7's profile of ours): OUTDIR/prof/*.details.txt, *.raw.csv.
# About 80 s of GPU time (session 8 call 1: 40 s). ARG_POLICIES replaces step 1's policies;
# NO_PROFILES=1 skips step 2 (call 2: CUB's profile showed 5 waves of 256-thread blocks at 31
# registers, 95% of warps active, so call 2 measures many-wave grids of ours instead).
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:?usage: s8-extra-on-gpu.sh OUTDIR}"
mkdir -p "$OUT/logs" "$OUT/prof"
OUT="$(cd "$OUT" && pwd)"
J="$OUT/s8-arg.jsonl"
: > "$J"
R="$HERE/bin/reduce"
status=0
t0=$(date +%s)
say() { echo "$1 ($(( $(date +%s) - t0 )) s)" >&2; }

NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
if [ -n "$NVCC" ]; then
    ( "$NVCC" -O3 -arch="${NVCC_ARCH:-sm_90}" -std=c++17 -DNO_HALF_CUB -o "$OUT/cub_argreduce" \
        "$HERE/cuda/cub_argreduce.cu" ) > "$OUT/logs/nvcc-arg.log" 2>&1 &
fi

# --- 1. argmax grids ----------------------------------------------------------------------------
P="${ARG_POLICIES:-tuned;block=512,bps=3,lane=loop;block=256,bps=7,lane=loop;block=512,bps=2,unroll=8,lane=loop;tuned}"
timeout 40 "$R" --backend gpu arg --exps 20,26 --types f32 --ops argmax --policy "$P" --warmup 10 \
    --runs 50 --format json >> "$J" 2>> "$OUT/logs/ours-arg.log" || { echo "ours arg f32 failed" >&2; status=1; }
timeout 40 "$R" --backend gpu arg --exps 26 --types f64 --ops argmax --policy "$P" --warmup 10 \
    --runs 50 --format json >> "$J" 2>> "$OUT/logs/ours-arg.log" || { echo "ours arg f64 failed" >&2; status=1; }
say "ours arg: done"
wait
if [ -x "$OUT/cub_argreduce" ]; then
    timeout 30 "$OUT/cub_argreduce" f32 20 26 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    timeout 30 "$OUT/cub_argreduce" f64 26 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
else
    echo "cub_argreduce did not build (logs/nvcc-arg.log)" >&2
    status=1
fi
say "cub: done"
python3 - "$J" > "$OUT/s8-arg.md" <<'PY' || status=1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
print("## argmax grids (min / median µs of 50; CUB/ours > 1: ours is faster)\n")
print("| type | N | ours: policy (launched shape) | ours µs | CUB µs | CUB/ours (min) | ok |")
print("|---|---|---|---|---|---|---|")
cub = {(r["type"], r["n"]): r for r in recs if r.get("impl") == "cub_argmax"}
for r in recs:
    if not r.get("impl", "").startswith("rust_arg"):
        continue
    c = cub.get((r["type"], r["n"]))
    e = r["n"].bit_length() - 1
    cs = f'{c["min_us"]:.1f} / {c["median_us"]:.1f}' if c else "–"
    ratio = f'{c["min_us"] / r["min_us"]:.3f}' if c else "–"
    pol = r.get("policy", r.get("impl"))
    print(f'| {r["type"]} | 2^{e} | {pol} | {r["min_us"]:.1f} / {r["median_us"]:.1f} | {cs} | {ratio} | {r.get("ok")} |')
PY
cat "$OUT/s8-arg.md"

# --- 2. profiles --------------------------------------------------------------------------------
prof() { # name kernel-regex skip count -- cmd...
    local name=$1 k=$2 skip=$3 cnt=$4; shift 5
    (cd "$OUT/prof" &&
        timeout 60 ncu --set full --import-source no -k "regex:$k" --launch-skip "$skip" \
            --launch-count "$cnt" -f -o "$name" "$@" > "$name.run.log" 2>&1 &&
        ncu -i "$name.ncu-rep" --page details > "$name.details.txt" 2>&1 &&
        ncu -i "$name.ncu-rep" --page raw --csv --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum.per_second \
            > "$name.raw.csv" 2>&1) || { echo "profile $name failed" >&2; status=1; }
    rm -f "$OUT/prof/$name.ncu-rep"
    say "profile $name"
}
if [ -z "${NO_PROFILES:-}" ] && command -v ncu > /dev/null 2>&1; then
    prof once20x16 "reduce_cols" 1 1 -- "$R" --backend gpu axis --rows 1048576 --cols 16 --axis cols --runs 2
    prof once8_20x16 "reduce_cols" 1 1 -- "$R" --backend gpu axis --rows 1048576 --cols 16 --axis cols \
        --runs 2 --policy col_once_unroll=8
    [ -x "$OUT/cub_argreduce" ] && prof cubargmax26 "Reduce" 4 3 -- "$OUT/cub_argreduce" f32 26
fi
rm -f "$OUT/cub_argreduce"
say "s8-extra"
exit $status
