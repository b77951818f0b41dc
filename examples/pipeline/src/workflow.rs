//! `workflows.json`: the static definition of every pipeline, by name: its
//! phases, and each phase's workers (the agents). It never changes at run
//! time; a run keeps a copy of its own pipeline in its context (see
//! [`crate::machines::RunContext`]).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The longest timeout a worker may have, in seconds: one week. Longer ones
/// are refused as mistakes (and kept far from any overflow of the phase's
/// clock).
pub const MAX_TIMEOUT_SECS: u64 = 7 * 24 * 60 * 60;

/// Every pipeline type, by name (`"research"`).
pub type Workflows = BTreeMap<String, Pipeline>;

/// One pipeline type: its phases, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pipeline {
    /// What the pipeline is for.
    #[serde(default)]
    pub description: String,
    /// The phases, run one after another.
    pub phases: Vec<PhaseDef>,
}

/// A phase: a set of workers that all complete before the next phase starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseDef {
    /// The phase's name, unique in its pipeline.
    pub id: String,
    /// Whether its workers run at once or one after another.
    pub mode: Mode,
    /// The workers.
    pub workers: Vec<WorkerDef>,
    /// When the phase completes, summarize to the user and wait for them
    /// (`--resume`) before the next phase.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pause_after: bool,
}

/// How a phase runs its workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// All at once.
    Parallel,
    /// One after another, in the order listed.
    Sequential,
}

/// A worker: one child process that writes `<role>.md` and exits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkerDef {
    /// The worker's name, unique in its pipeline; its output is `<role>.md`.
    pub role: String,
    /// The model the worker would use.
    pub model: String,
    /// Seconds the worker may run, at most [`MAX_TIMEOUT_SECS`].
    pub timeout: u64,
    /// What the worker is asked to do.
    pub task: String,
    /// Whether its output is the pipeline's result, delivered as `final.md`.
    #[serde(default, rename = "final", skip_serializing_if = "std::ops::Not::not")]
    pub is_final: bool,
    /// Outputs of earlier phases the worker reads (`researcher-a.md`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<String>,
}

impl WorkerDef {
    /// The worker's output file name: `<role>.md`.
    pub fn output(&self) -> String {
        format!("{}.md", self.role)
    }
}

impl PhaseDef {
    /// Seconds the phase may run: its slowest worker's timeout, or for a
    /// sequential phase the sum of its workers' timeouts.
    pub fn timeout(&self) -> u64 {
        let timeouts = self.workers.iter().map(|worker| worker.timeout);
        match self.mode {
            Mode::Parallel => timeouts.max().unwrap_or(0),
            Mode::Sequential => timeouts.fold(0, u64::saturating_add),
        }
    }
}

impl Pipeline {
    /// The worker whose output is delivered (a validated pipeline has one).
    pub fn final_worker(&self) -> Option<&WorkerDef> {
        self.workers()
            .map(|(_, worker)| worker)
            .find(|worker| worker.is_final)
    }

    /// Every worker with the index of its phase, in order.
    pub fn workers(&self) -> impl Iterator<Item = (usize, &WorkerDef)> {
        self.phases
            .iter()
            .enumerate()
            .flat_map(|(index, phase)| phase.workers.iter().map(move |worker| (index, worker)))
    }

    /// The worker named `role`.
    pub fn worker(&self, role: &str) -> Option<&WorkerDef> {
        self.workers()
            .map(|(_, worker)| worker)
            .find(|worker| worker.role == role)
    }

    /// Checks what the orchestrator relies on, and lists every problem
    /// found, each with where it is (`phases[1].workers[0].reads[2]`).
    pub fn validate(&self) -> Result<(), DefinitionError> {
        let mut problems = Vec::new();
        if self.phases.is_empty() {
            problems.push("`phases` is empty".to_owned());
        }
        let mut phase_ids = BTreeSet::new();
        let mut roles = BTreeSet::new();
        // Outputs of the phases before the current one.
        let mut earlier_outputs = BTreeSet::new();
        let mut finals = Vec::new();
        for (p, phase) in self.phases.iter().enumerate() {
            let at = format!("phases[{p}]");
            if let Err(reason) = check_name(&phase.id) {
                problems.push(format!("{at}.id {:?} {reason}", phase.id));
            }
            if !phase_ids.insert(phase.id.as_str()) {
                problems.push(format!("{at}.id {:?} is used by an earlier phase", phase.id));
            }
            if phase.workers.is_empty() {
                problems.push(format!("{at}.workers is empty"));
            }
            for (w, worker) in phase.workers.iter().enumerate() {
                let at = format!("{at}.workers[{w}]");
                if let Err(reason) = check_name(&worker.role) {
                    problems.push(format!("{at}.role {:?} {reason}", worker.role));
                }
                if !roles.insert(worker.role.as_str()) {
                    problems.push(format!(
                        "{at}.role {:?} is used by an earlier worker",
                        worker.role
                    ));
                }
                if worker.timeout > MAX_TIMEOUT_SECS {
                    problems.push(format!(
                        "{at}.timeout of worker {:?} in phase {:?} is {} s, more than the \
                         maximum of {MAX_TIMEOUT_SECS} s (one week)",
                        worker.role, phase.id, worker.timeout
                    ));
                }
                if worker.is_final {
                    finals.push((p, at.clone()));
                }
                for (r, read) in worker.reads.iter().enumerate() {
                    if !earlier_outputs.contains(read) {
                        problems.push(format!(
                            "{at}.reads[{r}] {read:?} is not the output of a worker of an \
                             earlier phase"
                        ));
                    }
                }
            }
            earlier_outputs.extend(phase.workers.iter().map(WorkerDef::output));
        }
        match finals.as_slice() {
            [] if !self.phases.is_empty() => {
                problems.push("no worker is `\"final\": true`; one must be".to_owned());
            }
            [] => {}
            [(p, at)] => {
                if *p + 1 != self.phases.len() {
                    problems.push(format!("{at} is final but its phase is not the last one"));
                }
            }
            [_, more @ ..] => {
                for (_, at) in more {
                    problems.push(format!("{at} is final too; only one worker may be"));
                }
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(DefinitionError { problems })
        }
    }
}

/// Whether `name` can be a file name and part of a store id.
fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        Err("is empty")
    } else if name.len() > 64 {
        Err("is longer than 64 bytes")
    } else if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    {
        Err("may only contain lowercase ASCII letters, digits, `-` and `_`")
    } else {
        Ok(())
    }
}

/// Reads `workflows.json` and picks pipeline `name`, checked.
pub fn parse(text: &str, name: &str) -> Result<Pipeline, DefinitionError> {
    let workflows: Workflows = serde_json::from_str(text).map_err(|error| DefinitionError {
        problems: vec![format!("invalid workflows.json: {error}")],
    })?;
    let Some(pipeline) = workflows.get(name) else {
        let known: Vec<&str> = workflows.keys().map(String::as_str).collect();
        return Err(DefinitionError {
            problems: vec![format!(
                "there is no pipeline {name:?}; workflows.json defines {}",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )],
        });
    };
    pipeline.validate().map_err(|error| DefinitionError {
        problems: error
            .problems
            .into_iter()
            .map(|problem| format!("pipeline {name:?}: {problem}"))
            .collect(),
    })?;
    Ok(pipeline.clone())
}

/// Why a pipeline definition cannot be run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefinitionError {
    /// Every problem, in the order of the definition.
    pub problems: Vec<String>,
}

impl fmt::Display for DefinitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.problems.join("\n"))
    }
}

impl std::error::Error for DefinitionError {}

#[cfg(test)]
mod tests {
    use super::*;

    const BUILT_IN: &str = include_str!("../workflows.json");

    #[test]
    fn the_built_in_definition_is_valid() {
        let pipeline = parse(BUILT_IN, "research").unwrap();
        assert_eq!(pipeline.phases.len(), 2);
        assert_eq!(pipeline.phases[0].timeout(), 600);
        assert_eq!(pipeline.final_worker().unwrap().role, "synthesizer");
        assert_eq!(pipeline.phases[1].mode, Mode::Sequential);
    }

    #[test]
    fn an_unknown_pipeline_lists_the_known_ones() {
        let error = parse(BUILT_IN, "review").unwrap_err();
        assert_eq!(
            error.to_string(),
            "there is no pipeline \"review\"; workflows.json defines research"
        );
    }

    #[test]
    fn every_problem_is_reported_with_its_place() {
        let text = r#"{"p": {"phases": [
            {"id": "one", "mode": "parallel", "workers": [
                {"role": "a", "model": "m", "timeout": 1, "task": "t", "reads": ["b.md"]},
                {"role": "A/b", "model": "m", "timeout": 1, "task": "t", "final": true}
            ]},
            {"id": "one", "mode": "sequential", "workers": [
                {"role": "a", "model": "m", "timeout": 1, "task": "t", "final": true}
            ]},
            {"id": "three", "mode": "parallel", "workers": []}
        ]}}"#;
        assert_eq!(
            parse(text, "p").unwrap_err().problems,
            [
                "pipeline \"p\": phases[0].workers[0].reads[0] \"b.md\" is not the output of a \
                 worker of an earlier phase",
                "pipeline \"p\": phases[0].workers[1].role \"A/b\" may only contain lowercase \
                 ASCII letters, digits, `-` and `_`",
                "pipeline \"p\": phases[1].id \"one\" is used by an earlier phase",
                "pipeline \"p\": phases[1].workers[0].role \"a\" is used by an earlier worker",
                "pipeline \"p\": phases[2].workers is empty",
                "pipeline \"p\": phases[1].workers[0] is final too; only one worker may be",
            ]
        );
    }

    #[test]
    fn the_final_worker_must_be_in_the_last_phase() {
        let text = r#"{"p": {"phases": [
            {"id": "one", "mode": "parallel", "workers": [
                {"role": "a", "model": "m", "timeout": 1, "task": "t", "final": true}]},
            {"id": "two", "mode": "parallel", "workers": [
                {"role": "b", "model": "m", "timeout": 1, "task": "t"}]}
        ]}}"#;
        assert_eq!(
            parse(text, "p").unwrap_err().problems,
            ["pipeline \"p\": phases[0].workers[0] is final but its phase is not the last one"]
        );
    }

    #[test]
    fn unknown_fields_and_modes_are_refused() {
        let text = r#"{"p": {"phases": [{"id": "one", "mode": "random", "workers": []}]}}"#;
        let error = parse(text, "p").unwrap_err().to_string();
        assert!(
            error.starts_with("invalid workflows.json: unknown variant `random`"),
            "{error}"
        );
        let text = r#"{"p": {"phases": [], "retries": 3}}"#;
        let error = parse(text, "p").unwrap_err().to_string();
        assert!(
            error.starts_with("invalid workflows.json: unknown field `retries`"),
            "{error}"
        );
    }

    #[test]
    fn a_timeout_over_a_week_is_refused_with_its_phase_and_worker() {
        let text = format!(
            r#"{{"p": {{"phases": [{{"id": "one", "mode": "sequential", "workers": [
                {{"role": "a", "model": "m", "timeout": {MAX_TIMEOUT_SECS}, "task": "t"}},
                {{"role": "b", "model": "m", "timeout": {}, "task": "t"}},
                {{"role": "c", "model": "m", "timeout": {}, "task": "t", "final": true}}]}}]}}}}"#,
            MAX_TIMEOUT_SECS + 1,
            u64::MAX
        );
        assert_eq!(
            parse(&text, "p").unwrap_err().problems,
            [
                "pipeline \"p\": phases[0].workers[1].timeout of worker \"b\" in phase \"one\" \
                 is 604801 s, more than the maximum of 604800 s (one week)",
                "pipeline \"p\": phases[0].workers[2].timeout of worker \"c\" in phase \"one\" \
                 is 18446744073709551615 s, more than the maximum of 604800 s (one week)",
            ]
        );
    }

    #[test]
    fn a_sequential_phase_may_run_as_long_as_all_its_workers() {
        let text = r#"{"p": {"phases": [{"id": "one", "mode": "sequential", "workers": [
            {"role": "a", "model": "m", "timeout": 5, "task": "t"},
            {"role": "b", "model": "m", "timeout": 7, "task": "t", "final": true}]}]}}"#;
        assert_eq!(parse(text, "p").unwrap().phases[0].timeout(), 12);
    }
}
