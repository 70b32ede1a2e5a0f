#!/usr/bin/env bash
# Session 12 device-call driver: bash call-s12.sh OUT script:limit ...  (the bundle is in /tmp/b).
# Each script writes to /tmp/res/NAME under its own time limit; each folder comes back as
# OUT/NAME.tgz (at most 8 files come back from a call).
OUT="$1"; shift
B=/tmp/b
export PATH="/usr/local/cuda/bin:$PATH"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
start=$(date +%s)
for item in "$@"; do
    s="${item%%:*}"; lim="${item##*:}"
    name="${s%-on-gpu.sh}"; name="${name%.sh}"
    mkdir -p "/tmp/res/$name"
    t0=$(date +%s)
    (cd "$B" && eval "${ENV_FOR_SCRIPT:-}" timeout "$lim" bash "$B/$s" "/tmp/res/$name") > "/tmp/res/$name/$name.log" 2>&1
    rc=$?
    t1=$(date +%s)
    echo "$name rc=$rc $((t1 - t0)) s (at $((t1 - start)) s)" >> "$OUT/status.txt"
    rm -f /tmp/res/$name/half_roof /tmp/res/$name/cub_* 2>/dev/null
    tar czf "$OUT/$name.tgz" -C /tmp/res "$name"
done
cat "$OUT/status.txt"
