#!/usr/bin/env bash
# Session 7, issue #14's speed items in ONE device call (~100-150 s), for the bundle made by
# `cargo xtask bundle` (run from the bundle dir: bin/reduce, cuda/, python/ beside it):
#
#     bash s7-arg-on-gpu.sh OUTDIR
#
# 1. argmax / argmin, f32 and f64, N = 2^12, 2^20, 2^26, 2^30, uniform random data, min and
#    median of 50 CUDA-event runs, every result checked against the CPU reference:
#      ours  `bin/reduce arg --policy` under each launch shape / kernel candidate in $ARG_POLICIES
#            (the first is the default kernel and shape; `unroll=8`: 8 loads in flight;
#            `lane=loop`: the winning lane found in the loop, no re-load; `bps=N`: blocks per SM);
#      CUB   cub::DeviceReduce::ArgMax / ArgMin (cuda/cub_argreduce.cu, nvcc here);
#      torch torch.argmax / torch.argmin.
# 2. f16 / bf16 nanmean (`reduce half --ops nanmean`, the NanTotal transform kernel) at 2^26 and
#    2^30 under the default launch and, at 2^26, a few forced shapes (--block / --grid), beside the
#    read-only kernel on the same bytes (cuda/half_roof.cu).
# 3. f32 L2 norm (`reduce transform --op norm2`, and stage 8's sum for scale) at 2^12 and 2^20
#    under the default and forced block sizes, beside CUB TransformReduce (x*x, float and double
#    accumulators; the source is toolbox-transform-on-gpu.sh's) and torch.linalg.vector_norm.
# Writes OUTDIR/s7-arg.jsonl (every record), OUTDIR/s7-arg.md (the tables), logs in OUTDIR/logs/.
# Exit status non-zero if anything failed or a result was wrong.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:?usage: s7-arg-on-gpu.sh OUTDIR}"
mkdir -p "$OUT/logs"
OUT="$(cd "$OUT" && pwd)"
J="$OUT/s7-arg.jsonl"
: > "$J"
R="$HERE/bin/reduce"
status=0
t0=$(date +%s)
say() { echo "$1 ($(( $(date +%s) - t0 )) s)" >&2; }

# The CUDA baselines build in the background while ours runs.
NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
ARCH="${NVCC_ARCH:-sm_90}"
if [ -n "$NVCC" ]; then
    ( "$NVCC" -O3 -arch="$ARCH" -std=c++17 -DNO_HALF_CUB -o "$OUT/cub_argreduce" \
        "$HERE/cuda/cub_argreduce.cu" ) > "$OUT/logs/nvcc-arg.log" 2>&1 &
    "$NVCC" -O3 -arch="$ARCH" -std=c++17 -o "$OUT/half_roof" "$HERE/cuda/half_roof.cu" \
        > "$OUT/logs/nvcc-roof.log" 2>&1 &
    sed -n "/<<'CU'\$/,/^CU\$/p" "$HERE/toolbox-transform-on-gpu.sh" | sed '1d;$d' > "$OUT/cub_transform.cu"
    "$NVCC" -O3 -arch="$ARCH" -std=c++17 -o "$OUT/cub_transform" "$OUT/cub_transform.cu" \
        > "$OUT/logs/nvcc-transform.log" 2>&1 &
else
    echo "no nvcc: no CUB or read-only rows" >&2
    status=1
fi

# --- 1. argmax / argmin -------------------------------------------------------------------------
ARG_POLICIES="${ARG_POLICIES:-block=256,bps=4;bps=6;lane=loop;bps=6,lane=loop;unroll=8;unroll=8,lane=loop;block=512,bps=2,unroll=8;block=512,bps=2,unroll=8,lane=loop}"
for ty in f32 f64; do
    timeout 90 "$R" --backend gpu arg --exps 12,20,26,30 --types "$ty" --ops argmax,argmin \
        --policy "$ARG_POLICIES" --warmup 10 --runs 50 --format json >> "$J" 2>> "$OUT/logs/ours-arg.log" \
        || { echo "ours: reduce arg $ty failed or a result was wrong (logs/ours-arg.log)" >&2; status=1; }
done
say "ours arg: done"

# --- 2. f16 / bf16 nanmean ----------------------------------------------------------------------
timeout 60 "$R" --backend gpu half --types f16,bf16 --ops nanmean --exps 26,30 --runs 50 --format json \
    >> "$J" 2>> "$OUT/logs/ours-half.log" || { echo "ours: nanmean failed" >&2; status=1; }
for shape in "--block 256" "--block 1024" "--grid 264" "--grid 1056" "--block 256 --grid 1056" "--block 256 --grid 2112"; do
    # shellcheck disable=SC2086 # $shape is two or four words on purpose
    timeout 30 "$R" --backend gpu half --types f16,bf16 --ops nanmean --exps 26 --runs 50 --format json $shape \
        >> "$J" 2>> "$OUT/logs/ours-half.log" || { echo "ours: nanmean $shape failed" >&2; status=1; }
done
say "ours nanmean: done"

# --- 3. f32 L2 norm -----------------------------------------------------------------------------
for n in 4096 1048576; do
    for shape in "" "--block 256" "--block 512" "--block 1024"; do
        # shellcheck disable=SC2086
        timeout 30 "$R" --backend gpu transform --op norm2,sum --n "$n" --runs 50 --format json $shape \
            > "$OUT/norm.tmp" 2>> "$OUT/logs/ours-norm.log" \
            || { echo "ours: norm2 n=$n $shape failed" >&2; status=1; }
        sed "s/^{/{\"shape\":\"${shape:-default}\",/" "$OUT/norm.tmp" >> "$J"
    done
done
rm -f "$OUT/norm.tmp"
say "ours norm2: done"

# --- baselines ----------------------------------------------------------------------------------
wait
if [ -x "$OUT/cub_argreduce" ]; then
    timeout 40 "$OUT/cub_argreduce" f32 12 20 26 30 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    timeout 40 "$OUT/cub_argreduce" f64 12 20 26 30 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
else
    echo "cub_argreduce did not build (logs/nvcc-arg.log)" >&2
    status=1
fi
if [ -x "$OUT/half_roof" ]; then
    timeout 20 "$OUT/half_roof" 26 30 >> "$J" 2>> "$OUT/logs/roof.log" || status=1
else
    echo "half_roof did not build (logs/nvcc-roof.log)" >&2
    status=1
fi
if [ -x "$OUT/cub_transform" ]; then
    timeout 20 "$OUT/cub_transform" 4096 1048576 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
else
    echo "cub_transform did not build (logs/nvcc-transform.log)" >&2
    status=1
fi
say "cub, read-only: done"

timeout 90 python3 - >> "$J" 2>> "$OUT/logs/torch.log" <<'PY' || { echo "torch failed (logs/torch.log)" >&2; status=1; }
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
        for op in ("argmax", "argmin"):
            f = getattr(torch, op)
            lo, med = time(lambda: f(x))
            ext = x.max() if op == "argmax" else x.min()
            want = int((x == ext).nonzero()[0])
            print(json.dumps({"impl": f"torch_{op}", "op": op, "type": ty, "n": 1 << e,
                              "min_us": lo, "median_us": med, "ok": int(f(x)) == want}), flush=True)
        del x
for n in (4096, 1048576):
    x = torch.rand(n, device=dev)
    lo, med = time(lambda: torch.linalg.vector_norm(x))
    print(json.dumps({"impl": "torch", "op": "norm2", "type": "f32", "n": n, "min_us": lo,
                      "median_us": med, "ok": True}), flush=True)
PY
say "torch: done"

python3 - "$J" > "$OUT/s7-arg.md" <<'PY' || status=1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
def us(r):
    if "min_us" in r:
        return r["min_us"], r["median_us"]
    return r["min_ms"] * 1e3, r["median_ms"] * 1e3
# 1. arg
print("## argmax / argmin (min / median µs of 50; ratio = best baseline / ours, >1 is faster)\n")
print("| op | type | N | ours: launch shape | ours µs | CUB µs | torch µs | vs best baseline | ok |")
print("|---|---|---|---|---|---|---|---|---|")
keys = sorted({(r["op"], r["type"], r["n"]) for r in recs if r.get("impl", "").startswith(("rust_arg", "rust_nanarg"))})
for op, ty, n in keys:
    base = {}
    for r in recs:
        if r.get("op") == op and r.get("type") == ty and r.get("n") == n:
            if r["impl"].startswith("cub_"):
                base["cub"] = us(r)
            elif r["impl"].startswith("torch_"):
                base["torch"] = us(r)
    best_base = min([v[0] for v in base.values()], default=None)
    ours = [r for r in recs if r.get("impl") == f"rust_{op}" and r["type"] == ty and r["n"] == n]
    fastest = min(ours, key=lambda r: r["min_us"])
    for r in ours:
        mark = " **fastest**" if r is fastest else ""
        ratio = f"{best_base / r['min_us']:.2f}×" if best_base else "—"
        cell = lambda k: f"{base[k][0]:.1f} / {base[k][1]:.1f}" if k in base else "—"
        print(f"| {op} | {ty} | 2^{n.bit_length() - 1} | {r['policy']}{mark} | {r['min_us']:.1f} / {r['median_us']:.1f} | {cell('cub')} | {cell('torch')} | {ratio} | {r['ok']} |")
# 2. nanmean
print("\n## f16 / bf16 nanmean vs the read-only kernel on the same bytes\n")
print("| type | N | launch (overrides) | kernel grid × block | ours µs | read-only µs | % of read-only | ok |")
print("|---|---|---|---|---|---|---|---|")
roof = {r["n"]: us(r) for r in recs if r.get("impl") == "read_roof"}
for r in recs:
    if r.get("record") == "toolbox" and r.get("op") == "nanmean":
        lo, med = us(r)
        rf = roof.get(r["n"])
        pct = f"{rf[0] / lo * 100:.0f}%" if rf else "—"
        rcell = f"{rf[0]:.1f}" if rf else "—"
        print(f"| {r['type']} | 2^{r['n'].bit_length() - 1} | {r.get('overrides', '')} | {r['grid']} × {r['block']} | {lo:.1f} / {med:.1f} | {rcell} | {pct} | {r['ok']} |")
# 3. norm2
print("\n## f32 L2 norm\n")
print("| N | impl | shape / plan | min / median µs | ok |")
print("|---|---|---|---|---|")
for r in recs:
    if r.get("record") == "transform" or (r.get("impl") == "torch" and r.get("op") == "norm2"):
        if r.get("op") not in ("norm2", "sum", "sumsq"):
            continue
        lo, med = us(r)
        what = r.get("impl") + (f" {r['op']} ({r['acc']} acc)" if "acc" in r else f" {r['op']}")
        shape = f"{r.get('shape', '')} {r.get('plan', '')}".strip()
        print(f"| 2^{r['n'].bit_length() - 1} | {what} | {shape} | {lo:.2f} / {med:.2f} | {r.get('ok', '—')} |")
PY
grep -q '"ok": *false' "$J" && { echo "a result was wrong (ok: false in s7-arg.jsonl)" >&2; status=1; }
cat "$OUT/s7-arg.md" >&2
say "total"
exit $status
