#!/usr/bin/env bash
# Session 9: per-instruction SASS stall samples of the flat column kernel and stage 8 (same grid).
set -u
OUT="$1"; B=/tmp/b; R="$B/bin/reduce --backend gpu"
mkdir -p "$OUT/p"; cd "$OUT/p"
prof() { # name kernel-regex skip count -- cmd...
  local name=$1 k=$2 skip=$3 cnt=$4; shift 5
  timeout 90 ncu --set full --import-source no -k "regex:$k" --launch-skip $skip --launch-count $cnt -f -o "$name" "$@" > "$name.run.log" 2>&1
  ncu -i "$name.ncu-rep" --page source --csv --print-source sass > "$name.sass.csv" 2>&1
  ncu -i "$name.ncu-rep" --page details > "$name.details.txt" 2>&1
  rm -f "$name.ncu-rep"
}
A="axis --rows 1048576 --cols 16 --runs 2"
prof flat512r32x4 reduce_cols 1 1 -- $R $A --axis cols --policy col_once_flat=1,col_flat_fine=1,col_flat_block=512,col_flat_maxnreg=32,col_flat_blocks_per_sm=4
prof s8_24 reduce_s8 0 1 -- $R run --stages 8 --n 16777216 --type f32
ls -la
cd "$OUT" && tar czf prof.tgz p && rm -rf p
