//! JSON → `.fsm`: [`from_json`].
//!
//! ```text
//! JSON text ──parse──▶ JsonValue ──read──▶ MachineSpec ──write──▶ .fsm ──check──▶ format
//!                                  (shape, names)          (origins)     (diagnostics at JSON paths)
//! ```
//!
//! Problems of the document's shape are found by the reader, all of them in
//! one pass. Only a well-shaped document is written as `.fsm` and checked
//! with the same checks as `fsmc check`; their diagnostics are reported at the
//! JSON member each offending piece of `.fsm` came from.

pub(crate) mod diagnostics;
mod guard;
pub(crate) mod names;
pub(crate) mod path;
mod read;
mod write;

pub use diagnostics::{render, ImportDiagnostic};

use super::json_value::JsonValue;
pub(crate) use diagnostics::Sink;
use path::JsonPath;

/// A successful import.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Imported {
    /// The machines as `.fsm` source in the canonical layout of `fsmc fmt`.
    pub source: String,
    /// Warnings: names that were rewritten to be valid identifiers, and the
    /// warnings `fsmc check` reports for the imported machines.
    pub diagnostics: Vec<ImportDiagnostic>,
}

/// Read a JSON machine document (one machine object, or an array of them)
/// and return the equivalent `.fsm` source.
///
/// Fails with every diagnostic found (errors, and the warnings found along
/// the way) when the JSON is malformed, does not have the documented shape,
/// or describes a machine that `fsmc check` rejects. Never panics.
///
/// ```
/// let json = r#"{
///   "fsm_id": "door",
///   "initial_state": "closed",
///   "states": {
///     "closed": {"on": {"open": {"to": "opened"}}},
///     "opened": {"on": {"close": {"to": "closed"}}}
///   }
/// }"#;
/// let imported = fsm_grammar::interchange::from_json(json).unwrap();
/// assert_eq!(
///     imported.source,
///     "machine door {\n    initial state closed {\n        on open -> opened;\n    }\n\n    state opened {\n        on close -> closed;\n    }\n}\n"
/// );
///
/// let errors = fsm_grammar::interchange::from_json(&json.replace("\"closed\"}", "\"clsoed\"}")).unwrap_err();
/// assert_eq!(
///     errors[0].to_string(),
///     "$.states.opened.on.close.to: unknown state `clsoed`"
/// );
/// assert_eq!(errors[0].help.as_deref(), Some("did you mean `closed`?"));
/// ```
pub fn from_json(text: &str) -> Result<Imported, Vec<ImportDiagnostic>> {
    let mut sink = Sink::default();
    let value = match JsonValue::parse(text) {
        Ok(value) => value,
        Err(error) => {
            sink.error(
                &JsonPath::root(),
                format!("invalid JSON: {error}"),
                "the file must be a JSON document; see docs/json.md",
            );
            return Err(sink.into_vec());
        }
    };
    import_value(value, sink)
}

/// The import of a document already read as a [`JsonValue`] (from JSON,
/// or built from another format), reporting through `sink`.
pub(crate) fn import_value(value: JsonValue, mut sink: Sink) -> Result<Imported, Vec<ImportDiagnostic>> {
    // Each stage is dropped as soon as the next one has what it needs, so
    // the peak is one stage's, not the sum of all.
    let specs = read::document(&value, &mut sink);
    drop(value);
    if sink.has_errors() {
        return Err(sink.into_vec());
    }

    let written = write::machines(&specs);
    drop(specs);
    let diagnostics = crate::check(&written.text).diagnostics;
    for d in diagnostics {
        sink.push(
            d.severity,
            Some(d.code),
            &written.origin(d.span),
            d.message,
            Some(d.help),
        );
    }
    if sink.has_errors() {
        return Err(sink.into_vec());
    }
    match crate::format::format(&written.text) {
        Ok(source) => Ok(Imported {
            source,
            diagnostics: sink.into_vec(),
        }),
        // The text checked without a syntax error, so the formatter accepts it.
        Err(diagnostics) => {
            for d in diagnostics {
                sink.push(
                    d.severity,
                    Some(d.code),
                    &written.origin(d.span),
                    format!("internal error: the written .fsm does not format: {}", d.message),
                    Some("please report this as a bug in fsmc".into()),
                );
            }
            Err(sink.into_vec())
        }
    }
}
