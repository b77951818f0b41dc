//! An agent: a pure executor, run as its own process by an orchestrator. It
//! records that it started, does its work and writes its output file. It
//! never starts another agent, and it never opens the fleet: the
//! orchestrators report it (see [`crate::orchestrator`]), so the database
//! sees one connection per orchestrator however many agents run.
//!
//! It inherits its session lock from the orchestrator that started it (see
//! [`crate::session`]) and holds it until it exits; its start marker is
//! written under that lock, before anything else, so an orchestrator that
//! takes the lock later knows an agent ran. Once the lock is free again the
//! agent is gone, and its output file says how it ended: there means done,
//! missing means failed. An error it can name is written to its error file
//! (`sessions/<role>.error`), which the run's failure report quotes.
//!
//! The work is simulated: the agent sleeps (half to one and a half times
//! its work time), then writes a report that quotes the files it reads, so
//! the final output shows the whole pipeline.

use crate::atomic_file;
use crate::error::Error;
use crate::orchestrator::append;
use crate::runs::{self, Workspace};
use crate::workflow::WorkerDef;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Set to a role, this agent exits without writing its output, as if it
/// were killed mid-task (out of memory, a platform restart). For tests.
pub const CRASH_ENV: &str = "PIPELINE_CRASH_AGENT";

/// Set to a role, this agent never finishes, as if it hung (a stuck model
/// call). For tests: its run times out and the orchestrator kills it.
pub const HANG_ENV: &str = "PIPELINE_HANG_AGENT";

/// Set to a role, this agent fails with an error it can name (as a model
/// call refused would). For tests: the run's failure report quotes it.
pub const ERROR_ENV: &str = "PIPELINE_FAIL_AGENT";

/// What an agent is told by the orchestrator that starts it: everything it
/// needs, so that it never reads the fleet. Passed as JSON in one argument.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Assignment {
    /// The run.
    pub run: String,
    /// The run's topic.
    pub topic: String,
    /// The agent, from the run's definition.
    pub worker: WorkerDef,
    /// The deduplication key of its report: derived from the key of the
    /// `start_agents` output that started it. The agent writes it into its
    /// start marker, where whichever orchestrator reports it reads it.
    pub reply_key: String,
    /// How long it works, in milliseconds.
    pub work_ms: u64,
    /// The orchestrator that starts it ([`crate::session::Presence`]): it
    /// reports the agent while it lives.
    pub orchestrator: String,
}

/// Runs the agent `assignment` of a run in `workspace`. An error after its
/// start marker was written is also recorded in its error file.
pub fn run(workspace: &Workspace, assignment: &Assignment) -> Result<(), Error> {
    runs::check_id(&assignment.run)?;
    let role = assignment.worker.role.as_str();
    let files = workspace.run(&assignment.run);

    // Every process started is logged, before the marker says whether it
    // should have been.
    append(&files.starts_log(), &format!("{role} {}\n", std::process::id()))?;
    // Created whole or not at all: an orchestrator that finds it reads the
    // reply key, and who started the agent, from it.
    let marker = files.started(role);
    let text = format!(
        "{}\n{}\n{}\n",
        assignment.reply_key,
        std::process::id(),
        assignment.orchestrator
    );
    let created = atomic_file::create_new(&marker, &workspace.temp(), text.as_bytes())
        .map_err(Error::io("creating", &marker))?;
    if !created {
        return Err(Error::Instance {
            id: assignment.run.clone(),
            message: format!("agent {role} was started before ({} exists)", marker.display()),
        });
    }
    work(workspace, assignment).inspect_err(|error| {
        // The first error recorded stays; failing to record it leaves the
        // report without a cause, which the orchestrator says.
        let path = files.agent_error(role);
        let _ = atomic_file::create_new(&path, &workspace.temp(), format!("{error}\n").as_bytes());
    })
}

/// The agent's work, once it is known to be the only one of its role.
fn work(workspace: &Workspace, assignment: &Assignment) -> Result<(), Error> {
    let worker = &assignment.worker;
    let role = worker.role.as_str();
    let files = workspace.run(&assignment.run);
    if std::env::var_os(HANG_ENV).is_some_and(|hang| hang == role) {
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
    // Agents of one phase take different times, as real ones do: from half
    // to one and a half times the work given.
    let work = Duration::from_millis(assignment.work_ms);
    let jitter = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .subsec_nanos()
        % 101;
    std::thread::sleep(work / 2 + work * jitter / 100);
    if std::env::var_os(CRASH_ENV).is_some_and(|crash| crash == role) {
        std::process::exit(3);
    }
    if std::env::var_os(ERROR_ENV).is_some_and(|fail| fail == role) {
        return Err(Error::Usage(format!(
            "model {} refused the task ({ERROR_ENV} is set)",
            worker.model
        )));
    }

    let mut report = format!(
        "# {role}\n\nTopic: {}\nModel: {}\nTask: {}\n",
        assignment.topic, worker.model, worker.task
    );
    for read in &worker.reads {
        let path = files.dir().join(read);
        let text = std::fs::read_to_string(&path).map_err(Error::io("reading", &path))?;
        report.push_str(&format!("\n## From {read}\n\n{text}"));
    }
    // Its last act: once this file exists, the agent is done.
    let output = files.output(role);
    atomic_file::replace(&output, &workspace.temp(), report.as_bytes()).map_err(Error::io("writing", &output))
}
