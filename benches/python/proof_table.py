"""The side-by-side proof's table (benches/gpu.sh proof): an old and a new `reduce` run the same
cases alternating; this reads their tagged JSON lines and prints, per case, the result old and new,
whether they are identical, min and median µs old and new, the ratio of the mins and whether it is
within ±2% (`yes`), more than 2% faster (`faster`) or more than 2% slower (`NO`), and the A/A
spread (how far each binary's rounds differ from each other).

    python3 proof_table.py [--strict] proof.jsonl > proof.md

Results are compared as the CLI prints them: hex bits where it prints bits (`exact_bits`,
`s8_bits`, axis's `results_digest`), else the decimal text of the value, kept as printed (serde's
shortest round-trip form of an f32/f64: equal text is equal bits). Exit status 1 when a result
differs, a time is more than 2% slower or an invocation failed (`--strict`: also more than 2%
faster, for a change that must not move any time).
"""
import json
import statistics
import sys

TOLERANCE = 0.02


def log2(n):
    n = int(n)
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def measurements(r):
    """(case, result text or None, min µs, median µs, ok) for each measurement in record r."""
    ms = lambda k: float(r[k]) * 1e3 if r.get(k) not in (None, "null") else None
    us = lambda k: float(r[k]) if r.get(k) not in (None, "null") else None
    if r.get("kind") == "exact":
        n = f"{r['type']} {log2(r['n'])}"
        ok = r.get("exact_matches_reference") is not False
        yield f"exact {n}", r["exact_bits"], us("exact_min_us"), us("exact_median_us"), ok
        yield f"stage 8 on the exact data {n}", r["s8_bits"], us("s8_min_us"), us("s8_median_us"), True
    elif r.get("record") == "axis":
        shape = (f"{r['segments']} segments" if r["axis"] == "segments"
                 else f"{r['rows']}x{r['cols']}")
        yield (f"axis {r['axis']} {shape} {r['op']} {r['type']}", r.get("results_digest"),
               ms("min_ms"), ms("median_ms"), r.get("ok", False))
    elif r.get("record") == "transform":
        yield (f"{r['op']} {r['type']} {log2(r['n'])}", r["value"], ms("min_ms"), ms("median_ms"),
               r.get("ok", False))
    elif r.get("record") == "toolbox":
        yield (f"half {r['op']} {r['type']} {log2(r['n'])}", r["result"], ms("min_ms"),
               ms("median_ms"), r.get("ok", False))
    elif "index" in r and str(r.get("impl", "")).startswith("rust_"):
        yield (f"{r['op']} {r['type']} {log2(r['n'])}", f"{r['index']} @ {r['value']}",
               us("min_us"), us("median_us"), r.get("ok", False))
    elif r.get("impl") == "rust_s8":
        yield (f"stage 8 {r['op']} {r['type']} {log2(r['n'])}", r.get("result"), ms("min_ms"),
               ms("median_ms"), r.get("correct", False))
    elif r.get("impl") == "rust_s8_wide_kernel":
        yield (f"wide {r['op']} {r['type']} {log2(r['n'])}", r.get("result"), ms("min_ms"),
               ms("median_ms"), r.get("correct", False))


def fmt(x, digits=2):
    return "—" if x is None else f"{x:.{digits}f}"


def main():
    cases = {}  # case -> bin -> list of (round, result, min, median, ok)
    failed = []
    strict = "--strict" in sys.argv[1:]
    path = next(a for a in sys.argv[1:] if not a.startswith("--"))
    for line in open(path):
        if not line.startswith("{"):
            continue
        # Floats kept as printed: the decimal text is what is compared.
        r = json.loads(line, parse_float=str)
        b, rnd = r["proof_bin"], r["proof_round"]
        if "exit" in r:
            failed.append(f"{r['proof_case']} ({b}, round {rnd}): exit {r['exit']}")
            continue
        for case, result, lo, med, ok in measurements(r):
            cases.setdefault(case, {"old": [], "new": []})[b].append((rnd, result, lo, med, ok))

    print("| case | result old | result new | identical | min µs old | min µs new "
          "| median µs old | median µs new | new/old (min) | within ±2% | A/A spread old / new |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---|---|")
    counts = {"identical": 0, "different": 0, "unknown": 0, "within": 0, "faster": 0,
              "outside": 0}
    for case, by in cases.items():
        text = {}
        for b in ("old", "new"):
            results = sorted({str(m[1]) for m in by[b] if m[1] is not None})
            missing = any(m[1] is None for m in by[b])
            text[b] = ("—" if not by[b] else "not printed" if missing and not results
                       else results[0] if len(results) == 1 and not missing
                       else "varies: " + ", ".join(results))
            if any(not m[4] for m in by[b]):
                text[b] += " (WRONG)"
                failed.append(f"{case} ({b}): a result outside its reference's bound")
        olds = {m[1] for m in by["old"]}
        news = {m[1] for m in by["new"]}
        if not by["old"] or not by["new"] or None in olds or None in news:
            same = "unknown"
        elif len(olds) == 1 and olds == news:
            same = "yes"
        else:
            same = "NO"
        counts[{"yes": "identical", "NO": "different"}.get(same, "unknown")] += 1
        lo = {b: min((m[2] for m in by[b] if m[2] is not None), default=None) for b in by}
        med = {b: statistics.median([m[3] for m in by[b] if m[3] is not None])
               if any(m[3] is not None for m in by[b]) else None for b in by}
        spread = {}
        for b in by:
            mins = [m[2] for m in by[b] if m[2] is not None]
            spread[b] = (max(mins) / min(mins) - 1) * 100 if len(mins) > 1 and min(mins) > 0 else None
        ratio = lo["new"] / lo["old"] if lo["old"] and lo["new"] else None
        within = ("—" if ratio is None else "yes" if abs(ratio - 1) <= TOLERANCE
                  else "faster" if ratio < 1 else "NO")
        if ratio is not None:
            counts[{"yes": "within", "faster": "faster"}.get(within, "outside")] += 1
        print(f"| {case} | `{text['old']}` | `{text['new']}` | {same} | {fmt(lo['old'])} | "
              f"{fmt(lo['new'])} | {fmt(med['old'])} | {fmt(med['new'])} | {fmt(ratio, 4)} | "
              f"{within} | {fmt(spread['old'], 1)}% / {fmt(spread['new'], 1)}% |")
    print()
    print(f"{len(cases)} measurements: {counts['identical']} identical, {counts['different']} "
          f"different, {counts['unknown']} not comparable (a binary does not print that result); "
          f"times: {counts['within']} within ±{TOLERANCE:.0%}, {counts['faster']} faster, "
          f"{counts['outside']} slower. "
          "min = the fastest of every round's timed runs, median = the median of the rounds' "
          "medians, A/A spread = how far a binary's slowest round min is above its fastest.")
    for f in failed:
        print(f"\nFAILED: {f}")
    moved = counts["outside"] + (counts["faster"] if strict else 0)
    sys.exit(1 if failed or counts["different"] or moved else 0)


if __name__ == "__main__":
    main()
