//! `reduce` — the command line over the `reduce_host` library.
//!
//! `reduce table` reproduces the blog's benchmark table on this machine's GPU (or, without one, on
//! the CPU emulator, clearly labelled); `reduce --help` lists the rest.
//!
//! A thin binary: [`args`] holds the argument types, [`commands`] one file per subcommand,
//! [`output`] the banner and the table renderer, [`data`] the inputs. The library's errors are
//! printed as they are, except where the fix is a flag of this CLI ([`message`]).

mod args;
mod commands;
mod data;
mod output;

use args::{Cli, Cmd};
use clap::Parser;
use reduce_host::{Backend, ReduceError};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("error: at least one result did not match the CPU reference");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {}", message(&e));
            ExitCode::from(2)
        }
    }
}

/// The error's message, with the flag that fixes it where there is one.
fn message(e: &ReduceError) -> String {
    match e {
        ReduceError::NoDriver(err) => format!(
            "no usable CUDA GPU: cuInit failed ({err}). Install an NVIDIA driver, or use the CPU \
             emulator (--backend emu)"
        ),
        ReduceError::NoDevice => {
            "the CUDA driver reports no GPU. Use the CPU emulator (--backend emu)".into()
        }
        ReduceError::GateTimedOut { timeout_ms } => format!(
            "the benchmark gate timed out after {timeout_ms} ms while the host queued a timed \
             run, so that run's time is not GPU-only; retry on a less loaded host, or time with \
             --protocol plain"
        ),
        other => other.to_string(),
    }
}

/// Run the command; `Ok(false)` when a result was wrong.
fn run(cli: Cli) -> Result<bool, ReduceError> {
    let open = || Backend::open_with_ptx(cli.backend.into(), cli.ptx.as_deref());
    match cli.cmd {
        Cmd::Table {
            common,
            warmup,
            runs,
            no_torch,
        } => commands::table::run(&open()?, &common, warmup, runs, no_torch),
        Cmd::Profile { common } => commands::profile::run(&open()?, &common),
        Cmd::Run { common, op } => commands::run::run(&open()?, &common, op),
        Cmd::Sweep {
            exps,
            ops,
            types,
            stages,
            warmup,
            runs,
            block,
            grid,
            devmem,
            protocol,
            wide,
        } => {
            let sweep = commands::sweep::Sweep {
                wide,
                ops,
                stages: data::stages_of_listed(&stages)?,
                warmup,
                runs,
                overrides: reduce_host::LaunchOverrides { block, grid },
                devmem,
                protocol: protocol.into(),
            };
            sweep.run(&open()?, &exps, &types)
        }
        Cmd::Twins {
            twin_ptx,
            exps,
            types,
            runs,
            format,
        } => commands::twins::run(&twin_ptx, &exps, &types, runs, format),
        Cmd::Stress { reps, n, streams } => {
            commands::stress::run(&Backend::open(cli.backend.into())?, reps, n, streams)
        }
        Cmd::Check { sizes, broken } => commands::check::run(&open()?, &sizes, broken),
        Cmd::Host(a) => commands::host::run(&open()?, &a),
        Cmd::Info { n, ty } => commands::info::run(&open()?, n, ty),
        Cmd::Axis(a) => commands::axis::run(&open()?, &a),
        Cmd::Transform(a) => commands::transform::run(&open()?, &a),
        Cmd::Arg(a) => commands::arg::run(&open()?, &a),
        Cmd::Multi(a) => commands::multi::run(cli.backend.into(), cli.ptx.is_some(), &a),
        Cmd::Exact(a) => commands::exact::run(&open()?, &a),
        Cmd::Half(a) => commands::half::run(&open()?, &a),
    }
}
