#!/usr/bin/env bash
# Fetch the CCCL 3.5 headers that benches/cuda/cub_determinism.cu compiles against (CUB's three
# determinism levels; the GPU machine's CUDA 13.0 ships CCCL 3.0) into .cccl/include (ignored by
# git; `cargo xtask bundle` packs it into the bundle as cccl.tar.xz). Only the headers of cub/, cuda/,
# nv/ and thrust/ are kept (~25 MiB); the wheel itself is deleted.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/.cccl/include"
VERSION="13.3.5.0.6" # nvidia-cuda-cccl on PyPI: CCCL 3.5.0 (CUB_VERSION 300500)
if grep -qs "CUB_VERSION 300500" "$DEST/cub/version.cuh"; then
    exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download "nvidia-cuda-cccl==$VERSION" --no-deps -d "$tmp" > "$tmp/pip.log" 2>&1 \
    || { cat "$tmp/pip.log" >&2; exit 1; }
rm -rf "$DEST"
mkdir -p "$DEST"
python3 - "$tmp" "$DEST" <<'PY'
import glob, os, sys, zipfile
tmp, dest = sys.argv[1], sys.argv[2]
prefix = "nvidia/cu13/include/cccl/"
with zipfile.ZipFile(glob.glob(os.path.join(tmp, "*.whl"))[0]) as z:
    for name in z.namelist():
        rel = name[len(prefix):] if name.startswith(prefix) else None
        if rel and rel.split("/")[0] in ("cub", "cuda", "nv", "thrust") and not name.endswith("/"):
            out = os.path.join(dest, rel)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with z.open(name) as src, open(out, "wb") as dst:
                dst.write(src.read())
PY
grep -q "CUB_VERSION 300500" "$DEST/cub/version.cuh"
echo "CCCL 3.5 headers in $DEST ($(du -sh "$DEST" | cut -f1))"
