//! `fsmc`: the command-line front door of fsmc.
//!
//! It stays thin: argument parsing, reading and writing files, and choosing
//! where reports go. Parsing, checking, formatting and rendering diagnostics
//! all live in `fsm-grammar`.

mod build;
mod check;
mod checked_source;
mod config;
mod console;
mod exit;
mod explain;
mod export;
mod files;
mod fleet;
mod fmt;
mod graph;
mod history;
mod import;
mod inspect;
mod lsp;
mod run;
mod table;
mod test;
mod verify;

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
    /// Generate Rust from `.fsm` files, one formatted `.rs` file each.
    Build(build::BuildArgs),
    /// Write a `.fsm` file's machines as JSON, SCXML or an XState config.
    Export(export::ExportArgs),
    /// Turn a JSON or SCXML machine document into `.fsm` source.
    Import(import::ImportArgs),
    /// Draw a machine as a Mermaid, DOT or SVG diagram.
    Graph(graph::GraphArgs),
    /// Run a machine on JSON lines from stdin: fire actions, set guards, advance time.
    Run(run::RunArgs),
    /// Simulate a machine in the browser: a local page that draws it and drives it.
    Inspect(inspect::InspectArgs),
    /// Print the history a stored snapshot carries, as a table.
    History(history::HistoryArgs),
    /// Inspect a fleet's database (its instances, one in full, what is due), and prune it.
    Fleet(fleet::FleetArgs),
    /// Prove properties over every configuration a machine can reach, with counterexamples.
    Verify(verify::VerifyArgs),
    /// Generate event sequences that take every transition, as `fsmc run` scripts.
    Test(test::TestArgs),
    /// Explain a diagnostic code: what it means, an example, and the fix.
    Explain(explain::ExplainArgs),
    /// Serve the Language Server Protocol over stdio, for editors.
    Lsp(lsp::LspArgs),
}

fn main() -> std::process::ExitCode {
    // clap exits with status 2 on usage errors, matching our own convention.
    let cli = Cli::parse();
    let exit = match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Fmt(args) => fmt::run(&args),
        Command::Build(args) => build::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Import(args) => import::run(&args),
        Command::Graph(args) => graph::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Inspect(args) => inspect::run(&args),
        Command::History(args) => history::run(&args),
        Command::Fleet(args) => fleet::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Test(args) => test::run(&args),
        Command::Explain(args) => explain::run(&args),
        Command::Lsp(args) => lsp::run(&args),
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
