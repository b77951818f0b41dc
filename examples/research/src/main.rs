//! A research run: researcher a and researcher b work at once, and a
//! synthesizer starts once both are done (`research.fsm`, a parallel state
//! run by the dynamic engine).
//!
//! ```text
//! cargo run -p research -- --dir /tmp/run [--work-ms 300] [--fail-a]
//! ```
//!
//! The run lives in `DIR`: the machine's snapshot in a `FileStore`
//! (`DIR/state/research.json`), saved after every step with the outputs not
//! performed yet (the outbox), and the workers' results (`a.md`, `b.md`,
//! `synthesis.md`, then `delivered.md`). Kill the process at any moment and
//! start it again: it resumes where the last save left it. Workers are
//! threads, so a kill stops them too; the one rule that makes that safe is
//! that a result file appears whole or not at all, and never twice (it is
//! written aside and linked into place), so a worker restarted after its
//! result was published reports it without working again, and the
//! synthesis reads both researchers' results.
//!
//! `DIR/log.txt` gets a line when a worker starts working (`start a`) and
//! when its result is published (`done a`, once: a kill between publishing
//! and logging leaves the line to the first worker that finds the result),
//! and one per output performed.

use fsm_dynamic::{Definition, Engine};
use fsm_store::{FileStore, Store, Version};
use serde_json::Value;
use std::collections::HashSet;
use std::error::Error;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, SystemTime};

const MACHINE: &str = include_str!("../research.fsm");
/// The run's id in the store.
const ID: &str = "research";

/// The command line.
struct Args {
    dir: PathBuf,
    work: Duration,
    fail_a: bool,
}

/// A worker: each researcher, and the synthesizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Worker {
    A,
    B,
    Synthesis,
}

impl Worker {
    fn name(self) -> &'static str {
        match self {
            Worker::A => "a",
            Worker::B => "b",
            Worker::Synthesis => "synthesis",
        }
    }

    /// The file the worker publishes.
    fn result(self, dir: &Path) -> PathBuf {
        dir.join(format!("{}.md", self.name()))
    }

    /// The workers that must be running while `leaf` is active.
    fn needed_in(leaf: &str) -> Option<Worker> {
        match leaf {
            "a_running" => Some(Worker::A),
            "b_running" => Some(Worker::B),
            "synthesis" | "partial_synthesis" => Some(Worker::Synthesis),
            _ => None,
        }
    }

    /// The worker an output starts.
    fn spawned_by(output: &str) -> Option<Worker> {
        match output {
            "spawn_researcher_a" => Some(Worker::A),
            "spawn_researcher_b" => Some(Worker::B),
            "spawn_synthesizer" => Some(Worker::Synthesis),
            _ => None,
        }
    }
}

/// A worker that finished: the action to fire, or why it could not work.
struct Finished {
    worker: Worker,
    action: io::Result<&'static str>,
}

fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("research: {message}\nusage: research --dir DIR [--work-ms N] [--fail-a]");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("research: {error}");
            ExitCode::FAILURE
        }
    }
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut dir, mut work, mut fail_a) = (None, Duration::from_millis(300), false);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--dir" => dir = Some(PathBuf::from(args.next().ok_or("--dir takes a directory")?)),
            "--work-ms" => {
                let ms = args.next().ok_or("--work-ms takes a number")?;
                work = Duration::from_millis(
                    ms.parse()
                        .map_err(|_| format!("--work-ms: `{ms}` is not a number"))?,
                );
            }
            "--fail-a" => fail_a = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(Args {
        dir: dir.ok_or("--dir is required")?,
        work,
        fail_a,
    })
}

/// Resume the run (or start it), and drive it to a terminal state.
fn run(args: &Args) -> Result<(), Box<dyn Error>> {
    let dir = &args.dir;
    // Files staged by a process killed before it linked them. One process
    // drives a run at a time (a second one would fail to save: every save
    // is a compare-and-swap on the version), so none is being written.
    let _ = fs::remove_dir_all(dir.join(".tmp"));
    fs::create_dir_all(dir.join(".tmp"))?;
    let store = FileStore::open(dir.join("state"))?;
    let definition = Arc::new(Definition::from_fsm(MACHINE)?);
    // The outbox keeps each output pending, in the snapshot, until it is
    // acknowledged as performed: a kill between a step and its outputs
    // loses none of them.
    let engine = Engine::builder(definition).outbox().build()?;
    let mut version: Version = match store.load(ID)? {
        Some((version, snapshot)) => {
            engine.restore(&snapshot)?;
            print!("resumed in {}", engine.configuration_names().join(", "));
            let pending: Vec<&str> = snapshot
                .pending()
                .into_iter()
                .flatten()
                .map(|p| p.output)
                .collect();
            match pending.is_empty() {
                true => println!(),
                false => println!(", outputs pending: {}", pending.join(", ")),
            }
            version
        }
        None => {
            println!("{}", engine.fire("start", &Value::Null)?);
            store.save(ID, 0, &engine.snapshot())?
        }
    };
    let (finished, done) = mpsc::channel::<Finished>();
    let mut running: HashSet<Worker> = HashSet::new();
    loop {
        // The outputs of the steps saved so far, performed, then
        // acknowledged and saved. A kill in between performs them again
        // after the restart: a worker's start and the delivery find their
        // result published; the other outputs log a line again.
        let pending = engine.pending();
        for p in &pending {
            let output = engine.definition().output_name(p.output);
            match Worker::spawned_by(output) {
                Some(worker) => start(worker, &mut running, args, &finished),
                None => perform(output, dir)?,
            }
            engine.ack(p.key);
        }
        if !pending.is_empty() {
            version = store.save(ID, version, &engine.snapshot())?;
        }
        if engine.is_terminal() {
            println!("finished in {}", engine.state_name());
            return Ok(());
        }
        // A worker started by a process that was killed died with it: what
        // the configuration needs runs again (and finds its result, if it
        // was published).
        for leaf in engine.configuration_names() {
            if let Some(worker) = Worker::needed_in(leaf) {
                start(worker, &mut running, args, &finished);
            }
        }
        let wait = engine.next_deadline().map(|due| {
            due.to_system_time()
                .duration_since(SystemTime::now())
                .unwrap_or(Duration::ZERO)
        });
        let next = match wait {
            Some(wait) => done.recv_timeout(wait),
            None => done.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match next {
            Ok(Finished { worker, action }) => {
                running.remove(&worker);
                let action = action.map_err(|error| format!("worker {}: {error}", worker.name()))?;
                println!("{}", engine.fire(action, &Value::Null)?);
            }
            Err(RecvTimeoutError::Timeout) => {
                for fired in engine.fire_due() {
                    match fired {
                        Ok(fired) => println!("{fired}"),
                        Err(rejected) => println!("{rejected}"),
                    }
                }
            }
            Err(RecvTimeoutError::Disconnected) => return Err("every worker hung up".into()),
        }
        version = store.save(ID, version, &engine.snapshot())?;
    }
}

/// Start `worker` on a thread, unless this process runs it already.
fn start(worker: Worker, running: &mut HashSet<Worker>, args: &Args, finished: &Sender<Finished>) {
    if !running.insert(worker) {
        return;
    }
    let (dir, work, fail_a, finished) = (args.dir.clone(), args.work, args.fail_a, finished.clone());
    thread::spawn(move || {
        let action = research(worker, &dir, work, fail_a);
        let _ = finished.send(Finished { worker, action });
    });
}

/// A worker's job: publish its result once (or find it published), and
/// say which action reports it.
fn research(worker: Worker, dir: &Path, work: Duration, fail_a: bool) -> io::Result<&'static str> {
    let result = worker.result(dir);
    if !result.exists() {
        log(dir, &format!("start {}", worker.name()))?;
        thread::sleep(work);
        let text = match worker {
            Worker::A if fail_a => "failed\n".to_owned(),
            Worker::A | Worker::B => format!("# Findings of researcher {}\n", worker.name()),
            Worker::Synthesis => {
                // Researcher a's findings, if it did not give up, and b's.
                let a = fs::read_to_string(Worker::A.result(dir))?;
                let b = fs::read_to_string(Worker::B.result(dir))?;
                let a = if a == "failed\n" {
                    "(researcher a gave up)\n".to_owned()
                } else {
                    a
                };
                format!("# Synthesis\n{a}{b}")
            }
        };
        if create_new(&result, dir, text.as_bytes())? {
            log(dir, &format!("done {}", worker.name()))?;
        }
    }
    // A process killed between publishing the result and logging it left
    // the line unwritten.
    log_once(dir, &format!("done {}", worker.name()))?;
    Ok(match worker {
        Worker::A if fs::read_to_string(&result)? == "failed\n" => "a_failed",
        Worker::A => "a_written",
        Worker::B => "b_written",
        Worker::Synthesis => "s_written",
    })
}

/// Perform an output that starts no worker.
fn perform(output: &str, dir: &Path) -> io::Result<()> {
    if output == "deliver" {
        let synthesis = fs::read(Worker::Synthesis.result(dir))?;
        if create_new(&dir.join("delivered.md"), dir, &synthesis)? {
            log(dir, "delivered")?;
        }
        return log_once(dir, "delivered");
    }
    log(dir, output)
}

/// Put `contents` at `path` unless a file is there: written aside in
/// `DIR/.tmp`, flushed, then linked into place, so it appears whole, and
/// only once. True when this call put it there.
fn create_new(path: &Path, dir: &Path, contents: &[u8]) -> io::Result<bool> {
    let name = path.file_name().expect("a file").to_string_lossy();
    let staged = dir
        .join(".tmp")
        .join(format!("{name}.{}.tmp", std::process::id()));
    let mut file = fs::File::create(&staged)?;
    file.write_all(contents)?;
    file.sync_all()?;
    let created = match fs::hard_link(&staged, path) {
        Ok(()) => true,
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => false,
        Err(error) => return Err(error),
    };
    fs::remove_file(&staged)?;
    if created {
        fs::File::open(dir)?.sync_all()?;
    }
    Ok(created)
}

/// Append `line` to `DIR/log.txt` unless it is there already.
fn log_once(dir: &Path, line: &str) -> io::Result<()> {
    match fs::read_to_string(dir.join("log.txt")) {
        Ok(text) if text.lines().any(|l| l == line) => Ok(()),
        Ok(_) => log(dir, line),
        Err(error) if error.kind() == io::ErrorKind::NotFound => log(dir, line),
        Err(error) => Err(error),
    }
}

/// Append `line` to `DIR/log.txt`.
fn log(dir: &Path, line: &str) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("log.txt"))?;
    file.write_all(format!("{line}\n").as_bytes())
}
