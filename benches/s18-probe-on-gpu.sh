#!/usr/bin/env bash
# Session 18, issue #14: where the halves' variance spends the time `total` does not, at the same
# launch shape. ptxv/probe.ptx is a temporary build of the transform driver that prints one line
# per block (phase cycles, %globaltimer; python/s18_probe_report.py summarizes one launch): var
# (rolling, 396 x 256), total at var's plan and at its own (528 x 512), at 2^24, 2^26 and 2^28.
# Then, timed (embedded kernels, no probe), var against total at var's plan across N, and var's
# finish made cheap: ptxv/f1.ptx has Chan's merges as plain additions and no division in the
# thread's fold (a WRONG result, timing only), against ptxv/v0.ptx (HEAD's), both JIT-compiled.
#     bash s18-probe-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=variant-lib.sh
. "$HERE/variant-lib.sh"
variant_start "${1:-./results}" same-plan.jsonl
P="$HERE/ptxv/probe.ptx"
probe() { # probe LABEL EXP OP [ARGS...]
    local label="$1" e="$2" op="$3"
    shift 3
    "$R" --backend gpu transform --ptx "$P" --type f16 --op "$op" --n $((1 << e)) --runs 3 "$@" \
        > "$OUT/logs/probe-$label-$e.txt" 2>&1 || status=1
    python3 "$HERE/python/s18_probe_report.py" "$label 2^$e" < "$OUT/logs/probe-$label-$e.txt"
}
for e in 24 26 28; do
    probe var $e var
    probe total-768 $e total --block 256 --grid 396
    probe total $e total
    probe var-plain $e var --loop plain
done
for e in 16 20 24 26 28; do
    for round in 1 2; do
        one "var" "" f16 var $e
        one "total 396x256" "" f16 total $e --block 256 --grid 396
        one "total" "" f16 total $e
        one "v0 (jit)" "$HERE/ptxv/v0.ptx" f16 var $e
        one "F1 adds (jit, wrong result)" "$HERE/ptxv/f1.ptx" f16 var $e
    done
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" "$e" | tag "read-only"
done
rm -f "$OUT/half_roof"
python3 "$HERE/python/runs_table.py" "$J" variant "variant" plan --gbps --n > "$OUT/same-plan.md" || status=1
cat "$OUT/same-plan.md"
exit $status
