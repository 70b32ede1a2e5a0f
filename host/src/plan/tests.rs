//! The planner's tests (pure arithmetic, on a pretend H200).

use super::*;

fn h200() -> DeviceCaps {
    DeviceCaps::sm90("test H200", 132, 141 << 30)
}

fn grids(stage: Stage, n: usize, o: LaunchOverrides) -> Vec<usize> {
    plan(stage, ElemType::F32, Op::Sum, n, o, &h200())
        .unwrap()
        .passes
        .iter()
        .map(|p| p.grid)
        .collect()
}

#[test]
fn multi_pass_stages_shrink_to_one_block() {
    let d = LaunchOverrides::default();
    assert_eq!(grids(Stage::S3, 1 << 22, d), vec![16384, 64, 1]);
    assert_eq!(grids(Stage::S4, 1 << 22, d), vec![8192, 16, 1]);
    assert_eq!(grids(Stage::S1, 257, d), vec![2, 1]);
    assert_eq!(grids(Stage::S4, 512, d), vec![1]);
    assert_eq!(grids(Stage::S4, 513, d), vec![2, 1]);
    // Empty and single inputs still run one launch (which writes the identity / the element).
    assert_eq!(grids(Stage::S3, 0, d), vec![1]);
    assert_eq!(grids(Stage::S3, 1, d), vec![1]);
}

#[test]
fn grid_stride_stage_fills_the_device_once() {
    let d = LaunchOverrides::default();
    // 132 SMs x (2048 / 256) resident blocks, then one block for the partials.
    assert_eq!(grids(Stage::S7, 1 << 28, d), vec![1056, 3, 1]);
    assert_eq!(grids(Stage::S7, 1000, d), vec![2, 1]);
    assert_eq!(
        grids(
            Stage::S7,
            1 << 28,
            LaunchOverrides {
                block: None,
                grid: Some(5),
            }
        ),
        vec![5, 1]
    );
}

#[test]
fn single_pass_policy() {
    let p = |n, o| plan(Stage::S8, ElemType::F32, Op::Sum, n, o, &h200()).unwrap();
    let d = LaunchOverrides::default();
    assert_eq!(
        p(1 << 12, d).passes[0].grid,
        1,
        "a small input is one block"
    );
    // One tile of the smallest block that covers it: 4 vectors (16 f32) per thread.
    for (n, block) in [(1 << 12, 256), (1 << 13, 512), (1 << 14, 1024), (0, 256)] {
        let plan = p(n, d);
        assert_eq!(
            (plan.passes[0].block, plan.passes[0].grid),
            (block, 1),
            "n = {n}"
        );
    }
    assert_eq!(
        (
            p((1 << 14) + 4, d).passes[0].block,
            p((1 << 14) + 4, d).passes[0].grid
        ),
        (512, 3),
        "past one 1024-thread tile: 512-thread blocks"
    );
    assert_eq!(
        p(1 << 30, d).passes[0].grid,
        132 * 4,
        "a large input fills every SM"
    );
    assert_eq!(p(1 << 22, d).passes[0].grid, 512);
    assert_eq!(p(0, d).passes[0].grid, 1);
    assert_eq!(
        p(
            1 << 20,
            LaunchOverrides {
                block: Some(1024),
                grid: Some(3),
            }
        )
        .passes[0]
            .grid,
        3
    );
    assert_eq!(
        p(1 << 20, d).passes.len(),
        1,
        "stage 8 is always one launch"
    );
    assert_eq!(p(1 << 20, d).passes[0].shared_bytes, 512 / 32 * 4);
    // f64: two lanes per vector, so twice the steps for the same n.
    let f64p = plan(Stage::S8, ElemType::F64, Op::Max, 1 << 12, d, &h200()).unwrap();
    assert_eq!(f64p.kernel, Stage::S8.kernel(ElemType::F64, Op::Max, 512));
    assert_eq!(f64p.passes[0].grid, 1);
}

#[test]
fn error_depth_grows_with_sequential_work() {
    let d = LaunchOverrides::default();
    let depth = |s, n| {
        plan(s, ElemType::F32, Op::Sum, n, d, &h200())
            .unwrap()
            .depth
    };
    assert!(depth(Stage::S7, 1 << 30) > depth(Stage::S7, 1 << 20));
    assert!(depth(Stage::S8, 1 << 30) > depth(Stage::S8, 1 << 20));
    // A one-element-per-thread tree: about log2(block) + 1 per pass.
    assert!(depth(Stage::S3, 256) <= 12);
}

#[test]
fn bad_shapes_are_rejected_with_reasons() {
    let caps = h200();
    let bad = |s, ty, op, block: Option<usize>, grid: Option<usize>| {
        plan(s, ty, op, 1000, LaunchOverrides { block, grid }, &caps)
            .unwrap_err()
            .to_string()
    };
    assert!(bad(Stage::S3, ElemType::F32, Op::Sum, Some(100), None).contains("power of two"));
    assert!(bad(Stage::S3, ElemType::F32, Op::Sum, Some(16), None).contains("at least one warp"));
    assert!(bad(Stage::S3, ElemType::F32, Op::Sum, Some(2048), None).contains("at most 1024"));
    assert!(bad(Stage::S5, ElemType::F32, Op::Sum, Some(32), None).contains("built for"));
    assert!(bad(Stage::S3, ElemType::F64, Op::Sum, None, None).contains("no kernel for f64"));
    assert!(bad(Stage::S3, ElemType::F32, Op::Min, None, None).contains("sums only"));
    assert!(bad(Stage::S3, ElemType::F32, Op::Sum, None, Some(4)).contains("only stages 7 and 8"));
    assert!(bad(Stage::S8, ElemType::F32, Op::Sum, None, Some(0)).contains("1..=4096"));
    assert!(bad(Stage::S8, ElemType::F32, Op::Sum, None, Some(5000)).contains("1..=4096"));
    assert!(bad(Stage::S7, ElemType::I32, Op::Sum, None, Some(0)).contains("grid size 0"));
}

#[test]
fn every_kernel_the_host_can_name_is_in_the_embedded_ptx() {
    let ptx = crate::kernel_image::embedded_ptx().unwrap();
    let mut n = 0;
    for stage in Stage::ALL {
        for (ty, op, block) in stage.configs() {
            let name = stage.kernel(ty, op, block);
            assert!(
                ptx.contains(&format!(".entry {name}(")),
                "{name} is not in the PTX"
            );
            n += 1;
        }
    }
    assert!(n > 100);
}
