#!/usr/bin/env bash
# Session 8's one device call: each script under its own limit, packed into $OUT as it ends.
#   bash call-s8.sh OUT STEP:LIMIT [STEP:LIMIT ...]    (steps: axis, extra)
set -u
OUT="$1"; shift; mkdir -p /tmp/r; cd /tmp/b
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$OUT/gpu.txt"
for sl in "$@"; do
  s=${sl%%:*}; lim=${sl##*:}; t0=$(date +%s)
  timeout "$lim" bash "s8-$s-on-gpu.sh" "/tmp/r/$s" > "/tmp/r/$s.log" 2>&1; rc=$?
  cp "/tmp/r/$s.log" "/tmp/r/$s/" 2>/dev/null
  echo "$s rc=$rc $(( $(date +%s) - t0 )) s" | tee -a "$OUT/status.txt"
  find "/tmp/r/$s" -type f \( -name '*.ncu-rep' -o \( -perm -u+x -size +100k \) \) -delete
  (cd /tmp/r && tar czf "$OUT/$s.tgz" "$s")
done
