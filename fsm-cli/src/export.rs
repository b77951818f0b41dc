//! `fsmc export`: write a checked `.fsm` file's machines in an interchange
//! format.

use crate::checked_source;
use crate::exit::Exit;
use clap::{Args, ValueEnum};
use fsm_grammar::interchange;
use std::path::PathBuf;

/// Arguments of `fsmc export`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
The JSON format builds on the `execution_fsm_v1.json` format, in which an execution runtime \
declares its machines (`fsm_id`, `version`, `initial_state`, `terminal_states`, and `states` with \
`description` and `on: {action: {to, emit}}`), and extends it with guards, priorities, hooks, \
`any` and declarations. docs/json.md documents it, with a JSON Schema in \
docs/fsm-machine.schema.json. A file with one machine gives one JSON object; a file with several \
gives an array of them, unless --machine picks one. `fsmc import` reads both back.

Warnings are reported on stderr and do not stop the export; errors do.

Exit status:
  0  exported
  1  the file has errors (they are reported; nothing is written)
  2  usage errors, an unknown --machine, and files that cannot be read or written")]
pub struct ExportArgs {
    /// The `.fsm` file to export.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// The output format.
    #[arg(long, value_enum, default_value_t = ExportFormat::Json)]
    format: ExportFormat,

    /// Export only the machine with this name.
    #[arg(long, value_name = "NAME")]
    machine: Option<String>,

    /// Write to this file instead of stdout.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
}

/// The formats `fsmc export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ExportFormat {
    /// The JSON machine document of docs/json.md.
    Json,
}

/// Export the file; see [`ExportArgs`] for the exit status.
pub fn run(args: &ExportArgs) -> Exit {
    let model = match checked_source::load(&args.file, "exported") {
        Ok(model) => model,
        Err(exit) => return exit,
    };
    let json = match (args.format, &args.machine) {
        (ExportFormat::Json, None) => interchange::model_to_json(&model),
        (ExportFormat::Json, Some(name)) => match checked_source::machine(&model, name, &args.file) {
            Ok(machine) => interchange::to_json(machine),
            Err(exit) => return exit,
        },
    };
    checked_source::write_output(args.output.as_ref(), &json)
}
