# shellcheck shell=bash
# multi: one reduction across the GPUs of a host, combined through NCCL in rank order.
#   1. One GPU (always): `reduce multi --gpus 1` over 2^31 f32 ones (the bytes of the 2-GPU run):
#      GPU 0's stage-8 read bandwidth (GPU time, gated) and ours on one GPU (host clock).
#   2. Two GPUs or more: 2 x 2^30 f32 ones, one shard per GPU, 100 runs (the same bits in all,
#      on both GPUs) with each phase's time and each GPU alone (--compare); 2^26 random f32 for
#      determinism; the exact sums across GPUs (2 x 2^30 f32, 2 x 2^29 f64 random, a
#      cancellation-heavy f64 input): the same bits every run, equal to the host's exact sum and
#      to one GPU's; every op x type on 10^6+3 random elements; the one-GPU exact kernel alone.
#   3. torch: x.sum() on one GPU; with two GPUs x.sum() + torch.distributed.all_reduce over NCCL
#      (python/multi_torch.py).
#   4. With two GPUs, the multi-GPU tests (bin/gpu-tests multi_gpu) with NCCL required.
# Writes multi.jsonl and multi.md (python/multi_report.py). NVLink multicast stays off (on
# shared hosts a program using it can take the GPUs out of service).

multi_run() {
    local J=$SUITE_DIR/multi.jsonl N=1073741824 ngpu world ty op tests
    export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
    ngpu=$(gpu_count)
    # libnccl: the wheel python3 imports, when the environment names none.
    if [ -z "${NCCL_LIBRARY:-}" ]; then
        NCCL_LIBRARY=$(python3 -c 'import glob, site, sys
for d in site.getsitepackages() + [site.getusersitepackages()] + sys.path:
    for p in glob.glob(d + "/nvidia/nccl/lib/libnccl.so.2") + glob.glob(d + "/torch/lib/libnccl.so.2"):
        print(p); sys.exit()' 2>/dev/null)
        [ -n "$NCCL_LIBRARY" ] && export NCCL_LIBRARY
    fi
    {
        echo "GPUs: $ngpu"
        nvidia-smi -L 2>/dev/null
        nvidia-smi topo -m 2>/dev/null
        echo "NCCL_LIBRARY=${NCCL_LIBRARY:-<unset: the library searches itself>}"
    } >"$SUITE_DIR/setup.txt"
    : >"$J"
    ours single "+$J" multi --format json --gpus 1 --n $((2 * N)) --on-device --warmup 5 --runs 50 --compare
    if [ "$ngpu" -ge 2 ]; then
        ours multi "+$J" multi --format json --gpus 2 --n $((2 * N)) --on-device --warmup 5 --runs 100 --compare
        ours random "+$J" multi --format json --gpus 2 --n $((1 << 26)) --data random --warmup 2 --runs 100
        ours exact-f32 "+$J" multi --format json --gpus 2 --n $((2 * N)) --exact --data random --type f32 --warmup 3 --runs 100 --compare
        ours exact-f64 "+$J" multi --format json --gpus 2 --n "$N" --exact --data random --type f64 --warmup 3 --runs 100 --compare
        ours exact-cancellation "+$J" multi --format json --gpus 2 --n $((1 << 26)) --exact --exact-data cancellation \
            --type f64 --warmup 2 --runs 20 --compare
        ours exact-one-f32 "+$J" exact --n "$N" --type f32 --warmup 5 --runs 50 --no-reference --format json
        ours exact-one-f64 "+$J" exact --n $((N / 2)) --type f64 --warmup 5 --runs 50 --no-reference --format json
        for ty in f32 f64 i32 u32 i64 u64; do
            for op in sum min max mean count nanmean; do
                ours "ops-$ty-$op" "+$J" multi --format json --gpus 2 --n 1000003 --data random --type "$ty" --op "$op" \
                    --warmup 0 --runs 3
            done
        done
    else
        skip two-gpus "needs 2 GPUs (found $ngpu): the one-GPU part only"
    fi
    world=2
    [ "$ngpu" -lt 2 ] && world=1
    if has_torch; then py torch "+$J" multi_torch.py "$N" 100 "$world"; else skip torch "no CUDA torch"; fi
    if [ "$ngpu" -ge 2 ] && tests=$(bin_path gpu-tests); then
        step tests "$SUITE_DIR/multi-gpu-tests.txt" env MULTI_REQUIRE_NCCL=1 "$tests" multi_gpu --nocapture
    fi
    py table - multi_report.py "$J" "$SUITE_DIR/multi.md"
    finish
}
