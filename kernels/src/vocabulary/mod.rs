//! The vocabulary every layer speaks — element types and operators — at the bottom of the crate:
//! it imports nothing of it. The kernel table ([`crate::table`]), the host and the command line
//! re-export it.

mod elem_type;
mod op;

pub use elem_type::{ElemType, UnknownElemType};
pub use op::{Op, UnknownOp};
