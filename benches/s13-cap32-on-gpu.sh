#!/usr/bin/env bash
# Session 13, issue #14: the sum-like transform kernels (sumsq, l1, total, nantotal) capped at 32
# registers — ptxas fits them there without spilling (nantotal f32 aside), so an SM holds four
# 512-thread blocks instead of three (nantotal, 40 registers) or two (f32 sumsq / l1, 44-48).
# The capped kernels come from ptxv/r32.ptx (the build's PTX cut to these kernels by
# ptx-variants/trim.py, `.maxnreg 32`), JIT-compiled (`reduce --ptx`), each planned at its own
# occupancy; beside the build's cubin, the read-only kernel and the f32 sum. min / median of 50
# runs, every result checked -> OUTDIR/cap32.jsonl, OUTDIR/cap32.md.
#     bash s13-cap32-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=variant-lib.sh
. "$HERE/variant-lib.sh"
variant_start "${1:-./results}" cap32.jsonl
for round in 1 2; do
    for ty in f16 bf16; do
        one "cubin" "" $ty total,nanmean 26
        one "r32" "$HERE/ptxv/r32.ptx" $ty total,nanmean 26
    done
    one "cubin" "" f32 sum,sumsq,l1 26
    one "r32" "$HERE/ptxv/r32.ptx" f32 sumsq,l1 26
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" 26 | tag "read-only"
done
for ty in f16 bf16; do
    one "cubin" "" $ty nanmean 30
    one "r32" "$HERE/ptxv/r32.ptx" $ty nanmean 30
done
[ -x "$OUT/half_roof" ] && "$OUT/half_roof" 30 | tag "read-only"
rm -f "$OUT/half_roof"
python3 "$HERE/python/runs_table.py" "$J" variant "variant" plan --gbps --n > "$OUT/cap32.md" || status=1
cat "$OUT/cap32.md"
exit $status
