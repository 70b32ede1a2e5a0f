//! The transform plan's choices on an H200-like device (no GPU needed).
use super::*;
use reduce_kernels::table::ElemType;

#[test]
fn moments_fill_the_sms_once_and_the_sums_four_blocks_deep() {
    let h200 = DeviceCaps::sm90("H200-like", 132, 1 << 37);
    let plan = |op, ty| plan_transform(op, ty, 1 << 26, LaunchOverrides::default(), &h200).unwrap();
    for ty in [ElemType::F32, ElemType::F64, ElemType::F16, ElemType::BF16] {
        let m = plan(Op::Moments, ty);
        if ty.size() == 2 {
            assert_eq!(
                (
                    m.kernel.family,
                    m.kernel.ty,
                    m.kernel.block,
                    m.block,
                    m.grid
                ),
                (Family::TransformShifted, ty, 256, 256, 396),
                "{ty}: the grid-shift kernel, three 256-thread blocks per SM"
            );
            assert!(m.grid_shift, "{ty}: its bound is the grid shift's");
        } else {
            assert_eq!(
                (m.block, m.grid, m.grid_shift),
                (512, 264, false),
                "{ty}: two 512-thread blocks per SM, Chan's merges"
            );
        }
        let s = plan(Op::SumSq, ty);
        assert_eq!(
            (s.block, s.grid),
            (512, 528),
            "{ty}: four 512-thread blocks per SM"
        );
    }
    // A forced grid wins, and a small input still gets no more blocks than tiles.
    let forced = LaunchOverrides {
        grid: Some(528),
        ..LaunchOverrides::default()
    };
    let p = plan_transform(Op::Moments, ElemType::F32, 1 << 26, forced, &h200);
    assert_eq!(p.unwrap().grid, 528);
    let small = plan_transform(
        Op::Moments,
        ElemType::F32,
        1 << 16,
        LaunchOverrides::default(),
        &h200,
    );
    assert_eq!(small.unwrap().grid, 8);
    // Halves' moments: one tile is the plain kernel; a forced 512-thread block too.
    let halves = |n, block| {
        let o = LaunchOverrides {
            block,
            ..LaunchOverrides::default()
        };
        plan_transform(Op::Moments, ElemType::F16, n, o, &h200)
            .unwrap()
            .kernel
    };
    let moments = |family, block| KernelId {
        family,
        ty: ElemType::F16,
        op: Op::Moments,
        block,
    };
    assert_eq!(halves(1 << 15, None), moments(Family::Transform, 1024));
    assert_eq!(halves(1 << 26, Some(512)), moments(Family::Transform, 512));
    assert_eq!(halves(1 << 13, Some(256)), moments(Family::Transform, 256));
    assert_eq!(
        halves(1 << 16, Some(256)),
        moments(Family::TransformShifted, 256)
    );
}

#[test]
fn a_forced_loop_takes_its_family_or_is_a_typed_error() {
    let h200 = DeviceCaps::sm90("H200-like", 132, 1 << 37);
    let plan = |op, ty, looping| {
        plan_with_residency(
            op,
            ty,
            1 << 26,
            LaunchOverrides::default(),
            looping,
            &h200,
            None,
        )
    };
    // Plain on the halves' moments: Chan's merges in the plain kernel, stage 8's block.
    let p = plan(Op::Moments, ElemType::F16, Some(TransformLoop::Plain)).unwrap();
    assert_eq!(
        (
            p.kernel.family,
            p.kernel.ty,
            p.kernel.block,
            p.block,
            p.grid_shift
        ),
        (Family::Transform, ElemType::F16, 512, 512, false)
    );
    // Shifted: the plan's own choice for the halves' moments over more than one tile.
    let s = plan(Op::Moments, ElemType::BF16, Some(TransformLoop::Shifted)).unwrap();
    assert_eq!(
        (
            s.kernel.family,
            s.kernel.ty,
            s.kernel.block,
            s.block,
            s.grid,
            s.grid_shift
        ),
        (
            Family::TransformShifted,
            ElemType::BF16,
            256,
            256,
            396,
            true
        )
    );
    assert_eq!(s, plan(Op::Moments, ElemType::BF16, None).unwrap());
    for (op, ty) in [
        (Op::Total, ElemType::F16),
        (Op::SumSq, ElemType::BF16),
        (Op::Moments, ElemType::F32),
        (Op::Moments, ElemType::F64),
    ] {
        let e = plan(op, ty, Some(TransformLoop::Shifted)).unwrap_err();
        assert!(
            matches!(&e, ReduceError::InvalidArgument(why) if why.contains("shifted loop is built for")),
            "{op:?} {ty}: {e}"
        );
    }
    for l in TransformLoop::ALL {
        assert_eq!(l.name().parse::<TransformLoop>().unwrap(), l);
    }
    // The deleted loops (rolling loads with Chan's merges, copies into shared memory, tiles
    // interleaved over the blocks) are no choice any more: a typed parse error.
    for gone in ["rolling", "async", "tiles", "shifted-tiles", "eager"] {
        let e = gone.parse::<TransformLoop>().unwrap_err();
        assert!(
            matches!(&e, ReduceError::InvalidArgument(why) if why.contains("no transform loop")),
            "{gone}: {e}"
        );
    }
}
