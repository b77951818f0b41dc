//! The run's status: one `Run`, one `Phase` per phase and one `Worker` per
//! worker, each a snapshot in the [`FileStore`] under `DIR/status/`, each
//! saved by compare-and-swap on its version.
//!
//! Instance ids: `run`, `phase.<id>`, `worker.<role>`. An instance never
//! saved is in its machine's initial state, at version 0.

use crate::error::Error;
use crate::machines::phase::{self, Phase};
use crate::machines::run::{self, Run};
use crate::machines::worker::Worker;
use crate::run_dir::RunRecord;
use crate::workflow::Pipeline;
use fsm_runtime::store::{FileStore, Store, Version};
use fsm_runtime::{Fire, Fired, Machine};
use serde_json::{json, Map, Value};
use std::path::Path;

/// A status machine as stored, with the version it was loaded or saved at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored<M> {
    /// The store instance.
    pub id: String,
    /// The version the machine was loaded or last saved at.
    pub version: Version,
    /// The machine.
    pub machine: M,
}

/// Every status of a run, as loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
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
            None => (0, M::new()),
            Some((version, snapshot)) => match M::restore(&snapshot) {
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
    /// The status in the shape of the seed's `status.json`, for people to
    /// read: `pipeline status --dir DIR` prints it.
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
        let current_phase = self
            .phases
            .iter()
            .position(|phase| phase.machine.state() != phase::State::Completed)
            .unwrap_or(self.phases.len().saturating_sub(1));
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
