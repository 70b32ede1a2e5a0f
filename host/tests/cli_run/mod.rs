//! Run the `reduce` binary of this build as a user would, for the CLI tests.

use std::process::Command;

/// What one run of `reduce` gave.
pub struct Run {
    /// The exit status (-1 if killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Run `reduce` with `args` and wait for it.
pub fn reduce(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_reduce"))
        .args(args)
        .output()
        .expect("run the reduce binary");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
