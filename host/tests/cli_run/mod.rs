//! Run the `reduce` binary of this build as a user would, for the CLI tests.
// Each test binary that includes this module uses some of its helpers.
#![allow(dead_code)]

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

/// The arguments of a command line written as one string: its words (none has a space in it).
pub fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// Run `reduce` with the [`words`] of `line`.
pub fn reduce_line(line: &str) -> Run {
    reduce(&words(line))
}

/// Exit status and stdout followed by stderr of `reduce` with `args`.
pub fn code_and_output(args: &[&str]) -> (i32, String) {
    let r = reduce(args);
    (r.code, r.stdout + &r.stderr)
}

/// `reduce` with the [`words`] of `line` fails as a usage error should: exit status 2, `want` in
/// its output, and no panic.
pub fn assert_usage_error(line: &str, want: &str) {
    let (code, out) = code_and_output(&words(line));
    assert_eq!(code, 2, "{line} should fail with exit code 2: {out}");
    assert!(out.contains(want), "{line}: expected `{want}` in:\n{out}");
    assert!(!out.contains("panicked"), "{line} panicked:\n{out}");
}

/// The JSON objects of `text`, one a line.
pub fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}
