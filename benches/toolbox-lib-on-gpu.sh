#!/usr/bin/env bash
# The benchmark of issue #14, part A (argmin/argmax, your own operator), for the bundle made by
# `cargo xtask bundle` (which copies this script next to bin/, cuda/ and custom_op.ptx):
#
#     bash toolbox-lib-on-gpu.sh OUTDIR
#
# f32 uniform data at N = 2^12, 2^20, 2^26, 2^30; minimum and median of 50 CUDA-event runs:
#   * ours: `bin/reduce arg` (argmin, argmax; every result checked against the CPU reference);
#   * torch: `torch.argmax` / `torch.argmin` on `torch.rand(N)`;
#   * CUB: `cub::DeviceReduce::ArgMax` / `ArgMin` (cuda/cub_argreduce.cu, built here with nvcc);
#   * for scale: our stage-8 `max` of the same f32 data (`bin/reduce sweep --ops max`), the same
#     bytes read without the index;
# then the custom-operator example (`bin/custom-op-run custom_op.ptx N`: a user's own crate's
# (min, max, max-abs) kernel loaded from its PTX through `CustomReduction`, checked against a CPU
# fold) and the argmin/argmax and custom-op GPU tests (`bin/gpu-tests arg`, `bin/gpu-tests custom_op`).
# Writes OUTDIR/toolbox-lib.jsonl, OUTDIR/toolbox-lib.md (the table), OUTDIR/custom-op.txt,
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

"$R" --backend gpu arg --exps "$EXPS" --types f32 --warmup 10 --runs 50 --format json \
    >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours: reduce arg failed or a result was wrong" >&2; status=1; }
"$R" --backend gpu sweep --exps "$EXPS" --ops max --types f32 --warmup 10 --runs 50 \
    >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours: stage-8 max failed" >&2; status=1; }
echo "ours: done" >&2

NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
if [ -n "$NVCC" ] && "$NVCC" -O3 -arch="${NVCC_ARCH:-sm_90}" -std=c++17 -o "$OUT/cub_argreduce" \
        "$HERE/cuda/cub_argreduce.cu" 2> "$OUT/logs/nvcc.log"; then
    "$OUT/cub_argreduce" 12 20 26 30 >> "$J" 2>> "$OUT/logs/cub.log" || status=1
    echo "cub: done" >&2
else
    echo "nvcc missing or failed (see logs/nvcc.log): no CUB rows" >&2
    status=1
fi

python3 - "$EXPS" >> "$J" 2>> "$OUT/logs/torch.log" <<'PY' || { echo "torch baseline failed (logs/torch.log)" >&2; status=1; }
import json, sys, torch
exps = [int(e) for e in sys.argv[1].split(",")]
dev = torch.device("cuda")
for e in exps:
    n = 1 << e
    x = torch.rand(n, device=dev, dtype=torch.float32)
    h = x.cpu().numpy()
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
        want = int(getattr(h, op)())
        print(json.dumps({"impl": f"torch_{op}", "op": op, "type": "f32", "n": n, "runs": 50,
                          "min_us": times[0], "median_us": (times[24] + times[25]) / 2,
                          "gbps": n * 4 / (times[0] * 1e-6) / 1e9, "index": idx,
                          "value": float(h[idx]), "ok": idx == want}), flush=True)
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
            --types f32,i64 --warmup 0 --runs 1 > "$OUT/arg-sanitize-$tool.log" 2>&1 \
            || { echo "$tool: reduce arg FAILED" >&2; status=1; }
        grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/arg-sanitize-$tool.log" >&2
    done
fi

python3 - "$J" > "$OUT/toolbox-lib.md" <<'PY' || status=1
import json, sys
rows = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    impl = r.get("impl", "")
    if impl == "rust_s8" and r.get("op") == "max":
        key, ops = "s8_max", ("argmin", "argmax")
        t = (r["min_ms"] * 1e3, r["median_ms"] * 1e3, True)
    elif impl.startswith(("rust_arg", "torch_arg", "cub_arg")):
        key, ops = impl.split("_")[0], (r["op"],)
        t = (r["min_us"], r["median_us"], r.get("ok", False))
    else:
        continue
    for op in ops:
        rows.setdefault((op, r["n"]), {})[key] = t
def cell(t):
    return "—" if t is None else f"{t[0]:.1f} / {t[1]:.1f}" + ("" if t[2] else " (WRONG)")
print("| op | N | ours (µs, min / median) | torch | CUB | ours GB/s | ours vs best baseline | stage-8 max (with its result copy), same bytes |")
print("|---|---|---|---|---|---|---|---|")
for (op, n) in sorted(rows):
    r = rows[(op, n)]
    ours = r.get("rust")
    base = [r[k][0] for k in ("torch", "cub") if k in r]
    speed = f"{min(base) / ours[0]:.2f}×" if ours and base else "—"
    gbps = f"{n * 4 / (ours[0] * 1e-6) / 1e9:.0f}" if ours else "—"
    print(f"| {op} | 2^{n.bit_length() - 1} | {cell(ours)} | {cell(r.get('torch'))} | {cell(r.get('cub'))} | {gbps} | {speed} | {cell(r.get('s8_max'))} |")
PY
cat "$OUT/toolbox-lib.md" >&2
exit $status
