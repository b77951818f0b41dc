//! The runs' files and their instances in the fleet.
//!
//! ```text
//! DIR/fleet.db                     the fleet (unless --db names another)
//! DIR/runs/<id>/                   one directory per run, created before its instance
//! DIR/runs/<id>/<role>.md          each agent's output
//! DIR/runs/<id>/sessions/<role>.lock     held (flock) by the agent while it runs
//! DIR/runs/<id>/sessions/<role>.started  written by the agent when it starts
//! DIR/runs/<id>/sessions/<role>.error    why the agent failed, when known
//! DIR/runs/<id>/sessions/<role>.reported written once its exit was reported
//! DIR/runs/<id>/starts.log         one line per agent process started
//! DIR/runs/<id>/final.md           the delivered result, created once
//! DIR/runs/<id>/failure.md         why the run failed, created once
//! DIR/deliveries.log               one line per result delivered
//! DIR/orchestrators/<id>.lock      held (flock) by each orchestrator while it lives
//! DIR/.tmp/                        temporary files, until moved into place
//! ```
//!
//! The state of a run is not in these files: it is its `Pipeline` instance
//! in the fleet, whose id is the name of its directory.

use crate::error::Error;
use crate::machines::{Pipeline, RunContext};
use crate::workflow;
use fsm_fleet::{Fleet, FleetError, Instance};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The pipeline a run follows unless told otherwise.
pub const DEFAULT_PIPELINE: &str = "research";

/// The topic of a run unless told otherwise.
pub const DEFAULT_TOPIC: &str = "FSA architecture";

/// Opens the fleet `db`: an SQLite file, or a PostgreSQL database named by
/// a URL (`postgres://…`, `postgresql://…`) or `key=value` parameters
/// (`host=/run/postgresql dbname=fleet`). Every command opens its fleet here.
pub fn open_fleet(db: &str) -> Result<Fleet, Error> {
    if is_postgres(db) {
        return Fleet::connect(db).map_err(|source| Error::Open {
            db: "in PostgreSQL".to_owned(),
            source,
        });
    }
    Fleet::open(db).map_err(|source| Error::Open {
        db: db.to_owned(),
        source,
    })
}

/// Whether `db` names a PostgreSQL database rather than an SQLite file.
pub fn is_postgres(db: &str) -> bool {
    fsm_fleet::inspect::is_postgres(db)
}

/// Where the runs' files are: `DIR` of `--dir`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// The workspace in `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Workspace { root: root.into() }
    }

    /// `DIR` itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The fleet's database unless `--db` names another: `DIR/fleet.db`.
    pub fn default_db(&self) -> PathBuf {
        self.root.join("fleet.db")
    }

    /// The files of run `id`.
    pub fn run(&self, id: &str) -> RunFiles {
        RunFiles {
            dir: self.root.join("runs").join(id),
        }
    }

    /// One line per delivered result: `<id> <output key>`.
    pub fn deliveries_log(&self) -> PathBuf {
        self.root.join("deliveries.log")
    }

    /// Where each orchestrator holds its presence
    /// ([`crate::session::Presence`]).
    pub fn orchestrators(&self) -> PathBuf {
        self.root.join("orchestrators")
    }

    /// Where files are staged before they are moved into place.
    pub fn temp(&self) -> PathBuf {
        self.root.join(".tmp")
    }

    /// Creates `DIR`, `DIR/runs` and `DIR/.tmp`.
    pub fn create_dirs(&self) -> Result<(), Error> {
        for dir in [self.root.join("runs"), self.temp()] {
            fs::create_dir_all(&dir).map_err(Error::io("creating", &dir))?;
        }
        Ok(())
    }

    /// The ids of the runs, sorted: the directories in `DIR/runs`.
    pub fn run_ids(&self) -> Result<Vec<String>, Error> {
        let runs = self.root.join("runs");
        let entries = match fs::read_dir(&runs) {
            Ok(entries) => entries,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(Error::io("reading", &runs)(source)),
        };
        let mut ids = Vec::new();
        for entry in entries {
            let entry = entry.map_err(Error::io("reading", &runs))?;
            if entry.path().is_dir() {
                if let Some(id) = entry.file_name().to_str().filter(|id| check_id(id).is_ok()) {
                    ids.push(id.to_owned());
                }
            }
        }
        ids.sort();
        Ok(ids)
    }
}

/// The files of one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunFiles {
    dir: PathBuf,
}

impl RunFiles {
    /// `DIR/runs/<id>`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// An agent's output: `<role>.md`.
    pub fn output(&self, role: &str) -> PathBuf {
        self.dir.join(format!("{role}.md"))
    }

    /// The lock an agent holds while it runs.
    pub fn session(&self, role: &str) -> PathBuf {
        self.dir.join("sessions").join(format!("{role}.lock"))
    }

    /// The marker an agent writes when it starts: its reply key, its
    /// process id and the id of the orchestrator that started it, a line
    /// each.
    pub fn started(&self, role: &str) -> PathBuf {
        self.dir.join("sessions").join(format!("{role}.started"))
    }

    /// Why the agent failed, when it or the orchestrator that saw it exit
    /// could tell: created once, so the first cause recorded stays.
    pub fn agent_error(&self, role: &str) -> PathBuf {
        self.dir.join("sessions").join(format!("{role}.error"))
    }

    /// Written once the agent's exit was reported to its run (as
    /// `agent_done` or `agent_failed`): orchestrators look no further at
    /// an agent that has it.
    pub fn reported(&self, role: &str) -> PathBuf {
        self.dir.join("sessions").join(format!("{role}.reported"))
    }

    /// Why the run failed, written once when the user is told.
    pub fn failure(&self) -> PathBuf {
        self.dir.join("failure.md")
    }

    /// One line per agent process started: `<role> <pid>`.
    pub fn starts_log(&self) -> PathBuf {
        self.dir.join("starts.log")
    }

    /// The delivered result.
    pub fn delivered(&self) -> PathBuf {
        self.dir.join("final.md")
    }

    /// Creates the run's directories.
    pub fn create_dirs(&self) -> Result<(), Error> {
        let sessions = self.dir.join("sessions");
        fs::create_dir_all(&sessions).map_err(Error::io("creating", &sessions))
    }
}

/// Whether `id` can name a run: a directory and an instance id.
pub fn check_id(id: &str) -> Result<(), Error> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        && !id.starts_with(['-', '_']);
    if ok {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "{id:?} cannot name a run: use 1 to 64 lowercase ASCII letters, digits, `-` and `_`, \
             starting with a letter or a digit"
        )))
    }
}

/// What `pipeline start` makes.
#[derive(Clone, Debug)]
pub struct NewRuns<'a> {
    /// The pipeline's name in `workflows`.
    pub pipeline: &'a str,
    /// The topic.
    pub topic: &'a str,
    /// The text of `workflows.json`.
    pub workflows: &'a str,
    /// How long past its timeouts a run may go on.
    pub grace: Duration,
    /// How many runs.
    pub count: usize,
    /// The id of the first run; the others add `-2`, `-3`… When `None`, ids
    /// are `<pipeline>-<n>` with the first free numbers.
    pub id: Option<&'a str>,
}

/// Creates and starts `new.count` runs in `fleet`, their directories in
/// `workspace`; returns their ids. Each run's instance is created and sent
/// `start`: the next orchestrator that works the fleet starts its agents.
pub fn start(fleet: &mut Fleet, workspace: &Workspace, new: &NewRuns<'_>) -> Result<Vec<String>, Error> {
    let definition = workflow::parse(new.workflows, new.pipeline)?;
    workspace.create_dirs()?;
    let mut ids = Vec::with_capacity(new.count);
    // Numbers up to the count of runs are mostly taken: start past them.
    let mut next = workspace.run_ids()?.len() + 1;
    for i in 0..new.count {
        let id = loop {
            let id = match new.id {
                Some(first) if i == 0 => first.to_owned(),
                Some(first) => format!("{first}-{}", i + 1),
                None => {
                    next += 1;
                    format!("{}-{}", new.pipeline, next - 1)
                }
            };
            check_id(&id)?;
            let context = RunContext::new(new.pipeline, new.topic, definition.clone(), new.grace);
            // The directory first: a run whose instance exists always has
            // one, and `status` lists the directories.
            workspace.run(&id).create_dirs()?;
            match fleet.create(&id, Pipeline::new(context)) {
                Ok(()) => break id,
                Err(FleetError::DuplicateInstance { .. }) if new.id.is_none() => continue,
                Err(FleetError::DuplicateInstance { .. }) => {
                    return Err(Error::Usage(format!(
                        "a run `{id}` exists already; choose another --id"
                    )))
                }
                Err(error) => return Err(error.into()),
            }
        };
        fleet.send(&id, &crate::machines::Action::Start, "start")?;
        ids.push(id);
    }
    Ok(ids)
}

/// A run as its instance holds it.
#[derive(Clone, Debug)]
pub struct Run {
    /// Its id.
    pub id: String,
    /// Its state's name (`running`, `delivered`…).
    pub state: String,
    /// Its context.
    pub context: RunContext,
    /// Why the fleet parked it, if it did.
    pub parked: Option<String>,
}

/// Run `id` from `fleet`, or `None` if it has no instance.
pub fn load(fleet: &mut Fleet, id: &str) -> Result<Option<Run>, Error> {
    let Some(instance) = fleet.instance(id)? else {
        return Ok(None);
    };
    read(instance).map(Some)
}

fn read(instance: Instance) -> Result<Run, Error> {
    let bad = |message: String| Error::Instance {
        id: instance.id.clone(),
        message,
    };
    if instance.machine != "Pipeline" {
        return Err(bad(format!(
            "it is an instance of machine `{}`, not a pipeline run",
            instance.machine
        )));
    }
    let mut snapshot: serde_json::Value = serde_json::from_str(&instance.snapshot)
        .map_err(|error| bad(format!("its snapshot does not read: {error}")))?;
    let context = serde_json::from_value(snapshot["context"].take())
        .map_err(|error| bad(format!("its context does not read: {error}")))?;
    Ok(Run {
        id: instance.id,
        state: instance.state,
        context,
        parked: instance.error,
    })
}
