//! What a process stores to resume an agent after a restart.

use crate::context::Context;
use fsm_runtime::Snapshot;
use serde::{Deserialize, Serialize};

/// The machine's snapshot and the caller's context, together.
///
/// The snapshot carries the machine's name and the fingerprint of its
/// definition, so a checkpoint written by an older build of the agent is
/// refused rather than misread. In JSON:
/// `{"machine": {"type": "fsm", "machine": "AgentLoop", "fingerprint": "…",
/// "current_state": "error"}, "context": {…}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The machine's state.
    pub machine: Snapshot,
    /// The conversation, retries and tool batch.
    pub context: Context,
}

impl Checkpoint {
    /// The checkpoint as JSON.
    ///
    /// # Errors
    ///
    /// Never in practice: every map in a checkpoint has string keys. The
    /// error is `serde_json`'s, passed on.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    /// A checkpoint read back from JSON.
    ///
    /// # Errors
    ///
    /// When `json` is not a checkpoint.
    pub fn from_json(json: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(json)
    }
}
