//! The kernel images the host crate ships: `host/prebuilt/` holds the PTX and its cubins as
//! `cargo xtask build-ptx` last built them, zstd-compressed and committed, so that `reduce-host`
//! builds on any stable toolchain without rebuilding the kernels (`host/build.rs` embeds these
//! files; `host/src/kernel_image.rs` decompresses the one a device loads).
//!
//! Compressed, the images are ~25× smaller (PTX text and SASS repeat themselves across the
//! kernels' types, operators and block sizes), which keeps the packaged crate, every binary that
//! embeds them and the repository's growth per kernel change small.
//!
//! * `refresh` (`cargo xtask build-ptx`) compresses a fresh build from `target/ptx/` into the folder;
//! * `check` (`cargo xtask build-ptx --check`, run by `cargo xtask test`) fails, naming the fix,
//!   when a committed file, decompressed, differs byte for byte from a fresh build.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The folder, relative to the workspace root.
pub const PREBUILT_DIR: &str = "host/prebuilt";

/// The zstd level of the committed images: the highest ordinary level (`zstd -19`). Compressing
/// takes seconds; the host decompresses at hundreds of MB/s whatever the level.
const LEVEL: i32 = 19;

/// One shipped file: its name in `target/ptx/`, and whether `host/prebuilt/` holds it compressed
/// (as `{name}.zst`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shipped {
    /// The name `build-ptx` writes in `target/ptx/`.
    pub built: &'static str,
    /// Committed as `{built}.zst`.
    pub compressed: bool,
}

impl Shipped {
    /// The name in `host/prebuilt/`.
    pub fn name(&self) -> String {
        if self.compressed {
            format!("{}.zst", self.built)
        } else {
            self.built.to_string()
        }
    }
}

/// The shipped files: the PTX, the cubin ptxas assembles from it for each architecture of
/// [`crate::ptx::ARCHS`] (in that order; a test checks it), and the version of that ptxas (a
/// different ptxas may assemble other cubins).
pub const FILES: [Shipped; 10] = [
    Shipped {
        built: "reduce_kernels.ptx",
        compressed: true,
    },
    Shipped {
        built: "reduce_kernels.sm_70.cubin",
        compressed: true,
    },
    Shipped {
        built: "reduce_kernels.sm_75.cubin",
        compressed: true,
    },
    Shipped {
        built: "reduce_kernels.sm_80.cubin",
        compressed: true,
    },
    Shipped {
        built: "reduce_kernels.sm_86.cubin",
        compressed: true,
    },
    Shipped {
        built: "reduce_kernels.sm_89.cubin",
        compressed: true,
    },
    Shipped {
        built: "reduce_kernels.sm_90.cubin",
        compressed: true,
    },
    Shipped {
        built: "reduce_kernels.sm_100.cubin",
        compressed: true,
    },
    Shipped {
        built: "reduce_kernels.sm_120.cubin",
        compressed: true,
    },
    Shipped {
        built: "ptxas-version.txt",
        compressed: false,
    },
];

fn pairs(root: &Path) -> impl Iterator<Item = (Shipped, PathBuf, PathBuf)> + '_ {
    let built = root.join(crate::ptx::PTX_REL_PATH);
    let built_dir = built.parent().map(Path::to_path_buf).unwrap_or_default();
    FILES.into_iter().map(move |f| {
        (
            f,
            built_dir.join(f.built),
            root.join(PREBUILT_DIR).join(f.name()),
        )
    })
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("reading {}", path.display()))
}

/// A committed file's content as built: decompressed where it is compressed.
fn committed(f: Shipped, path: &Path) -> Result<Vec<u8>> {
    let bytes = read(path)?;
    if f.compressed {
        zstd::decode_all(&bytes[..]).with_context(|| format!("decompressing {}", path.display()))
    } else {
        Ok(bytes)
    }
}

/// Compress the fresh build into `host/prebuilt/`, writing only the files whose content changed
/// (so an unchanged build does not make cargo rebuild the host crate). Returns the names it wrote.
pub fn refresh(root: &Path) -> Result<Vec<String>> {
    std::fs::create_dir_all(root.join(PREBUILT_DIR))?;
    let mut written = Vec::new();
    for (f, built, shipped) in pairs(root) {
        let fresh = read(&built)?;
        if committed(f, &shipped).ok().as_deref() != Some(&fresh[..]) {
            let bytes = if f.compressed {
                zstd::encode_all(&fresh[..], LEVEL)
                    .with_context(|| format!("compressing {}", built.display()))?
            } else {
                fresh
            };
            std::fs::write(&shipped, &bytes)
                .with_context(|| format!("writing {}", shipped.display()))?;
            written.push(f.name());
        }
    }
    Ok(written)
}

/// Fail unless every shipped file, decompressed, equals the fresh build byte for byte.
pub fn check(root: &Path) -> Result<()> {
    let mut stale = Vec::new();
    for (f, built, shipped) in pairs(root) {
        let fresh = read(&built)?;
        let name = f.name();
        match committed(f, &shipped) {
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
            Err(e) => stale.push(format!("{PREBUILT_DIR}/{name} cannot be read: {e:#}")),
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
    fn a_cubin_ships_for_every_architecture_in_order() {
        let cubins: Vec<&str> = FILES[1..FILES.len() - 1].iter().map(|f| f.built).collect();
        let expected: Vec<String> = crate::ptx::ARCHS
            .iter()
            .map(|a| format!("reduce_kernels.{a}.cubin"))
            .collect();
        assert_eq!(cubins, expected);
    }

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
        assert!(e.contains("reduce_kernels.ptx.zst cannot be read"), "{e}");
        let names: Vec<String> = FILES.iter().map(Shipped::name).collect();
        assert_eq!(refresh(&root).unwrap(), names);
        check(&root).unwrap();
        assert!(refresh(&root).unwrap().is_empty(), "nothing changed");
        let dir = root.join(PREBUILT_DIR);
        // The compressed files hold the build compressed, not as is.
        let cubin = std::fs::read(dir.join(&names[1])).unwrap();
        assert_ne!(cubin, b"fresh");
        assert_eq!(zstd::decode_all(&cubin[..]).unwrap(), b"fresh");
        std::fs::write(
            dir.join(&names[1]),
            zstd::encode_all(&b"fr\0sh"[..], 1).unwrap(),
        )
        .unwrap();
        std::fs::write(dir.join(&names[FILES.len() - 1]), b"V1\n").unwrap();
        let e = check(&root).unwrap_err().to_string();
        assert!(e.contains("reduce_kernels.sm_70.cubin.zst differs"), "{e}");
        assert!(
            e.contains("5 vs 5 bytes, first difference at byte 2"),
            "{e}"
        );
        assert!(e.contains("committed `V1`, fresh `fresh`"), "{e}");
        assert!(e.contains("Fix: cargo xtask build-ptx"), "{e}");
        assert!(!e.contains("reduce_kernels.ptx.zst differs"), "{e}");
        // A committed file that is not zstd is named, not a panic.
        std::fs::write(dir.join(&names[0]), b"not zstd").unwrap();
        let e = check(&root).unwrap_err().to_string();
        assert!(e.contains("reduce_kernels.ptx.zst cannot be read"), "{e}");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
