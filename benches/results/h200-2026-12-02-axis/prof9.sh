#!/usr/bin/env bash
# Session 9: ncu on the 2^20 x 16 column kernels, the row kernel of the same shape, stage 8 on
# the same bytes and the read-only roof kernel, to see where the columns' extra time goes.
set -u
OUT="$1"; B=/tmp/b; R="$B/bin/reduce --backend gpu"
mkdir -p "$OUT/p"; cd "$OUT/p"
nvcc -O3 -arch=sm_90 -std=c++17 -o cub_segmented "$B/cuda/cub_segmented.cu" > nvcc.log 2>&1 &
prof() { # name kernel-regex skip count -- cmd...
  local name=$1 k=$2 skip=$3 cnt=$4; shift 5
  local t0=$(date +%s)
  timeout 90 ncu --set full --import-source no -k "regex:$k" --launch-skip $skip --launch-count $cnt -f -o "$name" "$@" > "$name.run.log" 2>&1
  ncu -i "$name.ncu-rep" --page details > "$name.details.txt" 2>&1
  ncu -i "$name.ncu-rep" --page raw --csv --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__occupancy_limit_registers > "$name.raw.csv" 2>&1
  rm -f "$name.ncu-rep"
  echo "$name: $(( $(date +%s) - t0 )) s" >&2
}
A="axis --rows 1048576 --cols 16 --runs 2"
prof flat256x2 reduce_cols 1 1 -- $R $A --axis cols --policy col_once_flat=1,col_flat_blocks_per_sm=2
prof flat512r32x4 reduce_cols 1 1 -- $R $A --axis cols --policy col_once_flat=1,col_flat_fine=1,col_flat_block=512,col_flat_maxnreg=32,col_flat_blocks_per_sm=4
prof once256x2 reduce_cols 1 1 -- $R $A --axis cols
prof rows20x16 reduce_rows 1 1 -- $R $A --axis rows
prof s8_24 reduce_s8 0 2 -- $R run --stages 8 --n 16777216 --type f32
wait
[ -x cub_segmented ] && prof roof20x16 read_kernel 1 1 -- ./cub_segmented rows 1048576 16
rm -f cub_segmented
for f in *.raw.csv; do echo "== $f"; cat "$f"; done
cd "$OUT" && tar czf prof.tgz p && rm -rf p
