//! The orchestrator killed with SIGKILL at random moments, and at each of
//! its named [checkpoints](Checkpoint), and restarted, again and again:
//! every run still ends with its result delivered exactly once, statuses
//! that match the files, nothing in the outbox but `final.md`, and no worker
//! started twice. And a phase's timeout, armed before a kill, fails the
//! phase at its original deadline after the restart.

mod common;

use common::{
    assert_consistent, assert_delivered, files, kill_leftover_workers, orchestrator, orchestrator_working,
    starts, stdout,
};
use fsm_runtime::Timestamp;
use pipeline::machines::{phase, run as run_machine};
use pipeline::orchestrator::{self, Checkpoint, Options};
use pipeline::run_dir::{RunDir, RunRecord};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

/// Waits up to `limit` for `child` to exit; kills it (SIGKILL) if it has not.
/// Returns whether it was killed.
fn kill_after(child: &mut Child, limit: Duration) -> bool {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if start.elapsed() >= limit {
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            return true;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// The inode of `outbox/final.md`, if it exists: a second delivery would
/// create a new file.
fn delivered_inode(dir: &Path) -> Option<u64> {
    std::fs::metadata(dir.join("outbox").join("final.md"))
        .ok()
        .map(|metadata| metadata.ino())
}

/// How far a run got: the status saves made so far, and the outputs and
/// deliveries written.
fn stage(dir: &Path) -> (u64, usize) {
    let saves = common::load(dir).map_or(0, |(_, status)| {
        status.run.version
            + status.phases.iter().map(|phase| phase.version).sum::<u64>()
            + status
                .workers
                .iter()
                .flatten()
                .map(|worker| worker.version)
                .sum::<u64>()
    });
    let files = [
        "researcher-a.md",
        "researcher-b.md",
        "synthesizer.md",
        "outbox/final.md",
    ];
    (saves, files.iter().filter(|file| dir.join(file).exists()).count())
}

#[test]
fn runs_killed_at_random_moments_deliver_exactly_once() {
    const RUNS: usize = 100;
    let start = Instant::now();
    let mut kills = 0;
    // How many kills found the run at each stage: (saves made, outputs written).
    let mut stages = std::collections::BTreeMap::new();
    // Kills that found the run `delivering`: the window exactly-once is
    // about. Random kills land there only by chance; the checkpoint test
    // below lands there every time.
    let mut delivering = 0;
    for run in 0..RUNS {
        let dir = tempfile::tempdir().unwrap();
        let mut inode = None;
        let mut attempts = 0;
        let output = loop {
            attempts += 1;
            assert!(attempts < 200, "run {run}: no progress after {attempts} attempts");
            let mut child = orchestrator(dir.path()).spawn().unwrap();
            // A whole run takes some tens of milliseconds: most attempts are
            // killed, at every point of it, and each gets further.
            let limit = Duration::from_micros(fastrand::u64(0..20_000));
            if !kill_after(&mut child, limit) {
                break child.wait_with_output().unwrap();
            }
            kills += 1;
            assert_consistent(dir.path());
            if run_state(dir.path()) == Some(run_machine::State::Delivering) {
                delivering += 1;
            }
            *stages.entry(stage(dir.path())).or_insert(0) += 1;
            let now = delivered_inode(dir.path());
            if inode.is_some() {
                assert_eq!(now, inode, "run {run}: final.md was delivered again");
            }
            inode = now;
        };
        assert!(output.status.success(), "run {run}: {output:?}");
        assert!(
            stdout(&output).contains("run archived"),
            "run {run}: {}",
            stdout(&output)
        );
        assert_delivered(dir.path());
        if inode.is_some() {
            assert_eq!(delivered_inode(dir.path()), inode, "run {run}: delivered again");
        }

        // Running it again changes nothing.
        let before = starts(dir.path());
        let inode = delivered_inode(dir.path());
        let again = orchestrator(dir.path()).output().unwrap();
        assert!(again.status.success(), "run {run}: {again:?}");
        assert_eq!(starts(dir.path()), before);
        assert_eq!(delivered_inode(dir.path()), inode);
        assert_delivered(dir.path());
    }
    println!("{RUNS} runs, {kills} kills, in {:?}", start.elapsed());
    println!("kills by (status saves, outputs written): {stages:?}");
    println!("kills while delivering: {delivering}");
    assert!(kills >= RUNS, "too few kills ({kills}) to mean anything");
}

fn run_state(dir: &Path) -> Option<run_machine::State> {
    common::load(dir).map(|(_, status)| status.run.machine.state())
}

/// Set in the orchestrator that [`checkpoint_child`] runs: which checkpoint
/// to die at, and in which run directory.
const CHILD_ENV: &str = "PIPELINE_KILL_TEST_CHECKPOINT";

static KILL_AT: OnceLock<Checkpoint> = OnceLock::new();

fn die_at(point: Checkpoint) {
    if KILL_AT.get() == Some(&point) {
        // SAFETY: signals this process, which dies at once, as by `kill -9`.
        unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
    }
}

/// Not a test on its own (without `CHILD_ENV` it returns at once): the
/// orchestrator that [`runs_killed_at_each_checkpoint_deliver_exactly_once`]
/// starts, as this test binary run again, so that it can be given a
/// checkpoint to die at. The `pipeline` binary has no such hook.
#[test]
fn checkpoint_child() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let (point, dir) = spec.split_once(' ').unwrap();
    let point = Checkpoint::ALL
        .into_iter()
        .find(|checkpoint| format!("{checkpoint:?}") == point)
        .unwrap();
    KILL_AT.set(point).unwrap();
    let dir = RunDir::new(dir);
    let record = RunRecord::start_or_resume(&dir, None, None, pipeline::WORKFLOWS).unwrap();
    let options = Options {
        worker_program: PathBuf::from(env!("CARGO_BIN_EXE_pipeline")),
        work: Duration::from_millis(3),
        poll: Duration::from_millis(2),
        grace: Duration::from_secs(120),
        resume: false,
        checkpoint: Some(die_at),
    };
    orchestrator::run(&dir, &record, &options, &mut std::io::sink()).unwrap();
}

/// Runs the orchestrator on `dir` until it reaches `point`, where it dies
/// by SIGKILL. Returns whether it did (else it finished without passing
/// `point`).
fn run_killed_at(dir: &Path, point: Checkpoint) -> bool {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["checkpoint_child", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, format!("{point:?} {}", dir.display()))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    if output.status.signal() == Some(libc::SIGKILL) {
        return true;
    }
    assert!(output.status.success(), "{point:?}: {output:?}");
    false
}

/// How many names `outbox/final.md` has: 2 while its staged copy is still
/// linked in `.tmp/`.
fn delivered_links(dir: &Path) -> Option<u64> {
    std::fs::metadata(dir.join("outbox").join("final.md"))
        .ok()
        .map(|metadata| metadata.nlink())
}

#[test]
fn runs_killed_at_each_checkpoint_deliver_exactly_once() {
    const ROUNDS: usize = 3;
    for point in Checkpoint::ALL {
        for round in 0..ROUNDS {
            let dir = tempfile::tempdir().unwrap();
            let dir = dir.path();
            // A fresh run passes every checkpoint: the kill lands.
            assert!(run_killed_at(dir, point), "{point:?}: not reached");
            assert_consistent(dir);
            let run = run_state(dir);
            let outbox = files(&dir.join("outbox"));
            let temp = files(&dir.join(".tmp"));
            match point {
                Checkpoint::WorkerStarted => {
                    assert_eq!(run, Some(run_machine::State::Running));
                }
                Checkpoint::Delivering => {
                    assert_eq!(run, Some(run_machine::State::Delivering));
                    assert!(outbox.is_empty(), "{outbox:?}");
                }
                Checkpoint::DeliveryStaged => {
                    assert_eq!(run, Some(run_machine::State::Delivering));
                    assert!(outbox.is_empty(), "{outbox:?}");
                    assert_eq!(temp.len(), 1, "the staged result: {temp:?}");
                }
                Checkpoint::DeliveryLinked => {
                    // Between the link and the `delivered` save, with the
                    // result's second name still in `.tmp/`, not the outbox.
                    assert_eq!(run, Some(run_machine::State::Delivering));
                    assert_eq!(outbox, ["final.md"]);
                    assert_eq!(delivered_links(dir), Some(2));
                }
            }
            let mut inode = delivered_inode(dir);

            // Killed again, at some checkpoint if it passes one.
            let again = Checkpoint::ALL[fastrand::usize(..Checkpoint::ALL.len())];
            run_killed_at(dir, again);
            assert_consistent(dir);
            if inode.is_some() {
                assert_eq!(
                    delivered_inode(dir),
                    inode,
                    "{point:?}, {again:?}: delivered again"
                );
            }
            inode = delivered_inode(dir);

            let output = orchestrator(dir).output().unwrap();
            assert!(output.status.success(), "{point:?} round {round}: {output:?}");
            assert!(stdout(&output).contains("run archived"), "{}", stdout(&output));
            assert_delivered(dir);
            if inode.is_some() {
                assert_eq!(
                    delivered_inode(dir),
                    inode,
                    "{point:?}, {again:?}: delivered again"
                );
            }
            // The staged copy was swept: `final.md` has one name.
            assert_eq!(delivered_links(dir), Some(1));
        }
    }
}

/// The phase's timeout deadline, as stored, once the phase runs.
fn stored_deadline(dir: &Path) -> Option<Timestamp> {
    let (_, status) = common::load(dir)?;
    let collect = &status.phases[0].machine;
    if collect.state() == phase::State::Running {
        collect.machine().next_deadline()
    } else {
        None
    }
}

/// Kills the workers a test leaves running, passed or failed.
struct KillLeftovers<'a>(&'a Path);

impl Drop for KillLeftovers<'_> {
    fn drop(&mut self) {
        kill_leftover_workers(self.0);
    }
}

#[test]
fn a_timeout_armed_before_a_kill_fires_at_its_original_deadline() {
    const TIMEOUT: Duration = Duration::from_secs(3);
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let _cleanup = KillLeftovers(&run_dir);
    let definition = dir.path().join("workflows.json");
    std::fs::write(
        &definition,
        format!(
            r#"{{"research": {{"phases": [
                {{"id": "collect", "mode": "parallel", "workers": [
                    {{"role": "researcher-a", "model": "m", "timeout": {}, "task": "A"}}]}},
                {{"id": "synthesis", "mode": "sequential", "workers": [
                    {{"role": "synthesizer", "model": "m", "timeout": 60, "final": true, "task": "S"}}]}}
            ]}}}}"#,
            TIMEOUT.as_secs()
        ),
    )
    .unwrap();
    let orchestrator = || {
        let mut command = orchestrator_working(&run_dir, 10);
        command
            .arg("--workflows")
            .arg(&definition)
            .args(["--grace-secs", "0"])
            .env(pipeline::worker::HANG_ENV, "researcher-a");
        command
    };

    // The phase starts, its worker hangs, and the orchestrator is killed.
    let mut first = orchestrator().stdout(Stdio::null()).spawn().unwrap();
    let start = Instant::now();
    let due = loop {
        if let Some(due) = stored_deadline(&run_dir) {
            break due;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the phase never started"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();
    let killed_at = Timestamp::from_system_time(SystemTime::now());
    assert!(killed_at < due, "killed after the deadline: make TIMEOUT longer");

    // Restarted a second later, the orchestrator finds the deadline in the
    // stored status and fails the phase then, not a whole timeout after its
    // own start.
    std::thread::sleep(Duration::from_secs(1));
    let restarted_at = Timestamp::from_system_time(SystemTime::now());
    assert_eq!(
        stored_deadline(&run_dir),
        Some(due),
        "the restart moved the deadline"
    );
    let output = orchestrator().output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let text = stdout(&output);
    assert!(
        text.contains("phase.collect: running -> failed [notify_user]: running longer than 3 s + 0 s"),
        "{text}"
    );
    assert!(
        text.contains("worker.researcher-a: running -> failed: its phase ran out of time"),
        "{text}"
    );

    let (_, status) = common::load(&run_dir).unwrap();
    let failed = status.phases[0].machine.history().last().unwrap();
    assert_eq!(
        (failed.from(), failed.action(), failed.to()),
        ("running", "after time_limit", "failed")
    );
    let failed_at = failed.at();
    assert!(
        failed_at >= due,
        "failed at {failed_at}, before its deadline {due}"
    );
    // A timeout counted from the restart would fire at restarted_at + 3 s;
    // the original deadline is at most 2 s after the restart.
    let from_restart = restarted_at.unix_millis() + TIMEOUT.as_millis() as u64;
    assert!(
        failed_at.unix_millis() + 500 < from_restart,
        "failed at {failed_at}: a timeout counted from the restart ({restarted_at}), not the \
         original deadline {due}"
    );
}
