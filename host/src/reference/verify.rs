//! One check of a device result against the CPU reference.
//!
//! Every caller used to repeat the same three steps: compute [`reference()`], take the plan's
//! `depth`, call [`matches_reference`]. [`Expected`] does the first once per input (the reference
//! of 2^30 elements is not free) and the other two per result; [`verify`] is the one-shot form.

use super::{matches_reference, reference, Reference};
use crate::plan::Plan;
use crate::types::{Op, Scalar};

/// The CPU reference of one operator over one input, ready to judge any number of device results.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Expected<T> {
    op: Op,
    reference: Option<Reference<T>>,
}

impl<T: Scalar> Expected<T> {
    /// The reference of `op` over `data`.
    pub fn of(op: Op, data: &[T]) -> Self {
        Expected {
            op,
            reference: reference(op, data),
        }
    }

    /// The reference; `None` for min/max of nothing (where no device result can be right).
    pub fn reference(&self) -> Option<&Reference<T>> {
        self.reference.as_ref()
    }

    /// Does `got`, computed by `plan`, match? The plan gives the float-sum error bound's depth.
    /// `false` when there is no reference (min/max of an empty input).
    pub fn matches(&self, got: T, plan: &Plan) -> bool {
        self.reference
            .as_ref()
            .is_some_and(|r| matches_reference(self.op, got, r, plan.depth))
    }
}

/// Does `got`, the result of `plan` run with `op` on `data`, match the CPU reference?
pub fn verify<T: Scalar>(op: Op, data: &[T], got: T, plan: &Plan) -> bool {
    Expected::of(op, data).matches(got, plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::DeviceCaps;
    use crate::plan::{plan, LaunchOverrides};
    use crate::stage::Stage;
    use crate::types::ElemType;

    fn s8_plan(op: Op, ty: ElemType, n: usize) -> Plan {
        let caps = DeviceCaps::sm90("test", 4, 1 << 34);
        plan(Stage::S8, ty, op, n, LaunchOverrides::default(), &caps).unwrap()
    }

    #[test]
    fn right_and_wrong_answers() {
        let data = [3i32, -7, 5];
        let p = s8_plan(Op::Sum, ElemType::I32, 3);
        assert!(verify(Op::Sum, &data, 1, &p));
        assert!(!verify(Op::Sum, &data, 2, &p));
        let max = s8_plan(Op::Max, ElemType::I32, 3);
        assert!(verify(Op::Max, &data, 5, &max));
        assert!(!verify(Op::Max, &data, 3, &max));
    }

    #[test]
    fn float_sums_get_the_plans_error_bound_and_no_more() {
        let data = vec![0.1f32; 1000];
        let e = Expected::of(Op::Sum, &data);
        let p = s8_plan(Op::Sum, ElemType::F32, data.len());
        let exact = e.reference().unwrap().sum_f64;
        assert!(e.matches(exact as f32, &p));
        assert!(!e.matches((exact * 1.01) as f32, &p));
    }

    #[test]
    fn min_of_nothing_matches_nothing() {
        let e = Expected::<f32>::of(Op::Min, &[]);
        assert!(e.reference().is_none());
        assert!(!e.matches(0.0, &s8_plan(Op::Sum, ElemType::F32, 0)));
    }
}
