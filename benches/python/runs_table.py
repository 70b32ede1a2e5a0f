"""One Markdown row per JSON line of a `reduce … --format json` log that a GPU script tagged
with a first column (benches/s12-*-on-gpu.sh): tag, type, op, launch plan, min and median µs,
[GB/s,] ok.

    python3 runs_table.py JSONL TAG_KEY "TAG HEADER" "PLAN HEADER" [--gbps]
"""
import json
import sys


def main():
    path, key, header, plan = sys.argv[1:5]
    gbps = "--gbps" in sys.argv[5:]
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    cols = [header, "type", "op", plan, "min µs", "median µs"]
    cols += ["GB/s"] if gbps else []
    cols += ["ok"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        mn = r.get("min_us", r.get("min_ms", 0) * 1e3)
        md = r.get("median_us", r.get("median_ms", 0) * 1e3)
        cells = [r.get(key), r.get("type"), r.get("op", r.get("impl")), r.get("plan", ""),
                 f"{mn:.1f}", f"{md:.1f}"]
        cells += [f"{r.get('gbps', 0):.0f}"] if gbps else []
        cells += [r.get("ok")]
        print("| " + " | ".join(str(c) for c in cells) + " |")


if __name__ == "__main__":
    main()
