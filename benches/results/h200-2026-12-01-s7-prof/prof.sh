#!/usr/bin/env bash
# Early profiling call (session 7): ncu on the kernels that miss their targets.
set -u
OUT="$1"; B=/tmp/b; R="$B/bin/reduce --backend gpu"
mkdir -p "$OUT/p"; cd "$OUT/p"
prof() { # name kernel-regex skip count -- cmd...
  local name=$1 k=$2 skip=$3 cnt=$4; shift 5
  local t0=$(date +%s)
  timeout 90 ncu --set full --import-source no -k "regex:$k" --launch-skip $skip --launch-count $cnt -f -o "$name" "$@" > "$name.run.log" 2>&1
  ncu -i "$name.ncu-rep" --page details > "$name.details.txt" 2>&1
  ncu -i "$name.ncu-rep" --page raw --csv --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum.per_second > "$name.raw.csv" 2>&1
  echo "$name: $(( $(date +%s) - t0 )) s" >&2
}
src() { ncu -i "$1.ncu-rep" --page source --csv --print-source sass > "$1.sass.csv" 2>&1; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > smi.txt
prof exact24 exact 2 1 -- $R exact --n 16777216 --type f32 --runs 3 --warmup 1 --no-reference
src exact24
prof exact12 exact 2 1 -- $R exact --n 4096 --type f32 --runs 3 --warmup 1 --no-reference
src exact12
prof exact24d exact 2 1 -- $R exact --n 16777216 --type f64 --runs 3 --warmup 1 --no-reference
prof s8_24 reduce_s8 1 1 -- $R run --stages 8 --n 16777216 --type f32
prof cols20x16 "reduce_(rows|cols)" 0 6 -- $R axis --rows 1048576 --cols 16 --axis cols --runs 2
prof cols12x14 "reduce_(rows|cols)" 0 6 -- $R axis --rows 4096 --cols 16384 --axis cols --runs 2
prof cols4x24 "reduce_(rows|cols)" 0 4 -- $R axis --rows 16 --cols 16777216 --axis cols --runs 2
prof rows12x14 "reduce_(rows|cols)" 0 4 -- $R axis --rows 4096 --cols 16384 --axis rows --runs 2
prof rows14x14 "reduce_(rows|cols)" 0 4 -- $R axis --rows 16384 --cols 16384 --axis rows --runs 2
prof argmax20 arg 2 2 -- $R arg --ops argmax --types f32 --exps 20 --runs 3 --warmup 1
src argmax20
prof argmax26 arg 2 2 -- $R arg --ops argmax --types f32 --exps 26 --runs 3 --warmup 1
prof nanmean26 nantotal 2 1 -- $R transform --op nanmean --type f16 --n 67108864 --runs 3
prof norm12 transform 2 1 -- $R transform --op norm2 --type f32 --n 4096 --runs 3
cd "$OUT" && rm -f p/*.ncu-rep && tar czf prof.tgz p && rm -rf p
