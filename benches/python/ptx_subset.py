#!/usr/bin/env python3
"""A PTX module cut down to some of its entries, for timing kernel variants side by side.

The project's PTX module holds every kernel (about 30 MB): too large to carry several variants
to the GPU machine. This keeps the module's header and declarations (everything before its
first entry), every `.func` definition (the few functions the entries may call) and the
`.entry` definitions whose names match one of the given regular expressions; `--maxnreg OLD=NEW`
rewrites the register cap of the kept entries (`.maxnreg OLD` -> `.maxnreg NEW`). The host loads
such a file with `reduce --ptx FILE` (kernels are looked up by name, JIT-compiled by the driver).

    python3 ptx_subset.py IN.ptx OUT.ptx 'roll_r80_moments_b256_(f16|bf16)$' [--maxnreg 80=64]
"""
import argparse
import re


def blocks(lines):
    """(kind, name, lines) for each top-level definition; kind is 'head' for the prologue."""
    head = []
    i = 0
    while i < len(lines) and not lines[i].startswith(".visible .entry"):
        head.append(lines[i])
        i += 1
    yield "head", "", head
    cur, kind, name, depth = [], None, "", 0
    for line in lines[i:]:
        if not cur:
            m = re.match(r"\.visible \.entry (\w+)\(", line)
            f = re.match(r"\.func\s+(?:\(.*?\)\s*)?(\w+)", line)
            if m:
                kind, name = "entry", m.group(1)
            elif f and not line.rstrip().endswith(";"):
                kind, name = "func", f.group(1)
            else:
                yield "other", "", [line]
                continue
        cur.append(line)
        depth += line.count("{") - line.count("}")
        if depth == 0 and "}" in line:
            yield kind, name, cur
            cur, depth = [], 0
    if cur:
        yield kind, name, cur


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("patterns", nargs="+", help="regular expressions matched against entry names")
    ap.add_argument("--maxnreg", default=None, help="OLD=NEW: rewrite .maxnreg OLD of kept entries")
    a = ap.parse_args()
    pats = [re.compile(p) for p in a.patterns]
    lines = open(a.src).read().splitlines(keepends=True)
    out, kept = [], []
    for kind, name, body in blocks(lines):
        if kind == "entry":
            if not any(p.search(name) for p in pats):
                continue
            kept.append(name)
            if a.maxnreg:
                old, new = a.maxnreg.split("=")
                body = [l.replace(f".maxnreg {old}", f".maxnreg {new}") for l in body]
        out.extend(body)
    if not kept:
        raise SystemExit("no entry matched")
    open(a.dst, "w").write("".join(out))
    print(f"{a.dst}: {len(kept)} entries: {' '.join(kept)}")


if __name__ == "__main__":
    main()
