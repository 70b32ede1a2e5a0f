//! Shards whose element type is known only at run time ([`AnyShard`]): the one place where
//! shards of different types can meet, so the one place that reports
//! [`ReduceError::ShardTypeMismatch`].

use super::{Collective, MultiReducer};
use crate::buffer::Buffer;
use crate::error::{ReduceError, Result};
use crate::types::{ElemType, Op};
use std::fmt;

macro_rules! any_types {
    ($($v:ident $t:ident),*) => {
        /// A borrowed shard of any element type.
        #[derive(Clone, Copy)]
        pub enum AnyShard<'a> {
            $(
                #[doc = concat!("A `", stringify!($t), "` shard.")]
                $v(&'a Buffer<$t>),
            )*
        }

        /// A value of any element type (a mean is an `F64`).
        #[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
        pub enum AnyValue {
            $(
                #[doc = concat!("A `", stringify!($t), "`.")]
                $v($t),
            )*
        }

        $(
            impl<'a> From<&'a Buffer<$t>> for AnyShard<'a> {
                fn from(b: &'a Buffer<$t>) -> Self {
                    AnyShard::$v(b)
                }
            }
        )*

        impl AnyShard<'_> {
            /// Its element type.
            pub fn elem_type(&self) -> ElemType {
                match self {
                    $(AnyShard::$v(_) => ElemType::$v,)*
                }
            }
        }

        impl fmt::Display for AnyValue {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(AnyValue::$v(v) => write!(f, "{v}"),)*
                }
            }
        }

        impl<C: Collective> MultiReducer<C> {
            /// `op` over shards given with their run-time types: one per rank, all of one
            /// element type ([`ReduceError::ShardTypeMismatch`] names the first that differs).
            /// `None` for the min/max of nothing; a mean or nanmean is an [`AnyValue::F64`], a count an
            /// [`AnyValue::U64`].
            pub fn reduce_any(&mut self, op: Op, shards: &[AnyShard<'_>]) -> Result<Option<AnyValue>> {
                let Some(first) = shards.first() else {
                    return Err(ReduceError::InvalidArgument(format!(
                        "no shards for {} ranks",
                        self.ranks()
                    )));
                };
                let expected = first.elem_type();
                if let Some((rank, s)) = shards
                    .iter()
                    .enumerate()
                    .find(|(_, s)| s.elem_type() != expected)
                {
                    return Err(ReduceError::ShardTypeMismatch {
                        rank,
                        expected,
                        found: s.elem_type(),
                    });
                }
                match expected {
                    $(ElemType::$v => {
                        let typed: Vec<&Buffer<$t>> = shards
                            .iter()
                            .filter_map(|s| match s {
                                AnyShard::$v(b) => Some(*b),
                                _ => None,
                            })
                            .collect();
                        match op {
                            Op::Mean => return Ok(Some(AnyValue::F64(self.mean(&typed)?))),
                            Op::NanMean => return Ok(Some(AnyValue::F64(self.nanmean(&typed)?))),
                            Op::Count => {
                                let c = self.count(&typed)?.value.unwrap_or_default();
                                return Ok(Some(AnyValue::U64(c)));
                            }
                            _ => {}
                        }
                        Ok(self.reduce(op, &typed)?.value.map(AnyValue::$v))
                    })*
                    // No `AnyShard` holds halves (multi-GPU reductions of them are not built).
                    other => Err(ReduceError::InvalidArgument(format!(
                        "{other} shards are not supported across GPUs"
                    ))),
                }
            }
        }
    };
}

any_types!(F32 f32, F64 f64, I32 i32, U32 u32, I64 i64, U64 u64);
