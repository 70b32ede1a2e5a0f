# shellcheck shell=bash
# interop: device memory the library did not allocate, and the caller's stream (feature
# `cudarc`). bin/borrowed-tests (cudarc memory reduced in place against library buffers, bad
# pointers as typed errors, two streams, a CUDA graph) -> borrowed-tests.txt; the cudarc example
# (bin/cudarc-interop: its own kernel fills a CudaSlice, reduced in place) -> cudarc-interop.txt;
# bin/interop-bench (borrowed against buffer 2^12..2^30, host time per enqueue, a graph of 100
# reductions against 100 blocking calls) -> interop.md; the Python extension (bin/reduce.abi3.so,
# examples/python, on PYTHONPATH from a folder of its own) against torch with
# python/torch_ext.py: correctness, async and blocking call times, the stream rule, a CUDA
# graph, bad inputs -> torch_ext.md, torch_ext.jsonl (skipped without torch and CUDA).

interop_run() {
    local exe so pydir
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
    if ! so=$(bin_path reduce.abi3.so); then
        fail torch-ext "no $BIN/reduce.abi3.so (nor reduce.abi3.so.xz): cargo xtask bundle builds it"
    elif ! has_torch; then
        skip torch-ext "python3 has no torch with CUDA"
    elif ! pydir=$(mktemp -d "$WORK/torch-ext.XXXXXX") || ! cp "$so" "$pydir/reduce.abi3.so"; then
        fail torch-ext "cannot stage reduce.abi3.so in $WORK"
    else
        PYTHONPATH="$pydir${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 \
            py torch-ext - torch_ext.py --out "$SUITE_DIR"
        [ -f "$SUITE_DIR/torch_ext.md" ] && cat "$SUITE_DIR/torch_ext.md"
    fi
    finish
}
