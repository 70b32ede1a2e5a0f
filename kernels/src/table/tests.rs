//! The kernel table's own tests: symbols, lookups, every row built.

use super::*;

#[test]
fn symbols_follow_the_pattern_and_are_unique() {
    let id = |family, ty, op, block| KernelId {
        family,
        ty,
        op,
        block,
    };
    let s = |k: KernelId| std::string::String::from(k.symbol().as_str());
    assert_eq!(
        s(id(Family::S3, ElemKind::F32, OpKind::Sum, 256)),
        "reduce_s3_sequential_f32"
    );
    assert_eq!(
        s(id(Family::S6, ElemKind::I32, OpKind::Sum, 1024)),
        "reduce_s6_complete_unroll_b1024_i32"
    );
    assert_eq!(
        s(id(Family::S8, ElemKind::F64, OpKind::Max, 512)),
        "reduce_s8_max_b512_f64"
    );
    let mut seen = std::collections::HashSet::new();
    for k in KernelId::all() {
        assert!(k.is_built());
        if k.row().block_in_name || k.block == k.row().blocks[0] {
            assert!(seen.insert(s(k)), "{} twice", s(k));
        }
        assert_eq!(
            KernelId::find(k.symbol().as_str(), k.block)
                .map(|f| f.symbol().as_str() == k.symbol().as_str()),
            Some(true)
        );
    }
    assert!(KernelId::find("reduce_s6_complete_unroll_b256_f32", 128).is_none());
    assert!(KernelId::find("no_such_kernel_f32", 256).is_none());
}

#[test]
fn the_emulator_has_a_body_for_every_built_kernel_of_its_type() {
    for k in KernelId::all() {
        let body = match k.ty {
            ElemKind::F32 => emulated::<f32>(k).map(|b| matches!(b, Body::MultiPass(_))),
            ElemKind::F64 => emulated::<f64>(k).map(|b| matches!(b, Body::MultiPass(_))),
            ElemKind::I32 => emulated::<i32>(k).map(|b| matches!(b, Body::MultiPass(_))),
            ElemKind::U32 => emulated::<u32>(k).map(|b| matches!(b, Body::MultiPass(_))),
            ElemKind::I64 => emulated::<i64>(k).map(|b| matches!(b, Body::MultiPass(_))),
            ElemKind::U64 => emulated::<u64>(k).map(|b| matches!(b, Body::MultiPass(_))),
            ElemKind::F16 => {
                emulated::<crate::half::F16>(k).map(|b| matches!(b, Body::MultiPass(_)))
            }
            ElemKind::BF16 => {
                emulated::<crate::half::Bf16>(k).map(|b| matches!(b, Body::MultiPass(_)))
            }
        };
        let multi_pass = k.row().abi == Abi::MultiPass;
        assert_eq!(body, Some(multi_pass), "{:?}", k);
    }
    let s3 = KernelId {
        family: Family::S3,
        ty: ElemKind::F32,
        op: OpKind::Sum,
        block: 256,
    };
    assert!(emulated::<i32>(s3).is_none(), "another element type");
    assert!(
        emulated::<f32>(KernelId { block: 96, ..s3 }).is_none(),
        "not a built block size"
    );
}
