//! An agent: a pure executor, run as its own process by an orchestrator. It
//! records that it started, does its work, writes its output file and
//! reports `agent_done` to its run. It never starts another agent.
//!
//! It inherits its session lock from the orchestrator that started it (see
//! [`crate::session`]) and holds it until it exits; its start marker is
//! written under that lock, before anything else, so an orchestrator that
//! takes the lock later knows an agent ran.
//!
//! The work is simulated: the agent sleeps (half to one and a half times
//! `--work-ms`), then writes a report that quotes the files it reads, so the
//! final output shows the whole pipeline.

use crate::atomic_file;
use crate::error::Error;
use crate::machines::Event;
use crate::orchestrator::append;
use crate::runs::{self, open_fleet, Workspace};
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::time::Duration;

/// Set to a role, this agent exits without writing its output, as if it
/// were killed mid-task (out of memory, a platform restart). For tests.
pub const CRASH_ENV: &str = "PIPELINE_CRASH_AGENT";

/// Set to a role, this agent never finishes, as if it hung (a stuck model
/// call). For tests: its run times out and the orchestrator kills it.
pub const HANG_ENV: &str = "PIPELINE_HANG_AGENT";

/// Who an agent is and where it reports.
#[derive(Clone, Debug)]
pub struct Assignment<'a> {
    /// The fleet (`--db`).
    pub db: &'a str,
    /// The run.
    pub run: &'a str,
    /// The agent's role in the run's definition.
    pub role: &'a str,
    /// The deduplication key of its report: derived from the key of the
    /// `start_agents` output that started it.
    pub reply_key: &'a str,
    /// How long it works.
    pub work: Duration,
}

/// Runs the agent `assignment` of a run in `workspace`.
pub fn run(workspace: &Workspace, assignment: &Assignment<'_>) -> Result<(), Error> {
    runs::check_id(assignment.run)?;
    let mut fleet = open_fleet(assignment.db)?;
    let run = runs::load(&mut fleet, assignment.run)?
        .ok_or_else(|| Error::Usage(format!("there is no run `{}`", assignment.run)))?;
    let role = assignment.role;
    let worker = run
        .context
        .definition
        .worker(role)
        .ok_or_else(|| Error::Instance {
            id: run.id.clone(),
            message: format!("its pipeline `{}` has no agent `{role}`", run.context.pipeline),
        })?;
    let files = workspace.run(&run.id);

    // Every process started is logged, before the marker says whether it
    // should have been.
    append(&files.starts_log(), &format!("{role} {}\n", std::process::id()))?;
    let marker = files.started(role);
    match OpenOptions::new().write(true).create_new(true).open(&marker) {
        Ok(mut file) => file
            .write_all(format!("{}\n{}\n", assignment.reply_key, std::process::id()).as_bytes())
            .map_err(Error::io("writing", &marker))?,
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            return Err(Error::Instance {
                id: run.id.clone(),
                message: format!("agent {role} was started before ({} exists)", marker.display()),
            })
        }
        Err(source) => return Err(Error::io("creating", &marker)(source)),
    }

    if std::env::var_os(HANG_ENV).is_some_and(|hang| hang == role) {
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
    // Agents of one phase take different times, as real ones do: from half
    // to one and a half times the work given.
    let half = assignment.work / 2;
    let jitter = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .subsec_nanos()
        % 101;
    std::thread::sleep(half + assignment.work * jitter / 100);
    if std::env::var_os(CRASH_ENV).is_some_and(|crash| crash == role) {
        std::process::exit(3);
    }

    let mut report = format!(
        "# {role}\n\nTopic: {}\nModel: {}\nTask: {}\n",
        run.context.topic, worker.model, worker.task
    );
    for read in &worker.reads {
        let path = files.dir().join(read);
        let text = std::fs::read_to_string(&path).map_err(Error::io("reading", &path))?;
        report.push_str(&format!("\n## From {read}\n\n{text}"));
    }
    let output = files.output(role);
    atomic_file::replace(&output, &workspace.temp(), report.as_bytes())
        .map_err(Error::io("writing", &output))?;
    fleet.send(&run.id, &Event::AgentDone(role.to_owned()), assignment.reply_key)?;
    Ok(())
}
