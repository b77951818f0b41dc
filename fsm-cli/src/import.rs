//! `fsmc import`: turn a JSON machine document, an SCXML document or an
//! XState machine config into `.fsm` source.

use crate::checked_source;
use crate::console;
use crate::exit::Exit;
use crate::files;
use clap::{Args, ValueEnum};
use fsm_grammar::interchange;
use std::path::PathBuf;

/// Arguments of `fsmc import`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Reads a JSON machine document (docs/json.md: one machine object or an array of them, documents in \
the `execution_fsm_v1.json` format included), an SCXML document or an XState v5 machine config \
(JSON), and writes the equivalent `.fsm` in the canonical layout of `fsmc fmt`. Names that are \
not `.fsm` identifiers are rewritten (`fsm.transition` becomes `fsm_transition`) with a warning.

The format is --format, else SCXML for a `.scxml` file or a document whose root element is \
<scxml>, else XState for a JSON object with `states` and `id` or `initial` and none of the JSON \
machine document's `fsm_id`, `initial_state` and `terminal_states`, else JSON. SCXML is read in \
the subset `fsmc export --format scxml` writes (docs/export-import.md): what fsmc cannot express \
(<script>, a data model, <invoke>, <raise>, conditions other than names, In(), !, && and ||, \
wildcard events) is refused at its line:column, and what it skips (<log>, other namespaces' \
elements) is reported. XState is read in the subset `fsmc export --format xstate` writes: \
`invoke`, built-in actions and guards (`xstate.assign`, `xstate.and`, ...), wildcard events and \
several targets are refused; `context`, `meta`, `tags` and `params` are skipped with a warning \
each.

Every problem is reported on stderr at its place: a JSON path (`$.states.idle.on.start.to`, in an \
XState config `$.states.idle.on.start[0].target`) or an SCXML line:column. The document's shape \
comes first, then, for a well-shaped document, what `fsmc check` finds in the imported machines. \
Warnings do not stop the import; errors do.

Exit status:
  0  imported
  1  the document has errors (they are reported; nothing is written)
  2  usage errors, and files that cannot be read or written")]
pub struct ImportArgs {
    /// The JSON, SCXML or XState file to import.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// The format of the file; by default, told from its extension and content.
    #[arg(long, value_enum)]
    format: Option<ImportFormat>,

    /// Write to this file instead of stdout.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
}

/// The formats `fsmc import` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ImportFormat {
    /// The JSON machine document of docs/json.md.
    Json,
    /// A W3C SCXML document.
    Scxml,
    /// An XState v5 machine config in JSON, as `fsmc export --format xstate` writes.
    Xstate,
}

/// The format of `text`, read from `path`: SCXML for a `.scxml` file or a
/// document whose root element is `<scxml>`, XState for a config that
/// [`interchange::looks_like_xstate`], JSON otherwise.
fn detect(path: &std::path::Path, text: &str) -> ImportFormat {
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("scxml")) {
        return ImportFormat::Scxml;
    }
    // Past an XML declaration, comments and whitespace, the root element.
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    loop {
        if let Some(after) = rest.strip_prefix("<?") {
            rest = after.split_once("?>").map_or("", |(_, r)| r).trim_start();
        } else if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.split_once("-->").map_or("", |(_, r)| r).trim_start();
        } else {
            break;
        }
    }
    let root = rest.strip_prefix('<').unwrap_or("");
    let name_end = root
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .unwrap_or(root.len());
    let name = &root[..name_end];
    if name == "scxml" || name.ends_with(":scxml") {
        ImportFormat::Scxml
    } else if interchange::looks_like_xstate(text) {
        ImportFormat::Xstate
    } else {
        ImportFormat::Json
    }
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
    let format = args.format.unwrap_or_else(|| detect(&args.file, &text));
    let result = match format {
        ImportFormat::Json => interchange::from_json(&text),
        ImportFormat::Scxml => interchange::from_scxml(&text),
        ImportFormat::Xstate => interchange::from_xstate(&text),
    };
    match result {
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
