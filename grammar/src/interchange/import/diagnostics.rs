//! What the importer reports: problems located by JSON path.

use super::path::JsonPath;
use crate::diagnostic::{Code, Severity};
use std::fmt;

/// A problem found while importing a JSON document, located by its JSON
/// path (`$.states.executing.on.success.to`).
///
/// Problems of the document's shape (a wrong type, an unknown field, a
/// reference to a state that is not defined) have no code, apart from states
/// nested too deep, which are [`Code::NestingTooDeep`] as in `.fsm`. Problems that the
/// `.fsm` checks find in the imported machine keep the check's code and
/// message, and point at the JSON member the offending `.fsm` came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportDiagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The check's code, for problems the `.fsm` checks found.
    pub code: Option<Code>,
    /// Where, as a JSON path.
    pub path: String,
    /// One sentence naming the things involved.
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
}

impl ImportDiagnostic {
    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for ImportDiagnostic {
    /// `$.path: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Render diagnostics for a terminal or a log, one block per diagnostic:
///
/// ```text
/// error[fsm::unknown-state]: transition on `success` targets unknown state `complted`
///   --> execution.json: $.states.executing.on.success.to
///   help: did you mean `completed`?
/// ```
pub fn render(file_name: &str, diagnostics: &[ImportDiagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&d.severity.to_string());
        if let Some(code) = d.code {
            out.push_str(&format!("[fsm::{code}]"));
        }
        out.push_str(&format!(": {}\n  --> {file_name}: {}\n", d.message, d.path));
        if let Some(help) = &d.help {
            out.push_str(&format!("  help: {help}\n"));
        }
        out.push('\n');
    }
    out
}

/// Collects diagnostics; every step pushes here and carries on, so one
/// import reports every problem it can find.
#[derive(Debug, Default)]
pub(super) struct Sink(Vec<ImportDiagnostic>);

impl Sink {
    pub(super) fn push(
        &mut self,
        severity: Severity,
        code: Option<Code>,
        path: &JsonPath,
        message: String,
        help: Option<String>,
    ) {
        // Names of any length are quoted shortened (keys in the path too),
        // so one diagnostic prints a bounded amount of text.
        self.0.push(ImportDiagnostic {
            severity,
            code,
            path: crate::elide::elide(path.to_string()),
            message: crate::elide::elide(message),
            help: help.map(crate::elide::elide),
        });
    }

    pub(super) fn error(&mut self, path: &JsonPath, message: impl Into<String>, help: impl Into<String>) {
        self.push(Severity::Error, None, path, message.into(), Some(help.into()));
    }

    pub(super) fn warning(&mut self, path: &JsonPath, message: impl Into<String>, help: impl Into<String>) {
        self.push(Severity::Warning, None, path, message.into(), Some(help.into()));
    }

    pub(super) fn has_errors(&self) -> bool {
        self.0.iter().any(ImportDiagnostic::is_error)
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    pub(super) fn into_vec(self) -> Vec<ImportDiagnostic> {
        self.0
    }
}
