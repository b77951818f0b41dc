//! A worker: a pure executor. It records that it started, does its work,
//! writes its output file and exits. It never reads or writes a status, and
//! never starts another worker.
//!
//! The work is simulated: the worker sleeps, then writes a report that
//! quotes the files it reads, so the final output shows the whole pipeline.

use crate::atomic_file;
use crate::error::Error;
use crate::run_dir::{RunDir, RunRecord};
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::time::Duration;

/// Set to a role, this worker exits without writing its output, as if it
/// were killed mid-task (out of memory, a platform restart). For tests.
pub const CRASH_ENV: &str = "PIPELINE_CRASH_WORKER";

/// Set to a role, this worker never finishes, as if it hung (a stuck model
/// call). For tests: its phase times out and the orchestrator kills it.
pub const HANG_ENV: &str = "PIPELINE_HANG_WORKER";

/// Runs worker `role` of the run in `dir`, working for `work`.
pub fn run(dir: &RunDir, role: &str, work: Duration) -> Result<(), Error> {
    let record =
        RunRecord::load(dir)?.ok_or_else(|| Error::Run(format!("{} holds no run", dir.root().display())))?;
    let worker = record.definition.worker(role).ok_or_else(|| {
        Error::Run(format!(
            "the pipeline `{}` has no worker `{role}`",
            record.pipeline
        ))
    })?;

    let log = dir.starts_log();
    let line = format!("{role} {}\n", std::process::id());
    // One `write` of one short line in append mode: lines never interleave.
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .and_then(|mut file| file.write_all(line.as_bytes()))
        .map_err(Error::io("appending to", &log))?;

    if std::env::var_os(HANG_ENV).is_some_and(|hang| hang == role) {
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
    std::thread::sleep(work);
    if std::env::var_os(CRASH_ENV).is_some_and(|crash| crash == role) {
        std::process::exit(3);
    }

    let mut report = format!(
        "# {role}\n\nTopic: {}\nModel: {}\nTask: {}\n",
        record.topic, worker.model, worker.task
    );
    for read in &worker.reads {
        let path = dir.output(read);
        let text = fs::read_to_string(&path).map_err(Error::io("reading", &path))?;
        report.push_str(&format!("\n## From {read}\n\n{text}"));
    }
    let output = dir.output(&worker.output());
    atomic_file::replace(&output, &dir.temp(), report.as_bytes()).map_err(Error::io("writing", &output))
}
