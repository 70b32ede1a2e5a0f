//! Puts the kernel images that `kernel_image` embeds into `OUT_DIR`: the PTX and its cubins,
//! zstd-compressed, from `prebuilt/`, committed and shipped with the crate, so that building `reduce-host` needs
//! no nightly toolchain, no `llvm-tools` and no nested cargo — any stable cargo builds it.
//!
//! Kernel developers set `REDUCE_BUILD_KERNELS=1`: the build script then runs
//! `cargo xtask build-ptx` in this repository (the pinned nightly, a nested cargo with its own
//! target directory), which rebuilds the kernels and refreshes `prebuilt/`, and embeds the result.
//! `cargo xtask test|table|bundle` do that refresh (or, in CI, the byte-for-byte check) themselves.

use std::path::{Path, PathBuf};
use std::process::Command;

// `leaks_into_nested_cargo`, the same list xtask uses for its own nested cargo.
include!("build_env.rs");

/// The images `kernel_image.rs` embeds, as named in `prebuilt/` and in `OUT_DIR`.
const IMAGES: [&str; 9] = [
    "reduce_kernels.ptx.zst",
    "reduce_kernels.sm_70.cubin.zst",
    "reduce_kernels.sm_75.cubin.zst",
    "reduce_kernels.sm_80.cubin.zst",
    "reduce_kernels.sm_86.cubin.zst",
    "reduce_kernels.sm_89.cubin.zst",
    "reduce_kernels.sm_90.cubin.zst",
    "reduce_kernels.sm_100.cubin.zst",
    "reduce_kernels.sm_120.cubin.zst",
];

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let prebuilt = manifest.join("prebuilt");
    println!("cargo:rerun-if-env-changed=REDUCE_BUILD_KERNELS");

    if std::env::var("REDUCE_BUILD_KERNELS").is_ok_and(|v| v == "1") {
        let root = manifest.parent().unwrap().to_path_buf();
        if !root.join("xtask/Cargo.toml").is_file() || !root.join("kernels/src").is_dir() {
            panic!(
                "REDUCE_BUILD_KERNELS=1 rebuilds the kernels from a checkout of the reduce \
                 repository, but {} is not one (no xtask/ or kernels/ next to the host crate). \
                 Fix: unset REDUCE_BUILD_KERNELS to use the shipped prebuilt kernels",
                root.display()
            );
        }
        for dir in ["kernels/src", "kernels/Cargo.toml", "xtask/src"] {
            println!("cargo:rerun-if-changed={}", root.join(dir).display());
        }
        build_kernels(&root);
    }

    for name in IMAGES {
        let src = prebuilt.join(name);
        println!("cargo:rerun-if-changed={}", src.display());
        if let Err(e) = std::fs::copy(&src, out.join(name)) {
            panic!(
                "cannot copy the prebuilt kernel image {} to {}: {e}. \
                 Fix: in the repository, run `cargo xtask build-ptx` (it writes prebuilt/)",
                src.display(),
                out.display()
            );
        }
    }
}

/// `cargo xtask build-ptx` in the repository at `root`: rebuilds the kernels into `prebuilt/`.
fn build_kernels(root: &Path) {
    // `cargo`, not `$CARGO`: through rustup, the nested build gets the toolchain that
    // rust-toolchain.toml pins (the caller's may be stable).
    let mut cmd = Command::new("cargo");
    // A clean environment: nothing of this (host) build may leak into the nvptx build.
    for (k, _) in std::env::vars_os() {
        if leaks_into_nested_cargo(&k.to_string_lossy()) {
            cmd.env_remove(&k);
        }
    }
    let status = cmd
        .current_dir(root)
        .env_remove("RUSTUP_TOOLCHAIN")
        .args(["run", "--quiet", "--package", "xtask", "--target-dir"])
        .arg(root.join("target/xtask"))
        .args(["--", "build-ptx"])
        .status()
        .unwrap_or_else(|e| panic!("cannot run cargo to build the kernels: {e}"));
    if !status.success() {
        panic!("`cargo xtask build-ptx` failed ({status}); run it by hand to see why");
    }
}
