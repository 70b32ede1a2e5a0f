//! The multi-rank tests beyond the basics of `tests/multi.rs`, one file per concept.

mod axis;
mod cli;
mod exact;
