#!/usr/bin/env bash
# The benchmark of issue #14, part A (argmin/argmax, your own operator), for the bundle made by
# `cargo xtask bundle` (which copies this script next to bin/, cuda/ and custom_op.ptx):
#
#     bash toolbox-lib-on-gpu.sh OUTDIR
#
# f32, f16 and bf16 uniform data at N = 2^12, 2^20, 2^26, 2^30 (f64 at 2^26); minimum and median
# of 50 CUDA-event runs:
#   * ours: `bin/reduce arg` (argmin, argmax, and nanargmax for f32; every result checked against
#     the CPU reference), the default launch shape;
#   * torch: `torch.argmax` / `torch.argmin` on `torch.rand(N, dtype)`;
#   * CUB: `cub::DeviceReduce::ArgMax` / `ArgMin` (cuda/cub_argreduce.cu, built here with nvcc;
#     without f16/bf16 if this CUB rejects them);
#   * for scale: our stage-8 `max` of the same f32 / f64 data (`bin/reduce sweep --ops max`), the
#     same bytes read without the index;
#   * the knob sweep: argmax f32 (2^20, 2^26, 2^30) and bf16 (2^26, 2^30) under every launch shape
#     `block=256|512,bps=N` (`reduce arg --policy`): OUTDIR/arg-sweep.jsonl and OUTDIR/arg-sweep.md,
#     the default shape's row marked — the row to keep as the default is the fastest;
# (ARG_SWEEP=0 leaves the sweep out; CUB_ARGREDUCE=PATH uses a cub_argreduce built beforehand)
# then the custom-operator example (`bin/custom-op-run custom_op.ptx N`: a user's own crate's
# (min, max, max-abs) kernel loaded from its PTX through `CustomReduction`, checked against a CPU
# fold) and the argmin/argmax and custom-op GPU tests (`bin/gpu-tests arg`, `bin/gpu-tests custom_op`).
# Writes OUTDIR/toolbox-lib.jsonl, OUTDIR/toolbox-lib.md (the table), OUTDIR/arg-sweep.{jsonl,md},
# OUTDIR/custom-op.txt,
# OUTDIR/arg-gpu-tests.txt, OUTDIR/arg-sanitize-{memcheck,racecheck}.log; logs in OUTDIR/logs/. Exit status non-zero if anything failed.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results}}"
mkdir -p "$OUT/logs"
J="$OUT/toolbox-lib.jsonl"
: > "$J"
R="$HERE/bin/reduce"
EXPS="12,20,26,30"
status=0

"$R" --backend gpu arg --exps "$EXPS" --types f32 --ops argmin,argmax,nanargmax --warmup 10 --runs 50 \
    --format json >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours: reduce arg failed or a result was wrong" >&2; status=1; }
"$R" --backend gpu arg --exps "$EXPS" --types f16,bf16 --warmup 10 --runs 50 --format json \
    >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours: reduce arg (halves) failed or a result was wrong" >&2; status=1; }
"$R" --backend gpu arg --exps 26 --types f64 --warmup 10 --runs 50 --format json \
    >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours: reduce arg (f64) failed or a result was wrong" >&2; status=1; }
"$R" --backend gpu sweep --exps "$EXPS" --ops max --types f32 --warmup 10 --runs 50 \
    >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours: stage-8 max failed" >&2; status=1; }
"$R" --backend gpu sweep --exps 26 --ops max --types f64 --warmup 10 --runs 50 \
    >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours: stage-8 max (f64) failed" >&2; status=1; }
echo "ours: done" >&2

# The knob sweep (launch shapes at run time; the first is the default). ARG_SWEEP=0 skips it
# (a device call that only re-measures the table).
if [ "${ARG_SWEEP:-1}" != 0 ]; then
SHAPES="block=256,bps=4;block=256,bps=2;block=256,bps=5;block=256,bps=8;block=512,bps=2;block=512,bps=3;block=512,bps=4"
S="$OUT/arg-sweep.jsonl"
: > "$S"
"$R" --backend gpu arg --exps 20,26,30 --types f32 --ops argmax --policy "$SHAPES" --warmup 10 --runs 50 \
    --format json >> "$S" 2>> "$OUT/logs/sweep.log" || { echo "sweep: reduce arg failed" >&2; status=1; }
"$R" --backend gpu arg --exps 26,30 --types bf16 --ops argmax --policy "$SHAPES" --warmup 10 --runs 50 \
    --format json >> "$S" 2>> "$OUT/logs/sweep.log" || { echo "sweep: reduce arg (bf16) failed" >&2; status=1; }
python3 - "$S" > "$OUT/arg-sweep.md" <<'PY' || status=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
print("| type | N | launch shape | grid | min µs | median µs | GB/s | ok |")
print("|---|---|---|---|---|---|---|---|")
best = {}
for r in rows:
    k = (r["type"], r["n"])
    if k not in best or r["min_us"] < best[k]["min_us"]:
        best[k] = r
for r in rows:
    k = (r["type"], r["n"])
    mark = " (default)" if r["policy"] == "block=256,bps=4" else ""
    mark += " **fastest**" if best[k] is r else ""
    print(f"| {r['type']} | 2^{r['n'].bit_length() - 1} | {r['policy']}{mark} | {r['grid']} | {r['min_us']:.1f} | {r['median_us']:.1f} | {r['gbps']:.0f} | {r['ok']} |")
PY
echo "sweep: done" >&2
fi

NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
HALF_CUB=1
cub_build() {
    "$NVCC" -O3 -arch="${NVCC_ARCH:-sm_90}" -std=c++17 "$@" -o "$OUT/cub_argreduce" \
        "$HERE/cuda/cub_argreduce.cu" 2>> "$OUT/logs/nvcc.log"
}
# CUB_ARGREDUCE: a cub_argreduce binary built beforehand (nvcc ahead of time, in the background
# of another step); used as it is.
if [ -n "${CUB_ARGREDUCE:-}" ] && [ -x "$CUB_ARGREDUCE" ]; then
    cp "$CUB_ARGREDUCE" "$OUT/cub_argreduce"
    "$OUT/cub_argreduce" f16 12 > /dev/null 2>&1 || HALF_CUB=0
fi
if [ -x "$OUT/cub_argreduce" ] || { [ -n "$NVCC" ] && { cub_build || { HALF_CUB=0; cub_build -DNO_HALF_CUB; }; }; }; then
    "$OUT/cub_argreduce" 12 20 26 30 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    "$OUT/cub_argreduce" f64 26 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    if [ "$HALF_CUB" = 1 ]; then
        "$OUT/cub_argreduce" f16 12 20 26 30 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
        "$OUT/cub_argreduce" bf16 12 20 26 30 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    else
        echo "CUB ArgMax did not build for f16/bf16 here (logs/nvcc.log): no CUB half rows" >&2
    fi
    echo "cub: done" >&2
else
    echo "nvcc missing or failed (see logs/nvcc.log): no CUB rows" >&2
    status=1
fi

python3 - "$EXPS" >> "$J" 2>> "$OUT/logs/torch.log" <<'PY' || { echo "torch baseline failed (logs/torch.log)" >&2; status=1; }
import json, sys, torch
exps = [int(e) for e in sys.argv[1].split(",")]
dev = torch.device("cuda")
cases = [(t, e) for t in ("f32", "f16", "bf16") for e in exps] + [("f64", 26)]
dtypes = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64}
for ty, e in cases:
    n = 1 << e
    x = torch.rand(n, device=dev, dtype=dtypes[ty])
    for op in ("argmin", "argmax"):
        f = getattr(torch, op)
        for _ in range(10):
            f(x)
        torch.cuda.synchronize()
        times = []
        for _ in range(50):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            r = f(x)
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b) * 1e3)
        times.sort()
        idx = int(r.item())
        # The first occurrence of the extreme value, found on the GPU another way (uniform data,
        # no NaN): NumPy on the host took minutes at 2^30 and stopped this script in session 11.
        m = x.max() if op == "argmax" else x.min()
        want = int((x == m).nonzero()[0])
        print(json.dumps({"impl": f"torch_{op}", "op": op, "type": ty, "n": n, "runs": 50,
                          "min_us": times[0], "median_us": (times[24] + times[25]) / 2,
                          "gbps": n * x.element_size() / (times[0] * 1e-6) / 1e9, "index": idx,
                          "value": float(x[idx]), "ok": idx == want}), flush=True)
    del x
PY
echo "torch: done" >&2

# The custom operator: a user's crate (examples/custom-op) from its PTX, through CustomReduction.
: > "$OUT/custom-op.txt"
for n in 67108864 1073741824; do
    "$HERE/bin/custom-op-run" "$HERE/custom_op.ptx" "$n" >> "$OUT/custom-op.txt" 2>> "$OUT/logs/custom-op.log" \
        || { echo "custom op (n = $n) failed (logs/custom-op.log)" >&2; status=1; }
done
grep '^{' "$OUT/custom-op.txt" >> "$J"
grep -v '^{' "$OUT/custom-op.txt" >&2

if [ -x "$HERE/bin/gpu-tests" ]; then
    "$HERE/bin/gpu-tests" arg > "$OUT/arg-gpu-tests.txt" 2>&1 || { echo "argmin/argmax GPU tests FAILED" >&2; status=1; }
    REDUCE_CUSTOM_OP_PTX="$HERE/custom_op.ptx" "$HERE/bin/gpu-tests" custom_op >> "$OUT/arg-gpu-tests.txt" 2>&1 \
        || { echo "custom-op GPU test FAILED" >&2; status=1; }
    grep -E '^test |test result|custom' "$OUT/arg-gpu-tests.txt" >&2
fi

# compute-sanitizer memcheck and racecheck over small argmin/argmax runs (one block, a few
# blocks; a 4- and an 8-byte type): OUTDIR/arg-sanitize-*.log.
if command -v compute-sanitizer > /dev/null 2>&1; then
    for tool in memcheck racecheck; do
        compute-sanitizer --tool "$tool" --error-exitcode 9 "$R" --backend gpu arg --exps 5,17 \
            --types f32,i64,bf16 --ops argmin,argmax,nanargmax --warmup 0 --runs 1 > "$OUT/arg-sanitize-$tool.log" 2>&1 \
            || { echo "$tool: reduce arg FAILED" >&2; status=1; }
        grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/arg-sanitize-$tool.log" >&2
    done
fi

python3 - "$J" > "$OUT/toolbox-lib.md" <<'PY' || status=1
import json, sys
rows = {}
size = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2}
for line in open(sys.argv[1]):
    line = line.strip()
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    impl = r.get("impl", "")
    ty = r.get("type", "f32")
    if impl == "rust_s8" and r.get("op") == "max":
        key, ops = "s8_max", ("argmin", "argmax", "nanargmax")
        t = (r["min_ms"] * 1e3, r["median_ms"] * 1e3, True)
    elif impl.startswith(("rust_arg", "rust_nanarg", "torch_arg", "cub_arg")):
        key, ops = impl.split("_")[0], (r["op"],)
        t = (r["min_us"], r["median_us"], r.get("ok", False))
    else:
        continue
    for op in ops:
        rows.setdefault((op, ty, r["n"]), {})[key] = t
def cell(t):
    return "—" if t is None else f"{t[0]:.1f} / {t[1]:.1f}" + ("" if t[2] else " (WRONG)")
print("| op | type | N | ours (µs, min / median) | torch | CUB | ours GB/s | ours vs best baseline | stage-8 max (with its result copy), same bytes | ours vs stage-8 max |")
print("|---|---|---|---|---|---|---|---|---|---|")
for (op, ty, n) in sorted(rows, key=lambda k: (k[0], ["f32", "f16", "bf16", "f64"].index(k[1]) if k[1] in size else 9, k[2])):
    r = rows[(op, ty, n)]
    ours = r.get("rust")
    if ours is None:
        continue
    base = [r[k][0] for k in ("torch", "cub") if k in r]
    speed = f"{min(base) / ours[0]:.2f}×" if base else "—"
    s8 = r.get("s8_max")
    vs8 = f"{s8[0] / ours[0] * 100:.0f}%" if s8 else "—"
    gbps = f"{n * size.get(ty, 4) / (ours[0] * 1e-6) / 1e9:.0f}"
    print(f"| {op} | {ty} | 2^{n.bit_length() - 1} | {cell(ours)} | {cell(r.get('torch'))} | {cell(r.get('cub'))} | {gbps} | {speed} | {cell(s8)} | {vs8} |")
PY
cat "$OUT/toolbox-lib.md" >&2
exit $status
