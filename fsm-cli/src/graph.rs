//! `fsmc graph`: draw a machine as a diagram.

use crate::checked_source;
use crate::console;
use crate::exit::Exit;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Arguments of `fsmc graph`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
`mermaid` writes a `stateDiagram-v2` (GitHub and many editors render it), `dot` writes Graphviz \
input (`dot -Tsvg`), and `svg` draws the diagram itself, with no external program. Every format \
shows the same picture: the start marker, an edge per transition labelled \
`action [guard] (pN) / outputs` (the priority only where candidates compete), hooks and internal \
transitions inside their state, terminal states, and `any` transitions drawn once from a dashed \
`any` state.

A file with several machines needs --machine to choose one.

`svg` refuses a drawing that needs more than 1,000,000 layout nodes (states, edge labels and the \
points where edges cross a rank of the layered drawing), rather than use gigabytes of memory; long \
edges to one state share their run to it in large drawings, so a machine whose 26,000 states all \
go back to the start is drawn.

Exit status:
  0  drawn
  1  the file has errors or defines no machine (nothing is written)
  2  usage errors, a missing or unknown --machine, files that cannot be read or written,
     and machines too large to draw as SVG (nothing is written)")]
pub struct GraphArgs {
    /// The `.fsm` file to draw.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// The diagram format.
    #[arg(long, value_enum, default_value_t = GraphFormat::Mermaid)]
    format: GraphFormat,

    /// The machine to draw (required when the file has several).
    #[arg(long, value_name = "NAME")]
    machine: Option<String>,

    /// Write to this file instead of stdout.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
}

/// The diagram formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GraphFormat {
    /// Mermaid `stateDiagram-v2`.
    Mermaid,
    /// Graphviz DOT.
    Dot,
    /// SVG, laid out in-process.
    Svg,
}

/// Draw the machine; see [`GraphArgs`] for the exit status.
pub fn run(args: &GraphArgs) -> Exit {
    let model = match checked_source::load_machines(&args.file, "drawn") {
        Ok(model) => model,
        Err(exit) => return exit,
    };
    let machine = match checked_source::chosen_machine(&model, args.machine.as_deref(), &args.file) {
        Ok(machine) => machine,
        Err(exit) => return exit,
    };
    let text = match args.format {
        GraphFormat::Mermaid => fsm_diagram::mermaid(machine),
        GraphFormat::Dot => fsm_diagram::dot(machine),
        GraphFormat::Svg => match fsm_diagram::svg(machine) {
            Ok(text) => text,
            Err(too_large) => {
                console::error(format_args!(
                    "machine `{}` is too large to draw as SVG: {too_large}; nothing drawn \
                     (`--format dot` or `--format mermaid` write it for another program to lay out)",
                    machine.name
                ));
                return Exit::Trouble;
            }
        },
    };
    checked_source::write_output(args.output.as_ref(), &text)
}
