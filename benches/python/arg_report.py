"""The argmin/argmax table of `benches/gpu.sh toolbox`: reads OUTDIR/arg.jsonl (lines of
`reduce arg`, of `reduce sweep --ops max` for scale, of python/arg_torch.py, of
cuda/cub_argreduce.cu and of the custom-operator example) and writes OUTDIR/arg.md.

    python3 arg_report.py OUTDIR
"""
import json
import os
import sys

SIZE = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2}
ORDER = ["f32", "f16", "bf16", "f64"]


def cell(t):
    return "—" if t is None else f"{t[0]:.1f} / {t[1]:.1f}" + ("" if t[2] else " (WRONG)")


def main():
    out = sys.argv[1]
    rows = {}
    for line in open(os.path.join(out, "arg.jsonl")):
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
    lines = ["| op | type | N | ours (µs, min / median) | torch | CUB | ours GB/s | ours vs best "
             "baseline | stage-8 max (with its result copy), same bytes | ours vs stage-8 max |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    ok = True
    for (op, ty, n) in sorted(rows, key=lambda k: (k[0], ORDER.index(k[1]) if k[1] in ORDER else 9, k[2])):
        r = rows[(op, ty, n)]
        ours = r.get("rust")
        if ours is None:
            continue
        ok &= ours[2]
        base = [r[k][0] for k in ("torch", "cub") if k in r]
        speed = f"{min(base) / ours[0]:.2f}×" if base else "—"
        s8 = r.get("s8_max")
        vs8 = f"{s8[0] / ours[0] * 100:.0f}%" if s8 else "—"
        gbps = f"{n * SIZE.get(ty, 4) / (ours[0] * 1e-6) / 1e9:.0f}"
        lines.append(f"| {op} | {ty} | 2^{n.bit_length() - 1} | {cell(ours)} | {cell(r.get('torch'))} "
                     f"| {cell(r.get('cub'))} | {gbps} | {speed} | {cell(s8)} | {vs8} |")
    with open(os.path.join(out, "arg.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
