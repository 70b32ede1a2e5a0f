#!/usr/bin/env bash
# Session 18, issue #14: the moments kernels with Chan's division kept in its branch
# (`gpu::fma::div_f64`: the compiler had hoisted `n_b / n` out of the equal-counts branch, so
# every merge of the warp, block and grid trees ran a whole `div.rn.f64`; call 2's probe put
# the halves' variance's extra time over `total` in those trees). bin/reduce embeds the new
# kernels; ptxv/v0.ptx is HEAD's (JIT), ptxv/d1.ptx this build's (JIT), side by side with
# `total` and the read-only kernel: 2^26 in three rounds, then 2^24, 2^28, 2^30 (f16, bf16),
# and f32 / f64 var at 2^26 -> OUTDIR/var.jsonl, OUTDIR/var.md. Then compute-sanitizer memcheck /
# racecheck of the new kernels and the transform + halves GPU tests.
#     bash s18-div-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=variant-lib.sh
. "$HERE/variant-lib.sh"
variant_start "${1:-./results}" var.jsonl
V="$HERE/ptxv"
size() { # size EXP [TYPES]
    for ty in ${2:-f16 bf16}; do
        one "default (new)" "" $ty var,std,mean,total "$1"
        one "v0 (jit)" "$V/v0.ptx" $ty var "$1"
        one "d1 (jit)" "$V/d1.ptx" $ty var "$1"
    done
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" "$1" | tag "read-only"
}
for round in 1 2 3; do size 26; done
size 24
size 28
size 30
for ty in f32 f64; do
    one "default (new)" "" $ty var,sum 26
    one "v0 (jit)" "$V/v0.ptx" $ty var 26
done
rm -f "$OUT/half_roof"
python3 "$HERE/python/runs_table.py" "$J" variant "variant" plan --gbps --n > "$OUT/var.md" || status=1
cat "$OUT/var.md"
sanitize_var "f16 bf16 f32"
for t in transform halves; do
    "$HERE/bin/gpu-tests" $t > "$OUT/$t-gpu-tests.txt" 2>&1 || { echo "$t GPU tests FAILED"; status=1; }
    echo "$t: $(grep -E 'test result' "$OUT/$t-gpu-tests.txt" | tail -1)"
done
exit $status
