//! An orchestrator: one worker process of the fleet. Run as many as you like,
//! on the same database; any of them may be killed at any moment.
//!
//! Each round it
//!
//! 1. steps the runs that are due ([`Fleet::work`]): the agents' reports in
//!    the order sent, and the runs' time limits; each step saves the run and
//!    writes its outputs to the fleet's outbox in one transaction;
//! 2. claims outputs from the outbox and performs them
//!    ([`Fleet::claim_outputs`]): `start_agents`, `deliver_result`,
//!    `notify_user`, `summarize_to_user`. A performed output is marked done;
//!    one whose orchestrator died is claimed again once its lease runs out,
//!    under the same key, so every handler is idempotent:
//!    - `start_agents` starts an agent only if no process ever started for
//!      it: it holds the agent's session lock (see [`session`]) while it
//!      looks, and the agent writes its start marker while holding that lock,
//!      so a lock that is free and a marker that is missing mean that no
//!      agent ran;
//!    - `deliver_result` creates `final.md` with a hard link, which never
//!      replaces a file: a repeat finds it and changes nothing;
//!    - `notify_user` writes `failure.md` the same way and kills the run's
//!      agents still running;
//! 3. collects the agents it started that exited: one that failed is
//!    reported to its run as `agent_failed`, with the same deduplication key
//!    as its own `agent_done` would have had, so at most one of the two
//!    counts.
//!
//! An agent reports `agent_done` itself, so an agent whose orchestrator was
//! killed still finishes its run.

use crate::atomic_file;
use crate::error::Error;
use crate::machines::{Event, Output, Pipeline};
use crate::runs::{self, open_fleet, Run, RunFiles, Workspace};
use crate::session::{self, Kill, Session};
use fsm_fleet::{ClaimedOutput, Fleet, Machines};
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// How long past its timeouts a run may go on unless told otherwise.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(120);

/// Set to a percentage, the orchestrator kills itself with SIGKILL that often
/// after performing an output and before marking it done: the moment where
/// only an idempotent handler keeps its effect from happening twice. For
/// tests.
pub const DIE_AFTER_PERFORMING_ENV: &str = "PIPELINE_DIE_AFTER_PERFORMING";

/// How long a killed agent may take to release its lock.
const KILL_WAIT: Duration = Duration::from_secs(5);

/// How an orchestrator runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The fleet's database (`--db`).
    pub db: String,
    /// The program to run agents with (`<program> agent …`).
    pub program: PathBuf,
    /// How long each agent works.
    pub work: Duration,
    /// How long to wait when there is nothing to do.
    pub poll: Duration,
    /// How long a claimed output is this orchestrator's before another may
    /// claim it.
    pub lease: Duration,
    /// Stop once every run is finished (delivered, failed or paused) and no
    /// agent this orchestrator started runs; otherwise run until killed.
    pub until_finished: bool,
}

/// Runs an orchestrator on the runs of `workspace` until they are finished
/// (or forever, without [`Options::until_finished`]). `out` gets one line per
/// thing done.
pub fn run(workspace: &Workspace, options: &Options, out: &mut dyn Write) -> Result<(), Error> {
    workspace.create_dirs()?;
    let mut orchestrator = Orchestrator {
        workspace,
        options,
        fleet: open_fleet(&options.db)?,
        machines: Machines::new().with::<Pipeline>(),
        out,
        agents: Vec::new(),
        die_after_performing: std::env::var(DIE_AFTER_PERFORMING_ENV)
            .ok()
            .and_then(|percent| percent.parse().ok()),
    };
    let temp = workspace.temp();
    let removed = atomic_file::sweep(&temp).map_err(Error::io("sweeping", &temp))?;
    if removed > 0 {
        orchestrator.say(format_args!("removed {removed} stale temporary file(s)"))?;
    }
    loop {
        let busy = orchestrator.round()?;
        if !busy {
            if options.until_finished && orchestrator.agents.is_empty() && orchestrator.finished()? {
                return Ok(());
            }
            std::thread::sleep(options.poll);
        }
    }
}

/// An agent this orchestrator started, until it exits.
struct Agent {
    child: Child,
    run: String,
    role: String,
    reply_key: String,
}

struct Orchestrator<'a> {
    workspace: &'a Workspace,
    options: &'a Options,
    fleet: Fleet,
    machines: Machines,
    out: &'a mut dyn Write,
    agents: Vec<Agent>,
    die_after_performing: Option<u32>,
}

/// How many runs one step of the fleet takes, and how many outputs one claim.
const BATCH: usize = 16;

impl Orchestrator<'_> {
    /// One round; whether it did anything.
    fn round(&mut self) -> Result<bool, Error> {
        let worked = self.fleet.work(&self.machines, BATCH)?;
        for parked in &worked.parked {
            self.say(format_args!(
                "notify user: {} is parked: {}",
                parked.id, parked.error
            ))?;
        }
        let claimed = self.fleet.claim_outputs(BATCH, self.options.lease)?;
        for output in &claimed {
            match self.perform(output) {
                Ok(()) => {
                    self.maybe_die();
                    self.fleet.output_done(output)?;
                }
                Err(error) => {
                    let message = error.to_string();
                    self.say(format_args!("{} {}: {message}", output.key, output.output))?;
                    self.fleet.output_failed(output, &message)?;
                }
            }
        }
        let reaped = self.reap()?;
        Ok(worked.instances > 0 || !claimed.is_empty() || reaped)
    }

    fn perform(&mut self, claimed: &ClaimedOutput) -> Result<(), Error> {
        let run = runs::load(&mut self.fleet, &claimed.instance)?.ok_or_else(|| Error::Instance {
            id: claimed.instance.clone(),
            message: "its instance vanished".to_owned(),
        })?;
        let files = self.workspace.run(&run.id);
        files.create_dirs()?;
        match claimed.output.as_str() {
            name if name == Output::StartAgents.name() => self.start_agents(&run, &files, claimed),
            name if name == Output::DeliverResult.name() => self.deliver(&run, &files, claimed),
            name if name == Output::NotifyUser.name() => self.notify_failure(&run, &files),
            name if name == Output::SummarizeToUser.name() => {
                let phase = run
                    .context
                    .phase
                    .checked_sub(1)
                    .map(|p| &run.context.definition.phases[p]);
                let outputs: Vec<String> = phase
                    .map(|phase| phase.workers.iter().map(|w| w.output()).collect())
                    .unwrap_or_default();
                self.say(format_args!(
                    "{}: phase {} completed with {}; paused: `pipeline resume --id {}` goes on",
                    run.id,
                    phase.map_or("?", |phase| phase.id.as_str()),
                    outputs.join(", "),
                    run.id
                ))
            }
            other => Err(Error::Instance {
                id: run.id.clone(),
                message: format!("emitted `{other}`, which this orchestrator does not know"),
            }),
        }
    }

    /// Starts the agents of the current phase that may run and never
    /// started. The agents a repeat of this output (or an earlier
    /// `start_agents`) started are left alone.
    fn start_agents(&mut self, run: &Run, files: &RunFiles, claimed: &ClaimedOutput) -> Result<(), Error> {
        if run.state != "running" {
            return Ok(());
        }
        for role in run.context.due_roles() {
            let lock = files.session(role);
            let free = match Session::probe(&lock).map_err(Error::io("locking", &lock))? {
                Session::Running => {
                    self.say(format_args!(
                        "{}: agent {role} is running; not started again",
                        run.id
                    ))?;
                    continue;
                }
                Session::Free(free) => free,
            };
            // Written by the agent while it held this lock: an agent ran.
            if files.started(role).exists() {
                self.say(format_args!("{}: agent {role} ran; not started again", run.id))?;
                continue;
            }
            let reply_key = format!("{}/{role}", claimed.reply_key());
            let mut command = Command::new(&self.options.program);
            command
                .arg("agent")
                .arg("--dir")
                .arg(self.workspace.root())
                .arg("--db")
                .arg(&self.options.db)
                .args(["--id", &run.id, "--role", role, "--reply-key", &reply_key])
                .arg("--work-ms")
                .arg(self.options.work.as_millis().to_string())
                .stdout(Stdio::null());
            let child = free
                .start(command)
                .map_err(Error::io("starting an agent with", &self.options.program))?;
            self.say(format_args!(
                "{}: started agent {role} (process {})",
                run.id,
                child.id()
            ))?;
            self.agents.push(Agent {
                child,
                run: run.id.clone(),
                role: role.to_owned(),
                reply_key,
            });
        }
        Ok(())
    }

    /// Delivers the final agent's output as `final.md`, unless it was: the
    /// file is created with a hard link, which never replaces one.
    fn deliver(&mut self, run: &Run, files: &RunFiles, claimed: &ClaimedOutput) -> Result<(), Error> {
        let role = &run
            .context
            .definition
            .final_worker()
            .ok_or_else(|| Error::Instance {
                id: run.id.clone(),
                message: "its definition has no final agent".to_owned(),
            })?
            .role;
        let source = files.output(role);
        let result = fs::read(&source).map_err(Error::io("reading", &source))?;
        let target = files.delivered();
        let staged = atomic_file::Staged::write(&self.workspace.temp(), &target, &result)
            .map_err(Error::io("staging", &target))?;
        let created = staged
            .link_new(&target)
            .map_err(Error::io("delivering", &target))?;
        let temp = staged.path().to_owned();
        staged.remove().map_err(Error::io("removing", &temp))?;
        if created {
            let log = self.workspace.deliveries_log();
            append(&log, &format!("{} {}\n", run.id, claimed.key))?;
            return self.say(format_args!("{}: delivered {}", run.id, target.display()));
        }
        let delivered = fs::read(&target).map_err(Error::io("reading", &target))?;
        if delivered != result {
            return Err(Error::Instance {
                id: run.id.clone(),
                message: format!(
                    "{} exists but differs from {}; it was not written by this run, so it is \
                     left alone: move it away",
                    target.display(),
                    source.display()
                ),
            });
        }
        self.say(format_args!(
            "{}: {} was delivered already",
            run.id,
            target.display()
        ))
    }

    /// Tells the user the run failed (`failure.md`, once) and kills its
    /// agents that still run.
    fn notify_failure(&mut self, run: &Run, files: &RunFiles) -> Result<(), Error> {
        let reason = match &run.context.failed {
            Some(role) => format!("agent {role} exited without writing its output"),
            None => {
                let phase = run.context.definition.phases.get(run.context.phase);
                format!(
                    "its phase {} ran longer than its timeout ({} s) plus the grace ({} s)",
                    phase.map_or("?", |phase| phase.id.as_str()),
                    phase.map_or(0, |phase| phase.timeout()),
                    run.context.grace_secs
                )
            }
        };
        for (_, worker) in run.context.definition.workers() {
            let lock = files.session(&worker.role);
            match session::kill(&lock, KILL_WAIT).map_err(Error::io("killing the agent of", &lock))? {
                Kill::NotRunning => {}
                Kill::Killed { pid } => {
                    if let Some(i) = self.agents.iter().position(|a| a.child.id() as i64 == pid as i64) {
                        let _ = self.agents.swap_remove(i).child.wait();
                    }
                    self.say(format_args!(
                        "{}: killed agent {} (process {pid})",
                        run.id, worker.role
                    ))?;
                }
                Kill::PidUnknown => self.say(format_args!(
                    "notify user: {}: agent {} still runs and cannot be killed: its process id was \
                     never recorded (see {})",
                    run.id,
                    worker.role,
                    lock.display()
                ))?,
                Kill::StillRunning { pid } => self.say(format_args!(
                    "notify user: {}: agent {} (process {pid}) still runs {} s after SIGKILL",
                    run.id,
                    worker.role,
                    KILL_WAIT.as_secs()
                ))?,
            }
        }
        let report = files.dir().join("failure.md");
        let text = format!("# {} failed\n\n{reason}\n", run.id);
        let created = atomic_file::create_new(&report, &self.workspace.temp(), text.as_bytes())
            .map_err(Error::io("writing", &report))?;
        if created {
            self.say(format_args!("notify user: {} failed: {reason}", run.id))?;
        }
        Ok(())
    }

    /// Collects the agents that exited; reports those that failed. Returns
    /// whether any exited.
    fn reap(&mut self) -> Result<bool, Error> {
        let mut exited = Vec::new();
        let mut i = 0;
        while i < self.agents.len() {
            match self.agents[i].child.try_wait() {
                Ok(Some(status)) => exited.push((self.agents.swap_remove(i), Some(status))),
                Ok(None) => i += 1,
                Err(_) => exited.push((self.agents.swap_remove(i), None)),
            }
        }
        let any = !exited.is_empty();
        for (agent, status) in exited {
            if status.is_some_and(|status| status.success()) {
                continue;
            }
            let event = Event::AgentFailed(agent.role.clone());
            let sent = self.fleet.send(&agent.run, &event, &agent.reply_key)?;
            if sent == fsm_fleet::Sent::Accepted {
                self.say(format_args!(
                    "{}: agent {} exited without reporting ({})",
                    agent.run,
                    agent.role,
                    status.map_or_else(|| "its status is unknown".to_owned(), |s| s.to_string())
                ))?;
            }
        }
        Ok(any)
    }

    /// Whether every run is finished: delivered, failed and reported, or
    /// paused. A run created but never started (its `start` lost to a crash
    /// of `pipeline start`) is started.
    fn finished(&mut self) -> Result<bool, Error> {
        let mut finished = true;
        for id in self.workspace.run_ids()? {
            let Some(run) = runs::load(&mut self.fleet, &id)? else {
                // A directory whose instance was never created.
                continue;
            };
            if run.parked.is_some() {
                continue;
            }
            let files = self.workspace.run(&id);
            finished &= match run.state.as_str() {
                "created" => {
                    self.fleet.send(&id, &Event::Start, "start")?;
                    false
                }
                "delivered" => files.delivered().exists(),
                "failed" => files.dir().join("failure.md").exists(),
                "paused" => true,
                _ => false,
            };
        }
        Ok(finished)
    }

    fn maybe_die(&self) {
        let Some(percent) = self.die_after_performing else {
            return;
        };
        let draw = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .subsec_nanos()
            % 100;
        if draw < percent {
            // SAFETY: signals this process, which dies at once, as by `kill -9`.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
        }
    }

    fn say(&mut self, message: std::fmt::Arguments<'_>) -> Result<(), Error> {
        writeln!(self.out, "{message}")
            .and_then(|()| self.out.flush())
            .map_err(Error::io("writing to", std::path::Path::new("standard output")))
    }
}

/// Appends `line` with one `write` in append mode: lines of concurrent
/// writers never interleave.
pub(crate) fn append(path: &std::path::Path, line: &str) -> Result<(), Error> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| file.write_all(line.as_bytes()))
        .map_err(Error::io("appending to", path))
}
