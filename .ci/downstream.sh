#!/usr/bin/env bash
# A throwaway project outside this checkout, on the MSRV stable toolchain (rust-version in
# Cargo.toml), that depends on the checkout's reduce-host by path: `cargo build` must need nothing
# else (no nightly, no llvm-tools, no nested cargo: the kernels ship prebuilt in host/prebuilt/),
# and the quickstart example, built as that project's main, must run on the CPU emulator.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
msrv=$(sed -n 's/^rust-version *= *"\(.*\)"/\1/p' "$root/Cargo.toml")
# Kept between runs so CI rebuilds only what changed; outside the workspace's own target/ profile.
target=${DOWNSTREAM_TARGET_DIR:-$root/target/downstream}
app=$(mktemp -d)
trap 'rm -rf "$app"' EXIT

mkdir -p "$app/src"
cat > "$app/Cargo.toml" <<TOML
[package]
name = "downstream-app"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
reduce-host = { path = "$root/host" }

# Stand-alone: not part of any workspace above the temp dir.
[workspace]
TOML
cp "$root/host/examples/quickstart.rs" "$app/src/main.rs"
# The versions the workspace is tested with (cargo drops the entries this project does not use).
cp "$root/Cargo.lock" "$app/Cargo.lock"

cd "$app"
echo "== downstream: cargo +$msrv build --release (a new project at $app depending on $root/host)"
# Nothing of an enclosing cargo or of the pinned nightly may leak in.
env -u RUSTUP_TOOLCHAIN -u RUSTFLAGS -u CARGO_BUILD_TARGET -u REDUCE_BUILD_KERNELS \
  cargo "+$msrv" build --release --target-dir "$target"
echo "== downstream: the quickstart on the emulator"
"$target/release/downstream-app" emu
