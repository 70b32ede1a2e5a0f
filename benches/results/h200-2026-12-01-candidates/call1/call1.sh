#!/usr/bin/env bash
# Session 7, call 1: the helpers' candidate variants, each script packed into $OUT as it ends.
set -u
OUT="$1"; mkdir -p /tmp/r; cd /tmp/b
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$OUT/gpu.txt"
for s in exact axis arg; do
  t0=$(date +%s)
  lim=200; [ $s = exact ] && lim=150
  timeout $lim bash s7-$s-on-gpu.sh /tmp/r/$s > /tmp/r/$s.log 2>&1; rc=$?
  cp /tmp/r/$s.log /tmp/r/$s/ 2>/dev/null
  echo "$s rc=$rc $(( $(date +%s) - t0 )) s" | tee -a "$OUT/status.txt"
  (cd /tmp/r && tar czf "$OUT/$s.tgz" $s)
done
