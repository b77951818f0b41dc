//! Open documents: their text, kept in sync by incremental edits, and the
//! conversion between the protocol's positions and the front end's byte
//! offsets. Positions count UTF-16 code units unless the client offered
//! UTF-8 at initialization; this module is the only place that knows.

use super::analysis::{Analysis, KnownNames};
use fsm_grammar::Span;
use lsp_types::{InitializeParams, Position, PositionEncodingKind, Range, TextDocumentContentChangeEvent};

/// The unit of `Position::character` agreed with the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Bytes of UTF-8, when the client offers it.
    Utf8,
    /// UTF-16 code units, the protocol's default.
    Utf16,
}

impl Encoding {
    /// UTF-8 when the client lists it among its `positionEncodings` (no
    /// conversion needed), else the mandatory UTF-16.
    pub fn negotiate(params: &InitializeParams) -> Encoding {
        let offered = params
            .capabilities
            .general
            .as_ref()
            .and_then(|general| general.position_encodings.as_ref());
        match offered {
            Some(list) if list.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
            _ => Encoding::Utf16,
        }
    }

    /// The encoding's name in the protocol.
    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }
    }

    fn width(self, c: char) -> usize {
        match self {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
        }
    }
}

/// The byte offsets where the lines of a text start. Lines end at `\n`; a
/// `\r` before it belongs to no column a client can address.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Index `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// The position of byte `offset` (clamped to the text and to a character boundary).
    pub fn position(&self, text: &str, offset: usize, encoding: Encoding) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&start| start <= offset) - 1;
        let start = self.starts[line];
        let character: usize = text[start..offset].chars().map(|c| encoding.width(c)).sum();
        Position::new(to_u32(line), to_u32(character))
    }

    /// The byte offset of `position`. A line past the end is the end of the
    /// text; a character past the end of its line is the end of the line;
    /// one inside a character (half of a surrogate pair) is its start.
    pub fn offset(&self, text: &str, position: Position, encoding: Encoding) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return text.len();
        };
        let end = self
            .starts
            .get(position.line as usize + 1)
            .map_or(text.len(), |&next| next - 1);
        let line = &text[start..end];
        let line = line.strip_suffix('\r').unwrap_or(line);
        let wanted = position.character as usize;
        let mut units = 0;
        for (i, c) in line.char_indices() {
            let width = encoding.width(c);
            if units + width > wanted {
                return start + i;
            }
            units += width;
        }
        start + line.len()
    }

    /// The range of `span`.
    pub fn range(&self, text: &str, span: Span, encoding: Encoding) -> Range {
        Range::new(
            self.position(text, span.start, encoding),
            self.position(text, span.end, encoding),
        )
    }

    /// The span of `range` (ordered, whatever the client sent).
    pub fn span(&self, text: &str, range: Range, encoding: Encoding) -> Span {
        let a = self.offset(text, range.start, encoding);
        let b = self.offset(text, range.end, encoding);
        Span::new(a.min(b), a.max(b))
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// One open document.
pub struct Document {
    /// The version the client gave with its last change.
    pub version: i32,
    text: String,
    lines: LineIndex,
    encoding: Encoding,
    /// The analysis of the current text; `None` until it is needed.
    analysis: Option<Analysis>,
    /// The version whose diagnostics were last published.
    pub published: Option<i32>,
    /// The names of every machine as of the last time it parsed.
    known: KnownNames,
}

impl Document {
    /// A document opened with `text`.
    pub fn new(text: String, version: i32, encoding: Encoding) -> Document {
        Document {
            version,
            lines: LineIndex::new(&text),
            text,
            encoding,
            analysis: None,
            published: None,
            known: KnownNames::new(),
        }
    }

    /// The current text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Apply the client's changes in order, each relative to the text the
    /// previous one left (a change without a range replaces the whole text).
    pub fn apply(&mut self, version: i32, changes: Vec<TextDocumentContentChangeEvent>) {
        for change in changes {
            match change.range {
                Some(range) => {
                    let span = self.span(range);
                    self.text.replace_range(span.start..span.end, &change.text);
                }
                None => self.text = change.text,
            }
            self.lines = LineIndex::new(&self.text);
        }
        self.version = version;
        self.analysis = None;
    }

    /// The analysis of the current text, if it was made.
    pub fn analysis(&self) -> Option<&Analysis> {
        self.analysis.as_ref()
    }

    /// Store the analysis of the current text.
    pub fn set_analysis(&mut self, analysis: Analysis) {
        self.known.extend(analysis.known_names());
        self.analysis = Some(analysis);
    }

    /// The names of every machine as of the last time it parsed.
    pub fn known_names(&self) -> &KnownNames {
        &self.known
    }

    /// Drop the analysis, so the next one reads the configuration afresh.
    pub fn invalidate(&mut self) {
        self.analysis = None;
        self.published = None;
    }

    /// True when the text changed since the last analysis.
    pub fn is_stale(&self) -> bool {
        self.analysis.is_none()
    }

    /// The position of byte `offset`.
    pub fn position(&self, offset: usize) -> Position {
        self.lines.position(&self.text, offset, self.encoding)
    }

    /// The byte offset of `position`.
    pub fn offset(&self, position: Position) -> usize {
        self.lines.offset(&self.text, position, self.encoding)
    }

    /// The range of `span`.
    pub fn range(&self, span: Span) -> Range {
        self.lines.range(&self.text, span, self.encoding)
    }

    /// The span of `range`.
    pub fn span(&self, range: Range) -> Span {
        self.lines.span(&self.text, range, self.encoding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(range: Option<Range>, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range,
            range_length: None,
            text: text.into(),
        }
    }

    #[test]
    fn utf16_counts_surrogate_pairs_twice_and_utf8_counts_bytes() {
        // `é` is 2 bytes and 1 UTF-16 unit; `𝄞` is 4 bytes and 2 units.
        let text = "a\n// é𝄞 x\r\nz";
        let lines = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(lines.position(text, x, Encoding::Utf16), Position::new(1, 7));
        assert_eq!(lines.position(text, x, Encoding::Utf8), Position::new(1, 10));
        assert_eq!(lines.offset(text, Position::new(1, 7), Encoding::Utf16), x);
        assert_eq!(lines.offset(text, Position::new(1, 10), Encoding::Utf8), x);
        // Inside the surrogate pair: the start of `𝄞`.
        let clef = text.find('𝄞').unwrap();
        assert_eq!(lines.offset(text, Position::new(1, 5), Encoding::Utf16), clef);
        // Past the end of a CRLF line: before the `\r`; past the last line: the end.
        assert_eq!(lines.offset(text, Position::new(1, 99), Encoding::Utf16), x + 1);
        assert_eq!(
            lines.offset(text, Position::new(9, 0), Encoding::Utf16),
            text.len()
        );
    }

    #[test]
    fn incremental_changes_apply_in_order() {
        let mut doc = Document::new("machine M {\n}\n".into(), 1, Encoding::Utf16);
        doc.apply(
            2,
            vec![
                change(
                    Some(Range::new(Position::new(1, 0), Position::new(1, 0))),
                    "  state é;\n",
                ),
                // Relative to the text the first change left.
                change(Some(Range::new(Position::new(1, 8), Position::new(1, 9))), "ü"),
                change(Some(Range::new(Position::new(0, 8), Position::new(0, 9))), "N"),
            ],
        );
        assert_eq!(doc.text(), "machine N {\n  state ü;\n}\n");
        assert_eq!(doc.version, 2);
        doc.apply(3, vec![change(None, "x")]);
        assert_eq!(doc.text(), "x");
    }
}
