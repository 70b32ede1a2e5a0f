"""One Markdown row per JSON line of a `reduce … --format json` log that a GPU script tagged
with a first column (benches/s12-*-on-gpu.sh): tag, type, op, launch plan, min and median µs,
[GB/s,] ok.

    python3 runs_table.py JSONL TAG_KEY "TAG HEADER" "PLAN HEADER" [--gbps] [--n]

`--n` adds the input length (as 2^k when it is a power of two) after the type.
"""
import json
import sys


def length(n):
    """`n` as `2^k` when it is a power of two, else as it is."""
    if isinstance(n, int) and n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return n


def main():
    path, key, header, plan = sys.argv[1:5]
    gbps = "--gbps" in sys.argv[5:]
    with_n = "--n" in sys.argv[5:]
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    cols = [header, "type"] + (["n"] if with_n else []) + ["op", plan, "min µs", "median µs"]
    cols += ["GB/s"] if gbps else []
    cols += ["ok"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        mn = r.get("min_us", r.get("min_ms", 0) * 1e3)
        md = r.get("median_us", r.get("median_ms", 0) * 1e3)
        cells = [r.get(key), r.get("type")] + ([length(r.get("n"))] if with_n else [])
        cells += [r.get("op", r.get("impl")), r.get("plan", ""), f"{mn:.1f}", f"{md:.1f}"]
        cells += [f"{r.get('gbps', 0):.0f}"] if gbps else []
        cells += [r.get("ok")]
        print("| " + " | ".join(str(c) for c in cells) + " |")


if __name__ == "__main__":
    main()
