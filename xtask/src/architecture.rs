//! `ARCHITECTURE.md` stays true to the tree: every path it names exists, and it stays short
//! (at most [`MAX_LINES`] lines of at most [`MAX_COLUMNS`] columns); and one of its import rules
//! holds: nothing but the kernel table names the ladder (`kernels/src/stages/`). A test-only
//! module: it runs with `cargo test`.

use std::path::Path;

/// The most lines `ARCHITECTURE.md` may have.
pub const MAX_LINES: usize = 120;
/// The widest line `ARCHITECTURE.md` may have, in characters.
pub const MAX_COLUMNS: usize = 100;

/// The top-level folders whose paths `ARCHITECTURE.md` names.
const ROOTS: [&str; 7] = [
    "kernels/",
    "host/",
    "benches/",
    "xtask/",
    "examples/",
    "docs/",
    ".ci/",
];

/// Every backticked path in `text` that starts at one of [`ROOTS`] (`host/src/gpu.rs`,
/// `kernels/src/axis/`), without a trailing `:line` or `::item`.
pub fn named_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, chunk) in text.split('`').enumerate() {
        // Odd chunks lie between backticks.
        if i % 2 == 0 || chunk.contains(char::is_whitespace) {
            continue;
        }
        if ROOTS.iter().any(|r| chunk.starts_with(r)) {
            let path = chunk.split("::").next().unwrap_or(chunk);
            let path = path.split(':').next().unwrap_or(path);
            out.push(path.trim_end_matches(['.', ',']).to_string());
        }
    }
    out
}

/// The paths of [`named_paths`] that do not exist under `root`.
fn missing(root: &Path, text: &str) -> Vec<String> {
    named_paths(text)
        .into_iter()
        .filter(|p| !root.join(p).exists())
        .collect()
}

/// The code lines (not comments) of the `.rs` files below `dir` that name `stages::`, as
/// `path:line`, leaving out `dir/stages/` and `dir/table/` (the ladder itself and the kernel table
/// that exports it).
fn stage_imports(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let rel = path.strip_prefix(dir).unwrap_or(&path);
            if rel.starts_with("stages") || rel.starts_with("table") {
                continue;
            }
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                for (i, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap_or("");
                    if code.contains("stages::") {
                        out.push(format!("{}:{}", path.display(), i + 1));
                    }
                }
            }
        }
    }
    out.sort();
    out
}

/// The import cycles among each crate's top-level modules as they stand, to be broken (the goal
/// is none: the layers of `ARCHITECTURE.md`). The test fails when the cycles differ from these
/// in either direction: a new cycle, or a module joining one, fails; so does breaking one
/// without shrinking this list, which keeps it a ratchet.
const KNOWN_CYCLES: [(&str, &[&[&str]]); 2] = [
    (
        "host/src",
        &[
            &[
                "backend",
                "borrowed",
                "buffer",
                "emulator",
                "error",
                "gpu",
                "halves",
                "kernel_image",
                "mapped",
                "plan",
                "policy_settings",
                "prepared",
                "ptx_split",
                "reference",
                "stage",
                "types",
                "verify",
                "view",
            ],
            &["measure", "record"],
        ],
    ),
    (
        "kernels/src",
        &[&[
            "argreduce",
            "axis",
            "bench_gate",
            "coherent",
            "element",
            "emu",
            "exact",
            "exports",
            "gpu",
            "half",
            "memory",
            "ops",
            "primitives",
            "shared",
            "stages",
            "table",
            "thread",
            "transform",
            "warp",
        ]],
    ),
];

mod tests {
    use super::*;
    use crate::ptx::workspace_root;

    #[test]
    fn import_cycles_only_shrink() {
        let root = workspace_root();
        for (dir, known) in KNOWN_CYCLES {
            let g = crate::imports::graph(&root.join(dir));
            assert!(g.len() > 10, "{dir}: too few modules found ({})", g.len());
            let found = crate::imports::cycles(&g);
            let known: Vec<Vec<String>> = known
                .iter()
                .map(|c| c.iter().map(|m| m.to_string()).collect())
                .collect();
            let sizes: Vec<usize> = found.iter().map(Vec::len).collect();
            println!(
                "{dir}: {} modules, import cycles of {sizes:?} modules",
                g.len()
            );
            assert_eq!(
                found, known,
                "{dir}: the import cycles changed (found first, KNOWN_CYCLES in \
                 xtask/src/architecture.rs second): a new cycle must be broken; a broken one \
                 leaves KNOWN_CYCLES"
            );
        }
    }

    #[test]
    fn named_paths_are_the_backticked_paths_under_the_roots() {
        let text = "see `host/src/gpu.rs`, `kernels/src/axis/` and `Reducer::sum`; \
                    `host/src/plan.rs:40`, `kernels/src/table/mod.rs::TABLE`, `a b/c`";
        assert_eq!(
            named_paths(text),
            [
                "host/src/gpu.rs",
                "kernels/src/axis/",
                "host/src/plan.rs",
                "kernels/src/table/mod.rs"
            ]
        );
    }

    #[test]
    fn a_path_that_is_gone_is_named() {
        let root = workspace_root();
        assert_eq!(
            missing(&root, "`host/src/gpu.rs` `host/src/no_such_module.rs`"),
            ["host/src/no_such_module.rs"]
        );
    }

    #[test]
    fn architecture_md_names_only_what_exists_and_stays_short() {
        let root = workspace_root();
        let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
        let gone = missing(&root, &text);
        assert!(
            gone.is_empty(),
            "ARCHITECTURE.md names paths that do not exist: {gone:?}"
        );
        assert!(
            named_paths(&text).len() >= 20,
            "ARCHITECTURE.md names too few modules"
        );
        let lines = text.lines().count();
        assert!(
            lines <= MAX_LINES,
            "ARCHITECTURE.md has {lines} lines (at most {MAX_LINES})"
        );
        for (i, line) in text.lines().enumerate() {
            let width = line.chars().count();
            assert!(
                width <= MAX_COLUMNS,
                "ARCHITECTURE.md line {} has {width} columns (at most {MAX_COLUMNS})",
                i + 1
            );
        }
    }

    #[test]
    fn only_the_kernel_table_imports_the_ladder() {
        let root = workspace_root();
        for dir in ["kernels/src", "host/src"] {
            let found = stage_imports(&root.join(dir));
            assert!(
                found.is_empty(),
                "code outside the ladder and the kernel table names `stages::`: {found:?}"
            );
        }
    }

    #[test]
    fn a_stage_import_is_found() {
        let dir = std::env::temp_dir().join(format!("arch-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("axis")).unwrap();
        std::fs::write(
            dir.join("axis/rows.rs"),
            "// stages:: in a comment\nuse crate::stages::s3_sequential;\n",
        )
        .unwrap();
        let found = stage_imports(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].ends_with("rows.rs:2"), "{found:?}");
    }
}
