//! Whole-document formatting through `fsmc fmt`'s formatter, keeping the
//! document's line endings and byte order mark as `fsmc fmt` does. The edit
//! covers only the part that changes, so the cursor stays where it was.

use super::documents::Document;
use crate::fmt::TextStyle;
use fsm_grammar::Span;
use lsp_types::TextEdit;

/// The edits that format `document`: none when it is formatted already, or
/// when it has syntax errors (its diagnostics say where).
pub fn format(document: &Document) -> Vec<TextEdit> {
    let text = document.text();
    let Ok(formatted) = fsm_grammar::format::format(text) else {
        return Vec::new();
    };
    let formatted = TextStyle::of(text).apply(&formatted);
    let (span, replacement) = difference(text, &formatted);
    if span.is_empty() && replacement.is_empty() {
        return Vec::new();
    }
    vec![TextEdit::new(document.range(span), replacement.to_string())]
}

/// The span of `old` that differs from `new` (without their common start
/// and end, cut at character boundaries), and what replaces it.
fn difference<'n>(old: &str, new: &'n str) -> (Span, &'n str) {
    let mut prefix = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = (old.len() - prefix).min(new.len() - prefix);
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    (
        Span::new(prefix, old.len() - suffix),
        &new[prefix..new.len() - suffix],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_difference_keeps_the_common_start_and_end() {
        assert_eq!(difference("abcXYdef", "abcZdef"), (Span::new(3, 5), "Z"));
        assert_eq!(difference("same", "same"), (Span::new(4, 4), ""));
        assert_eq!(difference("aa", "aaa"), (Span::new(2, 2), "a"));
        // `é` and `è` share their first byte: the edit starts at the character.
        assert_eq!(difference("é", "è"), (Span::new(0, 2), "è"));
    }
}
