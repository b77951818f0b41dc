//! `fsmc`: the command-line front door of fsmc.
//!
//! It stays thin: argument parsing, reading and writing files, and choosing
//! where reports go. Parsing, checking, formatting and rendering diagnostics
//! all live in `fsm-grammar`.

mod check;
mod console;
mod exit;
mod files;
mod fmt;

use clap::{Parser, Subcommand};

/// Check, format and build `.fsm` state machines.
#[derive(Debug, Parser)]
#[command(name = "fsmc", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// One subcommand per module.
#[derive(Debug, Subcommand)]
enum Command {
    /// Check `.fsm` files and report every problem found in them.
    Check(check::CheckArgs),
    /// Rewrite `.fsm` files into the canonical layout.
    Fmt(fmt::FmtArgs),
}

fn main() -> std::process::ExitCode {
    // clap exits with status 2 on usage errors, matching our own convention.
    let cli = Cli::parse();
    let exit = match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Fmt(args) => fmt::run(&args),
    };
    exit.into()
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn arguments_are_consistent() {
        Cli::command().debug_assert();
    }
}
