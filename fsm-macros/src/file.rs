//! `fsm!(file = "machines/door.fsm")`: the definition read from a file.
//!
//! The path is relative to the crate root (`CARGO_MANIFEST_DIR`). rustc can
//! only point at the path literal, so each message carries the file, line,
//! column and the marked source lines (see [`fsm_grammar::report::rustc`]).

use crate::expand::{self, Generation, Origin, Shown};
use crate::{generate, report};
use fsm_codegen::Module;
use fsm_grammar::{Diagnostic, LineIndex};
use proc_macro2::{Span, TokenStream};
use std::io;
use std::path::{Path, PathBuf};

/// Expand the file at `path`, written as the literal at `literal`, for the
/// runtime crate at `runtime`, its items going where `module` says.
pub(crate) fn expand(path: &str, literal: Span, runtime: TokenStream, module: Module) -> TokenStream {
    let crate_root = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_default();
    let full_path = crate_root.join(path);
    // The front end's reader says where a file stops being UTF-8.
    let text = match fsm_grammar::source::read(&full_path) {
        Ok(text) => text,
        Err(error) => return unreadable(path, &full_path, &error.error, literal, runtime, module),
    };
    // `include_str!` takes a string literal: a path that is not UTF-8 can't
    // be tracked, and the crate then only rebuilds when its own sources change.
    let source_file = full_path.to_str().map(str::to_string);
    let origin = File {
        path,
        text: &text,
        literal,
    };
    let generation = Generation {
        source_file,
        runtime,
        module,
    };
    expand::expand(&text, &origin, &generation)
}

/// The error for a file that cannot be read, and stubs of the machines the
/// user's code most likely names, so that the one error is all they see
/// (not `unresolved import door` after it, as syntax errors already avoid).
///
/// A missing file is most often a misspelt one: when a `.fsm` file in the
/// same directory has a close name, the help suggests it and the stubs are
/// its machines. Otherwise the stub is named after the file, the convention
/// (`machines/door.fsm` defines `machine Door`).
fn unreadable(
    path: &str,
    full_path: &Path,
    error: &io::Error,
    literal: Span,
    runtime: TokenStream,
    module: Module,
) -> TokenStream {
    let suggestion = (error.kind() == io::ErrorKind::NotFound)
        .then(|| similar_file(full_path))
        .flatten();
    let help = match &suggestion {
        Some((name, _)) => format!("did you mean `{}`?", sibling(path, name)),
        // Not UTF-8 (`fsm_grammar::source::read` says where): the path is right.
        None if error.kind() == io::ErrorKind::InvalidData => "`.fsm` files are UTF-8 text".to_string(),
        None => "the path is relative to the crate root, the directory of Cargo.toml".to_string(),
    };
    // The path as written, as rustc's `include_str!` reports it: the help
    // says what it is relative to, and the message stays the same wherever
    // the crate is built.
    let message = format!("cannot read `{path}`: {error}\nhelp: {help}");
    let mut expanded = report::error(&message, literal, literal);
    let generation = Generation {
        source_file: None,
        runtime,
        module,
    };
    match suggestion {
        Some((_, text)) => expanded.extend(generate::stubs(&fsm_grammar::check(&text), &generation)),
        None => {
            let stem = full_path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            if !stem.is_empty() {
                let machine = fsm_grammar::naming::upper_camel(stem);
                expanded.extend(generate::stubs_named([machine.as_str()], &generation));
            }
        }
    }
    expanded
}

/// The `.fsm` file beside `missing` whose name is closest to its name, and
/// its text, if one is close enough to be what was meant.
fn similar_file(missing: &Path) -> Option<(String, String)> {
    let name = missing.file_name()?.to_str()?;
    let names: Vec<String> = std::fs::read_dir(missing.parent()?)
        .ok()?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".fsm"))
        .collect();
    let closest = fsm_grammar::closest(name, names.iter().map(String::as_str))?;
    let text = fsm_grammar::source::read(&missing.with_file_name(closest)).ok()?;
    Some((closest.to_string(), text))
}

/// `machines/dor.fsm` and `door.fsm` → `machines/door.fsm`: the file as the
/// user would write it, in the directory they wrote.
fn sibling(path: &str, name: &str) -> String {
    match path.rfind(['/', '\\']) {
        Some(end) => format!("{}{name}", &path[..=end]),
        None => name.to_string(),
    }
}

/// Diagnostics of a file, on the path literal.
struct File<'a> {
    path: &'a str,
    text: &'a str,
    literal: Span,
}

impl Origin for File<'_> {
    fn show(&self, diagnostic: &Diagnostic) -> Shown {
        Shown {
            message: fsm_grammar::report::rustc(self.path, self.text, diagnostic),
            first: self.literal,
            last: self.literal,
        }
    }

    fn no_machine(&self) -> Shown {
        Shown {
            message: format!(
                "`{}` defines no machine\nhelp: {}",
                self.path,
                fsm_grammar::source::NO_MACHINE_HELP
            ),
            first: self.literal,
            last: self.literal,
        }
    }

    /// The message, where in the file, then the help.
    fn at(&self, span: fsm_grammar::Span, message: &str, help: &str) -> Shown {
        let start = LineIndex::new(self.text).line_col(self.text, span.start);
        Shown {
            message: format!(
                "{message}\n --> {}:{}:{}\nhelp: {help}",
                self.path, start.line, start.column
            ),
            first: self.literal,
            last: self.literal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sibling_is_written_in_the_directory_the_user_wrote() {
        assert_eq!(sibling("machines/dor.fsm", "door.fsm"), "machines/door.fsm");
        assert_eq!(sibling("dor.fsm", "door.fsm"), "door.fsm");
        assert_eq!(sibling(r"machines\dor.fsm", "door.fsm"), r"machines\door.fsm");
        assert_eq!(sibling("a/b/dor.fsm", "door.fsm"), "a/b/door.fsm");
    }
}
