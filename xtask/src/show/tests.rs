//! `cargo xtask ptx` on the committed PTX (decompressed), and the PTX the stage docs quote checked against it.

use super::*;
use crate::ptx::workspace_root;
use crate::ptxas::find_ptxas;

fn args(list: &[&str]) -> ShowArgs {
    ShowArgs::parse(&list.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
}

fn symbol(list: &[&str]) -> Result<String> {
    kernel_for(&args(list)).map(|id| id.symbol().as_str().to_string())
}

/// The committed PTX, decompressed into a file of its own (`render` reads a path).
fn prebuilt_ptx() -> PathBuf {
    static PATH: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let zst =
            std::fs::read(workspace_root().join("host/prebuilt/reduce_kernels.ptx.zst")).unwrap();
        let path = std::env::temp_dir().join(format!("xtask-show-{}.ptx", std::process::id()));
        std::fs::write(&path, zstd::decode_all(&zst[..]).unwrap()).unwrap();
        path
    })
    .clone()
}

#[test]
fn the_kernel_comes_from_the_table_with_the_hosts_default_block() {
    assert_eq!(symbol(&["3"]).unwrap(), "reduce_s3_sequential_f32");
    assert_eq!(
        symbol(&["1", "--type", "i32"]).unwrap(),
        "reduce_s1_interleaved_divergent_i32"
    );
    assert_eq!(
        symbol(&["6"]).unwrap(),
        "reduce_s6_complete_unroll_b256_f32"
    );
    assert_eq!(
        symbol(&["7", "--block", "64"]).unwrap(),
        "reduce_s7_grid_stride_b64_f32"
    );
    assert_eq!(symbol(&["8"]).unwrap(), "reduce_s8_sum_b512_f32");
    assert_eq!(
        symbol(&["8", "--op", "max", "--type", "f64", "--block", "1024"]).unwrap(),
        "reduce_s8_max_b1024_f64"
    );
}

#[test]
fn what_the_table_does_not_build_is_an_error_naming_what_it_does() {
    let e = symbol(&["3", "--block", "128"]).unwrap_err().to_string();
    assert!(e.contains("drop --block"), "{e}");
    let e = symbol(&["6", "--block", "96"]).unwrap_err().to_string();
    assert!(e.contains("64, 128, 256, 512, 1024"), "{e}");
    let e = symbol(&["1", "--type", "f64"]).unwrap_err().to_string();
    assert!(e.contains("f32, i32"), "{e}");
    let e = symbol(&["3", "--op", "max"]).unwrap_err().to_string();
    assert!(e.contains("computes sum"), "{e}");
}

#[test]
fn bad_arguments_are_errors() {
    let parse = |l: &[&str]| ShowArgs::parse(&l.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert!(parse(&[]).is_err());
    assert!(parse(&["9"]).is_err());
    assert!(parse(&["0"]).is_err());
    assert!(parse(&["x"]).is_err());
    assert!(parse(&["3", "--block"]).is_err());
    assert!(parse(&["3", "--block", "many"]).is_err());
    assert!(parse(&["3", "--frob"]).is_err());
    let a = parse(&["8", "--stacked", "--sass", "--op", "min"]).unwrap();
    assert!(a.stacked && a.sass && a.op == "min");
}

#[test]
fn entries_are_split_at_their_closing_brace() {
    let ptx = ".version 7.8\n.visible .entry a_f32(\n.param .u64 x\n)\n{\nret;\n}\n\
               .visible .entry b_f32(\n)\n{\nadd.f32 y;\n}\n";
    let e = entries(ptx);
    assert_eq!(e.len(), 2);
    assert_eq!(e[0].0, "a_f32");
    assert!(e[0].1.ends_with("ret;\n}\n"));
    assert!(!e[0].1.contains("b_f32"));
    assert_eq!(e[1].0, "b_f32");
}

#[test]
fn columns_line_up() {
    assert_eq!(side_by_side("ab\ncdef", "1", 4), "ab   │ 1\ncdef │ \n");
    assert_eq!(side_by_side("a\tb", "", 6), "a    b │ \n");
}

#[test]
fn every_stage_shows_its_rust_its_ptx_and_its_registers() {
    let root = workspace_root();
    let ptxas = find_ptxas();
    for stage in 1..=8 {
        for stacked in [false, true] {
            let mut a = args(&[&stage.to_string()]);
            a.stacked = stacked;
            let name = kernel_for(&a).unwrap().symbol().as_str().to_string();
            let out = render(&root, &prebuilt_ptx(), ptxas.as_deref(), None, &a).unwrap();
            assert!(
                out.contains(&format!("── Rust: kernels/src/stages/s{stage}_")),
                "stage {stage}"
            );
            assert!(out.contains(&format!("── PTX: {name} (")), "stage {stage}");
            assert!(
                out.contains(&format!(".visible .entry {name}(")),
                "stage {stage}"
            );
            assert!(
                out.contains("pub fn reduce"),
                "stage {stage}: the Rust is there"
            );
            match &ptxas {
                Some(_) => assert!(out.contains("registers"), "stage {stage}:\n{out}"),
                None => assert!(out.contains("ptxas not found")),
            }
        }
    }
}

/// Whitespace collapsed, a trailing `// comment` dropped and the function ordinal of branch labels
/// (`$L__BB5_3` → `$L__BB_3`: it is the kernel's position in the module, which changes whenever a
/// kernel is added) left out, so a quoted line compares equal to the PTX however it is aligned.
fn normalized(line: &str) -> String {
    let code = line.split("//").next().unwrap_or_default();
    let mut out = String::new();
    let mut rest = code;
    while let Some(i) = rest.find("$L__BB") {
        out.push_str(&rest[..i + "$L__BB".len()]);
        rest = rest[i + "$L__BB".len()..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_ptx_quoted_in_every_stage_doc_is_in_the_committed_ptx() {
    let root = workspace_root();
    let ptx = std::fs::read_to_string(prebuilt_ptx()).unwrap();
    let all = entries(&ptx);
    for stage in 1..=8 {
        let path = stage_source(&root, stage).unwrap();
        let source = std::fs::read_to_string(&path).unwrap();
        let docs: Vec<&str> = source
            .lines()
            .filter_map(|l| l.strip_prefix("//!"))
            .map(|l| l.strip_prefix(' ').unwrap_or(l))
            .collect();
        let head = docs
            .iter()
            .position(|l| l.starts_with("## In PTX: `"))
            .unwrap_or_else(|| panic!("{}: no \"## In PTX: `kernel`\" section", path.display()));
        let name = docs[head]["## In PTX: `".len()..].trim_end_matches('`');
        let (_, body) = all
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{}: quotes {name}, which the PTX lacks", path.display()));
        let body: Vec<String> = body.lines().map(normalized).collect();
        let open = head
            + docs[head..]
                .iter()
                .position(|l| *l == "```text")
                .unwrap_or_else(|| panic!("{}: no ```text block", path.display()));
        let quoted: Vec<String> = docs[open + 1..]
            .iter()
            .take_while(|l| **l != "```")
            .map(|l| normalized(l))
            .filter(|l| !l.is_empty())
            .collect();
        assert!(quoted.len() >= 4, "{}: quotes too little", path.display());
        for q in &quoted {
            assert!(
                body.contains(q),
                "{}: the doc quotes `{q}`, which {name} in host/prebuilt/reduce_kernels.ptx does \
                 not contain; re-quote it from `cargo xtask ptx {stage}`",
                path.display()
            );
        }
        assert!(
            docs.iter()
                .any(|l| l.contains(&format!("cargo xtask ptx {stage}"))),
            "{}: the doc should point at `cargo xtask ptx {stage}`",
            path.display()
        );
    }
}

#[test]
fn sass_comes_from_nvdisasm_when_it_is_installed() {
    let (Some(ptxas), nvdisasm) = (find_ptxas(), find_tool("nvdisasm")) else {
        return; // no ptxas, no cubin: the test above checks the message
    };
    let mut a = args(&["8", "--stacked"]);
    a.sass = true;
    let out = render(
        &workspace_root(),
        &prebuilt_ptx(),
        Some(&ptxas),
        nvdisasm.as_deref(),
        &a,
    );
    let out = out.unwrap();
    if nvdisasm.is_some() {
        assert!(out.contains("── SASS (nvdisasm -c -g) of reduce_s8_sum_b512_f32"));
        assert!(out.contains("SHFL.DOWN"), "the shuffles in SASS");
        assert!(out.contains("LDG.E.128"), "the 16-byte loads in SASS");
    } else {
        assert!(out.contains("no nvdisasm"));
    }
}

#[test]
fn quoted_lines_ignore_alignment_comments_and_label_ordinals() {
    assert_eq!(
        normalized("@%p4 bra $L__BB5_5;"),
        normalized("\t@%p4  bra \t$L__BB12_5;   // a comment")
    );
    assert_ne!(normalized("bra $L__BB5_5;"), normalized("bra $L__BB5_6;"));
}
