//! SCXML interchange: [`to_scxml`] writes a machine as a W3C SCXML 1.0
//! document, [`from_scxml`] reads the same subset back as `.fsm` source.
//!
//! The standard part says what SCXML can: compound, `<parallel>` and
//! `<final>` states, `<history>`, `<onentry>`/`<onexit>`, eventless
//! transitions, `In()` conditions, and timers as delayed `<send>`s
//! cancelled on exit. What it cannot (priorities, doc comments, effects,
//! declarations, payload and context types, `#[allow]`) is carried in the
//! `fsm:` namespace, [`FSM_NS`], which SCXML tools ignore; so `.fsm` →
//! SCXML → `.fsm` gives back the same machine. `docs/export-import.md`
//! gives the mapping element by element.

mod export;
mod import;
mod xml;

pub use export::to_scxml;

use super::import::{import_value, ImportDiagnostic, Imported, Sink};

/// The SCXML namespace.
pub const SCXML_NS: &str = "http://www.w3.org/2005/07/scxml";
/// The namespace of what fsmc adds to SCXML (`xmlns:fsm`).
pub const FSM_NS: &str = "https://fsmc.dev/scxml";
/// The id of the state that holds every non-terminal top-level state when
/// the machine has `any` transitions, which are its transitions. State
/// names have no dots, so it is no state's name.
const ANY_ID: &str = "fsm.any";
/// The prefix of the events of timers: `fsm.after.STATE.GROUP`.
const TIMER_EVENT: &str = "fsm.after";

/// Read an SCXML document and return the equivalent `.fsm` source.
///
/// Reads what [`to_scxml`] writes, and the same constructs written by hand
/// or by an editor. Refuses what fsmc cannot express (`<script>`, a data
/// model, `<invoke>`, `<raise>`, conditions other than names, `In()`,
/// `!`, `&&`, `||`, wildcard events, ...) with an error at the element's
/// `line:column`; elements of other namespaces are skipped with one
/// warning. Diagnostics of the `.fsm` checks point at the element the
/// offending part came from. Never panics.
///
/// ```
/// let scxml = r#"<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" name="door" initial="closed">
///   <state id="closed"><transition event="open" target="opened"/></state>
///   <state id="opened"><transition event="close" target="closed"/></state>
/// </scxml>"#;
/// let imported = fsm_grammar::interchange::from_scxml(scxml).unwrap();
/// assert!(imported.source.contains("initial state closed {\n        on open -> opened;"));
///
/// let errors = fsm_grammar::interchange::from_scxml(&scxml.replace("<state id=\"opened\">", "<state id=\"opened\"><script/>")).unwrap_err();
/// assert_eq!(errors[0].to_string(), "3:22: <script> is not supported by fsmc");
/// ```
pub fn from_scxml(text: &str) -> Result<Imported, Vec<ImportDiagnostic>> {
    let read = import::read(text);
    let mut sink = Sink::located(read.locations);
    for p in read.problems {
        sink.at(p.severity, p.place, p.message, p.help);
    }
    match read.value {
        Some(value) if !sink.has_errors() => import_value(value, sink),
        _ => Err(sink.into_vec()),
    }
}
