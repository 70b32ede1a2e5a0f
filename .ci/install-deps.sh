#!/usr/bin/env bash
# Installs what building and testing need on a fresh Debian 12 machine (idempotent):
#  * the pinned Rust toolchain with rust-src, llvm-tools, rustfmt, clippy (rust-toolchain.toml);
#  * libcuda.so for linking cust (from Debian's non-free `libcuda1`, unpacked into /opt/cuda/lib64,
#    where cust's build script looks) — only when no libcuda is installed already; on a GPU-less
#    machine it loads and reports "no device", which the tests turn into a clear skip;
#  * ptxas (PyPI `nvidia-cuda-nvcc-cu12`, pinned: host/prebuilt/ ships its cubin, and
#    `cargo xtask build-ptx --check` compares that byte for byte with what this ptxas assembles);
#  * the MSRV stable toolchain, for the downstream-project check (.ci/downstream.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

toolchain=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
if ! rustup run "$toolchain" rustc --version >/dev/null 2>&1 \
   || ! rustup component list --toolchain "$toolchain" --installed | grep -q '^llvm-tools' \
   || ! rustup component list --toolchain "$toolchain" --installed | grep -q '^rust-src'; then
  echo "== installing Rust $toolchain"
  rustup toolchain install "$toolchain" --profile minimal -c rust-src -c llvm-tools -c rustfmt -c clippy
fi

# cust's build script links -lcuda from /opt/cuda/lib64, /usr/local/cuda/lib64(/stubs) or
# $CUDA_LIBRARY_PATH; a machine with a CUDA toolkit or a driver's libcuda.so needs nothing here.
if [ ! -e /opt/cuda/lib64/libcuda.so ] && [ ! -e /usr/local/cuda/lib64/stubs/libcuda.so ] \
   && [ ! -e /usr/local/cuda/lib64/libcuda.so ] && [ -z "${CUDA_LIBRARY_PATH:-}" ]; then
  echo "== installing libcuda.so (Debian non-free libcuda1) into /opt/cuda/lib64"
  src=/etc/apt/sources.list.d/debian.sources
  if [ -f "$src" ] && ! grep -q 'non-free' "$src"; then
    sed -i 's/^Components: main$/Components: main contrib non-free non-free-firmware/' "$src"
  fi
  apt-get update -qq
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  (cd "$tmp" && apt-get download -qq libcuda1)
  dpkg -x "$tmp"/libcuda1_*.deb "$tmp/x"
  mkdir -p /opt/cuda/lib64
  so=$(find "$tmp/x" -name 'libcuda.so.*.*' | head -n1)
  cp "$so" /opt/cuda/lib64/
  ln -sf "$(basename "$so")" /opt/cuda/lib64/libcuda.so.1
  ln -sf libcuda.so.1 /opt/cuda/lib64/libcuda.so
  # The test binaries load libcuda.so.1 at start; register it unless a driver's copy is there.
  if ! ldconfig -p | grep -q 'libcuda.so.1 '; then
    echo /opt/cuda/lib64 > /etc/ld.so.conf.d/reduce-libcuda.conf
    ldconfig
  fi
  rm -rf "$tmp"
fi

if ! command -v ptxas >/dev/null && ! python3 -c 'import nvidia.cuda_nvcc' 2>/dev/null; then
  echo "== installing ptxas (pip nvidia-cuda-nvcc-cu12)"
  # The version host/prebuilt/ptxas-version.txt names.
  python3 -m pip install -q nvidia-cuda-nvcc-cu12==12.9.86
fi

# The MSRV stable toolchain (rust-version in Cargo.toml), for .ci/downstream.sh.
msrv=$(sed -n 's/^rust-version *= *"\(.*\)"/\1/p' Cargo.toml)
if ! rustup run "$msrv" cargo --version >/dev/null 2>&1; then
  echo "== installing Rust $msrv (the MSRV, for the downstream check)"
  rustup toolchain install "$msrv" --profile minimal
fi
