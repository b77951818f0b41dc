//! The run's status: one `Run`, one `Phase` per phase and one `Worker` per
//! worker, each a snapshot in the [`FileStore`] under `DIR/status/`, each
//! saved by compare-and-swap on its version.
//!
//! Instance ids: `run`, `phase.<id>`, `worker.<role>`. An instance never
//! saved is in its machine's initial state, at version 0.
//!
//! Each machine records its history: its snapshot carries the transitions
//! that changed its state, with when they happened, so
//! `fsmc history DIR/status/phase.collect.json` shows how a phase got where
//! it is. (Internal transitions, like a phase's `tick` on every heartbeat,
//! change nothing and are neither saved nor recorded.) `Run` and `Worker`
//! are [`Recorded`]; `Phase`, which owns a context and a timer, is a
//! [`RecordedPhase`], whose snapshot also carries its context and the
//! deadline of its timeout.

use crate::error::Error;
use crate::machines::phase::{self, Phase};
use crate::machines::run::{self, Run};
use crate::machines::worker::Worker;
use crate::machines::PhaseContext;
use crate::run_dir::RunRecord;
use crate::workflow::Pipeline;
use fsm_runtime::store::{FileStore, Store, Version};
use fsm_runtime::{
    FingerprintPolicy, Fire, Fired, History, Machine, NoGuards, Recorded, RestoreError, Snapshot,
    SnapshotError, SystemClock, Timestamp,
};
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
    pub phases: Vec<Stored<RecordedPhase>>,
    /// Per phase, one per worker, in order.
    pub workers: Vec<Vec<Stored<Recorded<Worker>>>>,
}

/// What a timer that fired is recorded as in a history: `after` and its
/// delay, as the `.fsm` file writes it.
pub const TIMEOUT_ACTION: &str = "after time_limit";

/// A [`Phase`] and the history of its state changes: what [`Recorded`] is
/// to the machines without a context. Its snapshot carries the state, the
/// context, the deadline of the armed timer and the history.
#[derive(Debug)]
pub struct RecordedPhase {
    machine: Phase,
    history: History,
}

impl RecordedPhase {
    /// A phase in its initial state, owning `context`, with an empty
    /// history.
    pub fn new(context: PhaseContext) -> Self {
        RecordedPhase {
            machine: Phase::new(context),
            history: History::new(),
        }
    }

    /// The machine.
    pub fn machine(&self) -> &Phase {
        &self.machine
    }

    /// The machine's current state.
    pub fn state(&self) -> phase::State {
        self.machine.state()
    }

    /// The history so far.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// When the phase's timeout is due, while it runs.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        self.machine.next_deadline()
    }

    /// Fire `event`, and record the transition if it fires.
    pub fn fire(&mut self, event: phase::Event) -> Result<phase::Fired, phase::FireError> {
        let fired = self.machine.fire(event)?;
        self.history.record(&fired);
        Ok(fired)
    }

    /// Fire the timer that is due, if one is, and record it as
    /// [`TIMEOUT_ACTION`].
    pub fn fire_due(&mut self) -> Option<Result<phase::TimerFired, phase::TimerRejected>> {
        let result = self.machine.fire_next_due()?;
        if let Ok(fired) = &result {
            self.history
                .record_names(fired.from.name(), TIMEOUT_ACTION, fired.to.name());
        }
        Some(result)
    }

    /// The machine's snapshot, carrying its context, its timer and the
    /// history's entries.
    ///
    /// # Errors
    ///
    /// When the context does not serialize.
    pub fn snapshot(&self) -> Result<Snapshot, SnapshotError> {
        Ok(self.machine.snapshot()?.with_history(&self.history))
    }

    /// The machine, context, timer and history of `snapshot`, which must
    /// come from this exact definition. The timer keeps the deadline the
    /// snapshot gives it, however long ago it was taken.
    ///
    /// # Errors
    ///
    /// As [`Phase::restore`], and [`RestoreError::SeqOutOfRange`] for a
    /// history too long to continue.
    pub fn restore(snapshot: &Snapshot) -> Result<Self, RestoreError> {
        let machine = Phase::restore_with(snapshot, FingerprintPolicy::Strict, SystemClock)?;
        let history = History::new().resumed_from(snapshot)?;
        Ok(RecordedPhase { machine, history })
    }
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
            run: self.load_one("run".to_owned())?,
            phases: pipeline
                .phases
                .iter()
                .enumerate()
                .map(|(p, phase)| {
                    let context = PhaseContext::new(phase, p == last, grace);
                    self.load_phase(format!("phase.{}", phase.id), context)
                })
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

    fn load_phase(&self, id: String, context: PhaseContext) -> Result<Stored<RecordedPhase>, Error> {
        let (version, machine) = match self.store.load(&id)? {
            None => (0, RecordedPhase::new(context)),
            Some((version, snapshot)) => match RecordedPhase::restore(&snapshot) {
                Ok(machine) => (version, machine),
                Err(source) => return Err(Error::Restore { id, source }),
            },
        };
        Ok(Stored { id, version, machine })
    }

    fn load_one<M: Machine>(&self, id: String) -> Result<Stored<Recorded<M>>, Error> {
        let (version, machine) = match self.store.load(&id)? {
            None => (0, Recorded::new(M::new())),
            Some((version, snapshot)) => match Recorded::restore(&snapshot) {
                Ok(machine) => (version, machine),
                Err(source) => return Err(Error::Restore { id, source }),
            },
        };
        Ok(Stored { id, version, machine })
    }

    /// Fires `action` on the stored machine (the run and the workers have
    /// no guards) and, if its state changed, saves it against the version
    /// it was loaded at. Returns what fired; the caller performs the
    /// outputs.
    ///
    /// A [`Conflict`](fsm_runtime::store::StoreError::Conflict) means another
    /// orchestrator saved first; `stored` is then left as it was.
    pub fn fire<M: Fire>(
        &self,
        stored: &mut Stored<Recorded<M>>,
        action: M::Action,
    ) -> Result<Fired<M>, Error> {
        let mut next = stored.machine.clone();
        // `Recorded` takes guards for any machine: `NoGuards` for these.
        let fired = next.fire(action, &NoGuards).map_err(|error| Error::Transition {
            id: stored.id.clone(),
            message: error.to_string(),
        })?;
        if fired.from != fired.to {
            stored.version = self.store.save(&stored.id, stored.version, &next.snapshot())?;
            stored.machine = next;
        }
        Ok(fired)
    }

    /// [`StatusStore::fire`] for a phase: fires `event` and, if the phase's
    /// state changed, saves it (with its context and its timer's deadline).
    pub fn fire_phase(
        &self,
        stored: &mut Stored<RecordedPhase>,
        event: phase::Event,
    ) -> Result<phase::Fired, Error> {
        self.change_phase(stored, |machine| {
            machine.fire(event).map_err(|error| error.to_string())
        })
    }

    /// Fires the phase's timeout if it is due and saves the phase; `None`
    /// when no timer was due.
    pub fn fire_due_phase(
        &self,
        stored: &mut Stored<RecordedPhase>,
    ) -> Result<Option<phase::TimerFired>, Error> {
        self.change_phase(stored, |machine| match machine.fire_due() {
            None => Ok(None),
            Some(Ok(fired)) => Ok(Some(fired)),
            Some(Err(rejected)) => Err(rejected.to_string()),
        })
    }

    /// Applies `change` to the phase and saves it if its state changed.
    /// A phase is not `Clone` (it owns a clock): the snapshot taken before
    /// puts it back when the save fails, so `stored` is left as it was.
    fn change_phase<T: PhaseChange>(
        &self,
        stored: &mut Stored<RecordedPhase>,
        change: impl FnOnce(&mut RecordedPhase) -> Result<T, String>,
    ) -> Result<T, Error> {
        let before = stored.machine.snapshot().map_err(|error| Error::Transition {
            id: stored.id.clone(),
            message: error.to_string(),
        })?;
        let state = stored.machine.state();
        let result = match change(&mut stored.machine) {
            Ok(result) => result,
            Err(message) => {
                // A rejected event changes nothing; a timer whose guards all
                // failed was disarmed, which is put back too.
                stored.machine = RecordedPhase::restore(&before).map_err(|source| Error::Restore {
                    id: stored.id.clone(),
                    source,
                })?;
                return Err(Error::Transition {
                    id: stored.id.clone(),
                    message,
                });
            }
        };
        if result.moved(state) {
            let saved = stored
                .machine
                .snapshot()
                .map_err(|error| Error::Transition {
                    id: stored.id.clone(),
                    message: error.to_string(),
                })
                .and_then(|snapshot| Ok(self.store.save(&stored.id, stored.version, &snapshot)?));
            match saved {
                Ok(version) => stored.version = version,
                Err(error) => {
                    stored.machine = RecordedPhase::restore(&before).map_err(|source| Error::Restore {
                        id: stored.id.clone(),
                        source,
                    })?;
                    return Err(error);
                }
            }
        }
        Ok(result)
    }
}

/// What changing a phase did: whether it left `state`.
trait PhaseChange {
    fn moved(&self, state: phase::State) -> bool;
}

impl PhaseChange for phase::Fired {
    fn moved(&self, state: phase::State) -> bool {
        self.to != state
    }
}

impl PhaseChange for Option<phase::TimerFired> {
    fn moved(&self, state: phase::State) -> bool {
        self.as_ref().is_some_and(|fired| fired.to != state)
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
    fn run_status(collect: RecordedPhase, synthesis: RecordedPhase, run: Run) -> (RunRecord, Status) {
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

    fn pending() -> RecordedPhase {
        let definition = record().definition;
        RecordedPhase::new(PhaseContext::new(
            &definition.phases[0],
            false,
            Duration::from_secs(120),
        ))
    }

    fn running() -> RecordedPhase {
        let mut phase = pending();
        phase.fire(phase::Event::Spawn).unwrap();
        phase
    }

    fn completed() -> RecordedPhase {
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
        let due = phase.next_deadline().expect("the timeout is armed");
        let snapshot = phase.snapshot().unwrap();
        let json = serde_json::to_value(&snapshot).unwrap();
        assert_eq!(json["context"]["timeout_secs"], 600);
        assert_eq!(json["context"]["grace_secs"], 120);
        assert_eq!(json["timers"][0]["due"], due.to_string());
        let restored = RecordedPhase::restore(&snapshot).unwrap();
        assert_eq!(restored.state(), phase::State::Running);
        assert_eq!(restored.next_deadline(), Some(due));
        assert_eq!(restored.machine().context(), phase.machine().context());
        assert_eq!(restored.history().len(), 1);
    }
}
