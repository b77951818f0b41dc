//! `fsm!(file = "machines/door.fsm")`: the definition read from a file.
//!
//! The path is relative to the crate root (`CARGO_MANIFEST_DIR`). rustc can
//! only point at the path literal, so each message carries the file, line,
//! column and the marked source lines (see [`crate::snippet`]).

use crate::expand::{self, Generation, Origin, Shown};
use crate::{report, snippet};
use fsm_grammar::Diagnostic;
use proc_macro2::{Span, TokenStream};
use std::path::PathBuf;

/// Expand the file at `path`, written as the literal at `literal`, for the
/// runtime crate at `runtime`.
pub(crate) fn expand(path: &str, literal: Span, runtime: TokenStream) -> TokenStream {
    let crate_root = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_default();
    let full_path = crate_root.join(path);
    let text = match std::fs::read_to_string(&full_path) {
        Ok(text) => text,
        Err(error) => {
            let message = format!(
                "cannot read `{path}` ({}): {error}\n\
                 help: the path is relative to the crate root, the directory of Cargo.toml",
                full_path.display()
            );
            return report::error(&message, literal, literal);
        }
    };
    // `include_str!` takes a string literal: a path that is not UTF-8 can't
    // be tracked, and the crate then only rebuilds when its own sources change.
    let source_file = full_path.to_str().map(str::to_string);
    let origin = File {
        path,
        text: &text,
        literal,
    };
    let generation = Generation { source_file, runtime };
    expand::expand(&text, &origin, &generation)
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
            message: snippet::render(self.path, self.text, diagnostic),
            first: self.literal,
            last: self.literal,
        }
    }

    fn no_machine(&self) -> Shown {
        Shown {
            message: format!(
                "`{}` defines no machine\nhelp: write one, like \
                 `machine Door {{ initial state closed; }}`",
                self.path
            ),
            first: self.literal,
            last: self.literal,
        }
    }
}
