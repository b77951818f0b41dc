//! What the importer reports: problems located by JSON path.

use super::path::JsonPath;
use crate::diagnostic::{Code, Severity};
use std::collections::HashMap;
use std::fmt;

/// A problem found while importing a document: a JSON document's located
/// by its JSON path (`$.states.executing.on.success.to`), an SCXML
/// document's by the line and column of the element or attribute
/// (`12:7`).
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
    /// Where: a JSON path (`$...`) or, in an SCXML document, `line:column`.
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
    /// `$.path: message`, or `line:column: message`.
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
///
/// A diagnostic located by line and column points at `door.scxml:12:7`.
pub fn render(file_name: &str, diagnostics: &[ImportDiagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&d.severity.to_string());
        if let Some(code) = d.code {
            out.push_str(&format!("[fsm::{code}]"));
        }
        let separator = if d.path.starts_with('$') { ": " } else { ":" };
        out.push_str(&format!(
            ": {}\n  --> {file_name}{separator}{}\n",
            d.message, d.path
        ));
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
pub(crate) struct Sink {
    diagnostics: Vec<ImportDiagnostic>,
    /// For a document built from another format: where each JSON path came
    /// from in it (`line:column`), so that diagnostics name that place.
    locations: Option<HashMap<String, String>>,
}

impl Sink {
    /// A sink that reports at the places `locations` gives for JSON paths
    /// (the innermost path recorded that holds the diagnostic's).
    pub(crate) fn located(locations: HashMap<String, String>) -> Sink {
        Sink {
            diagnostics: Vec::new(),
            locations: Some(locations),
        }
    }

    /// A diagnostic at a place of the source document itself (`line:column`).
    pub(crate) fn at(&mut self, severity: Severity, place: String, message: String, help: String) {
        self.diagnostics.push(ImportDiagnostic {
            severity,
            code: None,
            path: place,
            message: crate::elide::elide(message),
            help: Some(crate::elide::elide(help)),
        });
    }

    fn place(&self, path: &JsonPath) -> String {
        let Some(locations) = &self.locations else {
            return path.to_string();
        };
        let mut at = Some(path.clone());
        while let Some(path) = at {
            if let Some(place) = locations.get(&path.to_string()) {
                return place.clone();
            }
            at = path.parent();
        }
        "1:1".to_string()
    }

    pub(crate) fn push(
        &mut self,
        severity: Severity,
        code: Option<Code>,
        path: &JsonPath,
        message: String,
        help: Option<String>,
    ) {
        // Names of any length are quoted shortened (keys in the path too),
        // so one diagnostic prints a bounded amount of text.
        let place = self.place(path);
        self.diagnostics.push(ImportDiagnostic {
            severity,
            code,
            path: crate::elide::elide(place),
            message: crate::elide::elide(message),
            help: help.map(crate::elide::elide),
        });
    }

    pub(crate) fn error(&mut self, path: &JsonPath, message: impl Into<String>, help: impl Into<String>) {
        self.push(Severity::Error, None, path, message.into(), Some(help.into()));
    }

    pub(crate) fn warning(&mut self, path: &JsonPath, message: impl Into<String>, help: impl Into<String>) {
        self.push(Severity::Warning, None, path, message.into(), Some(help.into()));
    }

    pub(crate) fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(ImportDiagnostic::is_error)
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.diagnostics.len()
    }

    pub(crate) fn into_vec(self) -> Vec<ImportDiagnostic> {
        self.diagnostics
    }
}
