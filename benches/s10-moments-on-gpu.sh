#!/usr/bin/env bash
# Session 10: the moments kernel's occupancy (issue #14: var/std at 2^26 within 5% of the sum).
# Its tiles hold 64 registers, so two 512-thread blocks fit an SM where the sum's 32 registers fit
# four. PTX variants with `.maxnreg` on the moments entries (ptx/cap40.ptx: three blocks per SM,
# ptx/cap32.ptx: four; ptx/base.ptx: the same PTX uncapped, JIT-compiled the same way), each
# with the grids that fill 2, 3 and 4 blocks per SM; f32 and f16 var at 2^26, the f32 sum (stage
# 8) and `total` as the reference, min / median of 50 runs -> OUTDIR/moments.jsonl.
#     bash s10-moments-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-./results}"
mkdir -p "$OUT/logs"
R="$HERE/bin/reduce"
J="$OUT/moments.jsonl"
: > "$J"
N=$((1 << 26))
for v in base cap40 cap32; do
    P="$HERE/ptx/$v.ptx"
    for g in default 264 396 528; do
        ga=""; [ "$g" != default ] && ga="--grid $g"
        for to in f32:var,sum f16:var,total; do
            ty=${to%%:*}
            "$R" --backend gpu --ptx "$P" transform --type $ty --op ${to##*:} --n $N --runs 50 $ga --format json 2>> "$OUT/logs/err.log" \
                | sed "s/^{/{\"variant\":\"$v\",\"grid_arg\":\"$g\",/" >> "$J"
        done
    done
done
"$R" --backend gpu transform --op var,sum,sumsq --n $N --runs 50 --format json 2>> "$OUT/logs/err.log" \
    | sed 's/^{/{"variant":"embedded","grid_arg":"default",/' >> "$J"
