#!/usr/bin/env bash
# Session 16, call 2: after call 1, work stealing was removed and the reproducibility matrix's
# variant list fixed (call 1's `--repro` runs and the exact GPU tests failed on a policy error:
# the stealing variants asked for a loop no warp-finish kernel is built with). This re-runs the
# two on the final tree: `reduce exact --repro` (12 kernel variants × blocks × grids × offsets,
# uniform and binades, f32 and f64), then the exact GPU tests when bin/gpu-tests is in the bundle.
#     bash s16-recheck-on-gpu.sh OUTDIR   -> OUTDIR/repro.jsonl, OUTDIR/exact-gpu-tests.txt
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results}}"
mkdir -p "$OUT"
status=0
for ty in f32 f64; do
    for d in uniform binades; do
        "$HERE/bin/reduce" --backend gpu exact --n $(((1 << 22) + 3)) --type $ty --data $d \
            --runs 0 --repro --format json >> "$OUT/repro.jsonl" 2>> "$OUT/repro.log" \
            || { echo "repro $ty $d FAILED" >&2; status=1; }
    done
done
python3 - "$OUT/repro.jsonl" <<'PY' || status=1
import json, sys
from collections import defaultdict
g = defaultdict(list)
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("kind") == "exact_repro":
        g[(r["type"], r["data"], r["n"])].append(r)
bad = 0
for (ty, d, n), cells in sorted(g.items()):
    bits = {c["bits"] for c in cells}
    ok = len(bits) == 1 and all(c["matches_reference"] is True for c in cells)
    bad += not ok
    print(f"repro {ty} {d} n={n}: {len(cells)} launches, {len({c['kernel'] for c in cells})} kernels, "
          f"grids {sorted({c['grid'] for c in cells})}, {len(bits)} distinct result(s) {sorted(bits)}, "
          f"all = reference: {ok}")
sys.exit(1 if bad or not g else 0)
PY
if [ -x "$HERE/bin/gpu-tests" ]; then
    "$HERE/bin/gpu-tests" exact > "$OUT/exact-gpu-tests.txt" 2>&1 || { echo "exact GPU tests FAILED" >&2; status=1; }
    tail -3 "$OUT/exact-gpu-tests.txt"
fi
exit $status
