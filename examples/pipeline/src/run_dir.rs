//! The directory of one pipeline run, and what is where in it.
//!
//! ```text
//! DIR/run.json               the run: pipeline name, topic, and its definition
//! DIR/status/                the statuses, one FileStore instance per machine
//! DIR/<role>.md              each worker's output; its existence means "done"
//! DIR/sessions/<role>.lock   held (flock) by a worker process while it runs
//! DIR/starts.log             one line per worker process started
//! DIR/outbox/final.md        the delivered result, alone in the outbox
//! DIR/.tmp/                  temporary files, named `<file>.<pid>.tmp`,
//!                            until they are moved into place
//! ```
//!
//! Temporary files never sit beside the outputs or in the outbox: a crash
//! while writing leaves them in `.tmp/`, where the next orchestrator sweeps
//! them ([`atomic_file::sweep`]).

use crate::atomic_file;
use crate::error::Error;
use crate::workflow::{self, Pipeline};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The pipeline a new run follows unless told otherwise.
pub const DEFAULT_PIPELINE: &str = "research";

/// The topic of a new run unless told otherwise.
pub const DEFAULT_TOPIC: &str = "FSA architecture";

/// The paths of a run directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunDir {
    root: PathBuf,
}

impl RunDir {
    /// The run in `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        RunDir { root: root.into() }
    }

    /// The run directory itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `run.json`.
    pub fn record(&self) -> PathBuf {
        self.root.join("run.json")
    }

    /// The status store's directory.
    pub fn status(&self) -> PathBuf {
        self.root.join("status")
    }

    /// A worker's output, from its file name (`researcher-a.md`).
    pub fn output(&self, file_name: &str) -> PathBuf {
        self.root.join(file_name)
    }

    /// The lock file a worker holds while it runs.
    pub fn session(&self, role: &str) -> PathBuf {
        self.root.join("sessions").join(format!("{role}.lock"))
    }

    /// The log of worker starts.
    pub fn starts_log(&self) -> PathBuf {
        self.root.join("starts.log")
    }

    /// Where the result is delivered.
    pub fn outbox(&self) -> PathBuf {
        self.root.join("outbox")
    }

    /// The delivered result.
    pub fn delivered(&self) -> PathBuf {
        self.outbox().join("final.md")
    }

    /// Where files are staged before they are moved into place: on the
    /// same filesystem as the outputs and the outbox.
    pub fn temp(&self) -> PathBuf {
        self.root.join(".tmp")
    }

    /// Creates the directories of the run.
    pub fn create_dirs(&self) -> Result<(), Error> {
        for dir in [
            self.status(),
            self.root.join("sessions"),
            self.outbox(),
            self.temp(),
        ] {
            fs::create_dir_all(&dir).map_err(Error::io("creating", &dir))?;
        }
        Ok(())
    }
}

/// `run.json`: what a run is, fixed when it starts. The pipeline's
/// definition is copied in, so that a resumed run follows the definition it
/// started with even if `workflows.json` changed since.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    /// The pipeline's name in `workflows.json`.
    pub pipeline: String,
    /// What the run is about.
    pub topic: String,
    /// The pipeline's definition.
    pub definition: Pipeline,
}

impl RunRecord {
    /// The record of the run in `dir`, or `None` if no run was started there.
    pub fn load(dir: &RunDir) -> Result<Option<RunRecord>, Error> {
        let path = dir.record();
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(Error::io("reading", &path)(source)),
        };
        let record: RunRecord = serde_json::from_str(&text)
            .map_err(|error| Error::Run(format!("{} is not a run record: {error}", path.display())))?;
        record.definition.validate()?;
        Ok(Some(record))
    }

    /// The run in `dir`: resumed if one was started there, else started
    /// as pipeline `pipeline` of `workflows` (the text of `workflows.json`)
    /// on `topic`. Given for a run that exists, `pipeline` and `topic` must
    /// be the ones it was started with.
    pub fn start_or_resume(
        dir: &RunDir,
        pipeline: Option<&str>,
        topic: Option<&str>,
        workflows: &str,
    ) -> Result<RunRecord, Error> {
        if let Some(record) = RunRecord::load(dir)? {
            for (flag, given, recorded) in [
                ("--pipeline", pipeline, &record.pipeline),
                ("--topic", topic, &record.topic),
            ] {
                if let Some(given) = given.filter(|given| given != recorded) {
                    return Err(Error::Run(format!(
                        "{} holds a run with {flag} {recorded:?}, not {given:?}; leave \
                         {flag} out to resume it, or choose another --dir",
                        dir.root().display()
                    )));
                }
            }
            return Ok(record);
        }
        let pipeline = pipeline.unwrap_or(DEFAULT_PIPELINE);
        let record = RunRecord {
            pipeline: pipeline.to_owned(),
            topic: topic.unwrap_or(DEFAULT_TOPIC).to_owned(),
            definition: workflow::parse(workflows, pipeline)?,
        };
        dir.create_dirs()?;
        record.create_or_load(dir)
    }

    /// Writes this record as the run in `dir`, unless a run was started
    /// there already (by a crashed attempt, or by another orchestrator at
    /// the same moment): then that run is returned.
    pub fn create_or_load(self, dir: &RunDir) -> Result<RunRecord, Error> {
        let path = dir.record();
        let mut text = serde_json::to_string_pretty(&self).expect("a record serializes");
        text.push('\n');
        if atomic_file::create_new(&path, &dir.temp(), text.as_bytes())
            .map_err(Error::io("creating", &path))?
        {
            return Ok(self);
        }
        RunRecord::load(dir)?.ok_or_else(|| Error::Run(format!("{} vanished while starting", path.display())))
    }
}
