"""torch baselines for `reduce multi`: the same data (N f32 ones per GPU), reduced
the way data-parallel PyTorch does it — a local `x.sum()` on every GPU, then
`torch.distributed.all_reduce` of that scalar (NCCL backend, one process per GPU, spawned with
torch.multiprocessing) — and one GPU's `x.sum()` over all the bytes. Host-clock times (until the
value is on the host, as `reduce multi` measures) after warm-ups, min and median; the
all_reduce alone is timed after a synchronized local sum. Rank 0 prints one JSON line per
measurement.

    python3 multi_torch.py N_PER_GPU RUNS [WORLD]
"""
import json
import os
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

WARMUP = 5


def summary(times):
    return {"min_ms": min(times) * 1e3, "median_ms": statistics.median(times) * 1e3}


def worker(rank, world, n, runs, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    try:
        dist.init_process_group("nccl", rank=rank, world_size=world,
                                device_id=torch.device("cuda", rank))
    except TypeError:  # torch < 2.3 has no device_id
        dist.init_process_group("nccl", rank=rank, world_size=world)
    x = torch.ones(n, dtype=torch.float32, device="cuda")
    fused, local, allreduce, bits = [], [], [], set()
    for i in range(WARMUP + runs):
        dist.barrier()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        s = x.sum()
        dist.all_reduce(s)
        v = s.item()
        t1 = time.perf_counter()
        # The phases apart: the local sum, synchronized, then the all_reduce of the scalar.
        dist.barrier()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        s = x.sum()
        torch.cuda.synchronize()
        t3 = time.perf_counter()
        dist.all_reduce(s)
        s.item()
        t4 = time.perf_counter()
        if i >= WARMUP:
            fused.append(t1 - t0)
            local.append(t3 - t2)
            allreduce.append(t4 - t3)
            bits.add(torch.tensor([v], dtype=torch.float32).view(torch.int32).item())
    if rank == 0:
        nbytes = n * 4 * world
        f = summary(fused)
        print(json.dumps({"kind": "torch_distributed", "world": world, "n": n * world,
                          "type": "f32", "op": "sum", "value": v, "ok": v == float(n * world),
                          "runs": runs, "distinct_bits": len(bits), **f,
                          "gb_per_s": nbytes / (f["median_ms"] * 1e6),
                          "local_ms_median": statistics.median(local) * 1e3,
                          "allreduce_ms_median": statistics.median(allreduce) * 1e3,
                          "allreduce_ms_min": min(allreduce) * 1e3,
                          "nccl": nccl_version()}), flush=True)
    dist.destroy_process_group()


def nccl_version():
    v = torch.cuda.nccl.version()  # a tuple in recent torch, an int (e.g. 22703) in older ones
    return ".".join(map(str, v)) if isinstance(v, tuple) else str(v)


def single(n_total, runs):
    x = torch.ones(n_total, dtype=torch.float32, device="cuda:0")
    times = []
    for i in range(WARMUP + runs):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        v = x.sum().item()
        if i >= WARMUP:
            times.append(time.perf_counter() - t0)
    f = summary(times)
    print(json.dumps({"kind": "torch_single", "n": n_total, "type": "f32", "op": "sum",
                      "value": v, "ok": v == float(n_total), "runs": runs, **f,
                      "gb_per_s": n_total * 4 / (f["median_ms"] * 1e6)}), flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    n, runs = int(sys.argv[1]), int(sys.argv[2])
    world = int(sys.argv[3]) if len(sys.argv) > 3 else torch.cuda.device_count()
    single(n * world, runs)
    torch.cuda.empty_cache()
    if world >= 2:
        mp.spawn(worker, args=(world, n, runs, free_port()), nprocs=world, join=True)


if __name__ == "__main__":
    main()
