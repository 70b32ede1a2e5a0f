#!/usr/bin/env python3
"""Correctness and parity check of benches/cuda/ladder_twins.ptx (needs cupy and a GPU).

    nvcc -O3 -arch=sm_90 -ptx benches/cuda/ladder_twins.cu -o benches/cuda/ladder_twins.ptx
    python3 benches/python/check_twins.py benches/cuda/ladder_twins.ptx [RUST.ptx]

Runs every twin kernel the way the Rust host does (stages 1-7: launch again on the partials until
one value is left; stage 8: one launch with a zeroed counter) on several lengths, including
lengths that are not multiples of the block span and a misaligned start (stage 8), and compares:

* against an exact reference: i32 sums wrap modulo 2^32 (computed in int64 then wrapped); f32
  sums are checked against a float64 sum with a relative tolerance;
* if a second PTX (the Rust build, target/ptx/reduce_kernels.ptx) is given, bit for bit against
  the Rust kernel of the same name with the same launch: the twins do the same additions in the
  same order, so the results must be identical.

Prints one line per failure and a final 'N passed, N failed' line; exits 1 on any failure.
"""

import sys

import numpy as np
import cupy as cp

LADDER = [
    ("reduce_s1_interleaved_divergent", 1),
    ("reduce_s2_interleaved_strided", 1),
    ("reduce_s3_sequential", 1),
    ("reduce_s4_first_add_during_load", 2),
    ("reduce_s5_unroll_last_warp", 2),
]
BLOCKS = [64, 128, 256, 512, 1024]
S8_BLOCKS = [256, 512, 1024]
TYPES = {"f32": np.float32, "i32": np.int32}
LENGTHS = [1, 3, 31, 64, 1000, 4097, 65536 + 5, 1 << 20, (1 << 22) + 3]


def make_input(n, t, rng):
    if t == "f32":
        return rng.random(n, dtype=np.float32)
    # Large values so that the sum overflows and the wrapping semantics are exercised.
    return rng.integers(-(2 ** 31), 2 ** 31 - 1, size=n, dtype=np.int64).astype(np.int32)


def reference(h, t):
    if t == "f32":
        return float(np.sum(h, dtype=np.float64))
    s = int(np.sum(h.astype(np.int64))) & 0xFFFFFFFF
    return s - (1 << 32) if s >= (1 << 31) else s


def run_ladder(kern_for, name, t, block, per_thread, d_in, grid_cap=None):
    """Multi-pass like the host: returns the final value as a numpy scalar."""
    dtype = TYPES[t]
    cur = d_in
    while True:
        n = cur.size
        span = block * per_thread
        grid = max(1, (n + span - 1) // span)
        if grid_cap is not None:
            grid = min(grid, grid_cap)
        partials = cp.empty(grid, dtype=dtype)
        kern_for(name)((grid,), (block,), (cur, np.uint64(n), partials),
                       shared_mem=block * np.dtype(dtype).itemsize)
        cur = partials
        if grid == 1:
            return cur.get()[0]


def run_s8(kern_for, name, t, block, d_in, grid):
    dtype = TYPES[t]
    partials = cp.zeros(max(grid, 1), dtype=dtype)
    counter = cp.zeros(1, dtype=np.uint32)
    out = cp.zeros(1, dtype=dtype)
    k = kern_for(name)
    res = []
    for _ in range(2):  # twice: the counter must be reset to 0 by the kernel
        k((grid,), (block,), (d_in, np.uint64(d_in.size), partials, counter, out),
          shared_mem=(block // 32) * np.dtype(dtype).itemsize)
        res.append(out.get()[0])
    assert int(counter.get()[0]) == 0, "counter not reset"
    assert res[0] == res[1] or (res[0] != res[0] and res[1] != res[1]), "not deterministic"
    return res[0]


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    twins = cp.RawModule(path=sys.argv[1])
    rust = cp.RawModule(path=sys.argv[2]) if len(sys.argv) > 2 else None
    cache = {}

    def getter(mod, tag):
        def get(name):
            key = (tag, name)
            if key not in cache:
                cache[key] = mod.get_function(name)
            return cache[key]
        return get

    twin_k = getter(twins, "twin")
    rust_k = getter(rust, "rust") if rust is not None else None
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]

    passed = failed = 0
    rng = np.random.default_rng(7)

    def check(label, t, got, want, other=None):
        nonlocal passed, failed
        ok = True
        if t == "f32":
            g = float(got)
            if not (abs(g - want) <= 1e-5 * max(abs(want), 1.0)):
                ok = False
        else:
            if int(got) != want:
                ok = False
        if other is not None and np.asarray(got).tobytes() != np.asarray(other).tobytes():
            print("PARITY MISMATCH %s: twin %r rust %r" % (label, got, other))
            ok = False
        if ok:
            passed += 1
        else:
            print("FAIL %s: got %r want %r" % (label, got, want))
            failed += 1

    for t, dtype in TYPES.items():
        for n in LENGTHS:
            h = make_input(n, t, rng)
            want = reference(h, t)
            d = cp.asarray(h)
            for name, per in LADDER:
                for b in [64, 256, 1024]:
                    full = "%s_%s" % (name, t)
                    got = run_ladder(twin_k, full, t, b, per, d)
                    other = run_ladder(rust_k, full, t, b, per, d) if rust_k else None
                    check("%s n=%d b=%d" % (full, n, b), t, got, want, other)
            for b in BLOCKS:
                full = "reduce_s6_complete_unroll_b%d_%s" % (b, t)
                got = run_ladder(twin_k, full, t, b, 2, d)
                other = run_ladder(rust_k, full, t, b, 2, d) if rust_k else None
                check("%s n=%d" % (full, n), t, got, want, other)
                full = "reduce_s7_grid_stride_b%d_%s" % (b, t)
                got = run_ladder(twin_k, full, t, b, 2, d, grid_cap=4 * sms)
                other = run_ladder(rust_k, full, t, b, 2, d, grid_cap=4 * sms) if rust_k else None
                check("%s n=%d" % (full, n), t, got, want, other)
            for b in S8_BLOCKS:
                full = "reduce_s8_sum_b%d_%s" % (b, t)
                for off in (0, 1, 3):
                    if off >= n:
                        continue
                    dv = d[off:]
                    want_v = reference(h[off:], t)
                    for grid in (1, 7, 2 * sms):
                        got = run_s8(twin_k, full, t, b, dv, grid)
                        other = run_s8(rust_k, full, t, b, dv, grid) if rust_k else None
                        check("%s n=%d off=%d grid=%d" % (full, n - off, off, grid), t, got, want_v, other)

    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
