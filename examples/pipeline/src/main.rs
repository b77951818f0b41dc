//! `pipeline`: run, resume, or inspect a run of a multi-agent research
//! pipeline.

use clap::{Args, Parser, Subcommand};
use pipeline::orchestrator::{self, Options, Outcome, DEFAULT_GRACE};
use pipeline::run_dir::{RunDir, RunRecord};
use pipeline::status::StatusStore;
use pipeline::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Runs a pipeline of `workflows.json` in a directory, or resumes the run
/// already there.
#[derive(Parser)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Args)]
struct RunArgs {
    /// The run's directory: created and started if it holds no run, resumed
    /// if it does.
    #[arg(long, required = true)]
    dir: Option<PathBuf>,
    /// The pipeline to start [default: research].
    #[arg(long)]
    pipeline: Option<String>,
    /// The topic to start it on [default: "FSA architecture"].
    #[arg(long)]
    topic: Option<String>,
    /// The `workflows.json` to start from [default: the built-in one, which
    /// defines `research`].
    #[arg(long)]
    workflows: Option<PathBuf>,
    /// How long each worker works, in milliseconds.
    #[arg(long, default_value_t = 300)]
    work_ms: u64,
    /// How long to wait between triggers, in milliseconds.
    #[arg(long, default_value_t = 50)]
    poll_ms: u64,
    /// How long past its timeout a phase may run, in seconds (any u64: the
    /// sum saturates, so a huge grace means no timeout). A phase that
    /// started keeps the grace it started with.
    #[arg(long, default_value_t = DEFAULT_GRACE.as_secs())]
    grace_secs: u64,
    /// Go on after a phase with `pause_after`.
    #[arg(long)]
    resume: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Print the run's status as JSON: the pipeline, the topic, the current
    /// phase, each phase's status and its workers', and whether the result
    /// was delivered.
    Status {
        /// The run's directory.
        #[arg(long)]
        dir: PathBuf,
    },
    /// Run one worker (started by the orchestrator).
    #[command(hide = true)]
    Worker {
        #[arg(long)]
        dir: PathBuf,
        #[arg(long)]
        role: String,
        #[arg(long)]
        work_ms: u64,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Status { dir }) => status(&RunDir::new(dir)),
        Some(Command::Worker { dir, role, work_ms }) => {
            pipeline::worker::run(&RunDir::new(dir), &role, Duration::from_millis(work_ms))
                .map(|()| ExitCode::SUCCESS)
        }
        None => orchestrate(cli.run),
    };
    result.unwrap_or_else(|error| {
        eprintln!("error: {error}");
        ExitCode::from(2)
    })
}

fn orchestrate(args: RunArgs) -> Result<ExitCode, Error> {
    let dir = RunDir::new(args.dir.expect("clap requires --dir"));
    let workflows = match &args.workflows {
        Some(path) => std::fs::read_to_string(path).map_err(Error::io("reading", path))?,
        None => pipeline::WORKFLOWS.to_owned(),
    };
    let record =
        RunRecord::start_or_resume(&dir, args.pipeline.as_deref(), args.topic.as_deref(), &workflows)?;
    let options = Options {
        worker_program: std::env::current_exe()
            .map_err(Error::io("finding", std::path::Path::new("this program")))?,
        work: Duration::from_millis(args.work_ms),
        poll: Duration::from_millis(args.poll_ms),
        grace: Duration::from_secs(args.grace_secs),
        resume: args.resume,
        checkpoint: None,
    };
    // A run picked up where an earlier orchestrator left it says so, and where.
    let status = StatusStore::open(&dir.status())?.load(&record.definition, options.grace)?;
    match status.resumes_at(&record) {
        Some(phase) => println!(
            "resuming run of pipeline {} on {:?} in {} at phase {phase}",
            record.pipeline,
            record.topic,
            dir.root().display()
        ),
        None => println!(
            "pipeline {} on {:?} in {}",
            record.pipeline,
            record.topic,
            dir.root().display()
        ),
    }
    match orchestrator::run(&dir, &record, &options, &mut std::io::stdout())? {
        Outcome::Delivered { .. } | Outcome::Paused { .. } => Ok(ExitCode::SUCCESS),
        Outcome::Failed { phase } => {
            eprintln!("error: phase {phase} failed; the run is over (failures are not retried)");
            Ok(ExitCode::FAILURE)
        }
    }
}

fn status(dir: &RunDir) -> Result<ExitCode, Error> {
    let record =
        RunRecord::load(dir)?.ok_or_else(|| Error::Run(format!("{} holds no run", dir.root().display())))?;
    // Phases not started yet have no deadline to show: any grace will do.
    let status = StatusStore::open(&dir.status())?.load(&record.definition, DEFAULT_GRACE)?;
    let json = serde_json::to_string_pretty(&status.to_json(&record)).expect("JSON serializes");
    println!("{json}");
    Ok(ExitCode::SUCCESS)
}
