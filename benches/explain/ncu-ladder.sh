#!/usr/bin/env bash
# Profile every stage of the ladder with Nsight Compute and turn the counters into the
# per-rung table of docs/ladder.md (issue "lessons proven"): one `reduce run` per stage at the seed's N = 2^22 f32
# ones, every kernel launch profiled with the counters below, clocks left alone.
#
# Usage (on a GPU machine, from a bundle or the repository):
#     bash benches/explain/ncu-ladder.sh [OUTDIR]
# Writes OUTDIR/ncu-stageN.csv (ncu's own CSV, one row per launch; the .ncu-rep reports too), then runs counters.py, which
# writes OUTDIR/counters.csv and counters.jsonl (one row per stage), OUTDIR/counters.md (the table of docs/ladder.md) and
# OUTDIR/counters.png (the figure). Needs `ncu` (Nsight Compute) and python3 with matplotlib.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-explain-results}}
mkdir -p "$out"
reduce=${REDUCE:-}
for c in "$here/../bin/reduce" "$here/../../target/release/reduce"; do
  [ -z "$reduce" ] && [ -x "$c" ] && reduce=$c
done
[ -n "$reduce" ] || { echo "ncu-ladder.sh: no reduce binary (set REDUCE=...)" >&2; exit 2; }
n=${N:-4194304}
ncu=${NCU:-$(command -v ncu || true)}
for c in /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
  [ -z "$ncu" ] && [ -x "$c" ] && ncu=$c
done
[ -n "$ncu" ] || { echo "ncu-ladder.sh: no ncu (Nsight Compute) on PATH or in /usr/local/cuda/bin (set NCU=...)" >&2; exit 2; }

# What each counter shows (docs/ladder.md, "Measured: why each stage is faster"):
metrics=(
  gpu__time_duration.sum                                        # kernel time
  dram__throughput.avg.pct_of_peak_sustained_elapsed            # DRAM throughput, % of peak
  dram__bytes_read.sum.per_second                               # DRAM read bandwidth
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum      # shared-memory load bank conflicts
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum      # shared-memory store bank conflicts
  smsp__sass_average_branch_targets_threads_uniform.pct         # branch targets taken by the whole warp
  smsp__sass_branch_targets_threads_divergent.sum               # divergent branch targets
  smsp__thread_inst_executed_per_inst_executed.ratio            # active threads per warp instruction
  sm__warps_active.avg.pct_of_peak_sustained_active             # achieved occupancy
  smsp__inst_executed.sum                                       # warp instructions executed
  launch__registers_per_thread                                  # registers per thread
  launch__grid_size
  launch__block_size
  sm__throughput.avg.pct_of_peak_sustained_elapsed              # compute (SM) throughput, % of peak
  gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed # memory throughput, % of peak
)
list=$(IFS=,; echo "${metrics[*]}")

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader || true
  "$ncu" --version | tail -n 1
  "$reduce" --backend gpu info --n "$n"
} > "$out/ncu-device.txt" 2>&1

for s in 1 2 3 4 5 6 7 8; do
  # One reduction per stage (every pass of it is profiled). ncu's replay restores memory between
  # passes, so each counter is read on the same launch.
  rep="$out/ncu-stage$s"
  "$ncu" --clock-control none --metrics "$list" --kernel-name regex:'^reduce_' -f -o "$rep" \
      "$reduce" --backend gpu run --stages "$s" --n "$n" --data ones > "$rep.log" 2>&1 \
    || { echo "ncu failed for stage $s (see $rep.log)" >&2; exit 1; }
  "$ncu" --import "$rep.ncu-rep" --csv --page raw --print-units base > "$rep.csv"
done
N="$n" python3 "$here/counters.py" "$out" "$out"/ncu-stage?.csv
echo "wrote $out/counters.csv, counters.jsonl, counters.md, counters.png"
