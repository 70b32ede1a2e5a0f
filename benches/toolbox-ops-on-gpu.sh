#!/usr/bin/env bash
# The benchmark of issue #14 part B (NumPy/PyTorch semantics, product), for the bundle made by
# `cargo xtask bundle` (which copies this script next to bin/reduce and python/):
#
#     bash toolbox-ops-on-gpu.sh OUTDIR
#
# At N = 2^12, 2^20, 2^26, 2^30: ours (`bin/reduce sweep`, stage 8, each result checked against
# the CPU reference) for f32 sum / prod / max / nanmax / nansum, i32 sum wrapping in i32 and with
# the 64-bit accumulator (`--wide`: i32 → i64, checked against the exact sum), and torch
# (python/toolbox_ops_torch.py) for the same plus bf16/f16 sums and torch's i32 → i64 sum; and
# our bf16/f16 sums (`bin/reduce transform --op total`: 16-byte loads of 8 halves, widened
# exactly, accumulated in f64; checked against the CPU's f64 sum of the same halves).
# Minimum and median of 50 CUDA-event runs. Writes OUTDIR/toolbox-ops.jsonl and
# OUTDIR/toolbox-ops.md (the table); logs in OUTDIR/logs/. Then the semantics GPU tests
# (OUTDIR/toolbox-ops-gpu-tests.txt) and the f16/bf16 GPU tests (OUTDIR/toolbox-halves-gpu-tests.txt).
# Exit status non-zero if anything failed.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-${OUT:-./results}}"
mkdir -p "$OUT/logs"
J="$OUT/toolbox-ops.jsonl"
: > "$J"
R="$HERE/bin/reduce"
EXPS=12,20,26,30
status=0
"$R" --backend gpu sweep --exps $EXPS --ops sum,prod,max,nanmax,nansum --types f32 --runs 50 \
    --devmem >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours f32 failed" >&2; status=1; }
"$R" --backend gpu sweep --exps $EXPS --ops sum --types i32 --runs 50 --devmem --wide \
    >> "$J" 2>> "$OUT/logs/ours.log" || { echo "ours i32 failed" >&2; status=1; }
for ty in bf16 f16; do
    for e in $(echo $EXPS | tr ',' ' '); do
        "$R" --backend gpu transform --type $ty --op total --n $((1 << e)) --runs 50 \
            --format json >> "$J" 2>> "$OUT/logs/ours.log" \
            || { echo "ours $ty total 2^$e failed" >&2; status=1; }
    done
done
echo "ours: done" >&2
python3 "$HERE/python/toolbox_ops_torch.py" $(echo $EXPS | tr ',' ' ') >> "$J" 2>> "$OUT/logs/torch.log" \
    || { echo "torch baseline failed (logs/torch.log)" >&2; status=1; }
python3 "$HERE/python/toolbox_ops_report.py" "$OUT" || status=1
if [ -x "$HERE/bin/gpu-tests" ]; then
    "$HERE/bin/gpu-tests" semantics > "$OUT/toolbox-ops-gpu-tests.txt" 2>&1 \
        || { echo "semantics GPU tests FAILED" >&2; status=1; }
    tail -3 "$OUT/toolbox-ops-gpu-tests.txt" >&2
    "$HERE/bin/gpu-tests" halves > "$OUT/toolbox-halves-gpu-tests.txt" 2>&1 \
        || { echo "halves GPU tests FAILED" >&2; status=1; }
    tail -3 "$OUT/toolbox-halves-gpu-tests.txt" >&2
fi
exit $status
