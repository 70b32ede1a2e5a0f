//! The embedded PTX as one small module per kernel, for GPUs that JIT-compile it.
//!
//! The driver compiles a whole module when it is loaded: the library's 559 kernels take tens of
//! seconds, while the first `sum` needs one. So where no SASS matches the device, the GPU loads,
//! on a kernel's first launch, a module holding that kernel and only what it uses: the PTX
//! header, the `.func`s it calls (transitively), and the `.global`/`.shared` variables they
//! name. [`SplitPtx::parse`] indexes the text once (top-level items and the names each refers
//! to); [`SplitPtx::module_for`] assembles a kernel's module from the index.
//!
//! The parser knows the shape LLVM's NVPTX back end writes: a header (`.version`, `.target`,
//! `.address_size`), then top-level items that either end with `;` (declarations, variables) or
//! with the `}` that closes their body (`.func` and `.entry` definitions).

use std::collections::{HashMap, HashSet};

/// One top-level item of the PTX.
#[derive(Debug)]
struct Item {
    /// Its text, whole lines.
    text: std::ops::Range<usize>,
    /// The symbol it declares or defines.
    name: String,
    /// A kernel (`.entry`).
    entry: bool,
    /// Indices (into `SplitPtx::items`) of the non-kernel items it names.
    uses: Vec<usize>,
}

/// The PTX, indexed by kernel.
#[derive(Debug)]
pub struct SplitPtx<'a> {
    text: &'a str,
    /// `.version`, `.target`, `.address_size`.
    header: String,
    items: Vec<Item>,
    /// Kernel symbol → its item.
    entries: HashMap<String, usize>,
}

/// The directive and symbol of an item's first line, e.g. `(".func", "foo")`.
fn declared_name(first: &str) -> Option<(bool, String)> {
    let entry = first.contains(".entry");
    let is_item = [
        ".func", ".entry", ".global", ".shared", ".const", ".extern", ".weak",
    ]
    .iter()
    .any(|d| first.contains(d));
    if !is_item {
        return None;
    }
    // The name follows `.entry`/`.func` (after a `(...)` return value, if any); a variable's is
    // its last token before `[`, `=` or `;`.
    let rest = if let Some(i) = first.find(".entry") {
        &first[i + ".entry".len()..]
    } else if let Some(i) = first.find(".func") {
        let r = first[i + ".func".len()..].trim_start();
        match r.strip_prefix('(') {
            Some(inner) => inner.split_once(')').map_or("", |(_, after)| after),
            None => r,
        }
    } else {
        let decl = first.split(['[', '=', ';']).next().unwrap_or_default();
        decl.split_whitespace().last().unwrap_or_default()
    };
    let name: String = rest
        .trim_start()
        .chars()
        .take_while(|c| is_ident(*c))
        .collect();
    (!name.is_empty()).then_some((entry, name))
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// `line` without a trailing `//` comment.
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or_default()
}

impl<'a> SplitPtx<'a> {
    /// Index `text`; `None` if it is not PTX of the expected shape (no header, an unbalanced
    /// body, an item without a name).
    pub fn parse(text: &'a str) -> Option<Self> {
        let mut header = String::new();
        let mut items: Vec<Item> = Vec::new();
        let mut start: Option<usize> = None;
        let mut depth = 0i64;
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let here = offset;
            offset += line.len();
            let c = code(line).trim();
            if start.is_none() {
                if c.is_empty() {
                    continue;
                }
                if c.starts_with(".version")
                    || c.starts_with(".target")
                    || c.starts_with(".address_size")
                {
                    header.push_str(c);
                    header.push('\n');
                    continue;
                }
                start = Some(here);
            }
            depth += c.matches('{').count() as i64 - c.matches('}').count() as i64;
            if depth < 0 {
                return None;
            }
            let ends = depth == 0 && (c.ends_with(';') || c.ends_with('}'));
            if ends {
                let s = start.take()?;
                let first = text[s..offset]
                    .lines()
                    .map(code)
                    .find(|l| !l.trim().is_empty())?;
                let (entry, name) = declared_name(first)?;
                items.push(Item {
                    text: s..offset,
                    name,
                    entry,
                    uses: Vec::new(),
                });
            }
        }
        if start.is_some() || depth != 0 || !header.contains(".target") {
            return None;
        }
        // Which items each item names: every identifier of its text that is a non-kernel
        // item's symbol (an item's own declaration and definition share a name).
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, item) in items.iter().enumerate() {
            if !item.entry {
                by_name.entry(item.name.as_str()).or_default().push(i);
            }
        }
        let uses: Vec<Vec<usize>> = items
            .iter()
            .map(|item| {
                let mut found: HashSet<usize> = HashSet::new();
                for word in text[item.text.clone()].split(|c: char| !is_ident(c)) {
                    if let Some(ids) = by_name.get(word) {
                        found.extend(ids.iter().copied());
                    }
                }
                let mut v: Vec<usize> = found.into_iter().collect();
                v.sort_unstable();
                v
            })
            .collect();
        for (item, u) in items.iter_mut().zip(uses) {
            item.uses = u;
        }
        let entries = items
            .iter()
            .enumerate()
            .filter(|(_, it)| it.entry)
            .map(|(i, it)| (it.name.clone(), i))
            .collect();
        Some(SplitPtx {
            text,
            header,
            items,
            entries,
        })
    }

    /// Is `symbol` a kernel of this PTX?
    pub fn has(&self, symbol: &str) -> bool {
        self.entries.contains_key(symbol)
    }

    /// The kernels' symbols.
    #[cfg(test)]
    pub fn kernels(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// A module holding kernel `symbol` and what it uses, in the original order; `None` if there
    /// is no such kernel.
    pub fn module_for(&self, symbol: &str) -> Option<String> {
        let root = *self.entries.get(symbol)?;
        let mut keep = vec![false; self.items.len()];
        let mut todo = vec![root];
        while let Some(i) = todo.pop() {
            if !std::mem::replace(&mut keep[i], true) {
                todo.extend(self.items[i].uses.iter().copied());
            }
        }
        let mut out = self.header.clone();
        for (item, _) in self.items.iter().zip(&keep).filter(|(_, k)| **k) {
            out.push('\n');
            out.push_str(&self.text[item.text.clone()]);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str =
        "//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 7.0\n.target sm_70\n\
        .address_size 64\n\n\t// .globl\tk1\n.func helper\n()\n.noreturn;\n\
        .global .align 8 .b8 table[4] = {1, 2, 3, 4};\n\
        .extern .shared .align 8 .b8 dyn_mem[];\n\n\
        .visible .entry k1(\n\t.param .u64 k1_param_0\n)\n.maxnreg 64\n{\n\tcall.uni helper, ();\n\
        \tmov.u64 %rd1, table;\n\t{ // inner scope\n\t}\n\tret;\n}\n\
        \t// .globl\tk2\n.visible .entry k2()\n{\n\tmov.u64 %rd1, dyn_mem;\n\tret;\n}\n\
        .func helper()\n.noreturn // -- Begin function helper\n{\n\ttrap;\n}\n";

    #[test]
    fn a_kernel_module_holds_the_kernel_and_what_it_uses_only() {
        let s = SplitPtx::parse(PTX).unwrap();
        let mut kernels: Vec<&str> = s.kernels().collect();
        kernels.sort_unstable();
        assert_eq!(kernels, ["k1", "k2"]);
        let k1 = s.module_for("k1").unwrap();
        assert!(
            k1.starts_with(".version 7.0\n.target sm_70\n.address_size 64\n"),
            "{k1}"
        );
        assert!(
            k1.contains(".entry k1(") && !k1.contains(".entry k2"),
            "{k1}"
        );
        assert!(k1.contains(".func helper\n()\n.noreturn;"), "{k1}");
        assert!(k1.contains("{\n\ttrap;\n}"), "{k1}");
        assert!(k1.contains("table[4]") && !k1.contains("dyn_mem[]"), "{k1}");
        assert!(k1.contains(".maxnreg 64"), "{k1}");
        let k2 = s.module_for("k2").unwrap();
        assert!(k2.contains("dyn_mem[]") && !k2.contains("helper") && !k2.contains("table"));
        assert!(s.module_for("k3").is_none());
        assert!(!s.has("helper") && s.has("k1"));
    }

    #[test]
    fn text_of_another_shape_is_refused() {
        assert!(SplitPtx::parse("not ptx").is_none());
        assert!(SplitPtx::parse(".version 7.0\n.target sm_70\n.visible .entry k()\n{\n").is_none());
        assert!(SplitPtx::parse(".version 7.0\n.target sm_70\n}\n").is_none());
    }

    #[test]
    fn every_embedded_kernel_splits_into_a_module_of_its_own() {
        let ptx = super::super::embedded_ptx().unwrap();
        let s = SplitPtx::parse(ptx).unwrap();
        let all = ptx.matches(".visible .entry ").count();
        assert_eq!(s.kernels().count(), all);
        let mut largest = 0;
        for k in s.kernels() {
            let m = s.module_for(k).unwrap();
            assert_eq!(m.matches(".entry ").count(), 1, "{k}");
            assert_eq!(m.matches('{').count(), m.matches('}').count(), "{k}");
            // Every function the module calls is defined in it.
            for call in m.split("call.uni").skip(1).chain(m.split("call ").skip(1)) {
                let callee: String = call
                    .trim_start()
                    .trim_start_matches(|c: char| c == '(' || c.is_whitespace())
                    .chars()
                    .take_while(|c| is_ident(*c))
                    .collect();
                if !callee.is_empty() && !callee.starts_with("retval") {
                    assert!(m.contains(&format!("{callee}(")), "{k} calls {callee}");
                }
            }
            largest = largest.max(m.len());
        }
        // A kernel's module is a small part of the whole.
        assert!(largest * 20 < ptx.len(), "{largest} of {}", ptx.len());
    }
}
