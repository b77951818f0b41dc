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
//!      agent ran. An orchestrator runs at most [`Options::max_agents`]
//!      agents at once: a `start_agents` that finds no room is kept, claimed
//!      and not done, and goes on when agents exit;
//!    - `deliver_result` creates `final.md` with a hard link, which never
//!      replaces a file: a repeat finds it and changes nothing;
//!    - `notify_user` writes `failure.md` the same way, with the failed
//!      agent's cause, and kills the run's agents still running;
//! 3. collects the agents it started that exited, and records the exit
//!    status of those that failed as their cause;
//! 4. reports every agent that exited and was not reported, that it started
//!    or whose orchestrator is gone ([`Presence`]): an agent whose start
//!    marker exists and whose session lock is free is gone, and its output
//!    file says how it ended. It is sent to its run as `agent_done` if its
//!    output exists, else `agent_failed`, with the deduplication key in its
//!    start marker, so a report sent twice counts once. An agent whose
//!    orchestrator was killed is therefore reported by the next round of
//!    any orchestrator, done or failed, and its run goes on or fails at
//!    once.
//!
//! Agents never open the fleet: each orchestrator holds one connection to
//! it, and one more to read the outbox when it looks whether to stop.

use crate::agent::Assignment;
use crate::atomic_file;
use crate::error::Error;
use crate::machines::{Event, Output, Pipeline};
use crate::runs::{self, open_fleet, Run, RunFiles, Workspace};
use crate::session::{self, Kill, Presence, Session};
use fsm_fleet::inspect::{self, Reader};
use fsm_fleet::{ClaimedOutput, Fleet, Machines, Sent};
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

/// Set to an output's name (`deliver_result`), the orchestrator kills itself
/// with SIGKILL after performing every output of that name, before marking
/// it done: the output stays leased, then due again. For tests.
pub const DIE_AFTER_OUTPUT_ENV: &str = "PIPELINE_DIE_AFTER_OUTPUT";

/// How many agents one orchestrator runs at once unless told otherwise.
pub const DEFAULT_MAX_AGENTS: usize = 16;

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
    /// How many agents this orchestrator runs at once, at least 1. One
    /// `start_agents` starts a phase's agents one by one while there is
    /// room, and waits, claimed, for the rest. Agents whose orchestrator
    /// was killed run on outside every count.
    pub max_agents: usize,
    /// Stop once every run is finished (delivered, failed or paused) and no
    /// agent this orchestrator started runs; otherwise run until killed.
    pub until_finished: bool,
}

/// Runs an orchestrator on the runs of `workspace` until they are finished
/// (or forever, without [`Options::until_finished`]). `out` gets one line per
/// thing done.
pub fn run(workspace: &Workspace, options: &Options, out: &mut dyn Write) -> Result<(), Error> {
    workspace.create_dirs()?;
    let presences = workspace.orchestrators();
    let presence = Presence::take(&presences, &workspace.temp())
        .map_err(Error::io("taking a presence in", &presences))?;
    let mut orchestrator = Orchestrator {
        workspace,
        options,
        presence,
        fleet: open_fleet(&options.db)?,
        machines: Machines::new().with::<Pipeline>(),
        reader: None,
        out,
        agents: Vec::new(),
        held: Vec::new(),
        waiting: None,
        die_after_performing: std::env::var(DIE_AFTER_PERFORMING_ENV)
            .ok()
            .and_then(|percent| percent.parse().ok()),
        die_after_output: std::env::var(DIE_AFTER_OUTPUT_ENV).ok(),
    };
    let temp = workspace.temp();
    let removed = atomic_file::sweep(&temp).map_err(Error::io("sweeping", &temp))?;
    if removed > 0 {
        orchestrator.say(format_args!("removed {removed} stale temporary file(s)"))?;
    }
    loop {
        let busy = orchestrator.round()?;
        if !busy {
            if options.until_finished && orchestrator.finished()? {
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
}

struct Orchestrator<'a> {
    workspace: &'a Workspace,
    options: &'a Options,
    /// Held while it lives: the agents it started are its to report.
    presence: Presence,
    fleet: Fleet,
    machines: Machines,
    /// The fleet opened to read the outbox, once it is needed.
    reader: Option<Reader>,
    out: &'a mut dyn Write,
    agents: Vec<Agent>,
    /// `start_agents` outputs claimed and performed in part: they wait for
    /// room, in the order claimed.
    held: Vec<ClaimedOutput>,
    /// Since when it waits for outputs leased by others only, and whether
    /// it said so.
    waiting: Option<(std::time::Instant, bool)>,
    die_after_performing: Option<u32>,
    die_after_output: Option<String>,
}

/// How far performing an output went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Performed {
    /// All of it: the output is done.
    Whole,
    /// Agents are left to start when there is room: the output stays
    /// claimed, not done.
    WaitingForRoom,
}

/// How long an orchestrator waits for outputs claimed by others before it
/// says so: longer than performing one takes.
const WAITING_SAID_AFTER: Duration = Duration::from_millis(500);

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
        // Those waiting for room first; no new claims while any waits.
        for output in std::mem::take(&mut self.held) {
            self.handle(output, true)?;
        }
        let room = self.options.max_agents.saturating_sub(self.agents.len());
        let claimed = if self.held.is_empty() && room > 0 {
            self.fleet.claim_outputs(BATCH.min(room), self.options.lease)?
        } else {
            Vec::new()
        };
        let any_claimed = !claimed.is_empty();
        for output in claimed {
            self.handle(output, false)?;
        }
        let reaped = self.reap()?;
        let reported = self.report_exited()?;
        Ok(worked.instances > 0 || any_claimed || reaped || reported)
    }

    /// Performs `output` and settles it: done, failed, or kept for later
    /// when it waits for room. `again`: it waited already.
    fn handle(&mut self, output: ClaimedOutput, again: bool) -> Result<(), Error> {
        match self.perform(&output, again) {
            Ok(Performed::Whole) => {
                self.maybe_die(&output);
                self.fleet.output_done(&output)?;
            }
            Ok(Performed::WaitingForRoom) => self.held.push(output),
            Err(error) => {
                let message = error.to_string();
                self.say(format_args!("{} {}: {message}", output.key, output.output))?;
                self.fleet.output_failed(&output, &message)?;
            }
        }
        Ok(())
    }

    fn perform(&mut self, claimed: &ClaimedOutput, again: bool) -> Result<Performed, Error> {
        let run = runs::load(&mut self.fleet, &claimed.instance)?.ok_or_else(|| Error::Instance {
            id: claimed.instance.clone(),
            message: "its instance vanished".to_owned(),
        })?;
        let files = self.workspace.run(&run.id);
        files.create_dirs()?;
        let whole = |()| Performed::Whole;
        match claimed.output.as_str() {
            name if name == Output::StartAgents.name() => self.start_agents(&run, &files, claimed, again),
            name if name == Output::DeliverResult.name() => self.deliver(&run, &files, claimed).map(whole),
            name if name == Output::NotifyUser.name() => self.notify_failure(&run, &files).map(whole),
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
                .map(whole)
            }
            other => Err(Error::Instance {
                id: run.id.clone(),
                message: format!("emitted `{other}`, which this orchestrator does not know"),
            }),
        }
    }

    /// Starts the agents of the current phase that may run and never
    /// started, while this orchestrator has room for them. The agents a
    /// repeat of this output (or an earlier `start_agents`) started are left
    /// alone. `again`: this output waited for room before, and what it found
    /// then is not said twice.
    fn start_agents(
        &mut self,
        run: &Run,
        files: &RunFiles,
        claimed: &ClaimedOutput,
        again: bool,
    ) -> Result<Performed, Error> {
        if run.state != "running" {
            return Ok(Performed::Whole);
        }
        for role in run.context.due_roles() {
            if self.agents.len() >= self.options.max_agents {
                if !again {
                    self.say(format_args!(
                        "{}: agent {role} waits: this orchestrator runs {} agent(s), its limit",
                        run.id,
                        self.agents.len()
                    ))?;
                }
                return Ok(Performed::WaitingForRoom);
            }
            let lock = files.session(role);
            let free = match Session::probe(&lock).map_err(Error::io("locking", &lock))? {
                Session::Running => {
                    if !again {
                        self.say(format_args!(
                            "{}: agent {role} is running; not started again",
                            run.id
                        ))?;
                    }
                    continue;
                }
                Session::Free(free) => free,
            };
            // Written by the agent while it held this lock: an agent ran.
            if files.started(role).exists() {
                if !again {
                    self.say(format_args!("{}: agent {role} ran; not started again", run.id))?;
                }
                continue;
            }
            let worker = run
                .context
                .definition
                .worker(role)
                .ok_or_else(|| Error::Instance {
                    id: run.id.clone(),
                    message: format!("its pipeline `{}` has no agent `{role}`", run.context.pipeline),
                })?;
            let assignment = Assignment {
                run: run.id.clone(),
                topic: run.context.topic.clone(),
                worker: worker.clone(),
                reply_key: format!("{}/{role}", claimed.reply_key()),
                work_ms: u64::try_from(self.options.work.as_millis()).unwrap_or(u64::MAX),
                orchestrator: self.presence.id().to_owned(),
            };
            let mut command = Command::new(&self.options.program);
            command
                .arg("agent")
                .arg("--dir")
                .arg(self.workspace.root())
                .arg("--assignment")
                .arg(serde_json::to_string(&assignment).expect("an assignment serializes"))
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
            });
        }
        Ok(Performed::Whole)
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
            Some(role) => {
                let cause = files.agent_error(role);
                match fs::read_to_string(&cause) {
                    Ok(cause) => format!(
                        "agent {role} exited without writing its output: {}",
                        cause.trim_end()
                    ),
                    Err(error) if error.kind() == std::io::ErrorKind::NotFound => format!(
                        "agent {role} exited without writing its output, and no cause was recorded: it \
                         was killed, or crashed, and the orchestrator that started it did not see it \
                         exit"
                    ),
                    Err(source) => return Err(Error::io("reading", &cause)(source)),
                }
            }
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
        let report = files.failure();
        let text = format!("# {} failed\n\n{reason}\n", run.id);
        let created = atomic_file::create_new(&report, &self.workspace.temp(), text.as_bytes())
            .map_err(Error::io("writing", &report))?;
        if created {
            self.say(format_args!("notify user: {} failed: {reason}", run.id))?;
        }
        Ok(())
    }

    /// Collects the agents this orchestrator started that exited, and
    /// records the exit status of each that wrote no output as its cause
    /// (unless it recorded its own). Returns whether any exited. They are
    /// reported by [`Self::report_exited`], like any other.
    fn reap(&mut self) -> Result<bool, Error> {
        let mut any = false;
        let mut i = 0;
        while i < self.agents.len() {
            let status = match self.agents[i].child.try_wait() {
                Ok(Some(status)) => status.to_string(),
                Ok(None) => {
                    i += 1;
                    continue;
                }
                Err(error) => format!("a status that could not be read ({error})"),
            };
            let agent = self.agents.swap_remove(i);
            any = true;
            let files = self.workspace.run(&agent.run);
            if files.output(&agent.role).exists() {
                continue;
            }
            let cause = files.agent_error(&agent.role);
            atomic_file::create_new(
                &cause,
                &self.workspace.temp(),
                format!("it exited with {status}\n").as_bytes(),
            )
            .map_err(Error::io("writing", &cause))?;
        }
        Ok(any)
    }

    /// Reports to its run every agent that exited and was not reported yet,
    /// that this orchestrator started and collected, or whose orchestrator
    /// is gone: `agent_done` if it wrote its output, else `agent_failed`,
    /// under the reply key of its start marker. An orchestrator that lives
    /// reports its own agents, once it has recorded how they exited. Runs
    /// with a result or a failure report are passed over. Returns whether it
    /// reported any.
    fn report_exited(&mut self) -> Result<bool, Error> {
        let mut any = false;
        for id in self.workspace.run_ids()? {
            let files = self.workspace.run(&id);
            if files.delivered().exists() || files.failure().exists() {
                continue;
            }
            let sessions = files.dir().join("sessions");
            let entries = match fs::read_dir(&sessions) {
                Ok(entries) => entries,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
                Err(source) => return Err(Error::io("reading", &sessions)(source)),
            };
            let mut roles = Vec::new();
            for entry in entries {
                let name = entry.map_err(Error::io("reading", &sessions))?.file_name();
                if let Some(role) = name.to_str().and_then(|name| name.strip_suffix(".started")) {
                    roles.push(role.to_owned());
                }
            }
            roles.sort();
            for role in roles {
                any |= self.report(&id, &files, &role)?;
            }
        }
        Ok(any)
    }

    /// Reports agent `role` of run `id` if it exited and was not reported;
    /// returns whether it did.
    fn report(&mut self, id: &str, files: &RunFiles, role: &str) -> Result<bool, Error> {
        let reported = files.reported(role);
        if reported.exists() {
            return Ok(false);
        }
        let lock = files.session(role);
        match Session::probe(&lock).map_err(Error::io("locking", &lock))? {
            Session::Running => return Ok(false),
            // The agent wrote its marker under this lock, so it is gone.
            Session::Free(_) => {}
        }
        let marker = files.started(role);
        let text = fs::read_to_string(&marker).map_err(Error::io("reading", &marker))?;
        let mut lines = text.lines();
        let (Some(reply_key), Some(_pid), Some(starter)) = (lines.next(), lines.next(), lines.next()) else {
            return Err(Error::Instance {
                id: id.to_owned(),
                message: format!(
                    "{} does not hold a reply key, a process id and an orchestrator",
                    marker.display()
                ),
            });
        };
        if starter == self.presence.id() {
            // Ours: reported once collected, with its exit status.
            if self
                .agents
                .iter()
                .any(|agent| agent.run == id && agent.role == role)
            {
                return Ok(false);
            }
        } else {
            let presences = self.workspace.orchestrators();
            if Presence::alive(&presences, starter).map_err(Error::io("locking a presence in", &presences))? {
                return Ok(false);
            }
        }
        let done = files.output(role).exists();
        let event = if done {
            Event::AgentDone(role.to_owned())
        } else {
            Event::AgentFailed(role.to_owned())
        };
        let sent = self.fleet.send(id, &event, reply_key)?;
        fs::write(&reported, if done { "done\n" } else { "failed\n" })
            .map_err(Error::io("writing", &reported))?;
        if sent == Sent::Accepted {
            if done {
                self.say(format_args!("{id}: agent {role} done"))?;
            } else {
                self.say(format_args!(
                    "{id}: agent {role} exited without writing its output"
                ))?;
            }
        }
        Ok(true)
    }

    /// Whether everything is finished: no agent of this orchestrator runs or
    /// waits for room, every run is delivered, failed or paused (or parked),
    /// and the outbox holds no output still to perform (those claimed by an
    /// orchestrator that was killed are performed once their lease runs out;
    /// dead ones are left, and `pipeline run` reports them). A run created
    /// but never started (its `start` lost to a crash of `pipeline start`)
    /// is started.
    fn finished(&mut self) -> Result<bool, Error> {
        if !self.agents.is_empty() || !self.held.is_empty() {
            return Ok(false);
        }
        let mut finished = true;
        for id in self.workspace.run_ids()? {
            let Some(run) = runs::load(&mut self.fleet, &id)? else {
                // A directory whose instance was never created.
                continue;
            };
            if run.parked.is_some() {
                continue;
            }
            finished &= match run.state.as_str() {
                "created" => {
                    self.fleet.send(&id, &Event::Start, "start")?;
                    false
                }
                "delivered" | "failed" | "paused" => true,
                _ => false,
            };
        }
        if !finished {
            return Ok(false);
        }
        let outbox = outbox(&mut self.reader, &self.options.db)?;
        let to_perform = outbox.outputs_due + outbox.outputs_leased + outbox.outputs_waiting;
        if to_perform == 0 || outbox.outputs_leased < to_perform {
            self.waiting = None;
        } else {
            // Another orchestrator performs them, or it was killed and its
            // leases run out: said once it lasts.
            let (since, said) = self.waiting.get_or_insert((std::time::Instant::now(), false));
            if !*said && since.elapsed() >= WAITING_SAID_AFTER {
                *said = true;
                self.say(format_args!(
                    "waiting for {to_perform} output(s) claimed by other orchestrators: one that was \
                     killed holds them until its lease runs out"
                ))?;
            }
        }
        Ok(to_perform == 0)
    }

    fn maybe_die(&self, output: &ClaimedOutput) {
        if self.die_after_output.as_deref() == Some(output.output.as_str()) {
            // SAFETY: signals this process, which dies at once, as by `kill -9`.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
        }
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

/// What the outbox of fleet `db` holds, read through `reader`, which is
/// opened on first use.
pub fn outbox(reader: &mut Option<Reader>, db: &str) -> Result<inspect::DueCounts, Error> {
    let reader = match reader {
        Some(reader) => reader,
        None => reader.insert(inspect::open(db).map_err(|source| Error::Open {
            db: if runs::is_postgres(db) {
                "in PostgreSQL".to_owned()
            } else {
                db.to_owned()
            },
            source,
        })?),
    };
    Ok(inspect::due(reader, fsm_runtime::Timestamp::now())?)
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
