#!/usr/bin/env bash
# Session 18, issue #14: fewer instructions per element in the halves' moments loop, against the
# current kernels, all JIT-compiled from PTX files cut to the rolling moments kernels
# (benches/python/ptx_subset.py): ptxv/v0.ptx (HEAD's), ptxv/v2.ptx (the rolling loop two tiles
# per trip — no register copies — plus the shift's flag and no d0 = c - c), ptxv/v3.ptx (v2 plus
# S2 as a running fused multiply-add chain instead of a tree), ptxv/v4.ptx (32-value tiles, S2 in
# four chains; spills at 80 registers). Beside them: the embedded default
# (cubin), `total` and the read-only kernel; 2^26 in three rounds, then 2^24, 2^28 and 2^30 (f16)
# -> OUTDIR/var.jsonl, OUTDIR/var.md. Then Nsight Compute (instructions, warp-state stall reasons)
# of var (v0, v3) and total at 2^26, compute-sanitizer memcheck / racecheck of v3.
#     bash s18-var-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=variant-lib.sh
. "$HERE/variant-lib.sh"
variant_start "${1:-./results}" var.jsonl
V="$HERE/ptxv"
size() { # size EXP [TYPES]
    for ty in ${2:-f16 bf16}; do
        one "default" "" $ty var,total "$1"
        for v in v0 v2 v3 v4; do one "$v (jit)" "$V/$v.ptx" $ty var "$1"; done
    done
    [ -x "$OUT/half_roof" ] && "$OUT/half_roof" "$1" | tag "read-only"
}
for round in 1 2 3; do size 26; done
size 24
size 28 f16
size 30 f16
rm -f "$OUT/half_roof"
python3 "$HERE/python/runs_table.py" "$J" variant "variant" plan --gbps --n > "$OUT/var.md" || status=1
cat "$OUT/var.md"
if command -v ncu > /dev/null 2>&1; then
    prof() { # prof NAME OP [ARGS...]
        local name="$1" op="$2"
        shift 2
        ncu --section WarpStateStats --section SchedulerStats \
            --metrics smsp__inst_executed.sum,gpu__time_duration.sum,launch__registers_per_thread,dram__throughput.avg.pct_of_peak_sustained_elapsed \
            --launch-skip 3 --launch-count 1 -k regex:'transform' "$R" --backend gpu transform \
            --type f16 --op "$op" --n $((1 << 26)) --runs 5 "$@" > "$OUT/ncu-$name.txt" 2>&1 || status=1
        echo "$name: $(grep -E "inst_executed|duration|Stall|Issued Warp|No Eligible|Warp Cycles Per Issued" "$OUT/ncu-$name.txt" | tr -s ' ' | tr '\n' ';')"
    }
    prof var-v0 var
    prof var-v3 var --ptx "$V/v3.ptx"
    prof total total
    prof total-768 total --block 256 --grid 396
fi
sanitize_var "f16 bf16" --ptx "$V/v3.ptx"
exit $status
