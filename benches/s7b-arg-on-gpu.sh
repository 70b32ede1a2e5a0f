#!/usr/bin/env bash
# Session 7, round 2 of issue #14's argmin/argmax speed, in ONE device call (~60-90 s), for the
# bundle made by `cargo xtask bundle` (run from the bundle dir: bin/reduce, bin/gpu-tests, cuda/,
# python/ beside it):
#
#     bash s7b-arg-on-gpu.sh OUTDIR
#
# 1. argmax, f32 and f64, N = 2^12, 2^20, 2^26, 2^30 (and argmin at 2^20, to show it follows),
#    uniform random data, min and median of 50 CUDA-event runs, every result checked against the
#    CPU reference:
#      ours  `bin/reduce arg --policy` under each of $ARG_POLICIES: `tuned` (the NEW measured
#            default of each type and size, `ArgPolicy::tuned`), the old default shape, and the
#            two-kernel candidates (`combine=pdl`: each block stores its item, a one-block combine
#            kernel launched as a programmatic dependent launch folds them; no ticket);
#      CUB   cub::DeviceReduce::ArgMax / ArgMin (cuda/cub_argreduce.cu, nvcc here);
#      torch torch.argmax / torch.argmin.
# 2. The argmin/argmax GPU tests (`bin/gpu-tests argm`: every type, size, offset and special
#    value; every launch policy, the PDL candidates included; determinism at 2^28).
# Writes OUTDIR/s7b-arg.jsonl (every record), OUTDIR/s7b-arg.md (the table),
# OUTDIR/arg-gpu-tests.txt, logs in OUTDIR/logs/. Exit status non-zero if anything failed or a
# result was wrong.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:?usage: s7b-arg-on-gpu.sh OUTDIR}"
mkdir -p "$OUT/logs"
OUT="$(cd "$OUT" && pwd)"
J="$OUT/s7b-arg.jsonl"
: > "$J"
R="$HERE/bin/reduce"
status=0
t0=$(date +%s)
say() { echo "$1 ($(( $(date +%s) - t0 )) s)" >&2; }

# The CUB baseline builds in the background while ours runs.
NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
ARCH="${NVCC_ARCH:-sm_90}"
if [ -n "$NVCC" ]; then
    ( "$NVCC" -O3 -arch="$ARCH" -std=c++17 -DNO_HALF_CUB -o "$OUT/cub_argreduce" \
        "$HERE/cuda/cub_argreduce.cu" ) > "$OUT/logs/nvcc-arg.log" 2>&1 &
else
    echo "no nvcc: no CUB rows" >&2
    status=1
fi

# --- 1. ours ------------------------------------------------------------------------------------
ARG_POLICIES="${ARG_POLICIES:-tuned;block=256,bps=4;unroll=8,combine=pdl;unroll=8,lane=loop,combine=pdl;block=512,bps=2,unroll=8,combine=pdl;block=512,bps=2,unroll=8,lane=loop,combine=pdl}"
for ty in f32 f64; do
    timeout 60 "$R" --backend gpu arg --exps 12,20,26,30 --types "$ty" --ops argmax \
        --policy "$ARG_POLICIES" --warmup 10 --runs 50 --format json >> "$J" 2>> "$OUT/logs/ours-arg.log" \
        || { echo "ours: reduce arg argmax $ty failed or a result was wrong (logs/ours-arg.log)" >&2; status=1; }
    timeout 20 "$R" --backend gpu arg --exps 20 --types "$ty" --ops argmin \
        --policy "$ARG_POLICIES" --warmup 10 --runs 50 --format json >> "$J" 2>> "$OUT/logs/ours-arg.log" \
        || { echo "ours: reduce arg argmin $ty failed or a result was wrong (logs/ours-arg.log)" >&2; status=1; }
done
say "ours arg: done"

# --- baselines ----------------------------------------------------------------------------------
wait
if [ -x "$OUT/cub_argreduce" ]; then
    timeout 40 "$OUT/cub_argreduce" f32 12 20 26 30 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    timeout 40 "$OUT/cub_argreduce" f64 12 20 26 30 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
else
    echo "cub_argreduce did not build (logs/nvcc-arg.log)" >&2
    status=1
fi
say "cub: done"

timeout 60 python3 - >> "$J" 2>> "$OUT/logs/torch.log" <<'PY' || { echo "torch failed (logs/torch.log)" >&2; status=1; }
import json, torch
dev = torch.device("cuda")
def time(fn, runs=50, warmup=10):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for r in range(warmup + runs):
        a.record(); fn(); b.record(); b.synchronize()
        if r >= warmup:
            ts.append(a.elapsed_time(b) * 1e3)
    ts.sort()
    return ts[0], (ts[runs // 2 - 1] + ts[runs // 2]) / 2
for ty, dt in (("f32", torch.float32), ("f64", torch.float64)):
    for e in (12, 20, 26, 30):
        x = torch.rand(1 << e, device=dev, dtype=dt)
        for op in ("argmax", "argmin") if e == 20 else ("argmax",):
            f = getattr(torch, op)
            lo, med = time(lambda: f(x))
            ext = x.max() if op == "argmax" else x.min()
            want = int((x == ext).nonzero()[0])
            print(json.dumps({"impl": f"torch_{op}", "op": op, "type": ty, "n": 1 << e,
                              "min_us": lo, "median_us": med, "ok": int(f(x)) == want}), flush=True)
        del x
PY
say "torch: done"

# --- 2. the arg GPU tests -----------------------------------------------------------------------
if [ -x "$HERE/bin/gpu-tests" ]; then
    timeout 100 "$HERE/bin/gpu-tests" argm > "$OUT/arg-gpu-tests.txt" 2>&1 \
        || { echo "arg GPU tests FAILED (arg-gpu-tests.txt)" >&2; status=1; }
    tail -3 "$OUT/arg-gpu-tests.txt" >&2
else
    echo "no bin/gpu-tests" >&2
    status=1
fi
say "gpu tests: done"

python3 - "$J" > "$OUT/s7b-arg.md" <<'PY' || status=1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
print("## argmax / argmin (min / median µs of 50; ratio = best baseline / ours, >1 is faster)\n")
print("| op | type | N | ours: policy (launched shape) | ours µs | CUB µs | torch µs | vs best baseline | ok |")
print("|---|---|---|---|---|---|---|---|---|")
keys = sorted({(r["op"], r["type"], r["n"]) for r in recs if r.get("impl", "").startswith("rust_arg")})
for op, ty, n in keys:
    base = {}
    for r in recs:
        if r.get("op") == op and r.get("type") == ty and r.get("n") == n:
            if r["impl"].startswith("cub_"):
                base["cub"] = (r["min_us"], r["median_us"])
            elif r["impl"].startswith("torch_"):
                base["torch"] = (r["min_us"], r["median_us"])
    best_base = min([v[0] for v in base.values()], default=None)
    ours = [r for r in recs if r.get("impl") == f"rust_{op}" and r["type"] == ty and r["n"] == n]
    fastest = min(ours, key=lambda r: r["min_us"])
    # `reduce arg` runs the policies in the order given: the first is `tuned`.
    for k, r in enumerate(ours):
        mark = " **fastest**" if r is fastest else ""
        name = f"tuned ({r['policy']})" if k == 0 else r["policy"]
        ratio = f"{best_base / r['min_us']:.2f}×" if best_base else "—"
        cell = lambda k: f"{base[k][0]:.1f} / {base[k][1]:.1f}" if k in base else "—"
        print(f"| {op} | {ty} | 2^{n.bit_length() - 1} | {name}{mark} | {r['min_us']:.1f} / {r['median_us']:.1f} | {cell('cub')} | {cell('torch')} | {ratio} | {r['ok']} |")
PY
grep -q '"ok": *false' "$J" && { echo "a result was wrong (ok: false in s7b-arg.jsonl)" >&2; status=1; }
cat "$OUT/s7b-arg.md" >&2
say "total"
exit $status
