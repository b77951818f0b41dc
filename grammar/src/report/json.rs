//! The JSON report: one record per diagnostic, in one array per run.

use super::positions;
use crate::diagnostic::{Diagnostic, Severity};
use crate::span::LineIndex;

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
