//! Byte spans into the source text, and conversion to line/column positions.

use std::fmt;

/// A half-open byte range `start..end` into one source text.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end` (byte offsets).
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    /// Number of bytes covered.
    pub fn len(self) -> usize {
        self.end - self.start
    }

    /// True for an empty span (a position between two bytes).
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// The same span moved `offset` bytes to the right.
    pub fn shifted(self, offset: usize) -> Span {
        Span::new(self.start + offset, self.end + offset)
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

impl From<pest::Span<'_>> for Span {
    fn from(s: pest::Span<'_>) -> Self {
        Span::new(s.start(), s.end())
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(s: Span) -> Self {
        miette::SourceSpan::new(s.start.into(), s.len())
    }
}

/// A 1-based line and column; the column counts characters, not bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// Maps byte offsets of one text to line/column positions in `O(log lines)`.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    /// Index the line starts of `text`.
    pub fn new(text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { line_starts }
    }

    /// The line/column of byte `offset` in `text` (clamped to the text).
    pub fn line_col(&self, text: &str, offset: usize) -> LineCol {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let mut column = text[start..offset].chars().count() + 1;
        // A byte order mark is not a column of its own.
        if start == 0 && offset > 0 && text.starts_with('\u{FEFF}') {
            column -= 1;
        }
        LineCol {
            line: line + 1,
            column,
        }
    }
}

/// The largest char boundary of `text` at or below `offset`.
pub(crate) fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_columns_are_one_based_and_count_chars() {
        let text = "ab\nçd\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), LineCol { line: 1, column: 1 });
        assert_eq!(idx.line_col(text, 3), LineCol { line: 2, column: 1 });
        // `d` is byte 5 (ç is two bytes) but column 2.
        assert_eq!(idx.line_col(text, 5), LineCol { line: 2, column: 2 });
        assert_eq!(idx.line_col(text, 99), LineCol { line: 3, column: 1 });
    }

    #[test]
    fn a_byte_order_mark_is_not_a_column() {
        let text = "\u{FEFF}machine M\nab";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), LineCol { line: 1, column: 1 });
        assert_eq!(idx.line_col(text, 3), LineCol { line: 1, column: 1 });
        assert_eq!(idx.line_col(text, 11), LineCol { line: 1, column: 9 });
        assert_eq!(idx.line_col(text, 14), LineCol { line: 2, column: 2 });
    }
}
