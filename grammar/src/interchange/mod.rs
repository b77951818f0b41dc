//! Interchange: machines as JSON documents in the shape of the
//! `execution_fsm_v1.json` format, and back; as SCXML documents, and back;
//! and as XState machine configs.
//!
//! - [`to_json`] / [`model_to_json`] write checked machines as JSON.
//! - [`from_json`] reads such a document (or one written by hand, or by
//!   another tool) and returns the equivalent `.fsm` source in canonical
//!   form, or diagnostics located by JSON path.
//! - [`to_scxml`] / [`from_scxml`] do the same with W3C SCXML, and
//!   [`to_xstate`] / [`from_xstate`] an XState v5 machine config; each
//!   export reports what the format cannot hold ([`Exported::warnings`]).
//!
//! The round trip `.fsm` → JSON → `.fsm` keeps the model: the same
//! [`Machine::canonical`](crate::model::Machine::canonical) text and so the
//! same fingerprint, the same doc comments, declarations and
//! `#[allow(...)]` attributes. The format is specified field by field in
//! `docs/json.md`, with a JSON Schema in `docs/fsm-machine.schema.json`.

mod export;
mod import;
mod json_value;
mod lossy;
mod scxml;
mod xstate;
mod xstate_import;

pub use export::{model_to_json, to_json};
pub use import::{from_json, render, ImportDiagnostic, Imported};
pub use lossy::{ExportWarning, Exported};
pub use scxml::{from_scxml, to_scxml, FSM_NS, SCXML_NS};
pub use xstate::to_xstate;
pub use xstate_import::{from_xstate, looks_like_xstate};

/// The version of the JSON format that [`to_json`] writes in `version`.
/// [`from_json`] reads every `1.x` version.
pub const FORMAT_VERSION: &str = "1.0";
