//! The plans' arithmetic: which kernel shape for which geometry, and the cutting of segments.

use super::*;
use crate::backend::DeviceCaps;
use crate::policy_settings::PolicySettings;

fn h200() -> DeviceCaps {
    DeviceCaps::sm90("H200", 132, 140 << 30)
}

#[test]
fn shapes_pick_the_kernel_shape() {
    let p = AxisPolicy::default();
    let c = h200();
    let short = p.rows(ElemType::F32, Op::Sum, 1 << 20, 16, &c).unwrap();
    assert_eq!((short.steps.len(), short.steps[0].group), (1, 1));
    let medium = p.rows(ElemType::F32, Op::Sum, 1 << 16, 1024, &c).unwrap();
    assert_eq!(medium.steps[0].group, 32);
    let long = p.rows(ElemType::F32, Op::Sum, 16, 1 << 24, &c).unwrap();
    assert_eq!(long.steps.len(), 2, "few long rows are split");
    assert_eq!(long.steps[0].group, AXIS_BLOCK);
    assert_eq!(long.partials, 16 * long.steps[0].parts);
    assert_eq!(long.steps[1].len, long.steps[0].parts);
    // The defaults: a block-per-row launch is the deep row kernel, 32 blocks per SM.
    assert_eq!(long.steps[0].kernel.family, Family::AxisRowsDeep);
    assert_eq!(long.steps[0].grid, 132 * 32);
    // 2^20 × 16 (4 vector columns, at most `col_once_max_vcols`, a power of two) by default:
    // one launch of the flat kernel with 8 loads in flight — blocks of 512, 2 · 132 of them —
    // with shares in runs of 32 vectors (`group` 1); rows of 3 vectors take the one-launch tile
    // kernel.
    let flat = p.cols(ElemType::F32, Op::Sum, 1 << 20, 16, &c).unwrap();
    assert_eq!(flat.steps.len(), 1);
    let s = &flat.steps[0];
    assert_eq!(
        (s.kernel.family, s.kernel.block),
        (Family::AxisColumnsFlatDeep, 512)
    );
    assert_eq!((s.grid, s.shared_bytes, s.group), (264, 512 * 16, 1));
    assert_eq!(flat.partials, 264 * 16);
    assert_eq!(flat.describe(), "cols-flat-deep b512 parts=264 grid=264");
    // At most one block per tile of `block · 8` vectors (3000 × 16 f32: 12,000 vectors, 3
    // blocks of 512).
    assert_eq!(
        p.cols(ElemType::F32, Op::Sum, 3000, 16, &c).unwrap().steps[0].grid,
        3
    );
    // On 4 blocks per SM: one block per tile of `block · 8` vectors, at most 4 · 132.
    let four = AxisPolicy {
        col_flat_blocks_per_sm: 4,
        ..p
    };
    let d = four.cols(ElemType::F32, Op::Sum, 1 << 20, 16, &c).unwrap();
    assert_eq!(d.describe(), "cols-flat-deep b512 parts=528 grid=528");
    // Whole tiles (`col_flat_fine=0`: `group` 0): 100 × 16 is 400 vectors, 1 block.
    let tiles = AxisPolicy {
        col_flat_fine: 0,
        ..p
    };
    let small = tiles.cols(ElemType::F32, Op::Sum, 100, 16, &c).unwrap();
    assert_eq!((small.steps[0].grid, small.steps[0].group), (1, 0));
    assert_eq!(small.steps[0].kernel.block, FLAT_BLOCK);
    for (ty, r, cols) in [
        (ElemType::F32, 1 << 20, 12),
        (ElemType::F32, 1 << 20, 15),
        (ElemType::F64, 1 << 20, 6),
    ] {
        let odd = p.cols(ty, Op::Sum, r, cols, &c).unwrap();
        assert_eq!(
            odd.steps[0].kernel.family,
            Family::AxisColumnsOnce,
            "{cols}"
        );
    }
    let f64_flat = p.cols(ElemType::F64, Op::Max, 1 << 20, 64, &c).unwrap();
    assert_eq!(f64_flat.steps[0].kernel.family, Family::AxisColumnsFlatDeep);
    // `col_once_flat=0`: one launch of the tile kernel, 2 · 132 blocks.
    let tile = AxisPolicy {
        col_once_flat: 0,
        ..p
    };
    let once = tile.cols(ElemType::F32, Op::Sum, 1 << 20, 16, &c).unwrap();
    assert_eq!(once.steps.len(), 1);
    assert_eq!(once.steps[0].kernel.family, Family::AxisColumnsOnce);
    assert_eq!((once.steps[0].grid, once.partials), (264, 264 * 16));
    assert_eq!(
        p,
        AxisPolicy::default(),
        "the tests below start from the defaults"
    );
    // Unsplit column plans (enough tiles for the grid: 16 × 2^24, 256 × 2^20) run the
    // short-column kernel on 3 blocks per SM (`wide_col_*`); split plans keep the plain kernel.
    for (r, cols) in [(16, 1 << 24), (256, 1 << 20)] {
        let w = p.cols(ElemType::F32, Op::Sum, r, cols, &c).unwrap();
        assert_eq!(w.steps.len(), 1);
        assert_eq!(w.steps[0].kernel.family, Family::AxisColumnsShort16);
        assert_eq!((w.steps[0].grid, w.steps[0].parts), (132 * 3, 1));
        let plain = AxisPolicy {
            wide_col_short_rows: 0,
            ..p
        }
        .cols(ElemType::F32, Op::Sum, r, cols, &c)
        .unwrap();
        assert_eq!(plain.steps[0].kernel.family, Family::AxisColumns);
        assert_eq!(plain.steps[0].grid, 132 * 4);
        let own_grid = AxisPolicy {
            wide_col_blocks_per_sm: 0,
            ..p
        }
        .cols(ElemType::F32, Op::Sum, r, cols, &c)
        .unwrap();
        assert_eq!(own_grid.steps[0].grid, 132 * 4, "0: col_blocks_per_sm");
    }
    for (r, cols) in [(1 << 12, 1 << 14), (1 << 14, 1 << 14), (1 << 16, 1024)] {
        let split = p.cols(ElemType::F32, Op::Sum, r, cols, &c).unwrap();
        assert!(split.steps.len() > 1, "{r} x {cols} is split");
        assert!(split
            .steps
            .iter()
            .all(|s| s.kernel.family == Family::AxisColumns));
    }
    // The tests below compare kernel families pass by pass: without the wide rule.
    let p = AxisPolicy {
        wide_col_short_rows: 0,
        ..p
    };
    // 33 vector columns (132 f32 columns) are past the limit: two launches, the finishing one
    // in tiles of 16 vector columns (`finish_col_tile`).
    let two = p.cols(ElemType::F32, Op::Sum, 1 << 16, 132, &c).unwrap();
    assert_eq!(two.steps.len(), 2);
    assert_eq!(two.steps[0].kernel.family, Family::AxisColumns);
    assert_eq!((two.steps[0].group, two.steps[1].group), (32, 16));
    let p = AxisPolicy {
        col_once_max_vcols: 0,
        finish_col_tile: 0,
        ..p
    };
    let tall = p.cols(ElemType::F32, Op::Sum, 1 << 20, 16, &c).unwrap();
    // Two launches: 2^20 rows of 16 columns: one tile, split in 4 · 132 pieces, then one
    // finishing pass; with
    // `finish_piece_rows` the finish is split too (528 pieces → 16 → 1), each pass reading the
    // region the pass before wrote.
    assert_eq!(
        tall.steps.iter().map(|s| s.parts).collect::<Vec<_>>(),
        vec![528, 1]
    );
    let tall = AxisPolicy {
        finish_piece_rows: 32,
        ..p
    }
    .cols(ElemType::F32, Op::Sum, 1 << 20, 16, &c)
    .unwrap();
    assert_eq!(
        tall.steps.iter().map(|s| s.parts).collect::<Vec<_>>(),
        vec![528, 16, 1]
    );
    assert_eq!(tall.steps[0].grid, 528, "col_blocks_per_sm = 4");
    assert_eq!(
        (tall.steps[1].src_offset, tall.steps[1].dst_offset),
        (0, 528 * 16)
    );
    assert_eq!(tall.steps[2].src_offset, 528 * 16);
    assert!(tall.steps[2].writes_result && !tall.steps[2].reads_input);
    assert_eq!(tall.partials, (528 + 16) * 16);
    // Tiles: narrowed to give at least `min_col_tiles`, never below 32 vector columns.
    let tile = |cols| {
        p.cols(ElemType::F32, Op::Sum, 1 << 16, cols, &c)
            .unwrap()
            .steps[0]
            .group
    };
    assert_eq!(
        (tile(16), tile(100), tile(1024), tile(1 << 14)),
        (4, 25, 32, 256)
    );
    assert_eq!(tile(4 * 80), 32);
    // Each family aims its grid at its own blocks per SM.
    let seg = p
        .segments(ElemType::F32, Op::Sum, 100_000, 100_000, 1 << 27, &c)
        .unwrap();
    assert_eq!(seg.steps[0].grid, 132 * p.segment_blocks_per_sm);
    let rows = p.rows(ElemType::F32, Op::Sum, 1 << 20, 16, &c).unwrap();
    assert_eq!(rows.steps[0].grid, 132 * p.blocks_per_sm);
    let wide = p.cols(ElemType::F32, Op::Sum, 16, 1 << 24, &c).unwrap();
    assert_eq!(wide.steps.len(), 1);
    // `col_short_rows=16` swaps the family of every column pass, nothing else.
    let q = p.with_settings("col_short_rows=16").unwrap();
    for (r, cols) in [(16, 1 << 24), (1 << 20, 16), (1 << 12, 1 << 14)] {
        let a = p.cols(ElemType::F32, Op::Sum, r, cols, &c).unwrap();
        let b = q.cols(ElemType::F32, Op::Sum, r, cols, &c).unwrap();
        assert_eq!(a.steps.len(), b.steps.len());
        for (x, y) in a.steps.iter().zip(&b.steps) {
            assert_eq!(x.kernel.family, Family::AxisColumns);
            assert_eq!(y.kernel.family, Family::AxisColumnsShort16);
            assert_eq!(
                AxisStep {
                    kernel: x.kernel,
                    ..*y
                },
                *x
            );
        }
        assert!(
            b.describe().starts_with("cols-short16 "),
            "{}",
            b.describe()
        );
    }
    assert!(p.rows(ElemType::F32, Op::Mean, 1, 1, &c).is_err());
    assert!(p.rows(ElemType::F32, Op::Sum, usize::MAX, 2, &c).is_err());
    assert!(p
        .rows(ElemType::F32, Op::Sum, 0, 5, &c)
        .unwrap()
        .steps
        .is_empty());
    assert!(p
        .cols(ElemType::F32, Op::Sum, 5, 0, &c)
        .unwrap()
        .steps
        .is_empty());
    let direct = p
        .segments(ElemType::F32, Op::Sum, 10, 10, 1000, &c)
        .unwrap();
    assert_eq!(direct.steps.len(), 1);
    assert_eq!(direct.steps[0].offsets, Offsets::Segments);
    let cut = p
        .segments(ElemType::F32, Op::Sum, 10, 30, 1 << 20, &c)
        .unwrap();
    assert_eq!((cut.steps.len(), cut.partials), (2, 30));
    assert_eq!(cut.steps[0].offsets, Offsets::Pieces);
    assert_eq!(cut.steps[1].offsets, Offsets::PieceRanges);
}

#[test]
fn long_segments_are_cut_into_pieces() {
    assert_eq!(cut_segments(&[0, 5], &[5, 9], 5), None);
    let (pb, pe, first, last) = cut_segments(&[0, 7, 3, 20], &[7, 7, 20, 21], 5).unwrap();
    assert_eq!(pb, vec![0, 5, 3, 8, 13, 18, 20]);
    assert_eq!(pe, vec![5, 7, 8, 13, 18, 20, 21]);
    assert_eq!(first, vec![0, 2, 2, 6]);
    assert_eq!(last, vec![2, 2, 6, 7]);
}

#[test]
fn a_type_the_axis_kernels_do_not_take_is_named_before_any_kernel() {
    let (p, c) = (AxisPolicy::default(), h200());
    for ty in ElemType::HALVES {
        let plans = [
            p.rows(ty, Op::Sum, 4, 4, &c).err(),
            p.cols(ty, Op::Max, 4, 4, &c).err(),
            p.segments(ty, Op::Min, 2, 2, 8, &c).err(),
        ];
        for e in plans {
            match e {
                Some(ReduceError::InvalidArgument(m)) => {
                    assert!(m.contains(ty.name()) && m.contains("f32, f64"), "{m}")
                }
                e => panic!("{ty}: {e:?}"),
            }
        }
    }
    for ty in ElemType::ALL {
        assert!(p.rows(ty, Op::Sum, 4, 4, &c).is_ok(), "{ty}");
    }
}
