//! The statuses, as machines: `Phase` and `Worker` from `examples/pipeline.fsm`
//! (the statuses of `status.json`'s phases and workers), and `Run` from `run.fsm` (whether
//! the result was delivered).
//!
//! `Phase` owns a [`PhaseContext`]: what the definition says of the phase,
//! stored with its status. Its timeout is a timer of the machine (`after
//! time_limit`), armed when the phase starts; the deadline is stored with
//! the status too, so it survives the orchestrator.

use crate::workflow::PhaseDef;
use serde::{Deserialize, Serialize};
use std::time::Duration;

fsm_runtime::fsm!(file = "../pipeline.fsm");
fsm_runtime::fsm!(file = "run.fsm");

/// What `Phase` knows of its phase, from the definition: the payload-free
/// guards and the timer's delay read it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseContext {
    /// Seconds the phase may run: its slowest worker's timeout, or for a
    /// sequential phase the sum of its workers' timeouts.
    pub timeout_secs: u64,
    /// Seconds past the timeout before the phase fails.
    pub grace_secs: u64,
    /// The phase holds the final worker.
    pub final_phase: bool,
    /// The definition asks to wait for the user after the phase.
    pub pause_after: bool,
}

impl PhaseContext {
    /// The context of `phase`, the final one if `final_phase`, failing
    /// `grace` past its timeout.
    pub fn new(phase: &PhaseDef, final_phase: bool, grace: Duration) -> Self {
        PhaseContext {
            timeout_secs: phase.timeout(),
            grace_secs: grace.as_secs(),
            final_phase,
            pause_after: phase.pause_after,
        }
    }
}

impl phase::Context for PhaseContext {
    fn all_workers_done(&self, progress: &Progress) -> bool {
        progress.completed == progress.workers
    }

    fn final_phase(&self) -> bool {
        self.final_phase
    }

    fn pause_after(&self) -> bool {
        self.pause_after
    }

    /// Saturating: a grace of `u64::MAX` seconds means "never" (the deadline
    /// is then the latest time a snapshot can hold).
    fn time_limit(&self) -> Duration {
        Duration::from_secs(self.timeout_secs.saturating_add(self.grace_secs))
    }
}

/// The payload of `Phase`'s `output_detected`: how many of its workers
/// completed, of how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Workers whose output exists.
    pub completed: usize,
    /// All the phase's workers.
    pub workers: usize,
}
