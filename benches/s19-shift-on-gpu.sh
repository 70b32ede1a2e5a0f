#!/usr/bin/env bash
# Session 19, issue #14: the halves' moments folded about one shift for the whole grid
# (`reduce_transform_shift_r80_*`, `kernels/src/transform/grid_shift.rs`: the trees add sums,
# no Chan merges; session 18's probe put the halves' variance's extra time over `total` in
# those merges). The new default (`shifted`) against the rolling loop with Chan's merges
# (`--loop rolling`, the previous default), `total` and the read-only kernel on the same bytes:
# 2^26 in three rounds, then 2^24, 2^28, 2^30 (f16, bf16) -> OUTDIR/var.jsonl, OUTDIR/var.md.
# Then compute-sanitizer memcheck / racecheck of the new kernels, and the #14 transform table
# (toolbox-transform-on-gpu.sh, with the transform + halves GPU tests) into
# OUTDIR/toolbox-transform (S19_TABLE=0: the GPU tests only).
#     bash s19-shift-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=variant-lib.sh
. "$HERE/variant-lib.sh"
variant_start "${1:-./results}" var.jsonl
size() { # size EXP
    for ty in f16 bf16; do
        one "shifted (default)" "" $ty var,std,mean,total "$1"
        one "rolling (Chan)" "" $ty var "$1" --loop rolling
    done
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" "$1" | tag "read-only"
}
for round in 1 2 3; do size 26; done
size 24
size 28
size 30
rm -f "$OUT/half_roof"
python3 "$HERE/python/runs_table.py" "$J" variant "variant" plan --gbps --n > "$OUT/var.md" || status=1
cat "$OUT/var.md"
grep -c '"ok":false' "$J" > /dev/null && { echo "a result outside its bound (ok:false)"; status=1; }
sanitize_var "f16 bf16"
if [ "${S19_TABLE:-1}" != 0 ]; then
    # The table's script runs the transform and halves GPU tests and its own sanitizer runs.
    bash "$HERE/toolbox-transform-on-gpu.sh" "$OUT/toolbox-transform" > "$OUT/logs/toolbox-transform.log" 2>&1 \
        || { echo "toolbox-transform FAILED"; status=1; }
    grep -hE 'test result' "$OUT"/toolbox-transform/*-gpu-tests.txt
else
    for t in transform halves; do
        "$HERE/bin/gpu-tests" $t > "$OUT/$t-gpu-tests.txt" 2>&1 || { echo "$t GPU tests FAILED"; status=1; }
        echo "$t: $(grep -E 'test result' "$OUT/$t-gpu-tests.txt" | tail -1)"
    done
fi
exit $status
