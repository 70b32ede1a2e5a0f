//! Timing: one engine ([`TimingSpec`] → [`time_prepared`] / [`time_queued`]) with CUDA events on
//! a GPU and the wall clock under the emulator, used by the `reduce` CLI and the criterion
//! benches alike; and the blog's two tables built on it.
//!
//! * [`engine`] — [`Timing`], [`Scope`], [`Protocol`], [`TimingSpec`] and the timed loop.
//! * `gate` — the gate kernel of [`Protocol::Gated`].
//! * [`tables`] — the blog's benchmark table ([`table`]) and per-stage profile ([`profile`]),
//!   and stage 8 timed with its result ([`time_single_pass`]).

pub mod engine;
mod gate;
pub mod tables;

mod record;
pub use engine::{time_prepared, time_queued, Protocol, Scope, Timing, TimingSpec};
pub use record::{ErrorRecord, Record, TimingRecord, TwinRecord};
pub use tables::{profile, table, time_single_pass, time_single_pass_in, ProfileRow, TableRow};
