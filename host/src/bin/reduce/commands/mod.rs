//! One file per subcommand; each `run` prints its output and returns whether every result
//! matched the CPU reference.

pub mod arg;
pub mod axis;
pub mod check;
pub mod exact;
pub mod half;
pub mod host;
pub mod info;
pub mod multi;
pub mod profile;
pub mod run;
pub mod stress;
pub mod sweep;
pub mod table;
pub mod torch;
pub mod transform;
pub mod twins;
