//! The run's status: one `Run`, one `Phase` per phase and one `Worker` per
//! worker, each a snapshot in the [`FileStore`] under `DIR/status/`, each
//! saved by compare-and-swap on its version.
//!
//! Instance ids: `run`, `phase.<id>`, `worker.<role>`. An instance never
//! saved is in its machine's initial state, at version 0.
//!
//! Each machine is [`Recorded`]: its snapshot carries the transitions that
//! changed its state, with when they happened, so
//! `fsmc history DIR/status/phase.collect.json` shows how a phase got where
//! it is, its timeout included (as `after time_limit`). A phase's snapshot
//! also carries its context and the deadline of its timeout. (Internal
//! transitions, like a phase's `tick` on every heartbeat, change nothing and
//! are neither saved nor recorded.)

use crate::error::Error;
use crate::machines::phase::{self, Phase};
use crate::machines::run::{self, Run};
use crate::machines::worker::Worker;
use crate::machines::PhaseContext;
use crate::run_dir::RunRecord;
use crate::workflow::Pipeline;
use fsm_runtime::{FireEvent, Fired, Persist, Recorded, Restore, Timed, TimerFired};
use fsm_store::{FileStore, Store, Version};
use serde_json::{json, Map, Value};
use std::path::Path;
use std::time::Duration;

/// A status machine as stored, with the version it was loaded or saved at.
#[derive(Clone, Debug)]
pub struct Stored<T> {
    /// The store instance.
    pub id: String,
    /// The version the machine was loaded or last saved at.
    pub version: Version,
    /// The machine, and the history of its state changes.
    pub machine: T,
}

/// Every status of a run, as loaded.
#[derive(Debug)]
pub struct Status {
    /// The run: whether the result was delivered.
    pub run: Stored<Recorded<Run>>,
    /// One per phase, in order.
    pub phases: Vec<Stored<Recorded<Phase>>>,
    /// Per phase, one per worker, in order.
    pub workers: Vec<Vec<Stored<Recorded<Worker>>>>,
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

    /// Every status of a run of `pipeline`. A phase never saved gets the
    /// context of its definition, failing `grace` past its timeout; a saved
    /// one keeps the context it was saved with.
    pub fn load(&self, pipeline: &Pipeline, grace: Duration) -> Result<Status, Error> {
        let last = pipeline.phases.len().saturating_sub(1);
        Ok(Status {
            run: self.load_one("run".to_owned(), Run::new)?,
            phases: pipeline
                .phases
                .iter()
                .enumerate()
                .map(|(p, phase)| {
                    let context = PhaseContext::new(phase, p == last, grace);
                    self.load_one(format!("phase.{}", phase.id), || Phase::new(context))
                })
                .collect::<Result<_, _>>()?,
            workers: pipeline
                .phases
                .iter()
                .map(|phase| {
                    phase
                        .workers
                        .iter()
                        .map(|worker| self.load_one(format!("worker.{}", worker.role), Worker::new))
                        .collect::<Result<_, _>>()
                })
                .collect::<Result<_, _>>()?,
        })
    }

    /// The machine saved as `id`, or `initial()` if none was.
    fn load_one<M: Restore>(
        &self,
        id: String,
        initial: impl FnOnce() -> M,
    ) -> Result<Stored<Recorded<M>>, Error> {
        let (version, machine) = match self.store.load(&id)? {
            None => (0, Recorded::new(initial())),
            Some((version, snapshot)) => match Recorded::restore(&snapshot) {
                Ok(machine) => (version, machine),
                Err(source) => return Err(Error::Restore { id, source }),
            },
        };
        Ok(Stored { id, version, machine })
    }

    /// Fires `event` on the stored machine and, if its state changed, saves
    /// it (a phase with its context and its timer's deadline) against the
    /// version it was loaded at. Returns what fired; the caller performs the
    /// outputs.
    ///
    /// A [`Conflict`](fsm_store::StoreError::Conflict) means another
    /// orchestrator saved first; `stored` is then left as it was.
    pub fn fire<M: FireEvent + Persist + Clone>(
        &self,
        stored: &mut Stored<Recorded<M>>,
        event: M::Event,
    ) -> Result<Fired<M>, Error> {
        self.change(stored, |machine| {
            machine.fire(event).map_err(|error| error.to_string())
        })
    }

    /// Fires the machine's timer (a phase's timeout) if it is due and, if
    /// its state changed, saves it; `None` when no timer was due.
    pub fn fire_next_due<M: Timed + Persist + Clone>(
        &self,
        stored: &mut Stored<Recorded<M>>,
    ) -> Result<Option<TimerFired<M>>, Error> {
        self.change(stored, |machine| {
            machine
                .fire_next_due()
                .transpose()
                .map_err(|rejected| rejected.to_string())
        })
    }

    /// Applies `change` to a copy of the stored machine and, if that moved
    /// it to another state, saves the copy and keeps it. When the change or
    /// the save fails, the copy is dropped and `stored` left as it was, even
    /// by a timer that came due and was disarmed because no guard held.
    fn change<M: Persist + Clone, T>(
        &self,
        stored: &mut Stored<Recorded<M>>,
        change: impl FnOnce(&mut Recorded<M>) -> Result<T, String>,
    ) -> Result<T, Error> {
        let id = &stored.id;
        let transition = |message: String| Error::Transition {
            id: id.clone(),
            message,
        };
        let mut next = stored.machine.clone();
        let result = change(&mut next).map_err(transition)?;
        if next.state() != stored.machine.state() {
            let snapshot = next.snapshot().map_err(|error| transition(error.to_string()))?;
            stored.version = self.store.save(&stored.id, stored.version, &snapshot)?;
            stored.machine = next;
        }
        Ok(result)
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
    use crate::machines::Progress;

    fn stored<T>(id: &str, machine: T) -> Stored<T> {
        Stored {
            id: id.to_owned(),
            version: 1,
            machine,
        }
    }

    fn record() -> RunRecord {
        RunRecord {
            pipeline: "research".to_owned(),
            topic: "FSA architecture".to_owned(),
            definition: crate::workflow::parse(crate::WORKFLOWS, "research").unwrap(),
        }
    }

    /// The built-in research pipeline with `collect` in `collect` and
    /// `synthesis` in `synthesis`, and the run in `run`.
    fn run_status(collect: Recorded<Phase>, synthesis: Recorded<Phase>, run: Run) -> (RunRecord, Status) {
        let record = record();
        let workers = record
            .definition
            .phases
            .iter()
            .map(|phase| {
                let worker = |w: &crate::workflow::WorkerDef| stored(&w.role, Recorded::new(Worker::new()));
                phase.workers.iter().map(worker).collect()
            })
            .collect();
        let status = Status {
            run: stored("run", Recorded::new(run)),
            phases: vec![
                stored("phase.collect", collect),
                stored("phase.synthesis", synthesis),
            ],
            workers,
        };
        (record, status)
    }

    fn pending() -> Recorded<Phase> {
        let definition = record().definition;
        let context = PhaseContext::new(&definition.phases[0], false, Duration::from_secs(120));
        Recorded::new(Phase::new(context))
    }

    fn running() -> Recorded<Phase> {
        let mut phase = pending();
        phase.fire(phase::Event::Spawn).unwrap();
        phase
    }

    fn completed() -> Recorded<Phase> {
        let mut phase = running();
        let done = Progress {
            completed: 2,
            workers: 2,
        };
        phase.fire(phase::Event::OutputDetected(done)).unwrap();
        assert_eq!(phase.state(), phase::State::Completed);
        phase
    }

    #[test]
    fn a_run_killed_after_its_first_phase_resumes_at_the_second() {
        let (record, status) = run_status(completed(), pending(), Run::new());
        assert_eq!(status.resumes_at(&record), Some("synthesis"));
        let (record, status) = run_status(completed(), running(), Run::new());
        assert_eq!(status.resumes_at(&record), Some("synthesis"));
    }

    #[test]
    fn a_run_not_started_or_over_is_not_resumed() {
        let (record, fresh) = run_status(pending(), pending(), Run::new());
        assert_eq!(fresh.resumes_at(&record), None);
        let mut failed = Run::new();
        failed.fire(run::Action::PhaseFailed).unwrap();
        let (record, over) = run_status(completed(), pending(), failed);
        assert_eq!(over.resumes_at(&record), None);
    }

    #[test]
    fn a_running_phase_keeps_its_context_and_deadline_through_its_snapshot() {
        let phase = running();
        // `collect`: two parallel workers of 600 s, and the grace.
        let due = phase.machine().next_deadline().expect("the timeout is armed");
        let snapshot = phase.snapshot().unwrap();
        let json = serde_json::to_value(&snapshot).unwrap();
        assert_eq!(json["context"]["timeout_secs"], 600);
        assert_eq!(json["context"]["grace_secs"], 120);
        assert_eq!(json["timers"][0]["due"], due.to_string());
        let restored = Recorded::<Phase>::restore(&snapshot).unwrap();
        assert_eq!(restored.state(), phase::State::Running);
        assert_eq!(restored.machine().next_deadline(), Some(due));
        assert_eq!(restored.machine().context(), phase.machine().context());
        assert_eq!(restored.history().len(), 1);
    }
}
