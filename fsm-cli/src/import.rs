//! `fsmc import`: turn a JSON machine document into `.fsm` source.

use crate::checked_source;
use crate::console;
use crate::exit::Exit;
use crate::files;
use clap::Args;
use fsm_grammar::interchange;
use std::path::PathBuf;

/// Arguments of `fsmc import`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Reads one machine object or an array of them (docs/json.md), documents in the \
`execution_fsm_v1.json` format included, and writes the equivalent `.fsm` in the canonical \
layout of `fsmc fmt`. Names that are not `.fsm` identifiers are rewritten (`fsm.transition` \
becomes `fsm_transition`) with a warning.

Every problem is reported on stderr at its JSON path, e.g. `$.states.idle.on.start.to`: the \
document's shape first, then, for a well-shaped document, what `fsmc check` finds in the \
imported machines. Warnings do not stop the import; errors do.

Exit status:
  0  imported
  1  the document has errors (they are reported; nothing is written)
  2  usage errors, and files that cannot be read or written")]
pub struct ImportArgs {
    /// The JSON file to import.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// Write to this file instead of stdout.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
}

/// Import the file; see [`ImportArgs`] for the exit status.
pub fn run(args: &ImportArgs) -> Exit {
    let text = match files::read(&args.file) {
        Ok(text) => text,
        Err(error) => {
            console::error(error);
            return Exit::Trouble;
        }
    };
    let name = args.file.display().to_string();
    match interchange::from_json(&text) {
        Ok(imported) => {
            console::stderr(&interchange::render(&name, &imported.diagnostics));
            checked_source::write_output(args.output.as_ref(), &imported.source)
        }
        Err(diagnostics) => {
            console::stderr(&interchange::render(&name, &diagnostics));
            let errors = diagnostics.iter().filter(|d| d.is_error()).count();
            let errors = if errors == 1 {
                "1 error".to_string()
            } else {
                format!("{errors} errors")
            };
            console::error(format_args!("`{name}` has {errors}; nothing imported"));
            Exit::Problems
        }
    }
}
