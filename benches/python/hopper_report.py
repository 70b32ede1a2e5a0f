#!/usr/bin/env python3
"""Issue #20's table from one device call of benches/s7-hopper-on-gpu.sh.

    python3 hopper_report.py OUTDIR > OUTDIR/s7-hopper.md

Reads OUTDIR/s8.jsonl (`reduce sweep --protocol gated --combine ticket,pdl`: rows rust_s8 and
rust_s8_pdl), OUTDIR/s8_rerun.jsonl (the same sweep again in a second process, few runs), OUTDIR/s8_small.jsonl
(2^12 as one block of 256, 512, 1024 threads),
OUTDIR/cub.jsonl (`cub_bench --gated`: cub_mapped, read_kernel for N >= 2^20) and
OUTDIR/hopper.jsonl (`hopper_combine`: the CUDA C read / ticket / pdl variants, each at its best
grid). Times in µs, min / median. Checks, each listed under the table (exit status 1 if one
fails): every Rust row correct (its own reference check and the same bits after its timed runs
as before them), ticket and pdl the same bits at every N where both ran the same grid, and the
rerun process the same bits as the first.
"""
import json
import sys
from pathlib import Path


def rows(path):
    p = Path(path)
    if not p.is_file():
        return []
    out = []
    for line in p.read_text().splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return out


def us(r):
    """(min, median) in µs of a Rust / cub_bench row (ms) or a hopper_combine row (µs)."""
    if "min_us" in r:
        return r["min_us"], r["median_us"]
    return r["min_ms"] * 1e3, r["median_ms"] * 1e3


def cell(t):
    return "–" if t is None else f"{t[0]:.2f} / {t[1]:.2f}"


def ratio(a, b):
    return "–" if a is None or b is None else f"{a[0] / b[0]:.3f}×"


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    s8 = [r for r in rows(out / "s8.jsonl") if r.get("op") == "sum" and r.get("type") == "f32"]
    rerun = rows(out / "s8_rerun.jsonl")
    cub = [r for r in rows(out / "cub.jsonl") if r.get("protocol") == "gated"]
    hop = [r for r in rows(out / "hopper.jsonl") if r.get("ok") and r.get("same_bits")]

    def rust(name, n):
        return next((r for r in s8 if r["impl"] == name and r["n"] == n), None)

    def best(impl, n):
        c = [r for r in hop if r["impl"] == impl and r["n"] == n]
        return min(c, key=lambda r: r["min_us"]) if c else None

    def cubrow(impl, n):
        return next((r for r in cub if r["impl"] == impl and r["n"] == n), None)

    sizes = sorted({r["n"] for r in s8})
    print("# Stage 8: ticket vs PDL combine (H200, gated protocol, f32 sum), µs min / median\n")
    print(
        "| N | s8 ticket | s8 pdl | pdl / ticket | read-only kernel | CUB mapped | ticket / CUB |"
        " pdl / CUB | pdl / read | grid | CUDA C ticket | CUDA C pdl |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    failures = []
    for n in sizes:
        t, p = rust("rust_s8", n), rust("rust_s8_pdl", n)
        tt = us(t) if t else None
        pt = us(p) if p else None
        pdl_cell = cell(pt) + (" (1 block: the ticket kernel)" if p and p.get("passes") == 1 else "")
        # The read-only floor: cub_bench's read_kernel (N >= 2^20) or hopper_combine's `read`
        # (its best grid), whichever is faster.
        reads = [us(r) for r in (cubrow("read_kernel", n), best("read", n)) if r]
        rd = min(reads) if reads else None
        cm = cubrow("cub_mapped", n)
        ct = us(cm) if cm else None
        ht, hp = best("ticket", n), best("pdl", n)
        grid = f"{t['grid']}" if t else "–"
        e = n.bit_length() - 1
        print(
            f"| 2^{e} | {cell(tt)} | {pdl_cell} | {ratio(pt, tt)} | {cell(rd)} | {cell(ct)} |"
            f" {ratio(tt, ct)} | {ratio(pt, ct)} | {ratio(pt, rd)} | {grid} |"
            f" {cell(us(ht) if ht else None)} | {cell(us(hp) if hp else None)} |"
        )
        for r in (t, p):
            if r is None:
                failures.append(f"2^{e}: a stage 8 row is missing")
            elif not r.get("correct"):
                failures.append(f"2^{e} {r['impl']}: wrong, or other bits after the timed runs")
        if t and p and t["grid"] == p["grid"] and t["result"] != p["result"]:
            failures.append(f"2^{e}: ticket {t['result']} and pdl {p['result']} differ")
    small = [r for r in rows(out / "s8_small.jsonl") if r.get("impl") == "rust_s8"]
    if small:
        print("\n## 2^12 as one block of each size (stage 8, gated), µs min / median\n")
        print("| block | stage 8 | / CUB mapped |")
        print("|---|---|---|")
        cm = cubrow("cub_mapped", 4096)
        for r in sorted(small, key=lambda r: r["block"]):
            print(f"| {r['block']} | {cell(us(r))} | {ratio(us(r), us(cm) if cm else None)} |")
            if not r.get("correct"):
                failures.append(f"2^12 block {r['block']}: wrong or changed bits")
    checked = 0
    for r in rerun:
        first = rust(r["impl"], r["n"])
        if first is None or r.get("op") != "sum" or r.get("type") != "f32":
            continue
        checked += 1
        if first["result"] != r["result"]:
            failures.append(f"rerun {r['impl']} n={r['n']}: {r['result']} != {first['result']}")
    print()
    print(
        f"Checks: {len(sizes)} sizes; every row right and unchanged after its timed runs; ticket and"
        f" pdl the same bits where their grids match; {checked} rows rerun in a second process."
    )
    if failures:
        print("\n**FAILED:**\n")
        for f in failures:
            print(f"* {f}")
    else:
        print("All passed.")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
