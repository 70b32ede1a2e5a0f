#!/usr/bin/env bash
# Session 7, call 2: the round-2 scripts, each under its own limit, each packed into $OUT as it ends.
#   bash call2.sh OUT STEP:LIMIT [STEP:LIMIT ...]    (steps: hopper, s7b-exact, s7b-axis, s7b-arg)
set -u
OUT="$1"; shift; mkdir -p /tmp/r; cd /tmp/b
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$OUT/gpu.txt"
for sl in "$@"; do
  s=${sl%%:*}; lim=${sl##*:}; t0=$(date +%s)
  script=s7b-${s#s7b-}-on-gpu.sh; [ "$s" = hopper ] && script=s7-hopper-on-gpu.sh
  timeout "$lim" bash "$script" "/tmp/r/$s" > "/tmp/r/$s.log" 2>&1; rc=$?
  cp "/tmp/r/$s.log" "/tmp/r/$s/" 2>/dev/null
  echo "$s rc=$rc $(( $(date +%s) - t0 )) s" | tee -a "$OUT/status.txt"
  find "/tmp/r/$s" -type f \( -name '*.ncu-rep' -o \( -perm -u+x -size +100k \) \) -delete
  (cd /tmp/r && tar czf "$OUT/$s.tgz" "$s")
done
