#!/usr/bin/env bash
# Session 13, issue #14: (1) the transform grids sized by the driver's occupancy calculator
# (`plan_transform_on`) against the old grid of four 512-thread blocks per SM (528), where the
# kernel's registers fit fewer: nanmean (40 registers: three per SM), f32 sumsq / l1 / dot (44-64:
# two); (2) rolling loads in the moments kernels (the next tile's loads in flight during this
# tile's arithmetic; PTX variants in ptxv/roll*.ptx, built with the experiment's REDUCE_ROLLING=1
# switch — since replaced by the `reduce_transform_roll_r72` kernels, whose PTX trim.py can cut and
# recap the same way — and cut by ptx-variants/trim.py to the moments kernels, `.maxnreg` 64 / 72 /
# 80), JIT-compiled, each at the grid its own occupancy gives. Beside the read-only kernel (cuda/half_roof.cu) and the f32 sum.
# min / median of 50 runs, every result checked -> OUTDIR/s13.jsonl, OUTDIR/s13.md.
#     bash s13-transform-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=variant-lib.sh
. "$HERE/variant-lib.sh"
variant_start "${1:-./results}" s13.jsonl
for round in 1 2; do
    for ty in f16 bf16; do
        one "default" "" $ty total,nanmean,var 26
        one "grid 528" "" $ty nanmean 26 --grid 528
        one "rolling r64" "$HERE/ptxv/roll64.ptx" $ty var 26
        one "rolling r72 b256" "$HERE/ptxv/roll72.ptx" $ty var 26 --block 256
        one "rolling r80 b256" "$HERE/ptxv/roll80.ptx" $ty var 26 --block 256
    done
    one "default" "" f32 sum,sumsq,l1,dot,var 26
    one "grid 528" "" f32 sumsq,l1,dot,var 26 --grid 528
    one "rolling r64" "$HERE/ptxv/roll64.ptx" f32 var 26
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" 26 | tag "read-only"
done
for ty in f16 bf16; do
    one "default" "" $ty total,nanmean,var 30
    one "grid 528" "" $ty nanmean 30 --grid 528
    one "rolling r72 b256" "$HERE/ptxv/roll72.ptx" $ty var 30 --block 256
done
one "default" "" f32 sum,var 30
one "rolling r64" "$HERE/ptxv/roll64.ptx" f32 var 30
[ -x "$OUT/half_roof" ] && "$OUT/half_roof" 30 | tag "read-only"
if [ -x "$HERE/bin/gpu-tests" ]; then
    "$HERE/bin/gpu-tests" transform > "$OUT/transform-gpu-tests.txt" 2>&1 || { echo "transform GPU tests FAILED" >&2; status=1; }
    "$HERE/bin/gpu-tests" halves > "$OUT/halves-gpu-tests.txt" 2>&1 || { echo "halves GPU tests FAILED" >&2; status=1; }
    tail -2 "$OUT/transform-gpu-tests.txt" "$OUT/halves-gpu-tests.txt" >&2
fi
rm -f "$OUT/half_roof"
python3 "$HERE/python/runs_table.py" "$J" variant "variant" plan --gbps --n > "$OUT/s13.md" || status=1
cat "$OUT/s13.md"
exit $status
