#!/usr/bin/env bash
# Session 15, issue #15 (the exact sum at 2^24: 80% / 84% of stage 8, target 90%): where a launch's
# time goes. `reduce exact --probe` launches the probe kernel (the default kernel with per-block
# phase stamps: clock64 at entry, after streaming, after the merge barrier, after the carry step,
# at exit; %globaltimer at entry and exit; %smid; kernels/src/exact/probe.rs) after the timed runs
# of the default and stage 8, and prints the stamps' summary over the blocks (record kind
# exact_probe). f32 and f64, uniform data, N = 2^12 ... 2^28, each twice; at 2^24 also on grids
# 132 and 264 (the default is 396) and on 512-thread blocks. Then the exact GPU tests (the probe's
# bits and stamps among them) when bin/gpu-tests is in the bundle.
#     bash s15-probe-on-gpu.sh OUTDIR      -> OUTDIR/probe.jsonl, OUTDIR/probe.md
# With PROBE_EXPS set (e.g. "20 24 26"): one round at those sizes, no grid or block variants, and
# each of PROBE_POLICIES (separated by ';') probed too (`--probe=SETTINGS`, e.g. warp_finish=1)
# next to the default kernel (session 16).
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results}}"
mkdir -p "$OUT/logs"
J="$OUT/probe.jsonl"
: > "$J"
R="$HERE/bin/reduce"
status=0
one() { # one TYPE EXP [ARGS...]: a timed run of the default and stage 8, then the probe
    local ty=$1 e=$2
    shift 2
    "$R" --backend gpu exact --n $((1 << e)) --type "$ty" --data uniform --runs 50 \
        --format json "$@" 2>> "$OUT/logs/probe.log" | sed "s/^{/{\"args\":\"$*\",/" >> "$J" \
        || { echo "probe $ty 2^$e $* FAILED" >&2; status=1; }
}
if [ -n "${PROBE_EXPS:-}" ]; then
    IFS=';' read -r -a PP <<< "${PROBE_POLICIES:-}"
    for ty in f32 f64; do
        for e in $PROBE_EXPS; do
            one $ty $e --probe
            for p in "${PP[@]}"; do one $ty $e "--probe=$p"; done
        done
    done
else
    for round in 1 2; do
        for ty in f32 f64; do
            for e in 12 20 22 24 26 28; do one $ty $e --probe; done
        done
    done
    for ty in f32 f64; do
        for g in 132 264; do one $ty 24 --probe --grid $g; done
        one $ty 24 --probe --block 512
    done
fi
python3 - "$J" > "$OUT/probe.md" <<'PY' || status=1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
MHZ = 1980.0  # the H200's SM clock under load (nvidia-smi clocks.max.sm): cycles -> µs
us = lambda c: c / MHZ
print("# The exact kernel's phases (probe kernels, H200; cycles at 1980 MHz shown as µs)\n")
print("Times: min of 50 CUDA-event runs of the default exact kernel and stage 8 (same call). "
      "Phases: median / max over the blocks that did not take the last ticket; `last` = the last "
      "block's publish + read + round. span, entry spread, tail: %globaltimer (µs steps).\n")
print("| type | N | args | kernel | grid×block | exact µs | stage 8 µs | stream | merge | carry | publish | last | span | entry spread | tail | bits |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
exact = {}
bad = []
for r in recs:
    if r.get("kind") == "exact":
        exact[(r["type"], r["n"], r.get("args", ""))] = r
    if r.get("kind") == "exact_probe":
        e = exact.get((r["type"], r["n"], r.get("args", "")), {})
        s = r["summary"]
        f = lambda sp: f"{us(sp['median']):.2f} / {us(sp['max']):.2f}"
        ok = r.get("exact_matches_reference") is True and e.get("exact_matches_reference") is True
        if not ok:
            bad.append((r["type"], r["n"], r.get("args")))
        print(f"| {r['type']} | 2^{r['n'].bit_length() - 1} | {r.get('args', '')} | {r['kernel']} | {r['grid']}×{r['block']} | "
              f"{e.get('exact_min_us', 0):.1f} | {e.get('s8_min_us', 0):.1f} | {f(s['stream'])} | {f(s['merge'])} | "
              f"{f(s['carry'])} | {f(s['publish'])} | {us(s['last_block'][3]):.2f} | {s['span_ns'] / 1e3:.1f} | "
              f"{s['entry_spread_ns'] / 1e3:.1f} | {s['tail_ns'] / 1e3:.1f} | {'ok' if ok else 'DIFFERENT'} |")
print()
print("All results equal the reference." if not bad else f"MISMATCHES: {bad}")
sys.exit(1 if bad else 0)
PY
cat "$OUT/probe.md"
if [ -x "$HERE/bin/gpu-tests" ]; then
    "$HERE/bin/gpu-tests" exact > "$OUT/exact-gpu-tests.txt" 2>&1 || { echo "exact GPU tests FAILED" >&2; status=1; }
    tail -3 "$OUT/exact-gpu-tests.txt"
fi
exit $status
