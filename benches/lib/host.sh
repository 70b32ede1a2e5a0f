# shellcheck shell=bash
# host: data that starts in host memory, streamed through the GPU (`reduce host`), wall clock
# until the result is on the host. The link first (pinned host-to-device copies of 1 GiB), then
# N = 2^16, 2^20, 2^22, 2^26, 2^28 (10 runs) and 2^30 (3 runs) f32 ones from pageable and pinned
# memory; the zero-copy route (`--input zero-copy`) up to 2^26; one streamed call of 2^26 per
# input recorded with CUDA events (timeline.json). Baselines: torch from pageable and pinned
# memory, CuPy (python/host_stream.py baselines). Writes host.jsonl, host.md and timeline.png.

host_run() {
    local J=$SUITE_DIR/host.jsonl e runs extra
    : >"$J"
    for e in 16 20 22 26 28 30; do
        runs=10
        [ "$e" = 30 ] && runs=3
        extra=()
        [ "$e" = 16 ] && extra+=(--link-bytes $((1 << 30)))
        [ "$e" = 26 ] && extra+=(--timeline "$SUITE_DIR/timeline.json")
        ours "host-$e" "+$J" host --n $((1 << e)) --runs "$runs" --warmup 2 --format json "${extra[@]}"
        if [ "$e" -le 26 ]; then
            ours "zero-copy-$e" "+$J" host --n $((1 << e)) --runs "$runs" --warmup 2 --format json --input zero-copy
        fi
    done
    if has_torch; then
        py baselines "+$J" host_stream.py baselines --exps 16,20,22,26,28 --runs 10 --big-exp 30 --big-runs 3
    else
        skip baselines "no CUDA torch"
    fi
    py report - host_stream.py report "$SUITE_DIR"
    finish
}
