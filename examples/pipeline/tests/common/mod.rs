//! Running the `pipeline` binary on a run directory, and checking that the
//! statuses it stored agree with the files.

#![allow(dead_code)] // Each test file uses part of this.

use pipeline::machines::{phase, run, worker};
use pipeline::run_dir::{RunDir, RunRecord};
use pipeline::status::{Status, StatusStore};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The orchestrator on `dir`, with quick workers and a quick heartbeat.
pub fn orchestrator(dir: &Path) -> Command {
    orchestrator_working(dir, 3)
}

/// The orchestrator on `dir`, with workers working `work_ms` milliseconds.
pub fn orchestrator_working(dir: &Path, work_ms: u64) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pipeline"));
    command
        .arg("--dir")
        .arg(dir)
        .args(["--poll-ms", "2", "--work-ms"])
        .arg(work_ms.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs `command` to the end.
pub fn run(command: &mut Command) -> Output {
    command.output().unwrap()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// How many times each worker process was started, from `starts.log`.
pub fn starts(dir: &Path) -> BTreeMap<String, usize> {
    let mut starts = BTreeMap::new();
    let text = match fs::read_to_string(dir.join("starts.log")) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return starts,
        Err(error) => panic!("{error}"),
    };
    for line in text.lines() {
        let role = line.split(' ').next().unwrap().to_owned();
        *starts.entry(role).or_insert(0) += 1;
    }
    starts
}

/// Every file in `dir`, hidden ones included, sorted.
pub fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = match fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect(),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(error) => panic!("{error}"),
    };
    names.sort();
    names
}

/// The run's record and statuses, or `None` before the run was created.
pub fn load(dir: &Path) -> Option<(RunRecord, Status)> {
    let run_dir = RunDir::new(dir);
    let record = RunRecord::load(&run_dir).unwrap()?;
    let status = StatusStore::open(&run_dir.status())
        .unwrap()
        .load(&record.definition, pipeline::orchestrator::DEFAULT_GRACE)
        .unwrap();
    Some((record, status))
}

/// Checks that what the statuses say is what the files show, at any
/// moment of a run (also right after a kill):
///
/// - no worker process was started twice;
/// - a completed worker's output exists;
/// - a worker is past `pending` only once its phase is;
/// - a completed phase has only completed workers;
/// - a delivering or delivered run has its final phase completed;
/// - the outbox holds nothing but `final.md`, not even a hidden file, and
///   a delivered run has it, equal to the final output;
/// - the run directory holds no temporary file outside `.tmp/`.
pub fn assert_consistent(dir: &Path) {
    for (role, count) in starts(dir) {
        assert_eq!(count, 1, "worker {role} was started {count} times");
    }
    let Some((record, status)) = load(dir) else {
        return;
    };
    for (p, phase_def) in record.definition.phases.iter().enumerate() {
        let phase_state = status.phases[p].machine.state();
        for (w, worker_def) in phase_def.workers.iter().enumerate() {
            let state = status.workers[p][w].machine.state();
            let output = dir.join(worker_def.output());
            if state == worker::State::Completed {
                assert!(output.exists(), "{} is completed without output", worker_def.role);
            }
            if state != worker::State::Pending {
                assert!(
                    phase_state != phase::State::Pending,
                    "{} left pending while its phase {} is pending",
                    worker_def.role,
                    phase_def.id
                );
            }
            if phase_state == phase::State::Completed {
                assert_eq!(state, worker::State::Completed, "{}", worker_def.role);
            }
        }
    }
    let run_state = status.run.machine.state();
    if run_state != run::State::Running {
        assert_ne!(run_state, run::State::Failed, "the run failed");
        assert_eq!(
            status.phases.last().unwrap().machine.state(),
            phase::State::Completed
        );
    }
    for name in files(dir) {
        assert!(
            !name.ends_with(".tmp") || name == ".tmp",
            "a temporary file outside .tmp/: {name}"
        );
    }
    let outbox = dir.join("outbox");
    let delivered = files(&outbox);
    assert!(
        delivered.is_empty() || delivered == ["final.md"],
        "outbox: {delivered:?}"
    );
    if run_state == run::State::Delivered {
        assert_eq!(delivered, ["final.md"]);
    }
    if !delivered.is_empty() {
        let final_output = dir.join(record.definition.final_worker().output());
        assert_eq!(
            fs::read(outbox.join("final.md")).unwrap(),
            fs::read(final_output).unwrap()
        );
    }
}

/// Checks that the run in `dir` finished: every worker started once and
/// completed, every phase completed, the result delivered, and no temporary
/// file left (the last orchestrator swept those that crashes left).
pub fn assert_delivered(dir: &Path) {
    assert_consistent(dir);
    let (record, status) = load(dir).expect("a run");
    for (p, phase_def) in record.definition.phases.iter().enumerate() {
        assert_eq!(status.phases[p].machine.state(), phase::State::Completed);
        for (w, worker_def) in phase_def.workers.iter().enumerate() {
            assert_eq!(status.workers[p][w].machine.state(), worker::State::Completed);
            assert_eq!(starts(dir).get(&worker_def.role), Some(&1), "{}", worker_def.role);
        }
    }
    assert_eq!(status.run.machine.state(), run::State::Delivered);
    assert_eq!(files(&dir.join("outbox")), ["final.md"]);
    assert_eq!(
        files(&dir.join(".tmp")),
        Vec::<String>::new(),
        "temporary files left"
    );
}

/// Whether process `pid` runs: exists and is not a zombie (an exited
/// process nobody reaped, as under an init that does not reap).
pub fn process_exists(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name, which is in parentheses.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => false,
    }
}

/// Kills (SIGKILL) the worker processes of the run in `dir` that still run,
/// so that a failing test leaves none behind. Only processes whose command
/// line names `dir` are signalled.
pub fn kill_leftover_workers(dir: &Path) {
    let text = fs::read_to_string(dir.join("starts.log")).unwrap_or_default();
    for pid in text
        .lines()
        .filter_map(|line| line.split_once(' ')?.1.parse::<u32>().ok())
    {
        let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let dir = dir.as_os_str().as_encoded_bytes();
        if process_exists(pid) && cmdline.windows(dir.len()).any(|window| window == dir) {
            // SAFETY: `kill` reads no memory; the process is this run's worker.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        }
    }
}

/// Runs `command` with its standard output and error in files in `dir`
/// (not pipes, which a worker left running would hold open), for at most
/// `limit`; then kills it (and fails) if it still runs.
pub fn run_within(command: &mut Command, dir: &Path, limit: std::time::Duration) -> Output {
    let out = dir.join("orchestrator.out");
    let err = dir.join("orchestrator.err");
    let mut child = command
        .stdout(fs::File::create(&out).unwrap())
        .stderr(fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!(
                "still running after {limit:?}; stdout:\n{}",
                fs::read_to_string(&out).unwrap()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    Output {
        status,
        stdout: fs::read(&out).unwrap(),
        stderr: fs::read(&err).unwrap(),
    }
}

/// The process ids of the starts of worker `role`, from `starts.log`.
pub fn pids(dir: &Path, role: &str) -> Vec<u32> {
    fs::read_to_string(dir.join("starts.log"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.split_once(' '))
        .filter(|(name, _)| *name == role)
        .map(|(_, pid)| pid.parse().unwrap())
        .collect()
}
