//! The kernel table's own tests: symbols, rows by family, every row built and emulated.

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
        s(id(Family::S3, ElemType::F32, Op::Sum, 256)),
        "reduce_s3_sequential_f32"
    );
    assert_eq!(
        s(id(Family::S6, ElemType::I32, Op::Sum, 1024)),
        "reduce_s6_complete_unroll_b1024_i32"
    );
    assert_eq!(
        s(id(Family::S8, ElemType::F64, Op::Max, 512)),
        "reduce_s8_max_b512_f64"
    );
    let mut seen = std::collections::HashSet::new();
    for k in KernelId::all() {
        assert!(k.is_built());
        if k.row().block_in_name || k.block == k.row().blocks[0] {
            assert!(seen.insert(s(k)), "{} twice", s(k));
        }
        assert_eq!(std::format!("{k}"), s(k), "Display spells the symbol");
    }
}

#[test]
fn rows_are_indexed_by_family() {
    for (i, r) in TABLE.iter().enumerate() {
        assert_eq!(r.family as usize, i);
        assert_eq!(Row::of(r.family), r);
    }
}

#[test]
fn the_emulator_has_a_body_for_every_built_kernel_of_its_type() {
    for k in KernelId::all() {
        let abi = match k.ty {
            ElemType::F32 => emulated::<f32>(k).map(|b| b.abi()),
            ElemType::F64 => emulated::<f64>(k).map(|b| b.abi()),
            ElemType::I32 => emulated::<i32>(k).map(|b| b.abi()),
            ElemType::U32 => emulated::<u32>(k).map(|b| b.abi()),
            ElemType::I64 => emulated::<i64>(k).map(|b| b.abi()),
            ElemType::U64 => emulated::<u64>(k).map(|b| b.abi()),
            ElemType::F16 => emulated::<crate::half::F16>(k).map(|b| b.abi()),
            ElemType::BF16 => emulated::<crate::half::Bf16>(k).map(|b| b.abi()),
        };
        assert_eq!(abi, Some(k.row().abi), "{:?}", k);
    }
    let s3 = KernelId {
        family: Family::S3,
        ty: ElemType::F32,
        op: Op::Sum,
        block: 256,
    };
    assert!(emulated::<i32>(s3).is_none(), "another element type");
    assert!(
        emulated::<f32>(KernelId { block: 96, ..s3 }).is_none(),
        "not a built block size"
    );
}

#[test]
fn every_op_parses_from_its_name_and_the_error_lists_them_all() {
    use super::{Op, UnknownOp};
    let listed = std::format!("{UnknownOp}");
    let mut n = 0;
    for op in Op::all() {
        assert_eq!(op.name().parse::<Op>(), Ok(op));
        assert!(listed.contains(op.name()), "{op} missing from `{listed}`");
        let families = [op.is_reduce(), op.is_arg(), op.is_transform()];
        assert_eq!(families.iter().filter(|f| **f).count(), 1, "{op}");
        n += 1;
    }
    assert_eq!(n, Op::REDUCE.len() + Op::ARG.len() + Op::TRANSFORM.len());
    assert_eq!("avg".parse::<Op>(), Err(UnknownOp));
}
