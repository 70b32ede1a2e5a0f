//! The import graph of a crate's top-level modules, read from its source: which module names
//! which (`crate::name`, `use crate::{a, b::c}`, a top-level module's `super::name`, and the
//! names the crate root re-exports, resolved to the module they come from), and its cycles
//! (strongly connected components of more than one module). A test-only module: the tests in
//! [`crate::architecture`] hold the crates to it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module → the modules it names (never itself).
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// The code of `text` without comments: `//` to the end of the line (doc comments included),
/// and `/* … */`; string literals are kept (a path in a string is rare and harmless here).
fn code_of(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let line = rest.find('/').map_or(rest.len(), |i| i);
        out.push_str(&rest[..line]);
        rest = &rest[line..];
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            rest = &rest[end..];
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(rest.len(), |i| i + 2);
            rest = &rest[end..];
        } else if !rest.is_empty() {
            out.push('/');
            rest = &rest[1..];
        }
    }
    out
}

/// The first identifier at the start of `s`.
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The top-level names after `prefix` in `code`: `crate::a::b` gives `a`; `crate::{a, b::c,
/// d::{e}}` gives `a`, `b` and `d`.
fn names_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices(prefix) {
        // `prefix` must start a path: not `xcrate::` or `foo::crate::`.
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = code[i + prefix.len()..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && (c.is_alphanumeric() || c == '_') => {
                        out.insert(ident(&group[j..]).to_string());
                        start = false;
                    }
                    c if !c.is_whitespace() => start = false,
                    _ => {}
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                out.insert(name.to_string());
            }
        }
    }
    out
}

/// Whether `file` holds only tests (`tests.rs`, `*_tests.rs`, or under a `tests/` folder): test
/// code may reach any layer, so it is not part of the graph.
fn is_test_file(file: &Path) -> bool {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs"
        || name.ends_with("_tests.rs")
        || file.components().any(|c| c.as_os_str() == "tests")
}

/// `code` without an inline test module: from a `#[cfg(test)]` that opens a `mod … {` to the end
/// (test modules close their files, by this crate's convention).
fn without_test_module(code: &str) -> &str {
    let mut at = 0;
    while let Some(i) = code[at..].find("#[cfg(test)]") {
        let start = at + i;
        let after = code[start + "#[cfg(test)]".len()..].trim_start();
        if after.starts_with("mod ") && after.find('{') < after.find(';') {
            return &code[..start];
        }
        at = start + 1;
    }
    code
}

/// The `.rs` files below `dir` that are not [test files](is_test_file), sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = rust_sources(dir);
    out.retain(|p| !is_test_file(p));
    out
}

/// Every `.rs` file below `dir`, sorted.
pub fn rust_sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The top-level module a file of `src` belongs to (`axis.rs`, `axis/plan.rs` → `axis`), `None`
/// for the crate root (`lib.rs`) and for binaries (`bin/`, separate crates).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    if first == "lib.rs" || first == "main.rs" || first == "bin" {
        return None;
    }
    Some(first.trim_end_matches(".rs").to_string())
}

/// Whether `file` is a top-level module's own file (`axis.rs` or `axis/mod.rs`), where `super::`
/// is the crate root.
fn is_module_root(src: &Path, file: &Path) -> bool {
    let Ok(rel) = file.strip_prefix(src) else {
        return false;
    };
    let parts: Vec<_> = rel.components().collect();
    parts.len() == 1 || (parts.len() == 2 && rel.ends_with("mod.rs"))
}

/// The names the crate root (`src/lib.rs`) re-exports, each with the module it comes from
/// (`pub use reducer::Reducer;` → `Reducer` → `reducer`).
fn reexports(src: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(src.join("lib.rs")).unwrap_or_default();
    let code = code_of(&text);
    let mut out = BTreeMap::new();
    for stmt in code.split(';') {
        let stmt = stmt.trim();
        let Some(path) = stmt
            .strip_prefix("pub use ")
            .or_else(|| stmt.strip_prefix("pub(crate) use "))
        else {
            continue;
        };
        let path = path
            .trim()
            .trim_start_matches("crate::")
            .trim_start_matches("self::");
        let module = ident(path).to_string();
        if module.is_empty() {
            continue;
        }
        let tail = &path[module.len()..];
        // Every identifier in the rest names an item re-exported from `module` (or an alias).
        for word in tail.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if !word.is_empty() && word != "as" && word != "self" {
                out.insert(word.to_string(), module.clone());
            }
        }
    }
    out
}

/// The import graph of the crate whose sources are in `src`.
pub fn graph(src: &Path) -> Graph {
    let files = rust_files(src);
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(src, f)).collect();
    let reexported = reexports(src);
    let resolve = |name: &str| -> Option<String> {
        if modules.contains(name) {
            Some(name.to_string())
        } else {
            reexported.get(name).cloned()
        }
    };
    let mut g: Graph = modules
        .iter()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    for file in &files {
        let Some(module) = module_of(src, file) else {
            continue;
        };
        let code = code_of(&std::fs::read_to_string(file).unwrap_or_default());
        let code = without_test_module(&code);
        let mut names = names_after(code, "crate::");
        if is_module_root(src, file) {
            names.extend(names_after(code, "super::"));
        }
        for name in names {
            if let Some(target) = resolve(&name) {
                if target != module {
                    g.entry(module.clone()).or_default().insert(target);
                }
            }
        }
    }
    g
}

/// The cycles of `g`: its strongly connected components of two modules or more, each sorted,
/// largest first (Tarjan's algorithm).
pub fn cycles(g: &Graph) -> Vec<Vec<String>> {
    struct State<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        if let Some(next) = s.g.get(v) {
            for w in next {
                let w = w.as_str();
                if !s.g.contains_key(w) {
                    continue;
                }
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if s.on_stack.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    s.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_groups_name_top_level_items() {
        let code = code_of(
            "use crate::{error::{ReduceError, Result}, buffer::Buffer, view};\n\
             // crate::commented\n\
             let x = crate::gpu::launch(); /* crate::hidden */ reduce_kernels::crate_like;",
        );
        let names = names_after(&code, "crate::");
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(names, ["buffer", "error", "gpu", "view"]);
    }

    #[test]
    fn a_cycle_is_found_and_a_chain_is_not() {
        let g = |edges: &[(&str, &str)]| {
            let mut g = Graph::new();
            for (a, b) in edges {
                g.entry(a.to_string()).or_default().insert(b.to_string());
                g.entry(b.to_string()).or_default();
            }
            g
        };
        assert!(cycles(&g(&[("a", "b"), ("b", "c")])).is_empty());
        assert_eq!(
            cycles(&g(&[
                ("a", "b"),
                ("b", "c"),
                ("c", "a"),
                ("c", "d"),
                ("d", "e"),
                ("e", "d")
            ])),
            [vec!["a", "b", "c"], vec!["d", "e"]]
        );
    }

    #[test]
    fn a_crate_on_disk_resolves_reexports_and_super() {
        let dir = std::env::temp_dir().join(format!("imports-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("plan")).unwrap();
        let write = |p: &str, t: &str| std::fs::write(dir.join(p), t).unwrap();
        write(
            "lib.rs",
            "mod error; mod plan; mod reducer;\npub use reducer::{Reducer, Cache as C};",
        );
        write("error.rs", "use super::Reducer; // the facade: a cycle");
        write("plan/mod.rs", "use crate::error::Error;\nmod inner;");
        write("plan/inner.rs", "use super::Plan; // the module itself");
        write("reducer.rs", "use crate::plan::Plan; use crate::error;");
        // Test code may reach any layer: neither a tests file nor an inline test module counts.
        write("plan/tests.rs", "use crate::reducer::Reducer;");
        write(
            "stage.rs",
            "use crate::error::E;\n#[cfg(test)]\nmod tests {\n    use crate::reducer::R;\n}\n",
        );
        let g = graph(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        let edges = |m: &str| g[m].iter().cloned().collect::<Vec<_>>();
        assert_eq!(edges("error"), ["reducer"]);
        assert_eq!(edges("plan"), ["error"]);
        assert_eq!(edges("reducer"), ["error", "plan"]);
        assert_eq!(edges("stage"), ["error"]);
        assert_eq!(cycles(&g), [vec!["error", "plan", "reducer"]]);
    }
}
