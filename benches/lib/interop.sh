# shellcheck shell=bash
# interop: device memory the library did not allocate, and the caller's stream (feature
# `cudarc`). bin/borrowed-tests (cudarc memory reduced in place against library buffers, bad
# pointers as typed errors, two streams, a CUDA graph) -> borrowed-tests.txt; the cudarc example
# (bin/cudarc-interop: its own kernel fills a CudaSlice, reduced in place) -> cudarc-interop.txt;
# bin/interop-bench (borrowed against buffer 2^12..2^30, host time per enqueue, a graph of 100
# reductions against 100 blocking calls) -> interop.md.

interop_run() {
    local exe
    if exe=$(bin_path borrowed-tests); then
        step borrowed-tests "$SUITE_DIR/borrowed-tests.txt" "$exe"
        grep -E '^test result|FAILED|panicked' "$SUITE_DIR/borrowed-tests.txt" | head -n 20
    else
        fail borrowed-tests "no $BIN/borrowed-tests"
    fi
    if exe=$(bin_path cudarc-interop); then
        step cudarc-interop "$SUITE_DIR/cudarc-interop.txt" "$exe"
        cat "$SUITE_DIR/cudarc-interop.txt"
    else
        fail cudarc-interop "no $BIN/cudarc-interop"
    fi
    if exe=$(bin_path interop-bench); then
        step interop-bench "$SUITE_DIR/interop.md" "$exe"
        cat "$SUITE_DIR/interop.md"
    else
        fail interop-bench "no $BIN/interop-bench"
    fi
    finish
}
