#!/usr/bin/env bash
# Session 13, issue #14: the rolling-load f16/bf16 moments kernels with their loop unrolled by two
# tiles (two register sets, no moves to carry the next tile; the same merge order, so the same
# bits) — ptxv/unroll2.ptx, built from that (uncommitted) loop and cut by ptx-variants/trim.py to
# the two `reduce_transform_roll_r72_moments_b256_*` kernels at `.maxnreg 80` (72 spills),
# JIT-compiled — against the build's cubin (72 registers), beside the read-only kernel. min /
# median of 50 runs, every result checked -> OUTDIR/unroll2.jsonl, OUTDIR/unroll2.md.
#     bash s13-unroll2-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=variant-lib.sh
. "$HERE/variant-lib.sh"
variant_start "${1:-./results}" unroll2.jsonl
for round in 1 2 3; do
    for ty in f16 bf16; do
        one "cubin" "" $ty total,var 26
        one "unroll2 r80" "$HERE/ptxv/unroll2.ptx" $ty var 26
    done
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" 26 | tag "read-only"
done
for ty in f16 bf16; do
    one "cubin" "" $ty var 30
    one "unroll2 r80" "$HERE/ptxv/unroll2.ptx" $ty var 30
done
[ -x "$OUT/half_roof" ] && "$OUT/half_roof" 30 | tag "read-only"
rm -f "$OUT/half_roof"
python3 "$HERE/python/runs_table.py" "$J" variant "variant" plan --gbps --n > "$OUT/unroll2.md" || status=1
cat "$OUT/unroll2.md"
exit $status
