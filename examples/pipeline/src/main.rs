//! `pipeline`: start research pipelines, run orchestrators on them, inspect
//! them.

use clap::{Args, Parser, Subcommand};
use fsm_fleet::Sent;
use pipeline::agent::{self, Assignment};
use pipeline::orchestrator::{self, Options, DEFAULT_GRACE, DEFAULT_MAX_AGENTS};
use pipeline::runs::{self, open_fleet, NewRuns, RunFiles, Workspace, DEFAULT_PIPELINE, DEFAULT_TOPIC};
use pipeline::session::Session;
use pipeline::Error;
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::Duration;

/// Runs many multi-agent research pipelines at once, kept in a fleet's
/// database and driven by any number of orchestrator processes.
#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

/// Where the runs are.
#[derive(Args, Clone)]
struct Place {
    /// The directory of the runs' files (agents' outputs, results).
    #[arg(long)]
    dir: PathBuf,
    /// The fleet's database: an SQLite file, or a PostgreSQL database (a
    /// `postgres://` URL or `key=value` parameters) [default: DIR/fleet.db].
    #[arg(long)]
    db: Option<String>,
}

impl Place {
    fn workspace(&self) -> Workspace {
        Workspace::new(&self.dir)
    }

    /// `--db`, or `DIR/fleet.db`.
    fn db(&self) -> Result<String, Error> {
        match &self.db {
            Some(db) => Ok(db.clone()),
            None => {
                let path = self.workspace().default_db();
                path.to_str().map(str::to_owned).ok_or_else(|| {
                    Error::Usage(format!(
                        "{} is not UTF-8: name the database with --db",
                        path.display()
                    ))
                })
            }
        }
    }

    /// `--db`, for a command that reads runs: an SQLite file must exist
    /// (opening one that does not would create it).
    fn existing_db(&self) -> Result<String, Error> {
        let db = self.db()?;
        if !runs::is_postgres(&db) && !std::path::Path::new(&db).exists() {
            return Err(Error::Usage(format!(
                "there is no fleet database {db}: `pipeline start` creates it"
            )));
        }
        Ok(db)
    }
}

/// How orchestrators work.
#[derive(Args, Clone)]
struct Work {
    /// How long each agent works, in milliseconds.
    #[arg(long, default_value_t = 300)]
    work_ms: u64,
    /// How long to wait when there is nothing to do, in milliseconds.
    #[arg(long, default_value_t = 50)]
    poll_ms: u64,
    /// How long an output claimed by an orchestrator is its own before
    /// another may claim it (when the first died), in milliseconds.
    #[arg(long, default_value_t = 30_000)]
    lease_ms: u64,
    /// How many agents each orchestrator runs at once. A phase whose agents
    /// find no room waits for some to exit.
    #[arg(long, default_value_t = DEFAULT_MAX_AGENTS)]
    max_agents: usize,
}

#[derive(Subcommand)]
enum Cmd {
    /// Create runs and start them: the next orchestrator takes them.
    Start {
        #[command(flatten)]
        place: Place,
        /// The pipeline to run.
        #[arg(long, default_value = DEFAULT_PIPELINE)]
        pipeline: String,
        /// The topic.
        #[arg(long, default_value = DEFAULT_TOPIC)]
        topic: String,
        /// How many runs.
        #[arg(long, default_value_t = 1)]
        count: usize,
        /// The first run's id [default: `<pipeline>-<n>`, the first free n].
        #[arg(long)]
        id: Option<String>,
        /// The `workflows.json` to take the pipeline from [default: the
        /// built-in one, which defines `research`].
        #[arg(long)]
        workflows: Option<PathBuf>,
        /// How long past its phases' timeouts a run may go on, in seconds
        /// (any u64: the sum saturates, so a huge grace means no time limit).
        #[arg(long, default_value_t = DEFAULT_GRACE.as_secs())]
        grace_secs: u64,
    },
    /// Run orchestrator processes until every run is finished (delivered,
    /// failed, or paused).
    Run {
        #[command(flatten)]
        place: Place,
        /// How many orchestrator processes.
        #[arg(long, default_value_t = 2)]
        workers: usize,
        #[command(flatten)]
        work: Work,
    },
    /// Be one orchestrator process: `pipeline run` starts these.
    Orchestrate {
        #[command(flatten)]
        place: Place,
        #[command(flatten)]
        work: Work,
        /// Keep running when every run is finished, waiting for new ones.
        #[arg(long)]
        forever: bool,
    },
    /// Print every run as JSON: pipeline, topic, state, current phase, each
    /// agent's status, and whether the result was delivered.
    Status {
        #[command(flatten)]
        place: Place,
    },
    /// Go on with a run paused after a phase with `pause_after`.
    Resume {
        #[command(flatten)]
        place: Place,
        /// The run.
        #[arg(long)]
        id: String,
    },
    /// Run one agent (started by an orchestrator).
    #[command(hide = true)]
    Agent {
        /// The directory of the runs' files.
        #[arg(long)]
        dir: PathBuf,
        /// What the agent does, as JSON ([`Assignment`]).
        #[arg(long)]
        assignment: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Start {
            place,
            pipeline,
            topic,
            count,
            id,
            workflows,
            grace_secs,
        } => start(
            &place,
            &pipeline,
            &topic,
            count,
            id.as_deref(),
            workflows,
            grace_secs,
        ),
        Cmd::Run { place, workers, work } => run(&place, workers, &work),
        Cmd::Orchestrate { place, work, forever } => orchestrate(&place, &work, !forever),
        Cmd::Status { place } => status(&place),
        Cmd::Resume { place, id } => resume(&place, &id),
        Cmd::Agent { dir, assignment } => return run_agent(&dir, &assignment),
    };
    result.unwrap_or_else(|error| {
        eprintln!("error: {error}");
        ExitCode::from(2)
    })
}

/// Runs one agent. It shares its orchestrator's standard error with every
/// other agent, so each line it writes there names its run and role and is
/// written whole, with one `write`.
fn run_agent(dir: &std::path::Path, assignment: &str) -> ExitCode {
    let assignment: Assignment = match serde_json::from_str(assignment) {
        Ok(assignment) => assignment,
        Err(error) => {
            line_to_stderr(&format!("agent: error: --assignment does not read: {error}"));
            return ExitCode::from(2);
        }
    };
    let prefix = format!("{}/{}", assignment.run, assignment.worker.role);
    let panic_prefix = prefix.clone();
    std::panic::set_hook(Box::new(move |info| {
        line_to_stderr(&format!("{panic_prefix}: panicked: {info}"));
    }));
    match agent::run(&Workspace::new(dir), &assignment) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            line_to_stderr(&format!("{prefix}: error: {error}"));
            ExitCode::from(2)
        }
    }
}

/// Writes `text` and a newline to standard error with one `write`, so that
/// lines of processes sharing it do not interleave (each line whole, up to
/// the pipe's atomic size, 4 KiB on Linux).
fn line_to_stderr(text: &str) {
    use std::io::Write;
    // One line per line of the message: a multi-line error keeps its prefix.
    let mut whole = String::with_capacity(text.len() + 1);
    let mut lines = text.lines();
    if let Some(first) = lines.next() {
        whole.push_str(first);
        whole.push('\n');
    }
    let prefix = text.split_once(": ").map_or("", |(prefix, _)| prefix);
    for line in lines {
        whole.push_str(prefix);
        whole.push_str(": ");
        whole.push_str(line);
        whole.push('\n');
    }
    let _ = std::io::stderr().write_all(whole.as_bytes());
}

fn start(
    place: &Place,
    pipeline: &str,
    topic: &str,
    count: usize,
    id: Option<&str>,
    workflows: Option<PathBuf>,
    grace_secs: u64,
) -> Result<ExitCode, Error> {
    if count == 0 {
        return Err(Error::Usage("--count must be at least 1".to_owned()));
    }
    let workflows = match &workflows {
        Some(path) => std::fs::read_to_string(path).map_err(Error::io("reading", path))?,
        None => pipeline::WORKFLOWS.to_owned(),
    };
    // The definition is checked before anything is created.
    pipeline::workflow::parse(&workflows, pipeline)?;
    let db = place.db()?;
    if place.db.is_none() {
        place.workspace().create_dirs()?;
    }
    let mut fleet = open_fleet(&db)?;
    let new = NewRuns {
        pipeline,
        topic,
        workflows: &workflows,
        grace: Duration::from_secs(grace_secs),
        count,
        id,
    };
    for id in runs::start(&mut fleet, &place.workspace(), &new)? {
        println!("started {id}: pipeline {pipeline} on {topic:?}");
    }
    Ok(ExitCode::SUCCESS)
}

fn options(place: &Place, work: &Work, until_finished: bool) -> Result<Options, Error> {
    if work.max_agents == 0 {
        return Err(Error::Usage("--max-agents must be at least 1".to_owned()));
    }
    Ok(Options {
        db: place.existing_db()?,
        program: std::env::current_exe()
            .map_err(Error::io("finding", std::path::Path::new("this program")))?,
        work: Duration::from_millis(work.work_ms),
        poll: Duration::from_millis(work.poll_ms),
        lease: Duration::from_millis(work.lease_ms),
        max_agents: work.max_agents,
        until_finished,
    })
}

fn orchestrate(place: &Place, work: &Work, until_finished: bool) -> Result<ExitCode, Error> {
    let options = options(place, work, until_finished)?;
    orchestrator::run(&place.workspace(), &options, &mut std::io::stdout())?;
    Ok(ExitCode::SUCCESS)
}

/// Starts `workers` orchestrator processes and waits for them; then
/// summarizes the runs. Fails if a run failed.
fn run(place: &Place, workers: usize, work: &Work) -> Result<ExitCode, Error> {
    if workers == 0 {
        return Err(Error::Usage("--workers must be at least 1".to_owned()));
    }
    let options = options(place, work, true)?;
    // Opened once here: a database that cannot be opened is reported once.
    drop(open_fleet(&options.db)?);
    let mut children = Vec::with_capacity(workers);
    for _ in 0..workers {
        let mut command = Command::new(&options.program);
        command
            .arg("orchestrate")
            .arg("--dir")
            .arg(&place.dir)
            .args(["--db", &options.db])
            .args(["--work-ms", &work.work_ms.to_string()])
            .args(["--poll-ms", &work.poll_ms.to_string()])
            .args(["--lease-ms", &work.lease_ms.to_string()])
            .args(["--max-agents", &work.max_agents.to_string()]);
        children.push(
            command
                .spawn()
                .map_err(Error::io("starting an orchestrator with", &options.program))?,
        );
    }
    let mut failed_workers = 0;
    for mut child in children {
        let status = child.wait().map_err(Error::io("waiting for", &options.program))?;
        if !status.success() {
            failed_workers += 1;
        }
    }
    if failed_workers > 0 {
        return Err(Error::Usage(format!(
            "{failed_workers} of {workers} orchestrator(s) stopped with an error (see above)"
        )));
    }
    let mut fleet = open_fleet(&options.db)?;
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for id in place.workspace().run_ids()? {
        if let Some(run) = runs::load(&mut fleet, &id)? {
            *counts.entry(run.state).or_default() += 1;
        }
    }
    let summary: Vec<String> = counts.iter().map(|(state, n)| format!("{n} {state}")).collect();
    println!("runs: {}", summary.join(", "));
    // The orchestrators stop once no output is left to perform; those left
    // are dead: they failed every attempt.
    let outbox = orchestrator::outbox(&mut None, &options.db)?;
    let left = outbox.outputs_due + outbox.outputs_leased + outbox.outputs_waiting;
    if outbox.outputs_dead > 0 || left > 0 {
        println!(
            "outbox: {} output(s) dead after failing every attempt, {left} still to perform \
             (`fsmc fleet due` counts them, `fsmc fleet show ID` lists them)",
            outbox.outputs_dead
        );
    }
    Ok(
        if counts.contains_key("failed") || outbox.outputs_dead > 0 || left > 0 {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        },
    )
}

fn status(place: &Place) -> Result<ExitCode, Error> {
    let mut fleet = open_fleet(&place.existing_db()?)?;
    let workspace = place.workspace();
    let mut list = Vec::new();
    for id in workspace.run_ids()? {
        let Some(run) = runs::load(&mut fleet, &id)? else {
            continue;
        };
        let files = workspace.run(&id);
        let mut agents = serde_json::Map::new();
        for (_, worker) in run.context.definition.workers() {
            let role = worker.role.as_str();
            let status = agent_status(&run.context, &files, role)?;
            agents.insert(role.to_owned(), status.into());
        }
        let phase = run.context.definition.phases.get(run.context.phase);
        list.push(serde_json::json!({
            "id": run.id,
            "pipeline": run.context.pipeline,
            "topic": run.context.topic,
            "state": run.state,
            "phase": phase.map(|phase| phase.id.as_str()),
            "agents": agents,
            "delivered": files.delivered().exists(),
            "parked": run.parked,
        }));
    }
    let json = serde_json::to_string_pretty(&list).expect("JSON serializes");
    println!("{json}");
    Ok(ExitCode::SUCCESS)
}

/// `done`, `failed`, `running` (its process holds its lock), `exited`
/// (started, not running, not reported) or `pending`.
fn agent_status(
    context: &pipeline::machines::RunContext,
    files: &RunFiles,
    role: &str,
) -> Result<&'static str, Error> {
    if context.done.contains(role) {
        return Ok("done");
    }
    if context.failed.as_deref() == Some(role) {
        return Ok("failed");
    }
    let started = files.started(role);
    if !started.exists() {
        return Ok("pending");
    }
    let lock = files.session(role);
    Ok(
        match Session::probe(&lock).map_err(Error::io("locking", &lock))? {
            Session::Running => "running",
            Session::Free(_) => "exited",
        },
    )
}

fn resume(place: &Place, id: &str) -> Result<ExitCode, Error> {
    runs::check_id(id)?;
    let mut fleet = open_fleet(&place.existing_db()?)?;
    let run = runs::load(&mut fleet, id)?.ok_or_else(|| Error::Usage(format!("there is no run `{id}`")))?;
    if run.state != "paused" {
        return Err(Error::Usage(format!("run `{id}` is {}, not paused", run.state)));
    }
    // One resume per pause: the key names the phase it goes on with.
    let key = format!("resume-{}", run.context.phase);
    match fleet.send(id, &pipeline::machines::Event::Resume, &key)? {
        Sent::Accepted => println!("{id}: resumed; the next orchestrator goes on with it"),
        Sent::Duplicate => println!("{id}: resumed already; the next orchestrator goes on with it"),
    }
    Ok(ExitCode::SUCCESS)
}
