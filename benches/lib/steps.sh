# shellcheck shell=bash
# The steps every suite of benches/gpu.sh is made of. Sourced by gpu.sh and by each suite's
# process; not a script to run on its own.
#
# What the suites see (exported by gpu.sh):
#   HERE       the folder of gpu.sh (benches/ in the repository, the bundle's root in a bundle):
#              cuda/, python/, lib/ and bin/ are under it
#   BIN        the binaries: reduce, gpu-tests, report, custom-op-run, cold-open (each may be
#              staged xz-compressed as NAME.xz), custom_op.ptx, cccl.tar.xz
#   BASELINE   the old binaries the proof compares with (the same layout)
#   WORK       scratch: CUDA builds, unpacked binaries, the CCCL headers
#   SUITE_DIR  the running suite's output folder; its logs go to SUITE_DIR/logs/
#   REDUCE     the `reduce` CLI of BIN
#   EXPS       stage 8's sizes, exponents separated by commas
#
# Every step appends one line to SUITE_DIR/status.txt (name, exit status, seconds). A failed
# step is named in FAILED and the suite goes on; the suite's status is `finish`'s.

FAILED=()

say() { printf '%s\n' "$*"; }

# note NAME RC START: the status line of a step that started at START (bash's SECONDS).
note() {
    local line
    line="$1 rc=$2 $((SECONDS - $3)) s"
    say "$line" >>"$SUITE_DIR/status.txt"
    if [ "$2" -eq 0 ]; then
        say "    $line"
    else
        say "    $line FAILED (logs/$1.log)"
        tail -n 4 "$SUITE_DIR/logs/$1.log" 2>/dev/null | sed 's/^/      /'
    fi
}

# run_to KIND NAME OUT CMD...: run CMD with stdout to OUT ("-": logs/NAME.out; "+FILE": appended
# to FILE; else written to OUT) and stderr appended to logs/NAME.log. KIND `required` counts a
# failure against the suite, `optional` only reports it.
run_to() {
    local kind=$1 name=$2 out=$3 t0=$SECONDS rc
    shift 3
    mkdir -p "$SUITE_DIR/logs"
    case $out in
        -) "$@" >"$SUITE_DIR/logs/$name.out" 2>>"$SUITE_DIR/logs/$name.log" ;;
        +*) "$@" >>"${out#+}" 2>>"$SUITE_DIR/logs/$name.log" ;;
        *) "$@" >"$out" 2>>"$SUITE_DIR/logs/$name.log" ;;
    esac
    rc=$?
    note "$name" "$rc" "$t0"
    # A step that wrote nothing to stderr leaves no log.
    [ -s "$SUITE_DIR/logs/$name.log" ] || rm -f "$SUITE_DIR/logs/$name.log"
    [ "$rc" -eq 0 ] || [ "$kind" = optional ] || FAILED+=("$name")
    return "$rc"
}

# step NAME OUT CMD... / try NAME OUT CMD...: a required / an optional step (see run_to).
step() { run_to required "$@"; }
try() { run_to optional "$@"; }

# ours NAME OUT ARGS...: `reduce --backend gpu ARGS...` as a required step. The CLI checks every
# result it prints against its CPU reference and exits non-zero when one is wrong.
ours() {
    local name=$1 out=$2
    shift 2
    step "$name" "$out" "$REDUCE" --backend gpu "$@"
}

# py NAME OUT SCRIPT ARGS...: python3 python/SCRIPT as a required step.
py() {
    local name=$1 out=$2 script=$3
    shift 3
    step "$name" "$out" python3 "$HERE/python/$script" "$@"
}

# skip NAME WHY: a step that could not run here (no nvcc, no torch, one GPU...).
skip() {
    say "$1 skipped: $2" >>"$SUITE_DIR/status.txt"
    say "    $1 skipped: $2"
}

# fail NAME WHY: a required thing that is missing.
fail() {
    say "$1 FAILED: $2" >>"$SUITE_DIR/status.txt"
    say "    $1 FAILED: $2"
    FAILED+=("$1")
}

# finish: the suite's exit status (0 when no required step failed).
finish() {
    if [ ${#FAILED[@]} -gt 0 ]; then
        say "    failed: ${FAILED[*]}"
        return 1
    fi
    return 0
}

# unxz_to SRC DEST: decompress an .xz file (xz, else Python's lzma).
unxz_to() {
    if command -v xz >/dev/null 2>&1; then
        xz -dc "$1" >"$2"
    else
        python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$1" "$2"
    fi
}

# bin_path NAME [DIR]: the path of binary NAME in DIR (default BIN), unpacking DIR/NAME.xz into
# WORK on first use; fails when neither is there.
bin_path() {
    local name=$1 dir=${2:-$BIN} dest
    if [ -x "$dir/$name" ]; then
        say "$dir/$name"
        return 0
    fi
    [ -f "$dir/$name.xz" ] || return 1
    dest="$WORK/unpacked/$(printf '%s' "$dir" | cksum | cut -d' ' -f1)"
    if [ ! -x "$dest/$name" ]; then
        mkdir -p "$dest"
        unxz_to "$dir/$name.xz" "$dest/$name.part" && chmod +x "$dest/$name.part" \
            && mv "$dest/$name.part" "$dest/$name" || return 1
    fi
    say "$dest/$name"
}

# asset NAME: a data file of the bundle (custom_op.ptx, cccl.tar.xz, reduce_kernels.ptx) in BIN
# or HERE, or NAME.xz there, unpacked into WORK.
asset() {
    local d
    for d in "$BIN" "$HERE"; do
        [ -f "$d/$1" ] && { say "$d/$1"; return 0; }
        [ -f "$d/$1.xz" ] && { bin_path "$1" "$d"; return; }
    done
    return 1
}

# gpu_count: the GPUs nvidia-smi lists (0 without it).
gpu_count() {
    local n
    n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    say "${n:-0}"
}

# has_torch: python3 imports torch and sees a CUDA device.
has_torch() {
    python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1
}

# ---- CUDA baselines: compiled once per run, in the background from the start -----------------

# find_nvcc: NVCC = nvcc on PATH, else /usr/local/cuda/bin/nvcc; ARCH = sm_XY of GPU 0 (or
# $NVCC_ARCH, or sm_90). Fails without nvcc.
find_nvcc() {
    NVCC=$(command -v nvcc 2>/dev/null || true)
    [ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
    if [ -z "${ARCH:-}" ]; then
        ARCH=${NVCC_ARCH:-}
        if [ -z "$ARCH" ]; then
            local cap
            cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
            case $cap in
                [0-9][0-9] | [0-9][0-9][0-9]) ARCH=sm_$cap ;;
                *) ARCH=sm_90 ;;
            esac
        fi
    fi
    [ -n "$NVCC" ]
}

# cuda_start NAME SRC FLAGS...: compile cuda/SRC into WORK/cuda/NAME in the background
# (nvcc -O3 -arch=ARCH FLAGS...); the log is WORK/cuda/NAME.log.
cuda_start() {
    local name=$1 src=$2
    shift 2
    mkdir -p "$WORK/cuda"
    find_nvcc || { say "no nvcc" >"$WORK/cuda/$name.log"; return 1; }
    (
        "$NVCC" -O3 -arch="$ARCH" "$@" -o "$WORK/cuda/$name.part" "$HERE/cuda/$src" \
            >"$WORK/cuda/$name.log" 2>&1 && mv "$WORK/cuda/$name.part" "$WORK/cuda/$name"
    ) &
    say $! >"$WORK/cuda/$name.pid"
}

# cuda_built NAME: wait for NAME's build (started by cuda_start, perhaps by another process);
# prints its path, or fails with its log copied to SUITE_DIR/logs/nvcc-NAME.log.
cuda_built() {
    local name=$1 pid
    if [ -f "$WORK/cuda/$name.pid" ]; then
        pid=$(cat "$WORK/cuda/$name.pid")
        while kill -0 "$pid" 2>/dev/null; do sleep 1; done
    fi
    if [ -e "$WORK/cuda/$name" ]; then
        say "$WORK/cuda/$name"
        return 0
    fi
    mkdir -p "$SUITE_DIR/logs"
    cp "$WORK/cuda/$name.log" "$SUITE_DIR/logs/nvcc-$name.log" 2>/dev/null
    return 1
}

# ---- tags ---------------------------------------------------------------------------------------

# tag KEY=VALUE...: stdin's JSON lines (the other lines dropped) with the keys added first; values
# are JSON as written (strings quoted by the caller: tag 'bin="old"' round=1).
tag() {
    local kv fields=""
    for kv in "$@"; do
        fields="$fields\"${kv%%=*}\":${kv#*=},"
    done
    # sed's replacement: `/`, `&` and `\` escaped.
    fields=$(printf '%s' "$fields" | sed 's/[/&\\]/\\&/g')
    sed -n "s/^{/{$fields/p"
}
