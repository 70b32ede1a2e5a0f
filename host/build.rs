//! Builds the PTX that `backend::EMBEDDED_PTX` embeds, so that `cargo build`, `cargo run` and
//! `cargo bench` on a fresh clone need no separate step. It runs `cargo xtask build-ptx` (a nested
//! cargo with its own target directory) unless `REDUCE_PTX` names a prebuilt PTX file.

use std::path::{Path, PathBuf};
use std::process::Command;

// `leaks_into_nested_cargo`, the same list xtask uses for its own nested cargo.
include!("../xtask/src/build_env.rs");

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.parent().unwrap().to_path_buf();
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("reduce_kernels.ptx");
    println!("cargo:rerun-if-env-changed=REDUCE_PTX");
    println!(
        "cargo:rerun-if-changed={}",
        root.join("kernels/src").display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        root.join("kernels/Cargo.toml").display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        root.join("xtask/src").display()
    );

    let src = match std::env::var("REDUCE_PTX") {
        Ok(p) => PathBuf::from(p),
        Err(_) => build_ptx(&root),
    };
    if let Err(e) = std::fs::copy(&src, &out) {
        panic!(
            "cannot copy the PTX {} to {}: {e}",
            src.display(),
            out.display()
        );
    }
}

fn build_ptx(root: &Path) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    // A clean environment: nothing of this (host) build may leak into the nvptx build.
    for (k, _) in std::env::vars_os() {
        if leaks_into_nested_cargo(&k.to_string_lossy()) {
            cmd.env_remove(&k);
        }
    }
    let status = cmd
        .current_dir(root)
        .args(["run", "--quiet", "--package", "xtask", "--target-dir"])
        .arg(root.join("target/xtask"))
        .args(["--", "build-ptx"])
        .status()
        .unwrap_or_else(|e| panic!("cannot run cargo to build the PTX: {e}"));
    if !status.success() {
        panic!("`cargo xtask build-ptx` failed ({status}); run it by hand to see why");
    }
    root.join("target/ptx/reduce_kernels.ptx")
}
