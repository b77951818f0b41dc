//! The orchestrator: the only writer of statuses.
//!
//! On every trigger (a heartbeat every `poll` while it waits) it runs the
//! same steps, holding nothing in memory between them:
//!
//! 1. load every status from the store;
//! 2. reconcile: a running worker whose output file exists is `completed`,
//!    whatever the status said; one whose process is gone without an output
//!    is `failed`; a phase whose workers all completed is `completed` (or
//!    `paused`); a `failed` worker whose process still runs is killed;
//! 3. consult the [decision table](crate::decision) and act on its row.
//!
//! A phase fails as soon as one of its workers failed, or when it runs past
//! its timeout plus the grace: that is the `Phase` machine's own timer,
//! armed when the phase starts, whose deadline is stored with the phase's
//! status, so an orchestrator started after a crash fails the phase at the
//! time first promised. Its workers still running are then killed
//! (SIGKILL to their process group) before they are marked `failed`, so none
//! outlives its phase holding its lock; an output written late changes
//! nothing, as only `running` workers of `running` phases are reconciled.
//!
//! On start and when it stops, the orchestrator sweeps `DIR/.tmp/` of the
//! temporary files of processes that are gone ([`atomic_file::sweep`]).
//!
//! Every status change is a compare-and-swap save, made before the effect it
//! announces when the effect can be repeated (spawning a phase, delivering),
//! and after it when it cannot (starting a worker process, whose session
//! lock tells a later orchestrator that it started). A `kill -9` at any point
//! therefore leaves statuses from which the next run reaches the same
//! decision. Two orchestrators on one directory are safe too: whoever saves
//! second gets a conflict, reloads, and decides again.

use crate::atomic_file;
use crate::decision::{decide, Decision, FailureCause, PhaseView};
use crate::error::Error;
use crate::machines::{phase, run, worker, Progress};
use crate::run_dir::{RunDir, RunRecord};
use crate::session::{self, Kill, Session};
use crate::status::{Status, StatusStore, Stored};
use fsm_runtime::{FireEvent, Fired, Persist, Recorded, Symbol, Timestamp};
use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime};

/// How long past its timeout a phase may run unless told otherwise.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(120);

/// How the orchestrator runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The program to run workers with (`<exe> worker --dir … --role …`).
    pub worker_program: PathBuf,
    /// How long each worker works.
    pub work: Duration,
    /// How long to wait between triggers when there is nothing to do.
    pub poll: Duration,
    /// How long past its timeout a phase may run before it is failed
    /// (`pipeline` uses [`DEFAULT_GRACE`] unless `--grace-secs` says
    /// otherwise). A phase that started keeps the grace it started with.
    pub grace: Duration,
    /// Go on after a paused phase.
    pub resume: bool,
    /// Called at each [`Checkpoint`] the orchestrator passes. For tests,
    /// which kill the orchestrator there; the `pipeline` binary sets none.
    pub checkpoint: Option<fn(Checkpoint)>,
}

/// Named points of the orchestrator's work where a crash is most telling:
/// between an effect and the status save that records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checkpoint {
    /// A worker process was started; its `running` status is not saved.
    WorkerStarted,
    /// The run is saved as `delivering`; `final.md` is not written.
    Delivering,
    /// The result is staged in `DIR/.tmp/`, not yet linked into the outbox.
    DeliveryStaged,
    /// `outbox/final.md` exists (and its staged copy still does); the run is
    /// not yet saved as `delivered`.
    DeliveryLinked,
}

impl Checkpoint {
    /// Every checkpoint, in the order a run passes them.
    pub const ALL: [Checkpoint; 4] = [
        Checkpoint::WorkerStarted,
        Checkpoint::Delivering,
        Checkpoint::DeliveryStaged,
        Checkpoint::DeliveryLinked,
    ];
}

/// How long a killed worker may take to release its lock.
const KILL_WAIT: Duration = Duration::from_secs(5);

/// How a run of the orchestrator ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The result is in the outbox (now or by an earlier run).
    Delivered {
        /// `DIR/outbox/final.md`.
        path: PathBuf,
    },
    /// A phase with `pause_after` completed; run again with `resume`.
    Paused {
        /// The phase.
        phase: String,
    },
    /// A phase failed.
    Failed {
        /// The phase.
        phase: String,
    },
}

/// What one trigger did.
enum Step {
    /// Statuses changed: trigger again at once.
    Progress,
    /// Nothing to do until a worker finishes or time passes.
    Wait,
    /// The run is over for now.
    Done(Outcome),
}

/// Runs the orchestrator on the run in `dir` until the result is delivered,
/// the run pauses, or it fails. `out` gets one line per status change and
/// per message to the user.
pub fn run(
    dir: &RunDir,
    record: &RunRecord,
    options: &Options,
    out: &mut dyn Write,
) -> Result<Outcome, Error> {
    dir.create_dirs()?;
    let mut orchestrator = Orchestrator {
        dir,
        record,
        options,
        store: StatusStore::open(&dir.status())?,
        out,
        children: Vec::new(),
    };
    orchestrator.sweep()?;
    loop {
        match orchestrator.trigger() {
            Ok(Step::Progress) => {}
            Ok(Step::Wait) => {
                orchestrator.reap();
                std::thread::sleep(options.poll);
            }
            Ok(Step::Done(outcome)) => {
                orchestrator.reap();
                orchestrator.sweep()?;
                return Ok(outcome);
            }
            Err(error) if error.is_conflict() => {
                orchestrator.say(format_args!("{error}; reloading"))?;
            }
            Err(error) => return Err(error),
        }
    }
}

struct Orchestrator<'a> {
    dir: &'a RunDir,
    record: &'a RunRecord,
    options: &'a Options,
    store: StatusStore,
    out: &'a mut dyn Write,
    /// Workers this process started, reaped when they exit. Workers started
    /// by an earlier orchestrator are not its children; their lock files
    /// say whether they run.
    children: Vec<Child>,
}

impl Orchestrator<'_> {
    fn trigger(&mut self) -> Result<Step, Error> {
        let mut status = self.store.load(&self.record.definition, self.options.grace)?;
        self.reconcile(&mut status)?;
        let views = self.views(&status)?;
        let decision = decide(status.run.machine.state(), &views, self.options.resume);
        self.act(decision, &mut status)
    }

    /// Brings the statuses in line with the files: outputs that exist and
    /// worker processes that are gone.
    fn reconcile(&mut self, status: &mut Status) -> Result<(), Error> {
        let definition = &self.record.definition;
        for (p, phase_def) in definition.phases.iter().enumerate() {
            // A failed worker still running: its kill was cut short (or a
            // `SIGKILL` did not land in time).
            for (w, worker_def) in phase_def.workers.iter().enumerate() {
                if status.workers[p][w].machine.state() == worker::State::Failed {
                    self.kill_worker(&worker_def.role)?;
                }
            }
            if status.phases[p].machine.state() != phase::State::Running {
                continue;
            }
            for (w, worker_def) in phase_def.workers.iter().enumerate() {
                if status.workers[p][w].machine.state() != worker::State::Running {
                    continue;
                }
                // Look at the lock first: once it is free, no worker can
                // write the output any more, so a missing output is final.
                let lock = self.dir.session(&worker_def.role);
                let session = Session::probe(&lock).map_err(Error::io("locking", &lock))?;
                let output = worker_def.output();
                if self.dir.output(&output).exists() {
                    let note = format!("{output} exists");
                    self.fire(&mut status.workers[p][w], worker::Action::OutputDetected, &note)?;
                } else if let Session::Free(_) = session {
                    self.fire(
                        &mut status.workers[p][w],
                        worker::Action::SessionLost,
                        "its process exited without writing its output",
                    )?;
                    self.say(format_args!(
                        "notify user: worker {} of phase {} was lost: its process exited \
                         without writing its output",
                        worker_def.role, phase_def.id
                    ))?;
                }
            }
            let progress = Progress {
                completed: status.workers[p]
                    .iter()
                    .filter(|stored| stored.machine.state() == worker::State::Completed)
                    .count(),
                workers: status.workers[p].len(),
            };
            if progress.completed == progress.workers {
                self.fire(
                    &mut status.phases[p],
                    phase::Event::OutputDetected(progress),
                    "all its workers completed",
                )?;
            }
        }
        Ok(())
    }

    /// The phases as the decision table sees them.
    ///
    /// A phase is overdue when the deadline of its timer passed. Deadlines
    /// are wall-clock times: the phase started in another process, maybe
    /// before a reboot, which no monotonic clock survives. A step of the
    /// system clock moves every deadline's distance too.
    fn views(&self, status: &Status) -> Result<Vec<PhaseView>, Error> {
        let now = Timestamp::from_system_time(SystemTime::now());
        let definition = &self.record.definition;
        definition
            .phases
            .iter()
            .enumerate()
            .map(|(p, phase_def)| {
                let phase = &status.phases[p].machine;
                let state = phase.state();
                let overdue = state == phase::State::Running
                    && phase.machine().next_deadline().is_some_and(|due| due <= now);
                Ok(PhaseView {
                    state,
                    workers: status.workers[p]
                        .iter()
                        .map(|stored| stored.machine.state())
                        .collect(),
                    mode: phase_def.mode,
                    overdue,
                })
            })
            .collect()
    }

    fn act(&mut self, decision: Decision, status: &mut Status) -> Result<Step, Error> {
        let definition = &self.record.definition;
        match decision {
            Decision::Archive => {
                let path = self.dir.delivered();
                self.say(format_args!(
                    "result delivered to {}; run archived",
                    path.display()
                ))?;
                Ok(Step::Done(Outcome::Delivered { path }))
            }
            Decision::ReportFailure => {
                let phase = status
                    .phases
                    .iter()
                    .zip(&definition.phases)
                    .find(|(stored, _)| stored.machine.state() == phase::State::Failed)
                    .map_or_else(String::new, |(_, phase_def)| phase_def.id.clone());
                Ok(Step::Done(Outcome::Failed { phase }))
            }
            Decision::Deliver => {
                self.deliver()?;
                self.fire(
                    &mut status.run,
                    run::Action::Delivered,
                    "final.md is in the outbox",
                )?;
                Ok(Step::Progress)
            }
            Decision::FailRun { phase } => {
                self.fire(&mut status.run, run::Action::PhaseFailed, "")?;
                self.say(format_args!(
                    "notify user: phase {} failed",
                    definition.phases[phase].id
                ))?;
                Ok(Step::Progress)
            }
            Decision::StartDelivery => {
                let note = "the final phase completed";
                self.fire(&mut status.run, run::Action::FinalPhaseCompleted, note)?;
                Ok(Step::Progress)
            }
            Decision::Pause { phase } => {
                let phase_def = &definition.phases[phase];
                let outputs: Vec<String> = phase_def.workers.iter().map(|w| w.output()).collect();
                self.say(format_args!(
                    "phase {} completed with {}; paused: run again with --resume to go on",
                    phase_def.id,
                    outputs.join(", ")
                ))?;
                Ok(Step::Done(Outcome::Paused {
                    phase: phase_def.id.clone(),
                }))
            }
            Decision::Resume { phase } => {
                let note = "resumed by the user";
                self.fire(&mut status.phases[phase], phase::Event::Resume, note)?;
                Ok(Step::Progress)
            }
            Decision::SpawnPhase { phase } => {
                self.fire(&mut status.phases[phase], phase::Event::Spawn, "")?;
                Ok(Step::Progress)
            }
            Decision::FailPhase { phase, cause } => {
                let phase_def = &definition.phases[phase];
                let (worker_action, worker_note) = match cause {
                    FailureCause::Overdue => {
                        (worker::Action::Timeout, "its phase ran out of time".to_owned())
                    }
                    FailureCause::WorkerFailed { worker } => (
                        worker::Action::Cancelled,
                        format!("its phase failed with worker {}", phase_def.workers[worker].role),
                    ),
                };
                for (w, worker_def) in phase_def.workers.iter().enumerate() {
                    let stored = &mut status.workers[phase][w];
                    if stored.machine.state() == worker::State::Running {
                        // Killed first: a crash before the save leaves a
                        // worker whose lock is free and output missing,
                        // which the next trigger finds `failed` anyway.
                        self.kill_worker(&worker_def.role)?;
                        self.fire(stored, worker_action, &worker_note)?;
                    }
                }
                let stored = &mut status.phases[phase];
                match cause {
                    FailureCause::Overdue => {
                        // The phase's own timer, due since `views` looked.
                        let context = stored.machine.machine().context();
                        let note = format!(
                            "running longer than {} s + {} s",
                            context.timeout_secs, context.grace_secs
                        );
                        self.fire_next_due(stored, &note)?;
                    }
                    FailureCause::WorkerFailed { worker } => {
                        let note = format!("its worker {} failed", phase_def.workers[worker].role);
                        self.fire(stored, phase::Event::WorkerFailed, &note)?;
                    }
                }
                Ok(Step::Progress)
            }
            Decision::StartWorkers { phase, workers } => {
                for w in workers {
                    self.start_worker(status, phase, w)?;
                }
                Ok(Step::Progress)
            }
            Decision::Wait => Ok(Step::Wait),
        }
    }

    /// Starts worker `w` of phase `p`, unless a process already runs it or
    /// its output already exists.
    fn start_worker(&mut self, status: &mut Status, p: usize, w: usize) -> Result<(), Error> {
        let worker_def = &self.record.definition.phases[p].workers[w];
        let stored = &mut status.workers[p][w];
        let lock = self.dir.session(&worker_def.role);
        let free = match Session::probe(&lock).map_err(Error::io("locking", &lock))? {
            Session::Running => {
                // Started by an orchestrator killed before it could record it.
                let note = "its process was already running";
                self.fire(stored, worker::Action::Spawn, note)?;
                return Ok(());
            }
            Session::Free(free) => free,
        };
        let output = worker_def.output();
        if self.dir.output(&output).exists() {
            let note = format!("{output} exists");
            self.fire(stored, worker::Action::OutputDetected, &note)?;
            return Ok(());
        }
        // Check the transition before starting the process it announces.
        let fired =
            worker::Worker::transition(stored.machine.state(), worker::Action::Spawn).map_err(|error| {
                Error::Transition {
                    id: stored.id.clone(),
                    message: error.to_string(),
                }
            })?;
        debug_assert_eq!(fired.outputs, [worker::Output::StartSession]);
        let mut command = Command::new(&self.options.worker_program);
        command
            .arg("worker")
            .arg("--dir")
            .arg(self.dir.root())
            .arg("--role")
            .arg(&worker_def.role)
            .arg("--work-ms")
            .arg(self.options.work.as_millis().to_string())
            .stdout(Stdio::null());
        let child = free
            .start(command)
            .map_err(Error::io("starting a worker with", &self.options.worker_program))?;
        self.children.push(child);
        self.checkpoint(Checkpoint::WorkerStarted);
        self.fire(stored, worker::Action::Spawn, "")?;
        Ok(())
    }

    /// Puts the final worker's output in the outbox as `final.md`, unless an
    /// earlier attempt did: the file is created only if missing, so
    /// repeating this after a crash delivers nothing twice.
    ///
    /// The result is staged in `DIR/.tmp/`, so the outbox never holds
    /// anything but `final.md`, even after a crash.
    fn deliver(&mut self) -> Result<(), Error> {
        self.checkpoint(Checkpoint::Delivering);
        let source = self.dir.output(&self.record.definition.final_worker().output());
        let result = fs::read(&source).map_err(Error::io("reading", &source))?;
        let target = self.dir.delivered();
        let staged = atomic_file::Staged::write(&self.dir.temp(), &target, &result)
            .map_err(Error::io("staging", &target))?;
        self.checkpoint(Checkpoint::DeliveryStaged);
        let created = staged
            .link_new(&target)
            .map_err(Error::io("delivering", &target))?;
        self.checkpoint(Checkpoint::DeliveryLinked);
        let temp = staged.path().to_owned();
        staged.remove().map_err(Error::io("removing", &temp))?;
        if created {
            self.say(format_args!("delivered {}", target.display()))?;
            return Ok(());
        }
        let delivered = fs::read(&target).map_err(Error::io("reading", &target))?;
        if delivered != result {
            return Err(Error::Run(format!(
                "{} exists but differs from {}; it was not written by this run, so it is \
                 left alone: move it away and run again",
                target.display(),
                source.display()
            )));
        }
        Ok(())
    }

    /// Fires `event` on a status and saves it; logs the change.
    fn fire<M: FireEvent + Persist + Clone>(
        &mut self,
        stored: &mut Stored<Recorded<M>>,
        event: M::Event,
        note: &str,
    ) -> Result<Fired<M>, Error> {
        let fired = self.store.fire(stored, event)?;
        self.log(&stored.id, fired.from, fired.to, fired.outputs, note)?;
        Ok(fired)
    }

    /// Fires the phase's timer if it is due and saves the phase; logs the
    /// change.
    fn fire_next_due(
        &mut self,
        stored: &mut Stored<Recorded<phase::Phase>>,
        note: &str,
    ) -> Result<(), Error> {
        if let Some(fired) = self.store.fire_next_due(stored)? {
            self.log(&stored.id, fired.from, fired.to, fired.outputs, note)?;
        }
        Ok(())
    }

    fn log<S: Symbol, O: Symbol>(
        &mut self,
        id: &str,
        from: S,
        to: S,
        outputs: &[O],
        note: &str,
    ) -> Result<(), Error> {
        if from.name() == to.name() {
            return Ok(());
        }
        let mut line = format!("{id}: {} -> {}", from.name(), to.name());
        if !outputs.is_empty() {
            let outputs: Vec<&str> = outputs.iter().map(|output| output.name()).collect();
            line.push_str(&format!(" [{}]", outputs.join(", ")));
        }
        if !note.is_empty() {
            line.push_str(&format!(": {note}"));
        }
        self.say(format_args!("{line}"))
    }

    fn say(&mut self, message: std::fmt::Arguments<'_>) -> Result<(), Error> {
        writeln!(self.out, "{message}")
            .and_then(|()| self.out.flush())
            .map_err(|source| Error::Io {
                doing: "writing to",
                path: PathBuf::from("standard output"),
                source,
            })
    }

    /// Collects the exit status of workers that finished, so they do not
    /// linger as zombies while the orchestrator runs.
    fn reap(&mut self) {
        self.children
            .retain_mut(|child| !matches!(child.try_wait(), Ok(Some(_))));
    }

    /// Kills the worker `role` if its process still runs (whoever started
    /// it), and tells the user.
    fn kill_worker(&mut self, role: &str) -> Result<(), Error> {
        let lock = self.dir.session(role);
        match session::kill(&lock, KILL_WAIT).map_err(Error::io("killing the worker of", &lock))? {
            Kill::NotRunning => {}
            Kill::Killed { pid } => {
                // Ours to reap, if this orchestrator started it.
                if let Some(index) = self
                    .children
                    .iter()
                    .position(|child| i64::from(child.id()) == i64::from(pid))
                {
                    let _ = self.children.swap_remove(index).wait();
                }
                self.say(format_args!("killed worker {role} (process {pid})"))?;
            }
            Kill::PidUnknown => self.say(format_args!(
                "notify user: worker {role} still runs and cannot be killed: its process id \
                 was never recorded (see {})",
                lock.display()
            ))?,
            Kill::StillRunning { pid } => self.say(format_args!(
                "notify user: worker {role} (process {pid}) still runs {} s after SIGKILL",
                KILL_WAIT.as_secs()
            ))?,
        }
        Ok(())
    }

    /// Removes the temporary files that crashed processes left in
    /// `DIR/.tmp/`.
    fn sweep(&mut self) -> Result<(), Error> {
        let temp = self.dir.temp();
        let removed = atomic_file::sweep(&temp).map_err(Error::io("sweeping", &temp))?;
        if removed > 0 {
            self.say(format_args!(
                "removed {removed} stale temporary file(s) from {}",
                temp.display()
            ))?;
        }
        Ok(())
    }

    fn checkpoint(&self, point: Checkpoint) {
        if let Some(checkpoint) = self.options.checkpoint {
            checkpoint(point);
        }
    }
}
