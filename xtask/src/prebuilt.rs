//! The kernel images the host crate ships: `host/prebuilt/` holds the PTX and its sm_90 cubin as
//! `cargo xtask build-ptx` last built them, committed, so that `reduce-host` builds on any stable
//! toolchain without rebuilding the kernels (`host/build.rs` embeds these files).
//!
//! * `refresh` (`cargo xtask build-ptx`) copies a fresh build from `target/ptx/` into the folder;
//! * `check` (`cargo xtask build-ptx --check`, run by `cargo xtask test`) fails, naming the fix,
//!   when a committed file differs byte for byte from a fresh build.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The folder, relative to the workspace root.
pub const PREBUILT_DIR: &str = "host/prebuilt";

/// The shipped files, each built into `target/ptx/` under the same name: the PTX, the cubin ptxas
/// assembles from it, and the version of that ptxas (a different ptxas may assemble another cubin).
pub const FILES: [&str; 3] = [
    "reduce_kernels.ptx",
    "reduce_kernels.sm_90.cubin",
    "ptxas-version.txt",
];

fn pairs(root: &Path) -> impl Iterator<Item = (&'static str, PathBuf, PathBuf)> + '_ {
    let built = root.join(crate::ptx::PTX_REL_PATH);
    let built_dir = built.parent().map(Path::to_path_buf).unwrap_or_default();
    FILES.into_iter().map(move |name| {
        (
            name,
            built_dir.join(name),
            root.join(PREBUILT_DIR).join(name),
        )
    })
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("reading {}", path.display()))
}

/// Copy the fresh build into `host/prebuilt/`, writing only the files whose bytes changed (so an
/// unchanged build does not make cargo rebuild the host crate). Returns the names it wrote.
pub fn refresh(root: &Path) -> Result<Vec<&'static str>> {
    std::fs::create_dir_all(root.join(PREBUILT_DIR))?;
    let mut written = Vec::new();
    for (name, built, shipped) in pairs(root) {
        let fresh = read(&built)?;
        if std::fs::read(&shipped).ok().as_deref() != Some(&fresh[..]) {
            std::fs::write(&shipped, &fresh)
                .with_context(|| format!("writing {}", shipped.display()))?;
            written.push(name);
        }
    }
    Ok(written)
}

/// Fail unless every shipped file equals the fresh build byte for byte.
pub fn check(root: &Path) -> Result<()> {
    let mut stale = Vec::new();
    for (name, built, shipped) in pairs(root) {
        let fresh = read(&built)?;
        match std::fs::read(&shipped) {
            Ok(bytes) if bytes == fresh => {}
            Ok(bytes) => stale.push(format!(
                "{PREBUILT_DIR}/{name} differs from a fresh build ({}{})",
                match (short_text(&bytes), short_text(&fresh)) {
                    (Some(old), Some(new)) => format!("committed `{old}`, fresh `{new}`"),
                    _ => format!("{} vs {} bytes", bytes.len(), fresh.len()),
                },
                first_difference(&bytes, &fresh)
                    .map(|i| format!(", first difference at byte {i}"))
                    .unwrap_or_default()
            )),
            Err(e) => stale.push(format!("{PREBUILT_DIR}/{name} cannot be read: {e}")),
        }
    }
    if !stale.is_empty() {
        bail!(
            "the committed kernel images are not what the kernels' source builds to:\n  {}\n\
             Fix: cargo xtask build-ptx   (refreshes {PREBUILT_DIR}/), then commit {PREBUILT_DIR}/",
            stale.join("\n  ")
        );
    }
    Ok(())
}

/// A one-line text file's content (the ptxas version), for the message.
fn short_text(bytes: &[u8]) -> Option<&str> {
    let s = std::str::from_utf8(bytes).ok()?.trim();
    (s.len() <= 120 && !s.chars().any(char::is_control)).then_some(s)
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .or((a.len() != b.len()).then(|| a.len().min(b.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_difference_finds_changed_bytes_and_length_changes() {
        assert_eq!(first_difference(b"abc", b"abc"), None);
        assert_eq!(first_difference(b"abc", b"abd"), Some(2));
        assert_eq!(first_difference(b"abc", b"ab"), Some(2));
        assert_eq!(first_difference(b"", b"x"), Some(0));
    }

    #[test]
    fn check_names_the_stale_file_and_the_fix_and_refresh_repairs_it() {
        let root = std::env::temp_dir().join(format!("xtask-prebuilt-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let built = root.join(crate::ptx::PTX_REL_PATH);
        std::fs::create_dir_all(built.parent().unwrap()).unwrap();
        for (_, b, _) in pairs(&root) {
            std::fs::write(b, b"fresh").unwrap();
        }
        let e = check(&root).unwrap_err().to_string();
        assert!(e.contains("reduce_kernels.ptx cannot be read"), "{e}");
        assert_eq!(refresh(&root).unwrap(), FILES.to_vec());
        check(&root).unwrap();
        assert!(refresh(&root).unwrap().is_empty(), "nothing changed");
        std::fs::write(root.join(PREBUILT_DIR).join(FILES[1]), b"fr\0sh").unwrap();
        std::fs::write(root.join(PREBUILT_DIR).join(FILES[2]), b"V1\n").unwrap();
        let e = check(&root).unwrap_err().to_string();
        assert!(e.contains("reduce_kernels.sm_90.cubin differs"), "{e}");
        assert!(
            e.contains("5 vs 5 bytes, first difference at byte 2"),
            "{e}"
        );
        assert!(e.contains("committed `V1`, fresh `fresh`"), "{e}");
        assert!(e.contains("Fix: cargo xtask build-ptx"), "{e}");
        assert!(!e.contains("reduce_kernels.ptx differs"), "{e}");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
