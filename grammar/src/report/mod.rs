//! Diagnostic reporters, one module per output format: `human` (miette's
//! graphical report, feature `fancy`), [`json`], [`github`] (GitHub Actions
//! annotations) and [`rustc`] (plain text in rustc's layout, for
//! `fsm!(file = ...)` and build scripts, inside cargo's own output).
//!
//! Every reporter is a pure function from diagnostics to text, so the CLI only
//! decides where the text goes and the output can be tested exactly.
//!
//! Positions in the JSON and GitHub formats are 1-based lines and columns, and
//! columns count characters, not bytes. The end position is the one just past
//! the last character of the span (exclusive), like LSP and ESLint.

mod github;
#[cfg(feature = "fancy")]
mod human;
mod json;
mod rustc;

pub use github::github;
#[cfg(feature = "fancy")]
pub use human::human;
pub use json::{json, json_array, JsonDiagnostic};
pub use rustc::rustc;

use crate::diagnostic::Diagnostic;
use crate::span::{LineCol, LineIndex};

/// The start and (exclusive) end position of a diagnostic's primary span.
pub(super) fn positions(index: &LineIndex, source: &str, d: &Diagnostic) -> (LineCol, LineCol) {
    (
        index.line_col(source, d.span.start),
        index.line_col(source, d.span.end),
    )
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
