//! The human report: miette's graphical report with the source snippet.

use crate::diagnostic::Diagnostic;

/// Render `diagnostics` of one file as miette graphical reports with the source
/// snippet, each followed by a blank line.
///
/// `width` is the column at which text is wrapped. With `color` false the
/// output is plain unicode without escape sequences, stable for snapshots.
/// The documentation URL is printed as text after the code rather than as a
/// terminal hyperlink, so it is visible (and clickable) in every terminal.
pub fn human<'d>(
    file_name: &str,
    source: &str,
    diagnostics: impl IntoIterator<Item = &'d Diagnostic>,
    width: usize,
    color: bool,
) -> String {
    use miette::{GraphicalReportHandler, GraphicalTheme};

    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(width)
        .with_links(false);
    let source = Cropped {
        name: file_name,
        text: source,
    };
    let mut out = String::new();
    for diagnostic in diagnostics {
        let with_source = WithSource {
            diagnostic,
            source: &source,
        };
        handler
            .render_report(&mut out, &with_source)
            .expect("writing to a String cannot fail");
        out.push('\n');
    }
    out
}

/// A diagnostic together with the named source it points into, which is what
/// miette needs to draw the snippet. Borrowing both keeps rendering linear in
/// the number of diagnostics instead of copying the source for each.
struct WithSource<'a> {
    diagnostic: &'a Diagnostic,
    source: &'a Cropped<'a>,
}

/// The most bytes of one line a snippet shows around a label. Longer lines
/// are shown as a window starting at the label, so a 10 MB line costs a
/// snippet of this size, not 10 MB.
const SNIPPET_WINDOW: usize = 120;

/// A line longer than this many bytes is shown as a window.
const LONG_LINE: usize = 4 * SNIPPET_WINDOW;

/// Source text for miette that shows long lines as a window.
struct Cropped<'a> {
    name: &'a str,
    text: &'a str,
}

impl miette::SourceCode for Cropped<'_> {
    fn read_span<'a>(
        &'a self,
        span: &miette::SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        let full = self
            .text
            .read_span(span, context_lines_before, context_lines_after)?;
        let named = |data: &'a [u8], at: miette::SourceSpan, line, column, count| {
            Box::new(miette::MietteSpanContents::new_named(
                self.name.to_string(),
                data,
                at,
                line,
                column,
                count,
            )) as Box<dyn miette::SpanContents<'a> + 'a>
        };
        // Lines of sane length: the whole context, as miette would show it,
        // or without the context when only a neighbouring line is long.
        let longest = |data: &[u8]| data.split(|&b| b == b'\n').map(<[u8]>::len).max().unwrap_or(0);
        if longest(full.data()) <= LONG_LINE {
            return Ok(named(
                full.data(),
                *full.span(),
                full.line(),
                full.column(),
                full.line_count(),
            ));
        }
        let from = span.offset().min(self.text.len());
        let to = (from + span.len()).min(self.text.len());
        let line_start = self.text[..from].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.text[to..].find('\n').map_or(self.text.len(), |i| to + i);
        let own = self
            .text
            .read_span(&miette::SourceSpan::from(line_start..line_end), 0, 0)?;
        if longest(own.data()) <= LONG_LINE {
            return Ok(named(
                own.data(),
                *own.span(),
                own.line(),
                own.column(),
                own.line_count(),
            ));
        }
        // A window of the label's own line, starting where the label starts
        // (so the reported column is exact) and no longer than a window.
        let start = span.offset().min(self.text.len());
        let line_end = self.text[start..]
            .find('\n')
            .map_or(self.text.len(), |i| start + i);
        let mut end = line_end.min(start + SNIPPET_WINDOW.max(span.len().min(SNIPPET_WINDOW)));
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let at = self
            .text
            .read_span(&miette::SourceSpan::from(start..start), 0, 0)?;
        Ok(named(
            &self.text.as_bytes()[start..end],
            miette::SourceSpan::from(start..end),
            at.line(),
            at.column(),
            1,
        ))
    }
}

impl std::fmt::Debug for WithSource<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.diagnostic, f)
    }
}

impl std::fmt::Display for WithSource<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self.diagnostic, f)
    }
}

impl std::error::Error for WithSource<'_> {}

impl miette::Diagnostic for WithSource<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        miette::Diagnostic::code(self.diagnostic)
    }

    fn severity(&self) -> Option<miette::Severity> {
        miette::Diagnostic::severity(self.diagnostic)
    }

    fn help<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        miette::Diagnostic::help(self.diagnostic)
    }

    fn url<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        miette::Diagnostic::url(self.diagnostic)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        // When a label sits on a very long line, the snippet shows the
        // primary label alone, under a window of its line (see `Cropped`):
        // the spans of the other reports stay exact.
        let text = self.source.text;
        let labels: Vec<miette::LabeledSpan> = miette::Diagnostic::labels(self.diagnostic)?.collect();
        let line_of = |offset: usize| {
            let start = offset.min(text.len());
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
            (start, line_end, line_end - line_start > LONG_LINE)
        };
        if !labels.iter().any(|l| line_of(l.offset()).2) {
            return Some(Box::new(labels.into_iter()));
        }
        let primary = labels.into_iter().filter(|l| l.primary()).map(move |label| {
            let (start, line_end, _) = line_of(label.offset());
            let mut end = line_end.min(start + label.len()).min(start + SNIPPET_WINDOW);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            miette::LabeledSpan::new_primary_with_span(label.label().map(str::to_string), start..end)
        });
        Some(Box::new(primary))
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(self.source)
    }
}
