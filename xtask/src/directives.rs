//! PTX performance-tuning directives that Rust cannot express, added to the PTX text.
//!
//! rustc has no attribute for CUDA's `__launch_bounds__` / `__maxnreg__` (LLVM's NVPTX backend
//! reads them from `nvvm.annotations`, which Rust does not emit), so `build-ptx` adds them after
//! `llc` by a naming rule: an entry whose name has a segment `_r<N>_`
//! (`reduce_transform_r64_sumsq_b256_f32`) gets `.maxnreg N` — ptxas then allocates at most `N`
//! registers per thread for it (spilling if it must), which lets more blocks be resident per SM.
//! The same Rust function exported under two names gives two entries that differ only in that
//! cap, so the host picks one at run time.

/// The register cap an entry named `name` asks for: `N` from its first `_r<N>_` segment
/// (`16 <= N <= 255`, ptxas' range), `None` otherwise.
pub fn maxnreg_of(name: &str) -> Option<u32> {
    name.split('_').find_map(|seg| {
        let n: u32 = seg.strip_prefix('r')?.parse().ok()?;
        (16..=255).contains(&n).then_some(n)
    })
}

/// `ptx` with `.maxnreg N` inserted before the body of every `.entry` whose name asks for it
/// ([`maxnreg_of`]); other text unchanged. Returns the new text and how many entries changed.
pub fn add_maxnreg(ptx: &str) -> (String, usize) {
    let mut out = String::with_capacity(ptx.len() + 1024);
    let mut pending: Option<u32> = None;
    let mut changed = 0;
    for line in ptx.split_inclusive('\n') {
        if let Some(rest) = line.trim_start().strip_prefix(".visible .entry ") {
            let name = rest.split(['(', ' ', '\n']).next().unwrap_or_default();
            pending = maxnreg_of(name);
        }
        // The entry's parameter list ends with a line starting with `)`; the body follows.
        if pending.is_some() && line.trim_start() == "{\n" {
            if let Some(n) = pending.take() {
                out.push_str(&format!(".maxnreg {n}\n"));
                changed += 1;
            }
        }
        out.push_str(line);
    }
    (out, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_comes_from_an_r_segment_only() {
        assert_eq!(maxnreg_of("reduce_exact_r64_sum_b256_f32"), Some(64));
        assert_eq!(
            maxnreg_of("reduce_exact_fast_lean_r48_sum_b512_f64"),
            Some(48)
        );
        assert_eq!(maxnreg_of("reduce_exact_fast_sum_b256_f32"), None);
        assert_eq!(maxnreg_of("reduce_rows_sum_b256_f32"), None);
        assert_eq!(maxnreg_of("reduce_x_r8_sum"), None); // below ptxas' range
        assert_eq!(maxnreg_of("reduce_x_r_sum"), None);
    }

    #[test]
    fn only_the_capped_entries_get_the_directive() {
        let ptx = ".visible .entry a_r64_sum(\n\t.param .u64 a_r64_sum_param_0\n)\n{\n\tret;\n}\n\
                   .visible .entry b_sum(\n\t.param .u64 b_sum_param_0\n)\n{\n\tret;\n}\n";
        let (out, changed) = add_maxnreg(ptx);
        assert_eq!(changed, 1);
        assert_eq!(out.matches(".maxnreg 64\n{").count(), 1);
        assert!(out.starts_with(
            ".visible .entry a_r64_sum(\n\t.param .u64 a_r64_sum_param_0\n)\n.maxnreg 64\n{\n"
        ));
        assert_eq!(out.replace(".maxnreg 64\n", ""), ptx);
    }
}
