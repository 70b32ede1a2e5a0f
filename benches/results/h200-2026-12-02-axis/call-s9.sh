#!/usr/bin/env bash
# Session 9's device calls: each bench script under its own limit, packed into $OUT as it ends.
#   bash call-s9.sh OUT SCRIPT:LIMIT [SCRIPT:LIMIT ...]   (SCRIPT: s9-axis, s8-extra: <SCRIPT>-on-gpu.sh)
set -u
OUT="$1"; shift; mkdir -p /tmp/r; cd /tmp/b
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$OUT/gpu.txt"
for sl in "$@"; do
  s=${sl%%:*}; lim=${sl##*:}; t0=$(date +%s)
  timeout "$lim" bash "$s-on-gpu.sh" "/tmp/r/$s" > "/tmp/r/$s.log" 2>&1; rc=$?
  cp "/tmp/r/$s.log" "/tmp/r/$s/" 2>/dev/null
  echo "$s rc=$rc $(( $(date +%s) - t0 )) s" | tee -a "$OUT/status.txt"
  find "/tmp/r/$s" -type f \( -name '*.ncu-rep' -o \( -perm -u+x -size +100k \) \) -delete
  (cd /tmp/r && tar czf "$OUT/$s.tgz" "$s")
done
