// Shared by host/build.rs (`include!`) and xtask (`#[path] mod build_env`), so it holds plain items
// only. It lives in host/ because the packaged host crate carries its build script's inputs.

/// Is `key` a variable that an enclosing cargo build sets (or that configures one), which a nested
/// cargo building the kernels for nvptx must not inherit: the outer build's target, flags, wrappers,
/// profile and jobserver would otherwise leak into it.
pub fn leaks_into_nested_cargo(key: &str) -> bool {
    (key.starts_with("CARGO_") && key != "CARGO_HOME")
        || matches!(
            key,
            "RUSTFLAGS"
                | "RUSTC_WRAPPER"
                | "RUSTC_WORKSPACE_WRAPPER"
                | "TARGET"
                | "HOST"
                | "OUT_DIR"
                | "OPT_LEVEL"
                | "PROFILE"
                | "DEBUG"
                | "NUM_JOBS"
                | "RUSTC"
                | "RUSTDOC"
                | "RUSTC_LINKER"
                | "MAKEFLAGS"
                | "MFLAGS"
        )
}
