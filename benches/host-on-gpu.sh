#!/usr/bin/env bash
# Data that starts on the host (issue 16), on a GPU machine with no Rust toolchain.
#
# In the bundle made by `cargo xtask bundle` (next to bin/reduce and python/host_stream.py):
#
#     bash host-on-gpu.sh OUTDIR [--no-big]
#
# Steps (about 2 minutes on an H200; --no-big skips N = 2^30):
#   link + ours   bin/reduce --backend gpu host: the link first (pinned cuMemcpyHtoD of 1 GiB,
#                 min of 10), then N = 2^16, 2^20, 2^22, 2^26, 2^28 (10 runs) and 2^30 (3 runs),
#                 f32 ones, from pageable and pinned memory; the zero-copy route
#                 (--input zero-copy) for N <= 2^26 in a process of its own -> OUTDIR/host.jsonl
#   timeline      one streamed call of 2^26 per input, CUDA events    -> OUTDIR/timeline.json
#   baselines     python3 python/host_stream.py baselines (torch pageable/pinned, CuPy)
#                                                                     -> OUTDIR/host.jsonl (appended)
#   report        python3 python/host_stream.py report OUTDIR -> OUTDIR/host.md, OUTDIR/timeline.png
# Logs: OUTDIR/host-*.log. Exit status non-zero if our rows failed or were wrong.

set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUTDIR="${1:-${OUT:-results-host}}"
BIG=1
[ "${2:-}" = "--no-big" ] && BIG=0
mkdir -p "$OUTDIR"
R="$HERE/bin/reduce"
: > "$OUTDIR/host.jsonl"
status=0

echo "== link + ours"
first=1
for e in 16 20 22 26 28 30; do
    runs=10
    if [ "$e" = 30 ]; then
        [ "$BIG" = 1 ] || continue
        runs=3
    fi
    extra=()
    [ "$first" = 1 ] && extra+=(--link-bytes $((1 << 30)))
    [ "$e" = 26 ] && extra+=(--timeline "$OUTDIR/timeline.json")
    first=0
    if ! "$R" --backend gpu host --n $((1 << e)) --runs "$runs" --warmup 2 --format json \
        "${extra[@]}" >> "$OUTDIR/host.jsonl" 2>> "$OUTDIR/host-ours.log"; then
        echo "reduce host 2^$e failed (see host-ours.log)"
        status=1
    fi
    # The zero-copy route (off in the default policy until measured): its own process, so a
    # failure cannot take the rows above with it.
    [ "$e" -le 26 ] && { "$R" --backend gpu host --n $((1 << e)) --runs "$runs" --warmup 2 \
        --format json --input zero-copy >> "$OUTDIR/host.jsonl" 2>> "$OUTDIR/host-ours.log" \
        || echo "reduce host --input zero-copy 2^$e failed (see host-ours.log)"; }
done

echo "== baselines (torch, cupy)"
big=()
[ "$BIG" = 1 ] && big=(--big-exp 30 --big-runs 3)
python3 "$HERE/python/host_stream.py" baselines --exps 16,20,22,26,28 --runs 10 "${big[@]}" \
    >> "$OUTDIR/host.jsonl" 2> "$OUTDIR/host-baselines.log" || echo "baselines failed (see host-baselines.log)"

echo "== report"
python3 "$HERE/python/host_stream.py" report "$OUTDIR" 2> "$OUTDIR/host-report.log" \
    || echo "report failed (see host-report.log)"
exit $status
