//! A diagnostic in a `.fsm` file, rendered as plain text in rustc's layout:
//! the message and code, the file, line and column, the source lines with
//! the problem marked, and the help.
//!
//! Both ways a `.fsm` file reaches cargo's output use it: `fsm!(file = "...")`,
//! where rustc can only point at the path literal so the message carries the
//! rest, and the build-script API, whose standard error cargo shows when the
//! script fails. It is plain text on purpose: it is printed inside rustc's and
//! cargo's own output, where colors and box drawing would not belong, and it
//! needs no dependency beyond the front end.

use crate::diagnostic::Diagnostic;
use crate::span::LineIndex;
use std::fmt::Write as _;

/// Tabs are shown as this many spaces, as rustc does.
const TAB: &str = "    ";

/// Render `diagnostic` of the file `path` whose text is `source`:
///
/// ```text
/// transition on `open` targets unknown state `opned` [fsm::unknown-state]
///  --> machines/door.fsm:3:30
///   |
/// 3 |     state closed { on open -> opned; }
///   |                               ^^^^^ no state with this name
///   |
///   = help: did you mean `opened`?
/// ```
pub fn rustc(path: &str, source: &str, diagnostic: &Diagnostic) -> String {
    let index = LineIndex::new(source);
    let mut marks: Vec<Mark> = std::iter::once(Mark {
        range: (diagnostic.span.start, diagnostic.span.end),
        marker: '^',
        label: &diagnostic.label,
    })
    .chain(diagnostic.secondary.iter().map(|label| Mark {
        range: (label.span.start, label.span.end),
        marker: '-',
        label: &label.message,
    }))
    .collect();
    // Top to bottom, the primary mark first among marks at one place.
    marks.sort_by_key(|mark| {
        let start = index.line_col(source, mark.range.0);
        (start.line, start.column, mark.marker != '^')
    });

    let start = index.line_col(source, diagnostic.span.start);
    let last_line = marks
        .iter()
        .map(|mark| index.line_col(source, mark.range.0).line)
        .max()
        .unwrap_or(start.line);
    let width = last_line.to_string().len();
    let gutter = " ".repeat(width);

    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{} [fsm::{}]", diagnostic.message, diagnostic.code.name());
    let _ = writeln!(out, "{gutter}--> {path}:{}:{}", start.line, start.column);
    let _ = writeln!(out, "{gutter} |");
    let mut shown_line = None;
    // Where the shown part of the current line starts, in characters: 0, or
    // for a very long line the first mark's column (the part before it is `…`).
    let mut skip = 0;
    for mark in &marks {
        let from = index.line_col(source, mark.range.0);
        let line_text = line(source, from.line);
        let long = line_text.len() > LONG_LINE;
        if shown_line != Some(from.line) {
            if shown_line.is_some_and(|shown| from.line > shown + 1) {
                let _ = writeln!(out, "...");
            }
            skip = if long { from.column - 1 } else { 0 };
            let shown = shown_part(line_text, skip, long);
            let _ = writeln!(out, "{:>width$} | {}", from.line, shown.replace('\t', TAB));
            shown_line = Some(from.line);
        }
        // The mark runs to the span's end or, for a span over several lines,
        // to the end of its first line; at least one character wide, and on
        // a very long line no wider than what is shown of it.
        let to = index.line_col(source, mark.range.1);
        let line_length = line_text.chars().count() + 1;
        let end_column = if to.line == from.line {
            to.column
        } else {
            line_length
        };
        let start = (from.column - 1).max(skip);
        let (before, marked): (String, String) = if long {
            let before = format!(
                "{}{}",
                if skip > 0 { "…" } else { "" },
                slice(line_text, skip, start - skip)
            );
            let width = (end_column - 1)
                .saturating_sub(start)
                .min(WINDOW - (start - skip).min(WINDOW));
            (before, slice(line_text, start, width))
        } else {
            (
                line_text.chars().take(from.column - 1).collect(),
                slice(line_text, from.column - 1, end_column.saturating_sub(from.column)),
            )
        };
        let indent = before.replace('\t', TAB).chars().count();
        let length = marked.replace('\t', TAB).chars().count().max(1);
        let markers = mark.marker.to_string().repeat(length);
        let mark_line = format!("{gutter} | {}{markers} {}", " ".repeat(indent), mark.label);
        let _ = writeln!(out, "{}", mark_line.trim_end());
    }
    let _ = writeln!(out, "{gutter} |");
    let _ = write!(out, "{gutter} = help: {}", diagnostic.help);
    out
}

/// A line longer than this many bytes is shown in part: [`WINDOW`]
/// characters from its first mark, so one huge name cannot flood the output.
const LONG_LINE: usize = 480;
/// How many characters of a long line are shown.
const WINDOW: usize = 120;

/// What is shown of a line: all of it, or for a long line `…`, [`WINDOW`]
/// characters from character `skip`, and `…` if more follows.
fn shown_part(line: &str, skip: usize, long: bool) -> String {
    if !long {
        return line.to_string();
    }
    let mut rest = line.chars().skip(skip);
    let mut shown: String = if skip > 0 { "…".into() } else { String::new() };
    shown.extend(rest.by_ref().take(WINDOW));
    if rest.next().is_some() {
        shown.push('…');
    }
    shown
}

/// `count` characters of `line` from character `skip`.
fn slice(line: &str, skip: usize, count: usize) -> String {
    line.chars().skip(skip).take(count).collect()
}

/// One marked place: `^` for the primary one, `-` for the others.
struct Mark<'d> {
    range: (usize, usize),
    marker: char,
    label: &'d str,
}

/// Line `number` (1-based) of `source`, without its line ending.
fn line(source: &str, number: usize) -> &str {
    let text = source.split('\n').nth(number - 1).unwrap_or("");
    text.strip_suffix('\r').unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Code;

    fn diagnostic(source: &str, code: Code) -> Diagnostic {
        crate::check(source)
            .diagnostics
            .into_iter()
            .find(|d| d.code == code)
            .expect("the source has the diagnostic")
    }

    #[test]
    fn renders_the_primary_mark_under_the_exact_token() {
        let source = "machine Door {\n    initial state closed { on open -> opned; }\n    \
                      state opened { on close -> closed; }\n}\n";
        let rendered = rustc("door.fsm", source, &diagnostic(source, Code::UnknownState));
        assert_eq!(
            rendered,
            "transition on `open` targets unknown state `opned` [fsm::unknown-state]\n \
             --> door.fsm:2:39\n  \
             |\n\
             2 |     initial state closed { on open -> opned; }\n  \
             |                                       ^^^^^ no state with this name\n  \
             |\n  \
             = help: did you mean `opened`?"
        );
    }

    #[test]
    fn secondary_marks_show_their_own_lines_in_order() {
        let source = "machine M {\n    initial state a;\n\n\n\n\n\n\n\n\n    state a;\n}\n";
        let rendered = rustc("m.fsm", source, &diagnostic(source, Code::DuplicateState));
        assert_eq!(
            rendered,
            "state `a` is defined more than once in machine `M` [fsm::duplicate-state]\n  \
             --> m.fsm:11:11\n   \
             |\n \
             2 |     initial state a;\n   \
             |                   - first defined here\n\
             ...\n\
             11 |     state a;\n   \
             |           ^ defined again here\n   \
             |\n   \
             = help: rename one of the states, or merge their transitions into one"
        );
    }

    #[test]
    fn a_very_long_line_is_shown_in_part_from_its_mark() {
        let name = "x".repeat(1_000_000);
        let source = format!("machine M {{\n    initial state a {{ on go -> {name}; }}\n}}\n");
        let rendered = rustc("m.fsm", &source, &diagnostic(&source, Code::UnknownState));
        assert!(rendered.len() < 2_000, "{} bytes", rendered.len());
        // The column stays exact, and the mark sits under the shown name.
        assert!(rendered.contains(" --> m.fsm:2:32\n"), "{rendered}");
        let shown = format!("2 | …{}…\n", "x".repeat(WINDOW));
        assert!(rendered.contains(&shown), "{rendered}");
        let marks = format!("  |  {} no state with this name", "^".repeat(WINDOW));
        assert!(rendered.contains(&marks), "{rendered}");
    }

    #[test]
    fn tabs_are_expanded_in_the_line_and_the_mark_alike() {
        let source = "machine M {\n\tinitial state a { on go -> nowhere; }\n}\n";
        let rendered = rustc("m.fsm", source, &diagnostic(source, Code::UnknownState));
        assert!(
            rendered.contains(
                "2 |     initial state a { on go -> nowhere; }\n  \
                 |                                ^^^^^^^ no state with this name"
            ),
            "{rendered}"
        );
    }

    #[test]
    fn an_empty_span_at_the_end_of_the_file_marks_one_column_past_the_text() {
        let source = "machine";
        let at_end = crate::Span::new(source.len(), source.len());
        let diagnostic = Diagnostic::new(Code::Syntax, at_end, "cut short", "here", "go on");
        assert_eq!(
            rustc("m.fsm", source, &diagnostic),
            "cut short [fsm::syntax]\n --> m.fsm:1:8\n  |\n1 | machine\n  |        ^ here\n  |\n  = help: go on"
        );
    }
}
