//! `fsmc export`: write a checked `.fsm` file's machines in an interchange
//! format.

use crate::checked_source;
use crate::console;
use crate::exit::Exit;
use clap::{Args, ValueEnum};
use fsm_grammar::interchange::{self, ExportWarning};
use fsm_grammar::LineIndex;
use std::path::PathBuf;

/// Arguments of `fsmc export`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Formats:
  json    The JSON format builds on the `execution_fsm_v1.json` format, in which an execution \
runtime declares its machines (`fsm_id`, `version`, `initial_state`, `terminal_states`, and \
`states` with `description` and `on: {action: {to, emit}}`), and extends it with guards, \
priorities, hooks, `any` and declarations. docs/json.md documents it, with a JSON Schema in \
docs/fsm-machine.schema.json. A file with one machine gives one JSON object; a file with several \
gives an array of them, unless --machine picks one. It holds everything a machine says.
  scxml   W3C SCXML 1.0, for SCXML tools (Qt's SCXML editor, scxmlgui, Apache Commons SCXML): \
<state>, <parallel>, <final>, <history>, <onentry>/<onexit>, eventless transitions, In() \
conditions, and timers as delayed <send>s cancelled on exit. What SCXML cannot say (priorities, \
doc comments, effects, declarations, types) is kept in the `fsm:` namespace, so `fsmc import` \
gives back the same machine.
  xstate  An XState v5 machine config as JSON, to open in Stately's editor. Types, declarations, \
#[allow] and guard expressions have no place in it.

SCXML and XState documents hold one machine: a file with several needs --machine. \
docs/export-import.md gives the mapping of each format.

Warnings are reported on stderr and do not stop the export; errors do. An SCXML or XState export \
warns, at its place in the file, of each construct the format cannot hold and of each transition \
the other tool would try in another order (fsmc tries candidates by priority first, those tools \
by depth alone).

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
    /// A W3C SCXML 1.0 document, with fsmc's extensions in the `fsm:` namespace.
    Scxml,
    /// An XState v5 machine config, as JSON.
    Xstate,
}

/// Export the file; see [`ExportArgs`] for the exit status.
pub fn run(args: &ExportArgs) -> Exit {
    let (source, model) = match checked_source::load_with_source(&args.file, "exported") {
        Ok(loaded) => loaded,
        Err(exit) => return exit,
    };
    let text = match (args.format, &args.machine) {
        (ExportFormat::Json, None) => interchange::model_to_json(&model),
        (ExportFormat::Json, Some(name)) => match checked_source::machine(&model, name, &args.file) {
            Ok(machine) => interchange::to_json(machine),
            Err(exit) => return exit,
        },
        (format, name) => {
            let machine = match checked_source::chosen_machine(&model, name.as_deref(), &args.file) {
                Ok(machine) => machine,
                Err(exit) => return exit,
            };
            let exported = match format {
                ExportFormat::Scxml => interchange::to_scxml(machine),
                _ => interchange::to_xstate(machine),
            };
            console::stderr(&render_warnings(
                &args.file.display().to_string(),
                &source,
                &exported.warnings,
            ));
            exported.text
        }
    };
    checked_source::write_output(args.output.as_ref(), &text)
}

/// One block per warning, located in the `.fsm` file:
///
/// ```text
/// warning: the context type `Ctx` is not exported
///   --> call.fsm:2:13
///   help: ...
/// ```
fn render_warnings(file: &str, source: &str, warnings: &[ExportWarning]) -> String {
    let index = LineIndex::new(source);
    let mut out = String::new();
    for w in warnings {
        let at = index.line_col(source, w.span.start);
        out.push_str(&format!(
            "warning: {}\n  --> {file}:{}:{}\n  help: {}\n\n",
            w.message, at.line, at.column, w.help
        ));
    }
    out
}
