//! The one registry of implementations: every name a results file can hold (`rust_s3`, `cub`,
//! `torch`, `memcpy_d2d` …) with its label, short label, colour, what its timing window holds,
//! its sort rank and whether it is a bandwidth ceiling. The tables and the plots both read it.

/// What the report knows about one implementation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Implementation {
    /// Sort key: the ladder in order, then the libraries, then the ceilings, then the rest.
    pub rank: usize,
    /// Human name (tables, legends).
    pub label: String,
    /// Short name (the bar chart's x axis).
    pub short_label: String,
    /// Colour in every plot (RGB).
    pub colour: (u8, u8, u8),
    /// What one timed run holds when the row does not say (see `Row::timed`).
    pub timed: &'static str,
    /// A bandwidth ceiling rather than a reduction (drawn without markers).
    pub ceiling: bool,
    /// Drawn with a thicker line (stage 8 and CUB, the comparison the report is about).
    pub emphasised: bool,
}

/// A known implementation that is not a Rust stage.
struct Known {
    id: &'static str,
    rank: usize,
    label: &'static str,
    short_label: &'static str,
    colour: Option<(u8, u8, u8)>,
    timed: &'static str,
}

const KNOWN: [Known; 8] = [
    Known {
        id: "cub",
        rank: 60,
        label: "CUB DeviceReduce::Sum",
        short_label: "CUB",
        colour: Some((0, 0, 0)),
        timed: "kernel + result copy",
    },
    Known {
        id: "torch",
        rank: 61,
        label: "PyTorch sum()",
        short_label: "PyTorch",
        colour: Some((188, 189, 34)),
        timed: "kernel + result copy",
    },
    Known {
        id: "cupy",
        rank: 62,
        label: "CuPy sum()",
        short_label: "CuPy",
        colour: Some((0, 100, 60)),
        timed: "kernel + result copy",
    },
    Known {
        id: "cub_mapped",
        rank: 63,
        label: "CUB DeviceReduce::Sum, result into mapped memory",
        short_label: "CUB (mapped)",
        colour: Some((90, 60, 0)),
        timed: "kernels + result in host memory",
    },
    Known {
        id: "read_kernel",
        rank: 70,
        label: "read-only kernel (ceiling)",
        short_label: "read kernel",
        colour: Some((110, 110, 110)),
        timed: "kernel only",
    },
    Known {
        id: "memcpy_d2d",
        rank: 71,
        label: "D2D memcpy (ceiling, R+W)",
        short_label: "D2D copy",
        colour: Some((170, 170, 170)),
        timed: "copy only (R+W bytes)",
    },
    Known {
        id: "empty_launch_copy",
        rank: 72,
        label: "empty launch + 4 B copy",
        short_label: "empty_launch_copy",
        colour: None,
        timed: "empty launch + copy",
    },
    Known {
        id: "empty_kernel",
        rank: 73,
        label: "empty kernel",
        short_label: "empty_kernel",
        colour: None,
        timed: "empty kernel",
    },
];

/// The colours of stages 1–8 (matplotlib's tab10 order).
const STAGE_COLOURS: [(u8, u8, u8); 8] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (23, 190, 207),
];

/// The ceilings: bandwidth references, not reductions.
const CEILINGS: [&str; 2] = ["read_kernel", "memcpy_d2d"];

/// Everything the report knows about `imp` (unknown names get their own name as labels and a
/// stable colour derived from it).
pub fn implementation(imp: &str) -> Implementation {
    let known = KNOWN.iter().find(|k| k.id == imp);
    let stage = imp.strip_prefix("rust_s");
    let stage_number = stage.and_then(|s| s.parse::<usize>().ok());
    let rank = match (stage_number, known) {
        (Some(k), _) => k.min(50),
        (None, Some(k)) => k.rank,
        (None, None) => 80,
    };
    let (label, short_label) = match (stage, known) {
        (Some(k), _) => (format!("stage {k} (Rust)"), format!("stage {k}")),
        (None, Some(k)) => (k.label.into(), k.short_label.into()),
        (None, None) => (imp.into(), imp.into()),
    };
    let stage_colour = stage_number
        .filter(|k| (1..=8).contains(k) && stage == Some(&k.to_string()))
        .map(|k| STAGE_COLOURS[k - 1]);
    let colour = stage_colour
        .or(known.and_then(|k| k.colour))
        .unwrap_or_else(|| hashed_colour(imp));
    let timed = match (imp, stage, known) {
        ("rust_s8", _, _) => "kernel + result in host memory",
        (_, _, Some(k)) => k.timed,
        (_, Some(_), None) => "kernels",
        _ => "?",
    };
    Implementation {
        rank,
        label,
        short_label,
        colour,
        timed,
        ceiling: CEILINGS.contains(&imp),
        emphasised: imp == "rust_s8" || imp == "cub",
    }
}

/// Stable but arbitrary, for names the registry does not know.
fn hashed_colour(imp: &str) -> (u8, u8, u8) {
    let h = imp
        .bytes()
        .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32));
    (
        (h % 200) as u8,
        (h / 200 % 200) as u8,
        (h / 40_000 % 200) as u8,
    )
}

/// Sort key of an implementation ([`Implementation::rank`]).
pub fn impl_rank(imp: &str) -> usize {
    implementation(imp).rank
}

/// Is this a bandwidth ceiling rather than a reduction?
pub fn is_ceiling(imp: &str) -> bool {
    CEILINGS.contains(&imp)
}

/// Human name of an implementation ([`Implementation::label`]).
pub fn impl_label(imp: &str) -> String {
    implementation(imp).label
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_libraries_and_unknown_names() {
        let s3 = implementation("rust_s3");
        assert_eq!((s3.rank, s3.label.as_str()), (3, "stage 3 (Rust)"));
        assert_eq!((s3.colour, s3.timed), ((44, 160, 44), "kernels"));
        let s8 = implementation("rust_s8");
        assert!(s8.emphasised && !s8.ceiling);
        assert_eq!(s8.timed, "kernel + result in host memory");
        let dev = implementation("rust_s8_devmem");
        assert_eq!((dev.rank, dev.short_label.as_str()), (80, "stage 8_devmem"));
        assert_ne!(dev.colour, s8.colour);
        let copy = implementation("memcpy_d2d");
        assert!(copy.ceiling);
        assert_eq!((copy.rank, copy.short_label.as_str()), (71, "D2D copy"));
        let odd = implementation("mystery");
        assert_eq!(
            (odd.rank, odd.label.as_str(), odd.timed),
            (80, "mystery", "?")
        );
        assert_eq!(odd.colour, implementation("mystery").colour);
        assert!(impl_rank("rust_s7") < impl_rank("cub") && impl_rank("cub") < impl_rank("torch"));
    }
}
