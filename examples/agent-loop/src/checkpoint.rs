//! What a process stores to resume an agent after a restart.

use crate::context::AgentContext;
use fsm_runtime::{RestoreError, Snapshot};
use serde::{Deserialize, Serialize};

/// The machine's snapshot: its state, its context (conversation, retries,
/// tool batch) and the deadline of an armed backoff.
///
/// The snapshot carries the machine's name and the fingerprint of its
/// definition, so a checkpoint written by an older build of the agent is
/// refused rather than misread. The deadline is absolute (UTC), so a retry
/// armed before a crash is sent when first promised, not one whole backoff
/// after the restart. In JSON:
/// `{"machine": {"type": "fsm", "machine": "AgentLoop", "fingerprint": "…",
/// "current_state": "error", "context": {…}, "timers": [{"state": "error",
/// "timer": 0, "due": "2026-01-10T09:32:15.100Z"}]}}`. A paused turn's
/// checkpoint has `"current_state": "paused"`, no timer, and the phase it
/// was paused in as the history memory of `working`:
/// `"last_active": {"working": "error"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The machine's state, context and armed timers.
    pub machine: Snapshot,
}

impl Checkpoint {
    /// The context the checkpoint carries.
    ///
    /// # Errors
    ///
    /// When it carries none, or one that does not read back as an
    /// [`AgentContext`] (the error names the field).
    pub fn context(&self) -> Result<AgentContext, RestoreError> {
        self.machine.context_as()
    }

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
