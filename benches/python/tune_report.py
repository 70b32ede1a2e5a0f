"""The report of benches/tune-on-gpu.sh: reads OUTDIR/tune.jsonl, writes OUTDIR/tune.md (per case:
the default policy, the best policy, its time against the baselines and the roof or the link, the
next best policies) and OUTDIR/tune_best.jsonl (one line per case).

    python3 tune_report.py OUTDIR

Only correct results count: a policy whose result was wrong is listed as such, never as best.
"""
import json
import os
import sys


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    pass
    return rows


def us(ms):
    return "–" if ms is None else f"{ms * 1e3:,.1f} µs"


def ratio(base, ours):
    return "–" if base is None or ours is None else f"{base / ours:.2f}×"


def pol(text):
    return f"`{text}`" if text else "default"


def axis_section(rows, best_out):
    ours = [r for r in rows if r.get("record") == "axis" and "impl" not in r]
    base = [r for r in rows if r.get("record") == "axis" and "impl" in r]
    key = lambda r: (r["axis"], r["rows"], r["cols"], r["segments"])
    cases = []
    for r in ours:
        if key(r) not in cases:
            cases.append(key(r))

    def baseline(impl, k):
        for r in base:
            if r["impl"] == impl and key(r) == k:
                return r
        return None

    out = ["## Along an axis (f32 sum of ones; min of 30 CUDA-event runs per policy)", "",
           "Target: ≥ 85% of the roof (ragged segments: 75%) and faster than torch and CUB.", "",
           "| case | policies (wrong) | default | best | best policy | % roof | torch | CUB | "
           "best vs torch | best vs CUB | met |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    details = []
    for k in cases:
        axis, r_, c_, segs = k
        rs = [r for r in ours if key(r) == k]
        good = sorted((r for r in rs if r.get("ok")), key=lambda r: r["min_ms"])
        wrong = [r for r in rs if not r.get("ok")]
        default = next((r for r in rs if r.get("policy", "") == ""), None)
        best = good[0] if good else None
        torch = baseline("torch", k) if axis != "segments" else None
        cub = baseline("cub_segmented", ("rows", r_, c_, 0) if axis != "segments" else k)
        roof = baseline("read_roof", ("rows", r_, c_, 0) if axis != "segments" else k)
        pct = 100 * roof["min_ms"] / best["min_ms"] if best and roof else None
        target = 75 if axis == "segments" else 85
        met = best is not None and pct is not None and pct >= target \
            and (torch is None or best["min_ms"] < torch["min_ms"]) \
            and (cub is None or axis == "cols" or best["min_ms"] < cub["min_ms"])
        shape = f"{segs} segments" if axis == "segments" else f"{r_} × {c_}"
        name = f"{axis} {shape}"
        out.append("| " + " | ".join([
            name, f"{len(rs)} ({len(wrong)})", us(default and default["min_ms"]),
            us(best and best["min_ms"]), pol(best["policy"]) if best else "–",
            f"{pct:.0f}%" if pct else "–", us(torch and torch["min_ms"]), us(cub and cub["min_ms"]),
            ratio(torch and torch["min_ms"], best and best["min_ms"]),
            ratio(cub and cub["min_ms"], best and best["min_ms"]), "yes" if met else "no"]) + " |")
        details.append(f"* {name}: " + "; ".join(
            f"{pol(r['policy'])} {us(r['min_ms'])} [{r.get('plan', '')}]" for r in good[:5])
            + (f"; WRONG: {', '.join(pol(r['policy']) for r in wrong)}" if wrong else ""))
        best_out.append({"section": "axis", "case": name, "axis": axis, "rows": r_, "cols": c_,
                         "segments": segs, "policies": len(rs), "wrong": len(wrong),
                         "default_ms": default and default["min_ms"],
                         "best_ms": best and best["min_ms"], "best_policy": best and best["policy"],
                         "best_plan": best and best.get("plan"),
                         "torch_ms": torch and torch["min_ms"], "cub_ms": cub and cub["min_ms"],
                         "roof_ms": roof and roof["min_ms"], "pct_roof": pct, "met": met})
    return out + ["", "The five fastest correct policies per case (time, plan):", ""] + details


def host_section(rows, best_out):
    link = next((r for r in rows if r.get("kind") == "link"), None)
    ours = [r for r in rows if r.get("kind") == "host" and "impl" not in r]
    base = {(r["impl"], r["n"]): r for r in rows if r.get("kind") == "host" and "impl" in r}
    out = ["## Host data (f32 sum of ones; wall clock until the result is on the host)", ""]
    if link:
        out += [f"Link: pinned `cuMemcpyHtoD` of {link['bytes'] / 2**30:.0f} GiB: "
                f"**{link['gbps']:.1f} GB/s** (min of {link['runs']}).", ""]
    out += ["Targets: pageable ≥ 75% of the link and ≥ 5× torch and CuPy (N ≥ 2^26); pinned ≥ 90% "
            "of the link (N ≥ 2^26) and faster than torch `pin_memory()` at every N.", "",
            "| N | input | policies (wrong) | default | best | best policy | GB/s | % link | "
            "torch | CuPy | best vs torch | best vs CuPy | met |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    details = []
    cases = sorted({(r["n"], r["input"]) for r in ours})
    for n, inp in cases:
        rs = [r for r in ours if (r["n"], r["input"]) == (n, inp)]
        good = sorted((r for r in rs if r.get("correct")), key=lambda r: r["min_ms"])
        wrong = [r for r in rs if not r.get("correct")]
        default = next((r for r in rs if r.get("policy", "") == ""), None)
        best = good[0] if good else None
        torch = base.get(("torch_" + inp, n))
        cupy = base.get(("cupy_pageable", n)) if inp == "pageable" else None
        pct = 100 * best["gbps"] / link["gbps"] if best and link else None
        big = n >= 1 << 26
        if inp == "pageable":
            met = best is not None and (not big or (pct or 0) >= 75 and all(
                b is not None and b["min_ms"] >= 5 * best["min_ms"] for b in (torch, cupy)))
        else:
            met = best is not None and (not big or (pct or 0) >= 90) and (
                n > 1 << 26 or (torch is not None and best["min_ms"] < torch["min_ms"]))
        name = f"2^{n.bit_length() - 1} {inp}"
        out.append("| " + " | ".join([
            f"2^{n.bit_length() - 1}", inp, f"{len(rs)} ({len(wrong)})",
            us(default and default["min_ms"]), us(best and best["min_ms"]),
            pol(best["policy"]) if best else "–", f"{best['gbps']:.1f}" if best else "–",
            f"{pct:.0f}%" if pct else "–", us(torch and torch["min_ms"]),
            us(cupy and cupy["min_ms"]), ratio(torch and torch["min_ms"], best and best["min_ms"]),
            ratio(cupy and cupy["min_ms"], best and best["min_ms"]), "yes" if met else "no"]) + " |")
        details.append(f"* {name}: " + "; ".join(
            f"{pol(r['policy'])} {us(r['min_ms'])} ({r['chunks']} chunks, {r.get('route')})"
            for r in good[:5])
            + (f"; WRONG: {', '.join(pol(r['policy']) for r in wrong)}" if wrong else ""))
        best_out.append({"section": "host", "case": name, "n": n, "input": inp,
                         "policies": len(rs), "wrong": len(wrong),
                         "default_ms": default and default["min_ms"],
                         "best_ms": best and best["min_ms"], "best_policy": best and best["policy"],
                         "best_gbps": best and best["gbps"], "link_gbps": link and link["gbps"],
                         "torch_ms": torch and torch["min_ms"], "cupy_ms": cupy and cupy["min_ms"],
                         "pct_link": pct, "met": met})
    return out + ["", "The five fastest correct policies per case:", ""] + details


def one_for_all(title, groups):
    """`groups`: case name -> {policy: min_ms} (correct results only). The policy with the best
    geometric mean, over the cases that measured it, of its time over the case's best time: the
    single setting closest to every case's best (a policy wrong anywhere is left out)."""
    from math import exp, log
    cases = [c for c in groups if groups[c]]
    if not cases:
        return []
    policies = set.intersection(*(set(groups[c]) for c in cases))
    score = {}
    for p in policies:
        score[p] = exp(sum(log(groups[c][p] / min(groups[c].values())) for c in cases) / len(cases))
    ranked = sorted(score, key=score.get)[:5]
    out = [f"* {title} ({len(cases)} cases): " + "; ".join(
        f"{pol(p)} ×{score[p]:.3f} (worst case ×"
        f"{max(groups[c][p] / min(groups[c].values()) for c in cases):.2f})" for p in ranked)]
    return out


def consensus(rows):
    """One policy for all cases of a family: the axis grids and the host grids per input."""
    out = ["## One policy for all cases", "",
           "Per family, the policies whose time is closest to each case's best (geometric mean of "
           "time / best time over the cases; worst case in parentheses):", ""]
    fam = {}
    wrong = set()
    for r in rows:
        if r.get("record") == "axis" and "impl" not in r:
            f, c = r["axis"], (r["rows"], r["cols"], r["segments"])
            ok = r.get("ok")
        elif r.get("kind") == "host" and "impl" not in r:
            f, c = "host " + r["input"], r["n"]
            ok = r.get("correct")
        else:
            continue
        if not ok:
            wrong.add((f, r.get("policy", "")))
            continue
        fam.setdefault(f, {}).setdefault(c, {})[r.get("policy", "")] = r["min_ms"]
    for f, groups in fam.items():
        for c in groups:
            for p in [p for p in groups[c] if (f, p) in wrong]:
                del groups[c][p]
        out += one_for_all(f, groups)
        if f.startswith("host"):  # the large inputs alone: where the link is the limit
            big = {c: g for c, g in groups.items() if c >= 1 << 26}
            out += one_for_all(f + ", N ≥ 2^26", big)
    return out


def main():
    outdir = sys.argv[1]
    rows = load(os.path.join(outdir, "tune.jsonl"))
    device = next((r["device"] for r in rows if "device" in r), "?")
    best = []
    text = [f"# Tuning sweep (benches/tune-on-gpu.sh) on {device}", ""]
    text += axis_section(rows, best) + [""] + host_section(rows, best) + [""] + consensus(rows)
    with open(os.path.join(outdir, "tune.md"), "w") as f:
        f.write("\n".join(text) + "\n")
    with open(os.path.join(outdir, "tune_best.jsonl"), "w") as f:
        for b in best:
            f.write(json.dumps(b) + "\n")
    print("\n".join(text))
    wrong = sum(b["wrong"] for b in best)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
