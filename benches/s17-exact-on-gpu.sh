#!/usr/bin/env bash
# Session 17, call 2: the exact sums after one significand decoding (`accumulator::significand`,
# shared by `place`, the warp finish's `digits3` and the integer finish's `word_span`; the PTX of
# the f32 exact kernels and of `SharedWords::add_f64` changed by instruction order only). First
# the old and the new exact kernels side by side, both JIT-compiled from PTX files cut to the
# exact kernels (ptxv/exold.ptx: the commit before, ptxv/exnew.ptx: this build), f32 and f64 at
# 2^24 (three rounds) and 2^26 -> OUTDIR/jit.jsonl, OUTDIR/jit.md; then exact-on-gpu.sh as it
# stands (the side-by-side table with stage 8, CUB's three levels and torch, accuracy, the
# reproducibility matrix, the exact GPU tests) and compute-sanitizer memcheck / racecheck /
# synccheck of the default kernels.
#     bash s17-exact-on-gpu.sh OUTDIR
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-./results}"
mkdir -p "$OUT/logs"
status=0
R="$HERE/bin/reduce"
JJ="$OUT/jit.jsonl"
: > "$JJ"
"$R" --backend gpu exact --type f32 --n $((1 << 24)) --runs 200 > /dev/null 2>&1 # warm-up
jit() { # jit NAME PTX TYPE EXP
    "$R" --backend gpu --ptx "$2" exact --type "$3" --n $((1 << $4)) --runs 50 --format json \
        2>> "$OUT/logs/err.log" | sed "s/^{/{\"variant\":\"$1\",/" >> "$JJ" \
        || { echo "jit $1 $3 2^$4 failed" >&2; status=1; }
}
for round in 1 2 3; do
    for ty in f32 f64; do
        jit "old (jit)" "$HERE/ptxv/exold.ptx" $ty 24
        jit "new (jit)" "$HERE/ptxv/exnew.ptx" $ty 24
    done
done
for ty in f32 f64; do
    jit "old (jit)" "$HERE/ptxv/exold.ptx" $ty 26
    jit "new (jit)" "$HERE/ptxv/exnew.ptx" $ty 26
done
python3 - "$JJ" > "$OUT/jit.md" <<'PY' || status=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
print("| variant | type | n | grid×block | exact min / median µs | stage 8 min / median µs | exact / stage 8 (min) | bits | = reference |")
print("|---|---|---|---|---|---|---|---|---|")
for r in rows:
    n = r["n"]; e = f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else n
    print(f"| {r['variant']} | {r['type']} | {e} | {r['grid']}×{r['block']} | {r['exact_min_us']:.1f} / {r['exact_median_us']:.1f} "
          f"| {r['s8_min_us']:.1f} / {r['s8_median_us']:.1f} | {100 * r['s8_min_us'] / r['exact_min_us']:.0f}% "
          f"| {r['exact_bits']} | {r['exact_matches_reference']} |")
PY
cat "$OUT/jit.md"
bash "$HERE/exact-on-gpu.sh" "$OUT" || status=1
# shellcheck source=variant-lib.sh
source "$HERE/variant-lib.sh"
sanitize_exact "1001;100003;100003 --grid 7" "" "lean_finish=1"
exit $status
