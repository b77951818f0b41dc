//! Diagnostic reporters, one per output format: human (miette's graphical
//! report), JSON, and GitHub Actions annotations.
//!
//! Every reporter is a pure function from diagnostics to text, so the CLI only
//! decides where the text goes and the output can be tested exactly.
//!
//! Positions in the JSON and GitHub formats are 1-based lines and columns, and
//! columns count characters, not bytes. The end position is the one just past
//! the last character of the span (exclusive), like LSP and ESLint.

use crate::diagnostic::{Diagnostic, Severity};
use crate::span::{LineCol, LineIndex};

/// Render `diagnostics` of one file as miette graphical reports with the source
/// snippet, each followed by a blank line.
///
/// `width` is the column at which text is wrapped. With `color` false the
/// output is plain unicode without escape sequences, stable for snapshots.
/// The documentation URL is printed as text after the code rather than as a
/// terminal hyperlink, so it is visible (and clickable) in every terminal.
#[cfg(feature = "fancy")]
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
#[cfg(feature = "fancy")]
struct WithSource<'a> {
    diagnostic: &'a Diagnostic,
    source: &'a Cropped<'a>,
}

/// The most bytes of one line a snippet shows around a label. Longer lines
/// are shown as a window starting at the label, so a 10 MB line costs a
/// snippet of this size, not 10 MB.
#[cfg(feature = "fancy")]
const SNIPPET_WINDOW: usize = 120;

/// A line longer than this many bytes is shown as a window.
#[cfg(feature = "fancy")]
const LONG_LINE: usize = 4 * SNIPPET_WINDOW;

/// Source text for miette that shows long lines as a window.
#[cfg(feature = "fancy")]
struct Cropped<'a> {
    name: &'a str,
    text: &'a str,
}

#[cfg(feature = "fancy")]
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

#[cfg(feature = "fancy")]
impl std::fmt::Debug for WithSource<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.diagnostic, f)
    }
}

#[cfg(feature = "fancy")]
impl std::fmt::Display for WithSource<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self.diagnostic, f)
    }
}

#[cfg(feature = "fancy")]
impl std::error::Error for WithSource<'_> {}

#[cfg(feature = "fancy")]
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

/// One diagnostic as an object of the JSON report. The fields, their names
/// and their order are part of the output format.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct JsonDiagnostic {
    /// The kebab-case code, e.g. `unknown-state`.
    pub code: &'static str,
    /// `error` or `warning`.
    pub severity: Severity,
    /// The one-sentence message.
    pub message: String,
    /// The file, as the user named it.
    pub file: String,
    /// 1-based line of the start of the span.
    pub line: usize,
    /// 1-based column (in characters) of the start of the span.
    pub column: usize,
    /// 1-based line of the end of the span.
    pub end_line: usize,
    /// 1-based column (in characters) just past the end of the span.
    pub end_column: usize,
    /// What to do about it.
    pub help: String,
}

/// The JSON records of one file's diagnostics. Collect the records of every
/// file and render them once with [`json_array`], so that a run over several
/// files prints one array.
pub fn json(file_name: &str, source: &str, diagnostics: &[Diagnostic]) -> Vec<JsonDiagnostic> {
    let index = LineIndex::new(source);
    diagnostics
        .iter()
        .map(|d| {
            let (start, end) = positions(&index, source, d);
            JsonDiagnostic {
                code: d.code.name(),
                severity: d.severity,
                message: d.message.clone(),
                file: file_name.to_string(),
                line: start.line,
                column: start.column,
                end_line: end.line,
                end_column: end.column,
                help: d.help.clone(),
            }
        })
        .collect()
}

/// Render records as one pretty-printed JSON array followed by a newline.
/// An empty run gives `[]`.
pub fn json_array(records: &[JsonDiagnostic]) -> String {
    let mut out = serde_json::to_string_pretty(records).expect("JSON records always serialize");
    out.push('\n');
    out
}

/// Render `diagnostics` of one file as GitHub Actions workflow commands, one
/// line each:
///
/// ```text
/// ::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=CODE::MESSAGE%0Ahelp: HELP
/// ```
///
/// Warnings use `::warning`. Columns are given for spans over several lines
/// too (GitHub accepts `col`/`endColumn` with a different `line`/`endLine`).
/// The message is followed by the help on its own line (`%0A`), so the
/// annotation says what to do. Values are escaped as the runner expects.
pub fn github(file_name: &str, source: &str, diagnostics: &[Diagnostic]) -> String {
    let index = LineIndex::new(source);
    let file = escape_property(file_name);
    let mut out = String::new();
    for d in diagnostics {
        let (start, end) = positions(&index, source, d);
        let command = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let message = if d.help.is_empty() {
            d.message.clone()
        } else {
            format!("{}\nhelp: {}", d.message, d.help)
        };
        out.push_str(&format!(
            "::{command} file={file},line={},col={},endLine={},endColumn={},title={}::{}\n",
            start.line,
            start.column,
            end.line,
            end.column,
            escape_property(d.code.name()),
            escape_data(&message),
        ));
    }
    out
}

/// The start and (exclusive) end position of a diagnostic's primary span.
fn positions(index: &LineIndex, source: &str, d: &Diagnostic) -> (LineCol, LineCol) {
    (
        index.line_col(source, d.span.start),
        index.line_col(source, d.span.end),
    )
}

/// Escape the message of a workflow command.
fn escape_data(value: &str) -> String {
    value
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a property value of a workflow command, where `:` and `,` are
/// separators.
fn escape_property(value: &str) -> String {
    escape_data(value).replace(':', "%3A").replace(',', "%2C")
}

/// The most diagnostics of one file a human report shows unless told
/// otherwise, as clang's `-ferror-limit` (also 20): enough to fix a file by,
/// few enough that 20 KB of garbage does not bury the summary. The rest are
/// counted in one line ([`Limited::note`]).
pub const MAX_HUMAN_DIAGNOSTICS: usize = 20;

/// One file's diagnostics as a limited human report shows them.
#[derive(Debug)]
pub struct Limited<'a> {
    /// The diagnostics shown, in position order.
    pub shown: Vec<&'a Diagnostic>,
    /// Errors left out.
    pub hidden_errors: usize,
    /// Warnings left out.
    pub hidden_warnings: usize,
}

impl Limited<'_> {
    /// The line that says how many diagnostics of `file_name` were left out,
    /// e.g. `89 more diagnostics in r.fsm not shown (85 errors, 4 warnings)`,
    /// or `None` when none were.
    pub fn note(&self, file_name: &str) -> Option<String> {
        let hidden = self.hidden_errors + self.hidden_warnings;
        if hidden == 0 {
            return None;
        }
        let kinds = match (self.hidden_errors, self.hidden_warnings) {
            (_, 0) => plural(self.hidden_errors, "error"),
            (0, _) => plural(self.hidden_warnings, "warning"),
            (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
        };
        let more = if hidden == 1 {
            "1 more diagnostic".to_string()
        } else {
            format!("{hidden} more diagnostics")
        };
        Some(format!("{more} in {file_name} not shown ({kinds})"))
    }
}

/// At most `max` of `diagnostics` (all of them when `max` is 0): errors are
/// chosen before warnings, each kind from the top of the file, and the ones
/// chosen are shown in position order.
pub fn limit(diagnostics: &[Diagnostic], max: usize) -> Limited<'_> {
    let max = if max == 0 { usize::MAX } else { max };
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let shown_errors = errors.min(max);
    let shown_warnings = (diagnostics.len() - errors).min(max - shown_errors);
    let (mut e, mut w) = (0, 0);
    let shown = diagnostics
        .iter()
        .filter(|d| {
            let (taken, room) = if d.is_error() {
                (&mut e, shown_errors)
            } else {
                (&mut w, shown_warnings)
            };
            *taken += 1;
            *taken <= room
        })
        .collect();
    Limited {
        shown,
        hidden_errors: errors - shown_errors,
        hidden_warnings: diagnostics.len() - errors - shown_warnings,
    }
}

/// The closing line of a run, e.g. `checked 5 files: 1 error, 2 warnings`, or
/// `checked 1 file: no errors or warnings`.
pub fn summary(files: usize, errors: usize, warnings: usize) -> String {
    let problems = match (errors, warnings) {
        (0, 0) => "no errors or warnings".to_string(),
        (e, 0) => plural(e, "error"),
        (0, w) => plural(w, "warning"),
        (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
    };
    format!("checked {}: {problems}", plural(files, "file"))
}

/// `1 error`, `2 errors`: a count with its noun, for summary lines.
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Code;
    use crate::span::Span;

    /// `ü` is two bytes, so byte offsets and character columns differ after it.
    const SOURCE: &str = "machine M {\n    /// ü\n    initial state a { on go -> bb; }\n}\n";

    fn span_of(needle: &str) -> Span {
        let start = SOURCE.find(needle).expect("needle is in the source");
        Span::new(start, start + needle.len())
    }

    fn unknown_state() -> Diagnostic {
        Diagnostic::new(
            Code::UnknownState,
            span_of("bb"),
            "transition on `go` targets unknown state `bb`",
            "no state with this name",
            "did you mean `b`?",
        )
    }

    fn duplicate_declaration() -> Diagnostic {
        Diagnostic::new(
            Code::DuplicateDeclaration,
            span_of("go"),
            "action `go` is declared more than once, 50% of the time\nreally",
            "declared again here",
            "remove it",
        )
        .with_label(span_of("a"), "first declared here")
    }

    #[test]
    fn json_counts_columns_in_characters() {
        // Line 2 is `    /// ü`; the diagnostic spans `ü` itself.
        let start = SOURCE.find('ü').unwrap();
        let mut d = unknown_state();
        d.span = Span::new(start, start + 'ü'.len_utf8());
        let records = json("m.fsm", SOURCE, &[d]);
        assert_eq!(
            (
                records[0].line,
                records[0].column,
                records[0].end_line,
                records[0].end_column
            ),
            (2, 9, 2, 10)
        );
    }

    #[test]
    fn json_renders_one_array_with_exactly_the_documented_fields() {
        let mut records = json("a.fsm", SOURCE, &[unknown_state()]);
        records.extend(json("b,c.fsm", "", &[]));
        assert_eq!(
            json_array(&records),
            r#"[
  {
    "code": "unknown-state",
    "severity": "error",
    "message": "transition on `go` targets unknown state `bb`",
    "file": "a.fsm",
    "line": 3,
    "column": 32,
    "end_line": 3,
    "end_column": 34,
    "help": "did you mean `b`?"
  }
]
"#
        );
        assert_eq!(json_array(&[]), "[]\n");
    }

    #[test]
    fn github_lines_escape_properties_and_messages() {
        let out = github(
            "dir/x,y:z.fsm",
            SOURCE,
            &[unknown_state(), duplicate_declaration()],
        );
        assert_eq!(
            out,
            "::error file=dir/x%2Cy%3Az.fsm,line=3,col=32,endLine=3,endColumn=34,title=unknown-state\
             ::transition on `go` targets unknown state `bb`%0Ahelp: did you mean `b`?\n\
             ::warning file=dir/x%2Cy%3Az.fsm,line=3,col=26,endLine=3,endColumn=28,\
             title=duplicate-declaration::action `go` is declared more than once, 50%25 of the time%0Areally\
             %0Ahelp: remove it\n"
        );
    }

    #[test]
    fn github_keeps_columns_for_spans_over_several_lines() {
        let mut d = unknown_state();
        d.span = Span::new(0, SOURCE.len() - 1);
        d.help = String::new();
        assert_eq!(
            github("m.fsm", SOURCE, &[d]),
            "::error file=m.fsm,line=1,col=1,endLine=4,endColumn=2,title=unknown-state\
             ::transition on `go` targets unknown state `bb`\n"
        );
    }

    #[test]
    fn github_counts_columns_in_characters() {
        let start = SOURCE.find('ü').unwrap();
        let mut d = unknown_state();
        d.span = Span::new(start, start + 'ü'.len_utf8());
        assert!(github("m.fsm", SOURCE, &[d]).contains(",line=2,col=9,endLine=2,endColumn=10,"));
    }

    #[test]
    fn a_limit_chooses_errors_first_and_keeps_position_order() {
        let mut warning = duplicate_declaration();
        warning.span = Span::new(0, 1);
        let all = [warning.clone(), unknown_state(), warning.clone(), unknown_state()];
        let limited = limit(&all, 3);
        let kinds: Vec<bool> = limited.shown.iter().map(|d| d.is_error()).collect();
        assert_eq!(kinds, [false, true, true]);
        assert_eq!((limited.hidden_errors, limited.hidden_warnings), (0, 1));
        assert_eq!(
            limited.note("m.fsm").as_deref(),
            Some("1 more diagnostic in m.fsm not shown (1 warning)")
        );
        let limited = limit(&all, 1);
        assert_eq!(
            limited.note("m.fsm").as_deref(),
            Some("3 more diagnostics in m.fsm not shown (1 error, 2 warnings)")
        );
        for max in [0, 4, 100] {
            let limited = limit(&all, max);
            assert_eq!(limited.shown.len(), 4);
            assert_eq!(limited.note("m.fsm"), None);
        }
    }

    #[test]
    fn summary_counts_errors_and_warnings() {
        assert_eq!(summary(1, 0, 0), "checked 1 file: no errors or warnings");
        assert_eq!(summary(2, 1, 0), "checked 2 files: 1 error");
        assert_eq!(summary(5, 0, 2), "checked 5 files: 2 warnings");
        assert_eq!(summary(3, 2, 1), "checked 3 files: 2 errors, 1 warning");
    }

    #[cfg(feature = "fancy")]
    #[test]
    fn human_draws_the_snippet_code_url_and_help_without_color() {
        let out = human("m.fsm", SOURCE, &[unknown_state()], 80, false);
        assert_eq!(
            out,
            "fsm::unknown-state (run `fsmc explain unknown-state`)

  × transition on `go` targets unknown state `bb`
   ╭─[m.fsm:3:32]
 2 │     /// ü
 3 │     initial state a { on go -> bb; }
   ·                                ─┬
   ·                                 ╰── no state with this name
 4 │ }
   ╰────
  help: did you mean `b`?

"
        );
        assert!(!out.contains('\u{1b}'), "no escape sequences without color");
    }

    #[cfg(feature = "fancy")]
    #[test]
    fn human_shows_secondary_labels_and_warnings() {
        let out = human("m.fsm", SOURCE, &[duplicate_declaration()], 80, false);
        assert!(out.starts_with("fsm::duplicate-declaration ("), "{out}");
        assert!(
            out.contains("  ⚠ action `go` is declared more than once"),
            "{out}"
        );
        assert!(out.contains("first declared here"), "{out}");
        assert!(out.contains("declared again here"), "{out}");
    }

    #[cfg(feature = "fancy")]
    #[test]
    fn human_with_color_uses_escape_sequences() {
        let out = human("m.fsm", SOURCE, &[unknown_state()], 80, true);
        assert!(out.contains('\u{1b}'));
    }
}
