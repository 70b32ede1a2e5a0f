//! `ARCHITECTURE.md` stays true to the tree: every path it names exists, and it stays short
//! (at most [`MAX_LINES`] lines of at most [`MAX_COLUMNS`] columns); and its import rules hold:
//! nothing but the kernel table names the ladder (`kernels/src/stages/`), and the top-level
//! modules of `host/src` and of `kernels/src` import each other without a cycle
//! ([`crate::imports`]). A test-only module: it runs with `cargo test`.

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
    for path in crate::imports::rust_sources(dir) {
        let rel = path.strip_prefix(dir).unwrap_or(&path);
        if rel.starts_with("stages") || rel.starts_with("table") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("stages::") {
                out.push(format!("{}:{}", path.display(), i + 1));
            }
        }
    }
    out.sort();
    out
}

/// The crates whose top-level modules must import each other without a cycle (test code aside:
/// it may reach any layer).
const ACYCLIC: [&str; 2] = ["host/src", "kernels/src"];

/// `kernels/src`'s layers, bottom first (`ARCHITECTURE.md` draws them): a module imports only
/// from its own layer and those below. Every top-level module is in one.
const KERNEL_LAYERS: [(&str, &[&str]); 7] = [
    (
        "foundation",
        &["vocabulary", "half", "emu", "test_rng", "porting"],
    ),
    ("hardware", &["intrinsics"]),
    (
        "device views",
        &[
            "element", "ops", "shared", "thread", "memory", "warp", "coherent",
        ],
    ),
    ("facade", &["gpu"]),
    ("primitives", &["primitives"]),
    (
        "kernels",
        &[
            "stages",
            "axis",
            "argreduce",
            "exact",
            "transform",
            "bench_gate",
        ],
    ),
    ("table", &["exports", "table"]),
];

/// The imports of `g` that reach a higher layer than their module's (`layers` bottom first), and
/// the modules in no layer.
fn layer_violations(g: &crate::imports::Graph, layers: &[(&str, &[&str])]) -> Vec<String> {
    let level = |m: &str| layers.iter().position(|(_, ms)| ms.contains(&m));
    let mut out = Vec::new();
    for (m, targets) in g {
        let Some(lm) = level(m) else {
            out.push(format!("{m} is in no layer"));
            continue;
        };
        for t in targets {
            if let Some(lt) = level(t).filter(|&lt| lt > lm) {
                out.push(format!(
                    "{m} ({}) imports {t} ({})",
                    layers[lm].0, layers[lt].0
                ));
            }
        }
    }
    out
}

mod tests {
    use super::*;
    use crate::ptx::workspace_root;

    #[test]
    fn no_import_cycle_among_top_level_modules() {
        let root = workspace_root();
        for dir in ACYCLIC {
            let g = crate::imports::graph(&root.join(dir));
            assert!(g.len() > 10, "{dir}: too few modules found ({})", g.len());
            let found = crate::imports::cycles(&g);
            let edges: usize = g.values().map(|e| e.len()).sum();
            println!(
                "{dir}: {} modules, {edges} imports, {} cycles",
                g.len(),
                found.len()
            );
            let shown: Vec<String> = found
                .iter()
                .map(|c| {
                    let within: Vec<String> = c
                        .iter()
                        .flat_map(|m| {
                            g[m].iter()
                                .filter(|t| c.contains(t))
                                .map(move |t| format!("{m} -> {t}"))
                        })
                        .collect();
                    format!("{c:?}: {}", within.join(", "))
                })
                .collect();
            assert!(
                found.is_empty(),
                "{dir}: import cycles among top-level modules (each with its imports):\n  {}",
                shown.join("\n  ")
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
    fn kernels_import_only_their_own_layer_and_below() {
        let g = crate::imports::graph(&workspace_root().join("kernels/src"));
        let bad = layer_violations(&g, &KERNEL_LAYERS);
        assert!(
            bad.is_empty(),
            "kernels/src breaks its layers:\n  {}",
            bad.join("\n  ")
        );
        let mut g = g;
        g.entry("intrinsics".into())
            .or_default()
            .insert("gpu".into());
        g.insert("new_module".into(), Default::default());
        assert_eq!(
            layer_violations(&g, &KERNEL_LAYERS),
            [
                "intrinsics (hardware) imports gpu (facade)",
                "new_module is in no layer"
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
