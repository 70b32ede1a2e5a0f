#!/usr/bin/env bash
# The benchmark of issue #14, part C (transform-reduce in one pass: norms, dot, variance), for the
# bundle made by `cargo xtask bundle` (which copies this script next to bin/reduce):
#
#     bash toolbox-transform-on-gpu.sh OUTDIR
#
# At N = 2^12, 2^20, 2^26, 2^30 (f32, uniform in [0, 1)), min and median of 50 CUDA-event runs
# (3 or 5 warm-ups; one call per window, event-record / call / event-record: the same protocol
# on every side):
#   * ours: `bin/reduce transform --op sum,sumsq,norm2,l1,dot,mean,var,std` (every result
#     checked on the host against a compensated reference and its stated bound; `sum` is stage
#     8's plain f32 sum of the same input: the bandwidth roof we compare with), and f64 at 2^26;
#   * torch: linalg.vector_norm (ord 2 and 1), dot(x, x) and (x*x).sum() for the sum of squares,
#     dot(x, y), mean, var, std, and sum;
#   * CUB: DeviceReduce::TransformReduce with x -> x*x (L2 norm²) and x -> |x|, float and double
#     accumulators (built here with nvcc -arch=sm_90).
# Then accuracy: var of 1e6 + U(0,1) (f32, 2^24 elements) — ours (bin/reduce --shift 1e6) and
# torch.var — each against an f64 reference of the same data; the transform GPU tests
# (bin/gpu-tests transform, and halves); compute-sanitizer memcheck/racecheck on small runs.
# With HALF_TYPES (default "f16 bf16"; empty: none) the same ops on halves, ours and torch, at the
# same N, beside the read-only kernel on the same bytes (cuda/half_roof.cu): a table per type.
# Writes OUTDIR/transform.jsonl (one record per row), OUTDIR/transform.md (the tables) and logs in
# OUTDIR/logs/. Exit status non-zero if anything failed.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results}}"
mkdir -p "$OUT/logs"
J="$OUT/transform.jsonl"
: > "$J"
R="${REDUCE:-$HERE/bin/reduce}"             # overridable to try the script off the bundle
NS="${TRANSFORM_NS:-4096 1048576 67108864 1073741824}"
B="${BACKEND:-gpu}"
status=0

# --- ours -------------------------------------------------------------------------------------
for n in $NS; do
    "$R" --backend "$B" transform --op sum,sumsq,norm2,l1,dot,mean,var,std --n "$n" --runs 50 \
        --format json >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours n=$n failed" >&2; status=1; }
done
# f16 / bf16 (HALF_TYPES; empty: none): every op, accumulated in f64 (moments: f32 tiles).
for ty in ${HALF_TYPES-f16 bf16}; do
    for n in $NS; do
        "$R" --backend "$B" transform --type "$ty" --op total,nanmean,sumsq,norm2,l1,dot,mean,var,std \
            --n "$n" --runs 50 --format json >> "$J" 2>> "$OUT/logs/ours.log" \
            || { echo "ours $ty n=$n failed" >&2; status=1; }
    done
done
"$R" --backend "$B" transform --type f64 --op sum,sumsq,l1,dot,var --n "${TRANSFORM_F64_N:-67108864}" --runs 50 \
    --format json >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours f64 failed" >&2; status=1; }
"$R" --backend "$B" transform --op mean,var --shift 1e6 --ddof 0 --n "${TRANSFORM_ACC_N:-16777216}" --runs 0 \
    --format json > "$OUT/ours-accuracy.jsonl" 2>> "$OUT/logs/ours.log" || status=1
grep -c '"ok":false' "$J" > /dev/null && { echo "ours: a result outside its bound (see ok:false)" >&2; status=1; }
echo "ours: done" >&2

# --- CUB TransformReduce ----------------------------------------------------------------------
cat > "$OUT/cub_transform.cu" <<'CU'
// CUB DeviceReduce::TransformReduce baselines: sum of x*x (L2 norm squared) and of |x|, with a
// float and a double accumulator. Data: uniform [0,1) from an index hash, made on the device.
#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)
__global__ void fill(float* x, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long h = (i + 1) * 0x9E3779B97F4A7C15ull; h ^= h >> 31; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 29;
        x[i] = (float)(h >> 40) * (1.0f / 16777216.0f);
    }
}
template <class A> struct Sq { __device__ A operator()(float v) const { return (A)v * (A)v; } };
template <class A> struct Abs { __device__ A operator()(float v) const { return (A)fabsf(v); } };
template <class A, class F>
void bench(const char* op, const char* acc, const float* x, size_t n, cudaStream_t s) {
    A* out; CHECK(cudaMalloc(&out, sizeof(A)));
    size_t bytes = 0; void* tmp = nullptr;
    CHECK(cub::DeviceReduce::TransformReduce(tmp, bytes, x, out, (long long)n, cuda::std::plus<A>{}, F{}, A(0), s));
    CHECK(cudaMalloc(&tmp, std::max<size_t>(bytes, 1)));
    cudaEvent_t a, b; CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int r = 0; r < 55; ++r) {
        CHECK(cudaEventRecord(a, s));
        CHECK(cub::DeviceReduce::TransformReduce(tmp, bytes, x, out, (long long)n, cuda::std::plus<A>{}, F{}, A(0), s));
        CHECK(cudaEventRecord(b, s)); CHECK(cudaEventSynchronize(b));
        float ms; CHECK(cudaEventElapsedTime(&ms, a, b)); if (r >= 5) t.push_back(ms);
    }
    A v; CHECK(cudaMemcpy(&v, out, sizeof(A), cudaMemcpyDeviceToHost));
    std::sort(t.begin(), t.end());
    std::printf("{\"record\":\"transform\",\"impl\":\"cub\",\"op\":\"%s\",\"acc\":\"%s\",\"type\":\"f32\",\"n\":%zu,"
                "\"runs\":50,\"min_ms\":%.6f,\"median_ms\":%.6f,\"value\":%.17g,\"bytes\":%zu}\n",
                op, acc, n, t.front(), (t[24] + t[25]) / 2, (double)v, n * sizeof(float));
    CHECK(cudaFree(tmp)); CHECK(cudaFree(out));
}
int main(int argc, char** argv) {
    size_t most = 0; std::vector<size_t> ns;
    for (int i = 1; i < argc; ++i) { ns.push_back(std::strtoull(argv[i], nullptr, 10)); most = std::max(most, ns.back()); }
    float* x; CHECK(cudaMalloc(&x, most * sizeof(float)));
    fill<<<1024, 256>>>(x, most); CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());
    cudaStream_t s; CHECK(cudaStreamCreate(&s));
    for (size_t n : ns) {
        bench<float, Sq<float>>("sumsq", "f32", x, n, s);
        bench<double, Sq<double>>("sumsq", "f64", x, n, s);
        bench<float, Abs<float>>("l1", "f32", x, n, s);
        bench<double, Abs<double>>("l1", "f64", x, n, s);
    }
    return 0;
}
CU
NVCC="$(command -v nvcc 2>/dev/null || true)"
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
if [ -n "$NVCC" ] && "$NVCC" -O3 -arch="${NVCC_ARCH:-sm_90}" -std=c++17 -o "$OUT/cub_transform" \
        "$OUT/cub_transform.cu" 2> "$OUT/logs/nvcc.log"; then
    "$OUT/cub_transform" $NS >> "$J" 2>> "$OUT/logs/cub.log" || { echo "cub failed" >&2; status=1; }
    echo "cub: done" >&2
else
    echo "nvcc missing or failed (see logs/nvcc.log): no CUB rows" >&2
    status=1
fi

# The read-only kernel on the halves' bytes (cuda/half_roof.cu): the roof of the f16/bf16 rows.
if [ -n "${HALF_TYPES-f16 bf16}" ] && [ -n "$NVCC" ] && "$NVCC" -O3 -arch="${NVCC_ARCH:-sm_90}" -std=c++17 \
        -o "$OUT/half_roof" "$HERE/cuda/half_roof.cu" 2>> "$OUT/logs/nvcc.log"; then
    "$OUT/half_roof" $(for n in $NS; do python3 -c "print(($n).bit_length() - 1)"; done) >> "$J" \
        2>> "$OUT/logs/cub.log" || { echo "half_roof failed" >&2; status=1; }
    rm -f "$OUT/half_roof"
fi

# --- torch --------------------------------------------------------------------------------------
HALF_TYPES="${HALF_TYPES-f16 bf16}" python3 - $NS >> "$J" 2>> "$OUT/logs/torch.log" <<'PY' || { echo "torch baseline failed (logs/torch.log)" >&2; status=1; }
import json, os, sys, torch
dev = torch.device("cuda")
name = torch.cuda.get_device_name(0)
def time(fn, runs=50, warmup=5):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for r in range(warmup + runs):
        a.record(); fn(); b.record(); b.synchronize()
        if r >= warmup:
            ts.append(a.elapsed_time(b))
    ts.sort()
    return ts[0], (ts[runs // 2 - 1] + ts[runs // 2]) / 2 if runs % 2 == 0 else ts[runs // 2]
def transforms(x, y):
    """torch's counterparts of our transform ops on x (and y), as (op, call, fn, inputs)."""
    return [
        ("sumsq", "torch.dot(x, x)", lambda: torch.dot(x, x), 1),
        ("norm2", "torch.linalg.vector_norm(x)", lambda: torch.linalg.vector_norm(x), 1),
        ("l1", "torch.linalg.vector_norm(x, 1)", lambda: torch.linalg.vector_norm(x, 1), 1),
        ("dot", "torch.dot(x, y)", lambda: torch.dot(x, y), 2),
        ("mean", "torch.mean(x)", lambda: torch.mean(x), 1),
        ("var", "torch.var(x)", lambda: torch.var(x), 1),
        ("std", "torch.std(x)", lambda: torch.std(x), 1),
    ]
def emit(ops, ty, size, n):
    """Time each (op, call, fn, inputs) and print its record (`size` bytes per element)."""
    for op, call, fn, inputs in ops:
        lo, med = time(fn)
        print(json.dumps({"record": "transform", "impl": "torch", "call": call, "device": name, "op": op,
                          "type": ty, "n": n, "runs": 50, "min_ms": lo, "median_ms": med,
                          "bytes": size * n * inputs, "value": float(fn())}), flush=True)
for n in map(int, sys.argv[1:]):
    g = torch.Generator(device=dev); g.manual_seed(42)
    x = torch.rand(n, device=dev, generator=g)
    y = torch.rand(n, device=dev, generator=g)
    # Every type: (op, call, fn, inputs); f32 adds the sum and (x * x).sum(), the halves their
    # sum (`total`) and nanmean.
    emit([("sum", "torch.sum(x)", lambda: torch.sum(x), 1)] + transforms(x, y)
         + [("sumsq", "(x * x).sum()", lambda: (x * x).sum(), 1)], "f32", 4, n)
    # The same ops on f16 / bf16 (torch accumulates in f32 and returns the input dtype).
    for ty in os.environ.get("HALF_TYPES", "").split():
        dt = {"f16": torch.float16, "bf16": torch.bfloat16}[ty]
        h, k = x.to(dt), y.to(dt)
        emit([("total", "torch.sum(x)", lambda: torch.sum(h), 1),
              ("nanmean", "torch.nanmean(x)", lambda: torch.nanmean(h), 1)] + transforms(h, k),
             ty, 2, n)
        del h, k
    del x, y
    torch.cuda.empty_cache()
# Accuracy: var of 1e6 + U(0,1) in f32, against the f64 variance of the same f32 values.
g = torch.Generator(device=dev); g.manual_seed(7)
x = 1e6 + torch.rand(1 << 24, device=dev, generator=g)
ref = torch.var(x.double(), correction=0).item()
got = torch.var(x, correction=0).item()
print(json.dumps({"record": "transform_accuracy", "impl": "torch", "op": "var", "type": "f32",
                  "n": 1 << 24, "shift": 1e6, "value": got, "reference": ref,
                  "rel_error": abs(got - ref) / ref}), flush=True)
PY
echo "torch: done" >&2

# --- the report ---------------------------------------------------------------------------------
python3 - "$OUT" <<'PY' || status=1
import json, sys, collections
out = sys.argv[1]
rows = [json.loads(l) for l in open(f"{out}/transform.jsonl") if l.strip().startswith("{")]
acc = [json.loads(l) for l in open(f"{out}/ours-accuracy.jsonl") if l.strip().startswith("{")]
us = lambda ms: f"{ms * 1e3:,.1f}"
def key(r):
    label = r["impl"] + ("" if r["impl"] != "cub" else f" ({r['acc']} acc)") + ("" if r["impl"] != "torch" else f" `{r['call']}`")
    return label
lines = ["# Transform-reduce on the GPU: ours vs torch vs CUB", "",
         f"Device: {next((r['device'] for r in rows if 'device' in r), '?')}. f32 uniform [0,1) unless noted; "
         "min / median of 50 CUDA-event runs, µs; GB/s = bytes read / min time. "
         "`ok` = our result within its stated bound of the host reference.", ""]
ns = sorted({r["n"] for r in rows if r["type"] == "f32"})
roof = {r["n"]: r for r in rows if r["impl"] == "ours" and r["op"] == "sum" and r["type"] == "f32"}
for op in ["norm2", "sumsq", "l1", "dot", "mean", "var", "std", "sum"]:
    lines += [f"## {op}", "", "| impl | " + " | ".join(f"2^{n.bit_length() - 1}" for n in ns) + " |",
              "|---|" + "---:|" * len(ns)]
    impls = collections.OrderedDict()
    for r in rows:
        if r["op"] == op and r["type"] == "f32" and "min_ms" in r:
            impls.setdefault(key(r), {})[r["n"]] = r
    for label, by_n in impls.items():
        cells = []
        for n in ns:
            r = by_n.get(n)
            if r is None or r["min_ms"] is None:
                cells.append("–")
                continue
            c = f"{us(r['min_ms'])} / {us(r['median_ms'])} ({r['bytes'] / r['min_ms'] / 1e6:,.0f} GB/s)"
            if r["impl"] == "ours" and op != "sum" and n in roof:
                c += f", {100 * (r['bytes'] / r['min_ms']) / (roof[n]['bytes'] / roof[n]['min_ms']):.0f}% of sum's GB/s"
            if r["impl"] == "ours":
                c += "" if r.get("ok") else " **WRONG**"
            cells.append(c)
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append("")
half_roof = {r["n"]: r for r in rows if r.get("impl") == "read_roof"}
for ty in ["f16", "bf16"]:
    hrows = [r for r in rows if r.get("type") == ty and "min_ms" in r]
    if not hrows:
        continue
    hns = sorted({r["n"] for r in hrows})
    lines += [f"## {ty}: ours vs torch, and % of the read-only kernel's GB/s (its row last)", "",
              "| op | impl | " + " | ".join(f"2^{n.bit_length() - 1}" for n in hns) + " |",
              "|---|---|" + "---:|" * len(hns)]
    for op in ["total", "nanmean", "sumsq", "norm2", "l1", "dot", "mean", "var", "std"]:
        for impl in ["ours", "torch"]:
            by_n = {r["n"]: r for r in hrows if r["op"] == op and r["impl"] == impl}
            if not by_n:
                continue
            cells = []
            for n in hns:
                r = by_n.get(n)
                if r is None:
                    cells.append("–")
                    continue
                c = f"{us(r['min_ms'])} / {us(r['median_ms'])}"
                if impl == "ours" and n in half_roof:
                    c += f", {100 * (r['bytes'] / r['min_ms']) / (half_roof[n]['bytes'] / half_roof[n]['min_ms']):.0f}%"
                    c += "" if r.get("ok") else " **WRONG**"
                cells.append(c)
            label = impl + (f" `{by_n[hns[0]]['call']}`" if impl == "torch" and hns[0] in by_n else "")
            lines.append(f"| {op} | {label} | " + " | ".join(cells) + " |")
    lines.append("| read | read-only kernel | " + " | ".join(
        f"{us(half_roof[n]['min_ms'])} / {us(half_roof[n]['median_ms'])}" if n in half_roof else "–" for n in hns) + " |")
    lines.append("")
f64 = [r for r in rows if r["type"] == "f64"]
if f64:
    lines += [f"## f64 at 2^{f64[0]['n'].bit_length() - 1} (ours)", "", "| op | min / median µs | GB/s | ok |", "|---|---:|---:|---|"]
    for r in f64:
        lines.append(f"| {r['op']} | {us(r['min_ms'])} / {us(r['median_ms'])} | {r['bytes'] / r['min_ms'] / 1e6:,.0f} | {r['ok']} |")
    lines.append("")
acc_n = acc[0]["n"] if acc else 1 << 24
lines += [f"## Accuracy: population variance of 1e6 + U(0,1), f32, {acc_n} elements (torch: 2^24)", "",
          "| impl | variance | within stated bound / relative error vs f64 reference |", "|---|---:|---:|"]
for r in acc:
    if r["op"] == "var":
        rel = abs(r["value"] - r["reference"]) / r["reference"]
        lines.append(f"| ours (one pass, f64 Welford/Chan) | {r['value']:.9g} | within bound: {r['ok']}; rel error {rel:.2e} (reference {r['reference']:.9g}) |")
for r in rows:
    if r.get("record") == "transform_accuracy":
        lines.append(f"| torch.var (f32) | {r['value']:.9g} | rel error {r['rel_error']:.2e} (reference {r['reference']:.9g}) |")
open(f"{out}/transform.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY

# --- correctness on the GPU ---------------------------------------------------------------------
if [ -x "$HERE/bin/gpu-tests" ]; then
    "$HERE/bin/gpu-tests" transform > "$OUT/transform-gpu-tests.txt" 2>&1 || { echo "transform GPU tests FAILED" >&2; status=1; }
    tail -3 "$OUT/transform-gpu-tests.txt" >&2
    # The f16/bf16 checks (transform and stage 8; every loop's bits against the plain one's).
    "$HERE/bin/gpu-tests" halves > "$OUT/halves-gpu-tests.txt" 2>&1 || { echo "halves GPU tests FAILED" >&2; status=1; }
    tail -3 "$OUT/halves-gpu-tests.txt" >&2
fi
if command -v compute-sanitizer > /dev/null 2>&1; then
    for tool in memcheck racecheck; do
        for n in 33 100003; do
            compute-sanitizer --tool "$tool" --error-exitcode 9 "$R" --backend "$B" transform \
                --op sumsq,l1,dot,var --n "$n" --runs 0 >> "$OUT/transform-sanitize-$tool.log" 2>&1 \
                || { echo "$tool n=$n FAILED" >&2; status=1; }
            # f16: the grid-shift moments kernel (more than one tile at n = 100003).
            compute-sanitizer --tool "$tool" --error-exitcode 9 "$R" --backend "$B" transform \
                --type f16 --op nanmean,var --n "$n" --runs 0 >> "$OUT/transform-sanitize-$tool.log" 2>&1 \
                || { echo "$tool f16 n=$n FAILED" >&2; status=1; }
        done
        echo "$tool: $(grep -cE 'ERROR SUMMARY: 0|RACECHECK SUMMARY: 0' "$OUT/transform-sanitize-$tool.log") clean runs of 4" >&2
    done
fi
exit $status
