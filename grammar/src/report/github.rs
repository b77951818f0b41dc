//! GitHub Actions workflow commands, which the runner shows as annotations
//! on the pull request.

use super::positions;
use crate::diagnostic::{Diagnostic, Severity};
use crate::span::LineIndex;

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
