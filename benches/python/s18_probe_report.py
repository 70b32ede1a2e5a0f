"""Session 18's one-off probe of the transform driver (a vprintf line per block, printed by a
temporary build of kernels/src/transform/one_pass.rs: block, smid (+1000 for the block that
took the last ticket), %globaltimer at entry and exit, and clock64 cycles for four phases:
streaming (entry -> thread 0's tiles done), finish + block merge (-> after block_merge, every
warp done), publish + ticket, and the rest (the last block's grid merge; 0-ish otherwise)).

    python3 s18_probe_report.py LABEL < output-of-one-launch

Prints the median and maximum of each phase over the blocks in microseconds (cycles at the
1980 MHz the H200 runs at under load), the spread of the blocks' entry times, and the span from
the first entry to the last exit by %globaltimer."""
import statistics
import sys

MHZ = 1980.0
label = sys.argv[1]
rows = []
for line in sys.stdin:
    if line.startswith("PROBE "):
        rows.append([int(x) for x in line.split()[1:]])
if not rows:
    print(f"{label}: no probe lines")
    sys.exit(0)
# Several launches may be printed back to back: keep the last one (block ids repeat).
launches, cur, seen = [], [], set()
for r in rows:
    if r[0] in seen:
        launches.append(cur)
        cur, seen = [], set()
    cur.append(r)
    seen.add(r[0])
launches.append(cur)
rows = launches[-1]
def us(c):
    return c / MHZ
entry0 = min(r[2] for r in rows)
last = [r for r in rows if r[1] >= 1000]
phases = ["stream", "finish+merge", "ticket", "tail"]
out = [f"{label}: {len(rows)} blocks ({len(launches)} launches printed)"]
for i, name in enumerate(phases):
    v = sorted(r[4 + i] for r in rows)
    out.append(f"  {name:13s} median {us(statistics.median(v)):7.2f} us  max {us(v[-1]):7.2f} us")
if last:
    l = last[0]
    out.append(f"  last block {l[0]}: stream {us(l[4]):.2f} finish+merge {us(l[5]):.2f} ticket {us(l[6]):.2f} tail {us(l[7]):.2f} us")
entries = sorted(r[2] - entry0 for r in rows)
ends = sorted(r[3] - entry0 for r in rows)
out.append(f"  entry spread (globaltimer) median {entries[len(entries)//2]/1000:.2f} max {entries[-1]/1000:.2f} us; "
           f"exit median {ends[len(ends)//2]/1000:.2f} max {ends[-1]/1000:.2f} us after the first entry")
print("\n".join(out))
