//! The run's status: one `Run`, one `Phase` per phase and one `Worker` per
//! worker, each a snapshot in the [`FileStore`] under `DIR/status/`, each
//! saved by compare-and-swap on its version.
//!
//! Instance ids: `run`, `phase.<id>`, `worker.<role>`. An instance never
//! saved is in its machine's initial state, at version 0.
//!
//! Each machine is [`Recorded`]: its snapshot carries the history of the
//! transitions that changed its state, with when they happened, so
//! `fsmc history DIR/status/phase.collect.json` shows how a phase got where
//! it is. (Internal transitions, like a phase's `tick` on every heartbeat,
//! change nothing and are neither saved nor recorded.)

use crate::error::Error;
use crate::machines::phase::{self, Phase};
use crate::machines::run::{self, Run};
use crate::machines::worker::Worker;
use crate::run_dir::RunRecord;
use crate::workflow::Pipeline;
use fsm_runtime::store::{FileStore, Store, Version};
use fsm_runtime::{Fire, Fired, Machine, Recorded};
use serde_json::{json, Map, Value};
use std::path::Path;

/// A status machine as stored, with the version it was loaded or saved at.
#[derive(Clone, Debug)]
pub struct Stored<M: Machine> {
    /// The store instance.
    pub id: String,
    /// The version the machine was loaded or last saved at.
    pub version: Version,
    /// The machine, and the history of its state changes.
    pub machine: Recorded<M>,
}

/// Every status of a run, as loaded.
#[derive(Clone, Debug)]
pub struct Status {
    /// The run: whether the result was delivered.
    pub run: Stored<Run>,
    /// One per phase, in order.
    pub phases: Vec<Stored<Phase>>,
    /// Per phase, one per worker, in order.
    pub workers: Vec<Vec<Stored<Worker>>>,
}

/// The status store of a run: the only way statuses are written.
#[derive(Clone, Debug)]
pub struct StatusStore {
    store: FileStore,
}

impl StatusStore {
    /// The store in `dir` (`DIR/status`).
    pub fn open(dir: &Path) -> Result<Self, Error> {
        let store = FileStore::open(dir).map_err(Error::io("opening the status store", dir))?;
        Ok(StatusStore { store })
    }

    /// Every status of a run of `pipeline`.
    pub fn load(&self, pipeline: &Pipeline) -> Result<Status, Error> {
        Ok(Status {
            run: self.load_one("run".to_owned())?,
            phases: pipeline
                .phases
                .iter()
                .map(|phase| self.load_one(format!("phase.{}", phase.id)))
                .collect::<Result<_, _>>()?,
            workers: pipeline
                .phases
                .iter()
                .map(|phase| {
                    phase
                        .workers
                        .iter()
                        .map(|worker| self.load_one(format!("worker.{}", worker.role)))
                        .collect::<Result<_, _>>()
                })
                .collect::<Result<_, _>>()?,
        })
    }

    fn load_one<M: Machine>(&self, id: String) -> Result<Stored<M>, Error> {
        let (version, machine) = match self.store.load(&id)? {
            None => (0, Recorded::new(M::new())),
            Some((version, snapshot)) => match Recorded::restore(&snapshot) {
                Ok(machine) => (version, machine),
                Err(source) => return Err(Error::Restore { id, source }),
            },
        };
        Ok(Stored { id, version, machine })
    }

    /// Fires `action` on the stored machine and, if its state changed, saves
    /// it against the version it was loaded at. Returns what fired; the
    /// caller performs the outputs.
    ///
    /// A [`Conflict`](fsm_runtime::store::StoreError::Conflict) means another
    /// orchestrator saved first; `stored` is then left as it was.
    pub fn fire<M, G>(&self, stored: &mut Stored<M>, action: M::Action, guards: &G) -> Result<Fired<M>, Error>
    where
        M: Fire<G>,
        G: ?Sized,
    {
        let mut next = stored.machine.clone();
        let fired = next.fire(action, guards).map_err(|error| Error::Transition {
            id: stored.id.clone(),
            message: error.to_string(),
        })?;
        if fired.from != fired.to {
            stored.version = self.store.save(&stored.id, stored.version, &next.snapshot())?;
            stored.machine = next;
        }
        Ok(fired)
    }
}

impl Status {
    /// The index of the phase the run is at: the first that has not
    /// completed, or the last one when all have.
    pub fn current_phase(&self) -> usize {
        self.phases
            .iter()
            .position(|phase| phase.machine.state() != phase::State::Completed)
            .unwrap_or(self.phases.len().saturating_sub(1))
    }

    /// Where an orchestrator picks this run up: the id of the phase it is
    /// at, when the run has started (a phase left `pending`) and is not over
    /// (neither delivered nor failed). `None` for a run about to start, or
    /// one that has nothing left to do.
    pub fn resumes_at<'a>(&self, record: &'a RunRecord) -> Option<&'a str> {
        let started = self
            .phases
            .iter()
            .any(|phase| phase.machine.state() != phase::State::Pending);
        let over = self.run.machine.state() != run::State::Running;
        if !started || over {
            return None;
        }
        record
            .definition
            .phases
            .get(self.current_phase())
            .map(|phase| phase.id.as_str())
    }

    /// The status as one `status.json`-style object (pipeline, topic,
    /// current phase, each phase's status and its workers', whether the
    /// result was delivered), for people to read: `pipeline status --dir DIR`
    /// prints it.
    pub fn to_json(&self, record: &RunRecord) -> Value {
        let phases: Vec<Value> = record
            .definition
            .phases
            .iter()
            .zip(&self.phases)
            .zip(&self.workers)
            .map(|((definition, phase), workers)| {
                let workers: Map<String, Value> = definition
                    .workers
                    .iter()
                    .zip(workers)
                    .map(|(worker, stored)| {
                        let status = stored.machine.state().name();
                        (worker.role.clone(), json!({ "status": status }))
                    })
                    .collect();
                json!({
                    "id": definition.id,
                    "status": phase.machine.state().name(),
                    "workers": workers,
                })
            })
            .collect();
        let current_phase = self.current_phase();
        json!({
            "pipeline": record.pipeline,
            "topic": record.topic,
            "current_phase": current_phase,
            "phases": phases,
            "run": self.run.machine.state().name(),
            "result_delivered": self.run.machine.state() == run::State::Delivered,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machines::worker::Worker;
    use crate::machines::PhaseFacts;

    fn stored<M: Machine>(id: &str, machine: M) -> Stored<M> {
        Stored {
            id: id.to_owned(),
            version: 1,
            machine: Recorded::new(machine),
        }
    }

    /// The built-in research pipeline with `collect` in `collect` and
    /// `synthesis` in `synthesis`, and the run in `run`.
    fn run_status(collect: Phase, synthesis: Phase, run: Run) -> (RunRecord, Status) {
        let record = RunRecord {
            pipeline: "research".to_owned(),
            topic: "FSA architecture".to_owned(),
            definition: crate::workflow::parse(crate::WORKFLOWS, "research").unwrap(),
        };
        let workers = record
            .definition
            .phases
            .iter()
            .map(|phase| {
                let worker = |w: &crate::workflow::WorkerDef| stored(&w.role, Worker::new());
                phase.workers.iter().map(worker).collect()
            })
            .collect();
        let status = Status {
            run: stored("run", run),
            phases: vec![
                stored("phase.collect", collect),
                stored("phase.synthesis", synthesis),
            ],
            workers,
        };
        (record, status)
    }

    const DONE: PhaseFacts = PhaseFacts {
        all_workers_done: true,
        final_phase: false,
        pause_after: false,
    };

    fn completed() -> Phase {
        let mut phase = Phase::new();
        phase.fire(phase::Action::Spawn, &DONE).unwrap();
        phase.fire(phase::Action::OutputDetected, &DONE).unwrap();
        assert_eq!(phase.state(), phase::State::Completed);
        phase
    }

    #[test]
    fn a_run_killed_after_its_first_phase_resumes_at_the_second() {
        let (record, status) = run_status(completed(), Phase::new(), Run::new());
        assert_eq!(status.resumes_at(&record), Some("synthesis"));
        let mut running = Phase::new();
        running.fire(phase::Action::Spawn, &DONE).unwrap();
        let (record, status) = run_status(completed(), running, Run::new());
        assert_eq!(status.resumes_at(&record), Some("synthesis"));
    }

    #[test]
    fn a_run_not_started_or_over_is_not_resumed() {
        let (record, fresh) = run_status(Phase::new(), Phase::new(), Run::new());
        assert_eq!(fresh.resumes_at(&record), None);
        let mut failed = Run::new();
        failed.fire(run::Action::PhaseFailed).unwrap();
        let (record, over) = run_status(completed(), Phase::new(), failed);
        assert_eq!(over.resumes_at(&record), None);
    }
}
