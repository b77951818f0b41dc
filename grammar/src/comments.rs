//! Comment scanning. The language has no string literals, so every `//`
//! starts a comment that runs to the end of its line.

use crate::ast::Comment;
use crate::span::Span;

/// Every `//` and `///` comment of `text`, in order.
///
/// `///` is a doc comment; `////` and longer are ordinary comments, as in Rust.
pub fn scan(text: &str) -> Vec<Comment> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'/' && bytes[i + 1] == b'/' {
            let end = text[i..].find('\n').map_or(text.len(), |n| i + n);
            let end = if end > i && bytes[end - 1] == b'\r' {
                end - 1
            } else {
                end
            };
            let raw = &text[i..end];
            let doc = raw.starts_with("///") && !raw.starts_with("////");
            let body = if doc { &raw[3..] } else { &raw[2..] };
            let text = if doc {
                body.strip_prefix(' ').unwrap_or(body)
            } else {
                body
            };
            // Trailing whitespace is not part of the comment: a doc comment
            // ending in spaces must still touch the item below it.
            out.push(Comment {
                span: Span::new(i, i + raw.trim_end().len()),
                doc,
                text: text.trim_end().to_string(),
            });
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// Finds the doc comments that directly precede an item.
pub(crate) struct DocIndex<'a> {
    text: &'a str,
    comments: &'a [Comment],
}

impl<'a> DocIndex<'a> {
    pub(crate) fn new(text: &'a str, comments: &'a [Comment]) -> Self {
        DocIndex { text, comments }
    }

    /// The doc lines written directly above `item_start`, with only whitespace
    /// between them and the item.
    pub(crate) fn docs_before(&self, item_start: usize) -> Vec<String> {
        let mut lines = Vec::new();
        let mut pos = item_start;
        loop {
            let before = self.text[..pos].trim_end();
            let end = before.len();
            // The comment ending exactly where the whitespace starts, if any.
            let idx = self.comments.partition_point(|c| c.span.end < end);
            match self.comments.get(idx) {
                Some(c) if c.span.end == end && c.doc => {
                    lines.push(c.text.clone());
                    pos = c.span.start;
                }
                _ => break,
            }
        }
        lines.reverse();
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_line_and_doc_comments() {
        let c = scan("a // x\r\n/// doc\n//// not doc\nb");
        assert_eq!(c.len(), 3);
        assert!(!c[0].doc);
        assert_eq!(c[0].text, " x");
        assert!(c[1].doc);
        assert_eq!(c[1].text, "doc");
        assert!(!c[2].doc);
    }

    #[test]
    fn docs_attach_only_when_adjacent() {
        let text = "/// one\n/// two\nstate a;\n/// lost\n\n// plain\nstate b;";
        let comments = scan(text);
        let idx = DocIndex::new(text, &comments);
        assert_eq!(idx.docs_before(text.find("state a").unwrap()), ["one", "two"]);
        assert!(idx.docs_before(text.find("state b").unwrap()).is_empty());
    }
}
