//! The machine of a run, `Pipeline` from `examples/pipeline.fsm`, and its
//! context: what the run is (pipeline, topic, definition) and how far it got
//! (the current phase, the agents done). The whole run lives in the fleet's
//! row of its instance; no file holds a status.

use crate::workflow::{Mode, Pipeline as Definition};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::time::Duration;

fsm_runtime::fsm!(file = "../pipeline.fsm");

pub use self::pipeline::{Action, Event, Output, Pipeline, State};

/// The context of a run's `Pipeline` instance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunContext {
    /// The pipeline's name in `workflows.json`.
    pub pipeline: String,
    /// What the run is about.
    pub topic: String,
    /// The pipeline's definition, copied in when the run starts: a run
    /// follows the definition it started with, whatever `workflows.json`
    /// says later.
    pub definition: Definition,
    /// Seconds past a phase's timeout before the run fails.
    pub grace_secs: u64,
    /// The index of the current phase in `definition.phases`; equal to their
    /// number once the last one completed.
    pub phase: usize,
    /// The roles of the agents that reported done.
    pub done: BTreeSet<String>,
    /// The agent that failed, if one did.
    pub failed: Option<String>,
}

impl RunContext {
    /// A run of `definition` (named `pipeline`) on `topic`, at its first
    /// phase, failing `grace` past the phases' timeouts.
    pub fn new(pipeline: &str, topic: &str, definition: Definition, grace: Duration) -> Self {
        RunContext {
            pipeline: pipeline.to_owned(),
            topic: topic.to_owned(),
            definition,
            grace_secs: grace.as_secs(),
            phase: 0,
            done: BTreeSet::new(),
            failed: None,
        }
    }

    /// The roles of the current phase's agents, in order; none once every
    /// phase completed.
    pub fn current_roles(&self) -> Vec<&str> {
        self.definition
            .phases
            .get(self.phase)
            .map(|phase| phase.workers.iter().map(|w| w.role.as_str()).collect())
            .unwrap_or_default()
    }

    /// The agents of the current phase that may run now and are not done:
    /// all of them in a parallel phase, the first one in a sequential phase.
    pub fn due_roles(&self) -> Vec<&str> {
        let Some(phase) = self.definition.phases.get(self.phase) else {
            return Vec::new();
        };
        let mut pending = phase
            .workers
            .iter()
            .map(|w| w.role.as_str())
            .filter(|role| !self.done.contains(*role));
        match phase.mode {
            Mode::Parallel => pending.collect(),
            Mode::Sequential => pending.next().into_iter().collect(),
        }
    }
}

impl pipeline::Context for RunContext {
    fn expected(&self, role: &String) -> bool {
        !self.done.contains(role) && self.due_roles().contains(&role.as_str())
    }

    fn completes_phase(&self, role: &String) -> bool {
        self.current_roles()
            .iter()
            .all(|r| *r == role.as_str() || self.done.contains(*r))
    }

    fn final_phase(&self) -> bool {
        self.phase + 1 >= self.definition.phases.len()
    }

    fn pause_after(&self) -> bool {
        self.definition
            .phases
            .get(self.phase)
            .is_some_and(|p| p.pause_after)
    }

    fn sequential(&self) -> bool {
        self.definition
            .phases
            .get(self.phase)
            .is_some_and(|p| p.mode == Mode::Sequential)
    }

    fn record_done(&mut self, role: &String) {
        self.done.insert(role.clone());
        if self.current_roles().iter().all(|r| self.done.contains(*r)) {
            self.phase += 1;
        }
    }

    fn record_failure(&mut self, role: &String) {
        self.failed = Some(role.clone());
    }

    /// The current phase's timeout plus the grace, saturating: a grace of
    /// `u64::MAX` seconds means "never".
    fn time_limit(&self) -> Duration {
        let timeout = self
            .definition
            .phases
            .get(self.phase)
            .map_or(0, |phase| phase.timeout());
        Duration::from_secs(timeout.saturating_add(self.grace_secs))
    }
}
