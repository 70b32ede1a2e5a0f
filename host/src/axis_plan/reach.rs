//! Every axis kernel the table builds is one that the default policy plans for some shape, type
//! and operator on some GPU: the shipped axis kernels are exactly the ones the defaults reach.

use super::*;
use crate::backend::DeviceCaps;
use reduce_kernels::table::{Abi, KernelId};
use std::collections::BTreeMap;
use std::collections::HashSet;

fn caps(sm_count: usize) -> DeviceCaps {
    DeviceCaps::sm90(format!("{sm_count} SMs"), sm_count, 80 << 30)
}

/// Run lengths and counts: a log grid of 1..=4096 with its neighbours (odd lengths: rows that
/// are not whole 16-byte vectors), then the large shapes (few long rows, tall narrow matrices,
/// wide short ones).
fn sizes() -> Vec<usize> {
    let mut v = vec![3, 5, 6, 7, 12, 20, 100, 1000, 1028, 5003];
    for e in 0..=12 {
        let p = 1usize << e;
        v.extend([p, p + 1, p.saturating_sub(1).max(1)]);
    }
    v.extend([1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24]);
    v.sort_unstable();
    v.dedup();
    v
}

/// Every kernel the default policy's plans launch, over every size pair of [`sizes`] (at most
/// 2^31 elements) as rows × columns and as segments (uncut, and cut into 2 or 16 pieces each),
/// every type and device operator, on GPUs of 132, 108, 80, 40 and 16 SMs.
fn reached() -> HashSet<KernelId> {
    let p = AxisPolicy::default();
    let mut seen = HashSet::new();
    for sm in [132, 108, 80, 40, 16] {
        let c = caps(sm);
        for ty in ElemType::ALL {
            for op in [Op::Sum, Op::Min, Op::Max] {
                for &a in &sizes() {
                    for &b in &sizes() {
                        if a.saturating_mul(b) > 1 << 31 {
                            continue;
                        }
                        let plans = [
                            p.rows(ty, op, a, b, &c).unwrap(),
                            p.cols(ty, op, a, b, &c).unwrap(),
                            p.segments(ty, op, a, a, a * b, &c).unwrap(),
                            p.segments(ty, op, a, 2 * a, a * b, &c).unwrap(),
                            p.segments(ty, op, a, 16 * a, a * b, &c).unwrap(),
                        ];
                        seen.extend(plans.iter().flat_map(|q| q.steps.iter().map(|s| s.kernel)));
                    }
                }
            }
        }
    }
    seen
}

#[test]
fn every_axis_family_in_the_table_is_reached_by_the_default_policy() {
    let reached = reached();
    for id in &reached {
        assert!(
            id.is_built(),
            "the default plans a kernel not built: {id:?}"
        );
    }
    let built: Vec<KernelId> = KernelId::all()
        .filter(|id| matches!(id.row().abi, Abi::Axis | Abi::AxisTicket))
        .collect();
    let missing: Vec<String> = built
        .iter()
        .filter(|id| !reached.contains(id))
        .map(|id| id.symbol().as_str().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "built, but no default plan launches them: {missing:?}"
    );
    // Per family, the kernels built and reached (6 types × 3 operators per block size).
    let mut per_family = BTreeMap::new();
    for id in &built {
        *per_family.entry(format!("{:?}", id.family)).or_insert(0) += 1;
    }
    assert_eq!(
        per_family.into_iter().collect::<Vec<_>>(),
        [
            ("AxisColumns", 18),
            ("AxisColumnsFlatDeep", 18),
            ("AxisColumnsOnce", 18),
            ("AxisColumnsShort16", 18),
            ("AxisRows", 18),
            ("AxisRowsDeep", 18),
            ("AxisSegments", 18),
        ]
        .map(|(f, n)| (f.to_string(), n))
    );
}
