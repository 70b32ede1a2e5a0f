#!/usr/bin/env bash
# Session 12, issue #14: do more resident threads make the moments kernels faster? The moments
# kernels (f16, bf16, f32; tiles in chunks of 8 values) under register caps 64 / 48 / 40 / 32,
# from PTX files that hold only the kernels this needs (benches/ptx-variants/trim.py; the same
# PTX as the build's, `.maxnreg` changed), JIT-compiled by the driver (`reduce --ptx`), each at
# the grid that fills the SMs at its occupancy; beside the build's own cubin (cap 64), the f16 /
# bf16 `total`, the read-only kernel and the f32 sum. 2^26 elements, min / median of 50 runs,
# every result checked -> OUTDIR/regcap.jsonl, OUTDIR/regcap.md.
#     bash s12-regcap-on-gpu.sh OUTDIR   (PTX variants in ptxv/m64.ptx … m32.ptx)
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-./results}"
mkdir -p "$OUT/logs"
R="$HERE/bin/reduce"
J="$OUT/regcap.jsonl"
: > "$J"
status=0
NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
"$NVCC" -O3 -arch=sm_90 -std=c++17 -o "$OUT/half_roof" "$HERE/cuda/half_roof.cu" 2> "$OUT/logs/nvcc.log" || status=1
"$R" --backend gpu transform --type f32 --op sum --n $((1 << 24)) --runs 200 > /dev/null 2>&1  # warm-up
N=$((1 << 26))
tag() { sed "s/^{/{\"variant\":\"$1\",/" >> "$J"; }
one() {  # variant-name ptx-or-empty type op extra-args...
    local name="$1" ptx="$2" ty="$3" op="$4"; shift 4
    local p=()
    [ -n "$ptx" ] && p=(--ptx "$ptx")
    "$R" --backend gpu transform "${p[@]}" --type "$ty" --op "$op" --n $N --runs 50 --format json "$@" \
        2>> "$OUT/logs/err.log" | tag "$name" || { echo "$name $ty $op failed" >&2; status=1; }
}
for round in 1 2; do
    for ty in f16 bf16 f32; do
        one "cubin r64 <<<264,512>>>" "" $ty var
        one "r64 <<<264,512>>>" "$HERE/ptxv/m64.ptx" $ty var --block 512 --grid 264
        one "r48 <<<264,512>>>" "$HERE/ptxv/m48.ptx" $ty var --block 512 --grid 264
        one "r48 <<<660,256>>>" "$HERE/ptxv/m48.ptx" $ty var --block 256 --grid 660
        one "r40 <<<396,512>>>" "$HERE/ptxv/m40.ptx" $ty var --block 512 --grid 396
        one "r40 <<<792,256>>>" "$HERE/ptxv/m40.ptx" $ty var --block 256 --grid 792
        one "r32 <<<528,512>>>" "$HERE/ptxv/m32.ptx" $ty var --block 512 --grid 528
    done
    one "total" "" f16 total
    one "total" "" bf16 total
    one "sum" "" f32 sum
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" 26 | tag "read-only"
done
rm -f "$OUT/half_roof"
python3 "$HERE/python/runs_table.py" "$J" variant "variant" plan > "$OUT/regcap.md" || status=1
cat "$OUT/regcap.md"
exit $status
