#!/usr/bin/env bash
# compute-sanitizer over every kernel: memcheck, racecheck, synccheck and initcheck, each running
# `reduce check` (every stage x type x op x block size at sizes with tails). Run on a GPU machine
# from a bundle (`cargo xtask bundle`), or from the repository with REDUCE=target/release/reduce.
# Usage: bash sanitize.sh [OUT_DIR]   — writes one log per tool and prints each tool's summary.
# With SANITIZE_BROKEN=1 it also shows racecheck catching the seeds' racy last warp.
set -u
out=${1:-${OUT:-sanitize-results}}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
reduce=${REDUCE:-$here/bin/reduce}
[ -x "$reduce" ] || reduce=$here/../target/release/reduce
sizes=${SANITIZE_SIZES:-1,33,1000,100003}
status=0
for tool in memcheck racecheck synccheck initcheck; do
  log="$out/sanitize-$tool.log"
  compute-sanitizer --tool "$tool" --error-exitcode 9 "$reduce" --backend gpu check --sizes "$sizes" >"$log" 2>&1
  rc=$?
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|check:" "$log" | tr '\n' ' ')
  echo "$tool (exit $rc): $summary"
  [ $rc -eq 0 ] || status=1
done
if [ "${SANITIZE_BROKEN:-0}" = 1 ]; then
  log="$out/sanitize-racecheck-broken.log"
  compute-sanitizer --tool racecheck "$reduce" --backend gpu check --sizes 1 --broken >"$log" 2>&1
  echo "racecheck on the deliberately broken kernels: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$log" | tr '\n' ' ')"
fi
exit $status
