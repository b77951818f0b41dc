//! `fsm! { machine Door { ... } }`: the definition written in Rust source.
//!
//! The tokens are laid back out as text (see [`crate::layout`]) and every
//! diagnostic goes on the exact tokens its byte range covers.

use crate::expand::{self, Generation, Origin, Shown};
use crate::token_text::{self, LaidOut, Locate, SpanLocations};
use fsm_codegen::Module;
use fsm_grammar::Diagnostic;
use proc_macro2::{Span, TokenStream};
use std::fmt::Write as _;

/// Expand an inline definition, for the runtime crate at `runtime`, its
/// items going where `module` says.
pub(crate) fn expand(tokens: TokenStream, runtime: TokenStream, module: Module) -> TokenStream {
    let laid_out = token_text::lay_out(tokens, &SpanLocations);
    let origin = Inline {
        laid_out: &laid_out,
        locate: &SpanLocations,
    };
    let generation = Generation {
        source_file: None,
        runtime,
        module,
    };
    expand::expand(&laid_out.text, &origin, &generation)
}

/// Diagnostics of an inline definition, on its tokens.
pub(crate) struct Inline<'a> {
    pub(crate) laid_out: &'a LaidOut,
    pub(crate) locate: &'a dyn Locate,
}

impl Inline<'_> {
    fn spans(&self, range: fsm_grammar::Span) -> (Span, Span) {
        self.laid_out
            .spans(range)
            .unwrap_or((Span::call_site(), Span::call_site()))
    }

    /// `file:line:column` of the token at `range`, for a note.
    fn position(&self, range: fsm_grammar::Span) -> String {
        let (span, _) = self.spans(range);
        let file = self.locate.file(span);
        match self.locate.start(span) {
            Some(start) => format!("{file}:{}:{}", start.line, start.column + 1),
            None => file,
        }
    }
}

impl Origin for Inline<'_> {
    /// The message, then the secondary labels as notes (rustc shows one span
    /// per `compile_error!`), then the help:
    ///
    /// ```text
    /// state `a` is defined more than once in machine `M` [fsm::duplicate-state]
    /// note: first defined here: src/main.rs:4:23
    /// help: rename one of the states, or merge their transitions into one
    /// ```
    fn show(&self, diagnostic: &Diagnostic) -> Shown {
        let mut message = format!("{} [fsm::{}]", diagnostic.message, diagnostic.code.name());
        for label in &diagnostic.secondary {
            // Writing to a String cannot fail.
            let _ = write!(
                message,
                "\nnote: {}: {}",
                label.message,
                self.position(label.span)
            );
        }
        let _ = write!(message, "\nhelp: {}", diagnostic.help);
        let (first, last) = self.spans(diagnostic.span);
        Shown { message, first, last }
    }

    fn no_machine(&self) -> Shown {
        Shown {
            message: "`fsm!` defines no machine\nhelp: write one, like \
                      `fsm! { machine Door { initial state closed; } }`, \
                      or read one from a file with `fsm!(file = \"machines/door.fsm\")`"
                .to_string(),
            first: Span::call_site(),
            last: Span::call_site(),
        }
    }

    fn at(&self, span: fsm_grammar::Span, message: &str, help: &str) -> Shown {
        let (first, last) = self.spans(span);
        Shown {
            message: format!("{message}\nhelp: {help}"),
            first,
            last,
        }
    }

    /// The first token of each range: a declaration's name, as the
    /// diagnostics' spans are.
    fn declaration_spans(&self) -> fsm_codegen::Spans {
        let laid_out = self.laid_out.clone();
        fsm_codegen::Spans::new(move |range| laid_out.spans(range).map(|(first, _)| first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::LineColumn;
    use std::str::FromStr;

    /// Real positions of text parsed by proc-macro2, in a made-up file.
    struct InMain;

    impl Locate for InMain {
        fn start(&self, span: Span) -> Option<LineColumn> {
            SpanLocations.start(span)
        }

        fn source_text(&self, span: Span) -> Option<String> {
            SpanLocations.source_text(span)
        }

        fn file(&self, _: Span) -> String {
            "src/main.rs".to_string()
        }
    }

    fn messages(source: &str) -> Vec<String> {
        let tokens = TokenStream::from_str(source).expect("test source lexes");
        let laid_out = token_text::lay_out(tokens, &InMain);
        let inline = Inline {
            laid_out: &laid_out,
            locate: &InMain,
        };
        fsm_grammar::check(&laid_out.text)
            .diagnostics
            .iter()
            .map(|diagnostic| inline.show(diagnostic).message)
            .collect()
    }

    #[test]
    fn a_message_has_the_code_the_secondary_places_and_the_help() {
        let source = "machine M {\n    initial state a { on go -> b; }\n    terminal state b;\n    terminal state a;\n}";
        assert_eq!(
            messages(source),
            [
                "state `a` is defined more than once in machine `M` [fsm::duplicate-state]\n\
                 note: first defined here: src/main.rs:2:19\n\
                 help: rename one of the states, or merge their transitions into one"
            ]
        );
    }
}
