#!/usr/bin/env bash
# Session 17, issue #14: the halves' moments with one-pass tiles (`one_pass_f32` in
# kernels/src/transform/moments.rs: S1 = Σd and S2 = Σd² from the same deviations, no second
# pass) against the commit before's kernels, all JIT-compiled from PTX files cut to the moments
# kernels (benches/python/ptx_subset.py): ptxv/varold.ptx (before), ptxv/varnew.ptx (this build),
# ptxv/var64.ptx (this build, the rolling kernels capped at 64 registers: four 256-thread blocks
# per SM, small spills). Beside them: the embedded default (cubin), its grid at 2, 3, 4 and 8
# waves, the plain loop, `total`, `nanmean` and the read-only kernel; 2^26 in three rounds, then
# 2^24, 2^28, 2^30 (f16) -> OUTDIR/var.jsonl, OUTDIR/var.md. Then Nsight Compute's executed
# instructions of the f16 var kernel (new, old) at 2^26, compute-sanitizer memcheck /
# racecheck of the new kernels and the transform + halves GPU tests.
#     bash s17-var-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=variant-lib.sh
. "$HERE/variant-lib.sh"
variant_start "${1:-./results}" var.jsonl
V="$HERE/ptxv"
size() { # size EXP [TYPES]
    for ty in ${2:-f16 bf16}; do
        one "default" "" $ty var,total "$1"
        one "old (jit)" "$V/varold.ptx" $ty var "$1"
        one "new (jit)" "$V/varnew.ptx" $ty var "$1"
        one "new r64 (jit)" "$V/var64.ptx" $ty var "$1"
    done
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" "$1" | tag "read-only"
}
for round in 1 2 3; do size 26; done
for g in 792 1188 1584 3168; do
    for ty in f16 bf16; do one "grid $g" "" $ty var 26 --grid $g; done
done
for ty in f16 bf16; do
    one "plain loop" "" $ty var 26 --loop plain
    one "default" "" $ty nanmean 26
done
size 24
for e in 28 30; do size $e f16; done
rm -f "$OUT/half_roof"
python3 "$HERE/python/runs_table.py" "$J" variant "variant" plan --gbps --n > "$OUT/var.md" || status=1
cat "$OUT/var.md"
if command -v ncu > /dev/null 2>&1; then
    for v in varnew varold; do
        ncu --metrics smsp__inst_executed.sum,gpu__time_duration.sum,launch__registers_per_thread \
            --launch-skip 3 --launch-count 1 -k regex:'transform' "$R" --backend gpu transform \
            --ptx "$V/$v.ptx" --type f16 --op var --n $((1 << 26)) --runs 5 > "$OUT/ncu-$v.txt" 2>&1 || status=1
        echo "$v: $(grep -E "inst_executed|duration|registers" "$OUT/ncu-$v.txt" | tr -s ' ' | tr '\n' ';')"
    done
fi
if command -v compute-sanitizer > /dev/null 2>&1; then
    for tool in memcheck racecheck; do
        for ty in f16 bf16; do
            for n in 100003 4000037; do
                compute-sanitizer --tool "$tool" --error-exitcode 9 "$R" --backend gpu transform \
                    --type $ty --op var --n "$n" --runs 0 \
                    >> "$OUT/sanitize-$tool.log" 2>&1 || { echo "$tool $ty n=$n FAILED" >&2; status=1; }
            done
        done
        echo "$tool: $(grep -cE 'ERROR SUMMARY: 0|RACECHECK SUMMARY: 0' "$OUT/sanitize-$tool.log") clean runs of 4"
    done
fi
for t in transform halves; do
    "$HERE/bin/gpu-tests" $t > "$OUT/$t-gpu-tests.txt" 2>&1 || { echo "$t GPU tests FAILED"; status=1; }
    echo "$t: $(grep -E 'test result' "$OUT/$t-gpu-tests.txt" | tail -1)"
done
exit $status
