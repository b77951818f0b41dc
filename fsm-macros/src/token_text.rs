//! Inline `fsm! { ... }` hands the macro tokens, not text. This module lays the
//! tokens back out at the lines and columns they were written at, so the text
//! given to `fsm_grammar::check` reads like what the user wrote, and it keeps,
//! for every piece of that text, the span it came from. A diagnostic's byte
//! range then maps back to the exact tokens it concerns. That map does not
//! depend on the positions being right: they only decide where text goes, so
//! a host that gives no positions still gets diagnostics on the right tokens.
//!
//! What rustc changes on the way in, and how the layout copes:
//! - `//` comments are dropped. They mean nothing to the checker either.
//! - `/// text` arrives as `#[doc = " text"]`, every token of it spanning the
//!   comment. It is written back as the comment's source text, or rebuilt from
//!   the literal when the source is not at hand (an explicit `#[doc = "..."]`,
//!   a `/** */` block), so docs attach to the next item as in a `.fsm` file.
//! - `->`, `&&`, `||` and the `-` of `unreachable-state` arrive as single
//!   punctuation tokens; placed at their columns they join up again.
//! - Tokens without a usable position (made by another macro, or out of
//!   order because they come from another file) follow the previous token,
//!   separated by a space only where the two would otherwise merge: two
//!   words, or a punctuation that was not joint to the next one.

use proc_macro2::{Delimiter, LineColumn, Punct, Spacing, Span, TokenStream, TokenTree};
use std::ops::Range;

/// Where tokens are in the user's source.
pub(crate) trait Locate {
    /// Where `span` starts: a 1-based line and a 0-based column counted in
    /// characters, or `None` when unknown.
    fn start(&self, span: Span) -> Option<LineColumn>;

    /// The source text `span` covers, if the compiler knows it.
    fn source_text(&self, span: Span) -> Option<String>;

    /// The file `span` is in, for display.
    fn file(&self, span: Span) -> String;
}

/// The positions the compiler gives spans (proc-macro2's `span-locations`,
/// which inside a proc macro is the `proc_macro` span API of Rust 1.88).
pub(crate) struct SpanLocations;

impl Locate for SpanLocations {
    fn start(&self, span: Span) -> Option<LineColumn> {
        let start = span.start();
        // Line 0 is what proc-macro2 answers when it knows nothing.
        (start.line > 0).then_some(start)
    }

    fn source_text(&self, span: Span) -> Option<String> {
        span.source_text()
    }

    fn file(&self, span: Span) -> String {
        span.file()
    }
}

/// Tokens laid out as text, with the span of every piece of it.
#[derive(Clone, Debug)]
pub(crate) struct LaidOut {
    /// The reconstructed `.fsm` text.
    pub(crate) text: String,
    /// Every token's byte range in `text` and its span, in text order.
    pieces: Vec<Piece>,
}

#[derive(Clone, Debug)]
struct Piece {
    range: Range<usize>,
    span: Span,
}

impl LaidOut {
    /// The spans of the first and last tokens covering `range` of the text,
    /// for an error that starts at one and ends at the other. An empty range
    /// maps to the token at or after it; past the end, to the last token.
    /// `None` only when there are no tokens at all.
    pub(crate) fn spans(&self, range: fsm_grammar::Span) -> Option<(Span, Span)> {
        let last_piece = self.pieces.len().checked_sub(1)?;
        let first = self
            .pieces
            .partition_point(|p| p.range.end <= range.start)
            .min(last_piece);
        let last = self
            .pieces
            .partition_point(|p| p.range.start < range.end)
            .saturating_sub(1)
            .max(first);
        Some((self.pieces[first].span, self.pieces[last].span))
    }
}

/// Lay `tokens` out as text at their original positions.
pub(crate) fn lay_out(tokens: TokenStream, locate: &dyn Locate) -> LaidOut {
    let mut writer = Writer {
        locate,
        laid_out: LaidOut {
            text: String::new(),
            pieces: Vec::new(),
        },
        line_offset: None,
        line: 0,
        column: 0,
        after_line_comment: false,
        previous: None,
    };
    writer.stream(tokens);
    writer.laid_out
}

struct Writer<'l> {
    locate: &'l dyn Locate,
    laid_out: LaidOut,
    /// What to add to a line of the user's file to get the line of the text,
    /// set by the first token with a position.
    line_offset: Option<isize>,
    /// The cursor: 0-based line of the text, and column in characters.
    line: usize,
    column: usize,
    /// The text ends in a `//` comment, so the next token needs a new line.
    after_line_comment: bool,
    /// What the last token was.
    previous: Option<Kind>,
}

/// What a token is, as far as separating it from its neighbours goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An identifier or a literal.
    Word,
    /// A punctuation character; joint when the next one was glued to it.
    Punct { joint: bool },
    /// A delimiter, or a doc comment: it never merges with a neighbour.
    Separate,
}

impl Kind {
    /// Whether `self` followed by `next` needs a space to stay two tokens.
    fn needs_space_before(self, next: Kind) -> bool {
        matches!(
            (self, next),
            (Kind::Word, Kind::Word) | (Kind::Punct { joint: false }, Kind::Punct { .. })
        )
    }
}

impl Writer<'_> {
    fn stream(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            if let Some((doc, consumed)) = DocAttribute::at(&tokens[i..]) {
                self.doc(&doc);
                i += consumed;
                continue;
            }
            match &tokens[i] {
                TokenTree::Group(group) => {
                    let delimiters = match group.delimiter() {
                        Delimiter::Parenthesis => Some(("(", ")")),
                        Delimiter::Brace => Some(("{", "}")),
                        Delimiter::Bracket => Some(("[", "]")),
                        Delimiter::None => None,
                    };
                    match delimiters {
                        Some((open, close)) => {
                            self.piece(group.span_open(), open, Kind::Separate);
                            self.stream(group.stream());
                            self.piece(group.span_close(), close, Kind::Separate);
                        }
                        None => self.stream(group.stream()),
                    }
                }
                TokenTree::Punct(punct) => self.punct(punct),
                // `to_string` is the token itself; `source_text` is whatever its
                // span covers, which differs when a macro lent it another span.
                TokenTree::Ident(ident) => {
                    self.piece(ident.span(), &ident.to_string(), Kind::Word);
                }
                TokenTree::Literal(literal) => {
                    self.piece(literal.span(), &literal.to_string(), Kind::Word);
                }
            }
            i += 1;
        }
    }

    fn punct(&mut self, punct: &Punct) {
        let mut buffer = [0; 4];
        let text = punct.as_char().encode_utf8(&mut buffer);
        let joint = punct.spacing() == Spacing::Joint;
        self.piece(punct.span(), text, Kind::Punct { joint });
    }

    fn doc(&mut self, doc: &DocAttribute) {
        let marker = if doc.inner { "//!" } else { "///" };
        // The comment as written when the compiler has it; a rebuilt one for
        // `#[doc = "..."]` and `/** */`, one `///` per line of the value.
        // Trailing whitespace is trimmed: it means nothing in a doc comment,
        // and the checker only attaches a comment that ends at its last word.
        let text = match self.locate.source_text(doc.span) {
            Some(source) if source.starts_with(marker) && !source.contains('\n') => {
                source.trim_end().to_string()
            }
            _ => doc
                .value
                .split('\n')
                .map(|line| format!("{marker}{}", line.trim_end()))
                .collect::<Vec<_>>()
                .join("\n"),
        };
        self.piece(doc.span, &text, Kind::Separate);
        self.after_line_comment = true;
    }

    /// Write one token's text at its position and remember its span.
    fn piece(&mut self, span: Span, text: &str, kind: Kind) {
        self.move_to(self.locate.start(span), kind);
        let start = self.laid_out.text.len();
        self.write(text);
        self.laid_out.pieces.push(Piece {
            range: start..self.laid_out.text.len(),
            span,
        });
        self.previous = Some(kind);
        self.after_line_comment = false;
    }

    /// Move the cursor to `at` when it lies ahead; otherwise separate the next
    /// token, a `next`, from the previous one as little as is safe.
    fn move_to(&mut self, at: Option<LineColumn>, next: Kind) {
        if let Some(at) = at {
            let line = at.line as isize + *self.line_offset.get_or_insert(-(at.line as isize));
            let here = self.line as isize;
            if line == here && self.after_line_comment {
                // A token on the line of a rebuilt `///` comment: the comment
                // must end its line, so this line and the rest move down one.
                self.write("\n");
                self.line_offset = self.line_offset.map(|offset| offset + 1);
                self.pad_to(at.column);
                return;
            }
            if line > here || (line == here && at.column >= self.column) {
                while (self.line as isize) < line {
                    self.write("\n");
                }
                self.pad_to(at.column);
                return;
            }
        }
        if self.after_line_comment {
            self.write("\n");
        } else if self.column > 0 && self.previous.is_some_and(|p| p.needs_space_before(next)) {
            self.write(" ");
        }
    }

    fn pad_to(&mut self, column: usize) {
        while self.column < column {
            self.write(" ");
        }
    }

    fn write(&mut self, text: &str) {
        self.laid_out.text.push_str(text);
        for c in text.chars() {
            if c == '\n' {
                self.line += 1;
                self.column = 0;
            } else {
                self.column += 1;
            }
        }
    }
}

/// `#[doc = "..."]` or `#![doc = "..."]`: what rustc makes of a doc comment.
struct DocAttribute {
    inner: bool,
    value: String,
    /// The span of the `#`, which for a doc comment is the whole comment.
    span: Span,
}

impl DocAttribute {
    /// The doc attribute at the start of `tokens`, and how many tokens it takes.
    fn at(tokens: &[TokenTree]) -> Option<(DocAttribute, usize)> {
        let TokenTree::Punct(pound) = tokens.first()? else {
            return None;
        };
        if pound.as_char() != '#' {
            return None;
        }
        let inner = matches!(tokens.get(1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
        let bracket_index = if inner { 2 } else { 1 };
        let TokenTree::Group(group) = tokens.get(bracket_index)? else {
            return None;
        };
        if group.delimiter() != Delimiter::Bracket {
            return None;
        }
        let inside: Vec<TokenTree> = group.stream().into_iter().collect();
        let [TokenTree::Ident(name), TokenTree::Punct(eq), TokenTree::Literal(literal)] = inside.as_slice()
        else {
            return None;
        };
        if name != "doc" || eq.as_char() != '=' {
            return None;
        }
        let syn::Lit::Str(value) = syn::Lit::new(literal.clone()) else {
            return None;
        };
        let doc = DocAttribute {
            inner,
            value: value.value(),
            span: pound.span(),
        };
        Some((doc, bracket_index + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    /// Parses `source` with proc-macro2 outside a proc macro, where
    /// `span-locations` tracks real positions, and lays it out again.
    fn round_trip(source: &str) -> LaidOut {
        let tokens = TokenStream::from_str(source).expect("test source lexes");
        lay_out(tokens, &SpanLocations)
    }

    /// A `Locate` that moves every position, or forgets them all.
    struct Shifted {
        lines: usize,
        columns: usize,
        known: bool,
    }

    impl Locate for Shifted {
        fn start(&self, span: Span) -> Option<LineColumn> {
            let start = SpanLocations.start(span)?;
            self.known.then_some(LineColumn {
                line: start.line + self.lines,
                column: start.column + self.columns,
            })
        }

        fn source_text(&self, span: Span) -> Option<String> {
            self.known.then(|| span.source_text()).flatten()
        }

        fn file(&self, span: Span) -> String {
            span.file()
        }
    }

    const DOOR: &str = "\
    /// The door.
    machine Door {
        #[allow(unreachable-state)]
        initial state closed {
            on open [has_key && !jammed || forced] priority -1 -> opened;
        }
        terminal state opened;
    }";

    #[test]
    fn tokens_land_at_their_original_lines_and_columns() {
        let laid_out = round_trip(DOOR);
        assert_eq!(laid_out.text, DOOR);
        let checked = fsm_grammar::check(&laid_out.text);
        assert!(checked.diagnostics.is_empty(), "{:?}", checked.diagnostics);
        assert_eq!(checked.model.machines[0].docs, ["The door."]);
    }

    #[test]
    fn line_comments_are_dropped_and_doc_comments_kept() {
        let laid_out = round_trip("machine M { // gone\n    /// kept\n    initial state a; }");
        assert_eq!(laid_out.text, "machine M {\n    /// kept\n    initial state a; }");
    }

    #[test]
    fn explicit_doc_attributes_become_doc_comments() {
        let laid_out = round_trip("#[doc = \"The door.\"] machine M { initial state a; }");
        assert_eq!(
            laid_out.text,
            "///The door.\n                     machine M { initial state a; }"
        );
        let checked = fsm_grammar::check(&laid_out.text);
        assert_eq!(checked.model.machines[0].docs, ["The door."]);
    }

    #[test]
    fn block_doc_comments_become_line_doc_comments_that_end_their_line() {
        let laid_out = round_trip("/** one\ntwo */ machine M { initial state a; }");
        assert_eq!(
            laid_out.text,
            "/// one\n///two\n       machine M { initial state a; }"
        );
        let checked = fsm_grammar::check(&laid_out.text);
        assert_eq!(checked.model.machines[0].docs, ["one", "two"]);
    }

    #[test]
    fn the_first_token_s_line_becomes_line_one_and_columns_stay() {
        let tokens = TokenStream::from_str(DOOR).expect("lexes");
        let shifted = Shifted {
            lines: 40,
            columns: 4,
            known: true,
        };
        let laid_out = lay_out(tokens, &shifted);
        let expected: Vec<String> = DOOR.lines().map(|l| format!("    {l}")).collect();
        assert_eq!(laid_out.text, expected.join("\n"));
    }

    #[test]
    fn without_positions_only_words_and_loose_punctuation_are_spaced() {
        let tokens = TokenStream::from_str(DOOR).expect("lexes");
        let unknown = Shifted {
            lines: 0,
            columns: 0,
            known: false,
        };
        let laid_out = lay_out(tokens, &unknown);
        assert_eq!(
            laid_out.text,
            "/// The door.\nmachine Door{#[allow(unreachable-state)]initial state closed{\
             on open[has_key&& !jammed||forced]priority-1->opened;}terminal state opened;}"
        );
        // Still the same machine to the checker.
        let checked = fsm_grammar::check(&laid_out.text);
        assert!(checked.diagnostics.is_empty(), "{:?}", checked.diagnostics);
        assert_eq!(checked.model.machines[0].docs, ["The door."]);
    }

    #[test]
    fn tokens_out_of_order_follow_the_previous_one() {
        // `b` claims to be before `a`: it cannot go back, so it follows.
        let a = TokenStream::from_str("       a").expect("lexes");
        let b = TokenStream::from_str("b").expect("lexes");
        let laid_out = lay_out(a.into_iter().chain(b).collect(), &SpanLocations);
        assert_eq!(laid_out.text, "       a b");
    }

    #[test]
    fn text_ranges_map_back_to_the_tokens_covering_them() {
        let source = "machine M {\n    initial state a { on go -> b; }\n}";
        let laid_out = round_trip(source);
        assert_eq!(laid_out.text, source);
        let covering = |start: usize, end: usize| {
            let (first, last) = laid_out
                .spans(fsm_grammar::Span::new(start, end))
                .expect("there are tokens");
            (first.start(), last.end())
        };
        let at = |line, column| LineColumn { line, column };
        let arrow = source.find("->").expect("arrow");
        // `->` is two tokens: the range starts at `-` and ends after `>`.
        assert_eq!(covering(arrow, arrow + 2), (at(2, 28), at(2, 30)));
        // An empty range points at the token at it...
        let b = source.find("b;").expect("b");
        assert_eq!(covering(b, b), (at(2, 31), at(2, 32)));
        // ... or after it, when it falls between tokens ...
        assert_eq!(covering(b - 1, b - 1), (at(2, 31), at(2, 32)));
        // ... and past the end, at the last token.
        assert_eq!(covering(999, 999), (at(3, 0), at(3, 1)));
        // A range over several lines spans from its first to its last token.
        assert_eq!(covering(0, source.len()), (at(1, 0), at(3, 1)));
    }

    #[test]
    fn no_tokens_map_to_nothing() {
        let laid_out = round_trip("");
        assert_eq!(laid_out.text, "");
        assert!(laid_out.spans(fsm_grammar::Span::new(0, 0)).is_none());
    }
}
