//! Whole runs of the `pipeline` binary: delivery, resuming, two orchestrators
//! at once, timeouts, lost and hung workers, pauses, and bad input.

mod common;

use common::{
    assert_delivered, kill_leftover_workers, load, orchestrator, orchestrator_working, pids, process_exists,
    run, run_within, starts, stderr, stdout,
};
use pipeline::machines::{phase, run as run_machine, worker};
use pipeline::run_dir::RunDir;
use pipeline::session::Session;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Writes a one-pipeline `workflows.json` whose phases are the built-in ones,
/// with `collect`'s timeout and `pause_after` replaced.
fn workflows(dir: &Path, timeout: u64, pause_after: bool) -> PathBuf {
    let text = format!(
        r#"{{"research": {{"phases": [
            {{"id": "collect", "mode": "parallel", "pause_after": {pause_after}, "workers": [
                {{"role": "researcher-a", "model": "sonnet", "timeout": {timeout}, "task": "A"}},
                {{"role": "researcher-b", "model": "sonnet", "timeout": {timeout}, "task": "B"}}]}},
            {{"id": "synthesis", "mode": "sequential", "workers": [
                {{"role": "synthesizer", "model": "opus", "timeout": 420, "final": true,
                  "reads": ["researcher-a.md", "researcher-b.md"], "task": "S"}}]}}
        ]}}}}"#
    );
    let path = dir.join("workflows.json");
    fs::write(&path, text).unwrap();
    path
}

/// Kills the workers of a run left running when a test ends, failed or not.
struct KillLeftovers<'a>(&'a Path);

impl Drop for KillLeftovers<'_> {
    fn drop(&mut self) {
        kill_leftover_workers(self.0);
    }
}

#[test]
fn a_run_delivers_the_synthesis_and_a_second_run_only_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(orchestrator(dir.path()).args(["--topic", "kill -9"]));
    assert!(output.status.success(), "{output:?}");
    let text = stdout(&output);
    for line in [
        "phase.collect: pending -> running [spawn_workers]",
        "worker.researcher-a: pending -> running [start_session]",
        "worker.researcher-b: running -> completed: researcher-b.md exists",
        "phase.collect: running -> completed [mark_worker_completed, spawn_next_phase]: \
         all its workers completed",
        "phase.synthesis: running -> completed [mark_worker_completed, deliver_result, \
         archive_run]: all its workers completed",
        "run: running -> delivering [deliver_result]: the final phase completed",
        "run: delivering -> delivered [archive_run]: final.md is in the outbox",
    ] {
        assert!(text.lines().any(|l| l == line), "missing {line:?} in:\n{text}");
    }
    assert_delivered(dir.path());

    let delivered = fs::read_to_string(dir.path().join("outbox/final.md")).unwrap();
    assert!(
        delivered.starts_with("# synthesizer\n\nTopic: kill -9\n"),
        "{delivered}"
    );
    assert!(delivered.contains("## From researcher-a.md\n\n# researcher-a\n"));
    assert!(delivered.contains("## From researcher-b.md\n\n# researcher-b\n"));

    let again = run(&mut orchestrator(dir.path()));
    assert!(again.status.success());
    let dir_text = dir.path().display();
    assert_eq!(
        stdout(&again),
        format!(
            "pipeline research on \"kill -9\" in {dir_text}\n\
             result delivered to {dir_text}/outbox/final.md; run archived\n"
        )
    );
}

#[test]
fn status_prints_the_run_as_status_json() {
    let dir = tempfile::tempdir().unwrap();
    assert!(run(&mut orchestrator(dir.path())).status.success());
    let output = run(Command::new(env!("CARGO_BIN_EXE_pipeline"))
        .args(["status", "--dir"])
        .arg(dir.path()));
    assert!(output.status.success(), "{output:?}");
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        value,
        serde_json::json!({
            "pipeline": "research",
            "topic": "FSA architecture",
            "current_phase": 1,
            "phases": [
                {"id": "collect", "status": "completed", "workers": {
                    "researcher-a": {"status": "completed"},
                    "researcher-b": {"status": "completed"}}},
                {"id": "synthesis", "status": "completed", "workers": {
                    "synthesizer": {"status": "completed"}}},
            ],
            "run": "delivered",
            "result_delivered": true,
        })
    );
}

#[test]
fn two_orchestrators_started_at_once_deliver_once() {
    for _ in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let first = orchestrator(dir.path()).spawn().unwrap();
        let second = orchestrator(dir.path()).spawn().unwrap();
        for output in [
            first.wait_with_output().unwrap(),
            second.wait_with_output().unwrap(),
        ] {
            assert!(output.status.success(), "{output:?}");
            assert!(stdout(&output).contains("run archived"));
        }
        // Each worker started once, and `final.md` created once (the
        // loser of the race found it and checked its contents).
        assert_delivered(dir.path());
    }
}

#[test]
fn a_phase_past_its_timeout_fails_its_workers_are_killed_and_a_late_output_does_not_revive_it() {
    let dir = tempfile::tempdir().unwrap();
    // A 1 s timeout and no grace, for workers that need 1.5 s: the phase's
    // timer fires while they work.
    let definition = workflows(dir.path(), 1, false);
    let run_dir = dir.path().join("run");
    let start = Instant::now();
    let output = run(orchestrator_working(&run_dir, 1500)
        .arg("--workflows")
        .arg(&definition)
        .args(["--grace-secs", "0"]));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(
        start.elapsed() >= Duration::from_secs(1),
        "failed before its timeout"
    );
    let text = stdout(&output);
    assert!(
        text.contains("phase.collect: running -> failed [notify_user]: running longer than 1 s + 0 s"),
        "{text}"
    );
    assert!(text.contains("worker.researcher-a: running -> failed: its phase ran out of time"));
    assert!(text.contains("notify user: phase collect failed"));
    assert_eq!(
        stderr(&output),
        "error: phase collect failed; the run is over (failures are not retried)\n"
    );

    // The workers were killed: past their 1.5 s of work, no output.
    std::thread::sleep(Duration::from_millis(1800).saturating_sub(start.elapsed()));
    for role in ["researcher-a", "researcher-b"] {
        assert!(
            !run_dir.join(format!("{role}.md")).exists(),
            "{role} was not killed"
        );
        assert_lock_free(&run_dir, role);
    }

    // An output that appears late anyway changes nothing.
    for role in ["researcher-a", "researcher-b"] {
        fs::write(run_dir.join(format!("{role}.md")), "late\n").unwrap();
    }
    let again = run(orchestrator(&run_dir).args(["--grace-secs", "0"]));
    assert_eq!(again.status.code(), Some(1), "{again:?}");
    let (_, status) = load(&run_dir).unwrap();
    assert_eq!(status.phases[0].machine.state(), phase::State::Failed);
    // The phase's history says its timer failed it.
    let last = status.phases[0].machine.history().last().unwrap();
    assert_eq!(
        (last.from(), last.action(), last.to()),
        ("running", "after time_limit", "failed")
    );
    assert_eq!(status.phases[1].machine.state(), phase::State::Pending);
    for stored in &status.workers[0] {
        assert_eq!(stored.machine.state(), worker::State::Failed);
    }
    assert_eq!(status.run.machine.state(), run_machine::State::Failed);
    assert!(!run_dir.join("synthesizer.md").exists());
    assert!(!run_dir.join("outbox/final.md").exists());
    assert_eq!(starts(&run_dir).get("synthesizer"), None);
}

/// Checks that no process holds the session lock of worker `role`, and
/// that its process is gone.
fn assert_lock_free(run_dir: &Path, role: &str) {
    for pid in pids(run_dir, role) {
        assert!(!process_exists(pid), "{role} (process {pid}) still runs");
    }
    let lock = RunDir::new(run_dir).session(role);
    assert!(
        matches!(Session::probe(&lock).unwrap(), Session::Free(_)),
        "{role} still holds its lock"
    );
}

#[test]
fn a_hung_worker_is_killed_when_its_phase_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let definition = workflows(dir.path(), 1, false);
    let run_dir = dir.path().join("run");
    let _cleanup = KillLeftovers(&run_dir);
    let start = Instant::now();
    let output = run_within(
        orchestrator(&run_dir)
            .arg("--workflows")
            .arg(&definition)
            .args(["--grace-secs", "0"])
            .env(pipeline::worker::HANG_ENV, "researcher-b"),
        dir.path(),
        Duration::from_secs(60),
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(
        start.elapsed() >= Duration::from_secs(1),
        "failed before its timeout"
    );
    let text = stdout(&output);
    let [pid] = pids(&run_dir, "researcher-b")[..] else {
        panic!("researcher-b started once: {text}");
    };
    for line in [
        "worker.researcher-a: running -> completed: researcher-a.md exists".to_owned(),
        format!("killed worker researcher-b (process {pid})"),
        "worker.researcher-b: running -> failed: its phase ran out of time".to_owned(),
        "phase.collect: running -> failed [notify_user]: running longer than 1 s + 0 s".to_owned(),
        "notify user: phase collect failed".to_owned(),
    ] {
        assert!(text.lines().any(|l| l == line), "missing {line:?} in:\n{text}");
    }
    assert_lock_free(&run_dir, "researcher-b");
    assert_eq!(starts(&run_dir).get("synthesizer"), None);
}

#[test]
fn a_worker_that_dies_without_output_fails_its_phase_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // The built-in timeouts and grace: 600 s + 120 s, which the run must not
    // wait for.
    let definition = workflows(dir.path(), 600, false);
    let run_dir = dir.path().join("run");
    let _cleanup = KillLeftovers(&run_dir);
    let output = run_within(
        orchestrator(&run_dir)
            .arg("--workflows")
            .arg(&definition)
            .env(pipeline::worker::CRASH_ENV, "researcher-b")
            .env(pipeline::worker::HANG_ENV, "researcher-a"),
        dir.path(),
        Duration::from_secs(60),
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let text = stdout(&output);
    for line in [
        "worker.researcher-b: running -> failed: its process exited without writing its output",
        "notify user: worker researcher-b of phase collect was lost: its process exited without \
         writing its output",
        "worker.researcher-a: running -> failed: its phase failed with worker researcher-b",
        "phase.collect: running -> failed [notify_user]: its worker researcher-b failed",
        "notify user: phase collect failed",
    ] {
        assert!(text.lines().any(|l| l == line), "missing {line:?} in:\n{text}");
    }
    assert_eq!(
        stderr(&output),
        "error: phase collect failed; the run is over (failures are not retried)\n"
    );
    let (_, status) = load(&run_dir).unwrap();
    assert_eq!(status.workers[0][0].machine.state(), worker::State::Failed);
    assert_eq!(status.workers[0][1].machine.state(), worker::State::Failed);
    assert_eq!(status.phases[0].machine.state(), phase::State::Failed);
    assert_eq!(status.run.machine.state(), run_machine::State::Failed);
    assert_eq!(starts(&run_dir).get("researcher-b"), Some(&1), "not retried");
    // The hung researcher-a did not outlive its phase.
    assert_lock_free(&run_dir, "researcher-a");
}

#[test]
fn a_failed_worker_still_running_is_killed_by_the_next_orchestrator() {
    let dir = tempfile::tempdir().unwrap();
    let definition = workflows(dir.path(), 600, false);
    let run_dir = dir.path().join("run");
    let output = run(orchestrator(&run_dir)
        .arg("--workflows")
        .arg(&definition)
        .env(pipeline::worker::CRASH_ENV, "researcher-b"));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    // As if an orchestrator was killed between marking researcher-b failed
    // and killing it: a process holds its lock.
    let lock = RunDir::new(&run_dir).session("researcher-b");
    let Session::Free(free) = Session::probe(&lock).unwrap() else {
        panic!("researcher-b's lock is held");
    };
    let mut sleeper = Command::new("sleep");
    sleeper.arg("600");
    let mut sleeper = free.start(sleeper).unwrap();
    let pid = sleeper.id();

    let again = run(&mut orchestrator(&run_dir));
    // Wait for the kill to be reaped, then make sure it is gone either way.
    let lock_free = matches!(Session::probe(&lock).unwrap(), Session::Free(_));
    std::thread::sleep(Duration::from_millis(50));
    let exited = sleeper.try_wait().unwrap();
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    assert_eq!(again.status.code(), Some(1), "{again:?}");
    let text = stdout(&again);
    assert!(
        text.contains(&format!("killed worker researcher-b (process {pid})")),
        "{text}"
    );
    assert!(lock_free);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(exited.and_then(|status| status.signal()), Some(libc::SIGKILL));
}

#[test]
fn a_huge_grace_waits_forever_instead_of_overflowing() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(orchestrator(dir.path()).args(["--grace-secs", &u64::MAX.to_string()]));
    assert!(output.status.success(), "{output:?}");
    assert_delivered(dir.path());
}

#[test]
fn a_timeout_over_a_week_is_refused_and_nothing_starts() {
    let dir = tempfile::tempdir().unwrap();
    let definition = workflows(dir.path(), u64::MAX, false);
    let run_dir = dir.path().join("run");
    let output = run(orchestrator(&run_dir).arg("--workflows").arg(&definition));
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert_eq!(
        stderr(&output),
        "error: pipeline definition: pipeline \"research\": phases[0].workers[0].timeout of \
         worker \"researcher-a\" in phase \"collect\" is 18446744073709551615 s, more than the \
         maximum of 604800 s (one week)\n\
         pipeline \"research\": phases[0].workers[1].timeout of worker \"researcher-b\" in \
         phase \"collect\" is 18446744073709551615 s, more than the maximum of 604800 s (one \
         week)\n"
    );
    assert!(!run_dir.join("run.json").exists());
}

#[test]
fn a_phase_with_pause_after_waits_for_resume() {
    let dir = tempfile::tempdir().unwrap();
    let definition = workflows(dir.path(), 600, true);
    let run_dir = dir.path().join("run");
    let output = run(orchestrator(&run_dir).arg("--workflows").arg(&definition));
    assert!(output.status.success(), "{output:?}");
    assert!(stdout(&output).contains(
        "phase collect completed with researcher-a.md, researcher-b.md; paused: run again \
         with --resume to go on"
    ));
    assert!(stdout(&output)
        .contains("phase.collect: running -> paused [mark_worker_completed, summarize_to_user]"));

    // Without --resume it stays paused. A run picked up says so, and where.
    let again = run(&mut orchestrator(&run_dir));
    assert!(again.status.success());
    let first_line = format!(
        "resuming run of pipeline research on \"FSA architecture\" in {} at phase collect",
        run_dir.display()
    );
    assert_eq!(stdout(&again).lines().next(), Some(first_line.as_str()));
    let (_, status) = load(&run_dir).unwrap();
    assert_eq!(status.phases[0].machine.state(), phase::State::Paused);
    assert_eq!(starts(&run_dir).get("synthesizer"), None);

    let resumed = run(orchestrator(&run_dir).arg("--resume"));
    assert!(resumed.status.success(), "{resumed:?}");
    assert_eq!(stdout(&resumed).lines().next(), Some(first_line.as_str()));
    assert!(stdout(&resumed)
        .contains("phase.collect: paused -> completed [spawn_next_phase]: resumed by the user"));
    assert_delivered(&run_dir);
}

#[test]
fn resuming_with_another_topic_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert!(run(&mut orchestrator(dir.path())).status.success());
    let output = run(orchestrator(dir.path()).args(["--topic", "something else"]));
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        format!(
            "error: {} holds a run with --topic \"FSA architecture\", not \"something else\"; \
             leave --topic out to resume it, or choose another --dir\n",
            dir.path().display()
        )
    );
}

#[test]
fn a_bad_definition_is_reported_and_nothing_starts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("workflows.json");
    fs::write(
        &path,
        r#"{"research": {"phases": [{"id": "collect", "mode": "parallel", "workers": [
            {"role": "a", "model": "m", "timeout": 1, "task": "t", "reads": ["z.md"]}]}]}}"#,
    )
    .unwrap();
    let run_dir = dir.path().join("run");
    let output = run(orchestrator(&run_dir).arg("--workflows").arg(&path));
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: pipeline definition: pipeline \"research\": phases[0].workers[0].reads[0] \
         \"z.md\" is not the output of a worker of an earlier phase\n\
         pipeline \"research\": no worker is `\"final\": true`; one must be\n"
    );
    assert!(!run_dir.join("run.json").exists());
}

#[test]
fn an_unknown_pipeline_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(orchestrator(dir.path()).args(["--pipeline", "content"]));
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: pipeline definition: there is no pipeline \"content\"; workflows.json defines \
         research\n"
    );
}

#[test]
fn status_of_a_directory_without_a_run_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(Command::new(env!("CARGO_BIN_EXE_pipeline"))
        .args(["status", "--dir"])
        .arg(dir.path()));
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        format!("error: {} holds no run\n", dir.path().display())
    );
}

#[test]
fn a_corrupt_status_is_reported_with_its_path_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    assert!(run(&mut orchestrator(dir.path())).status.success());
    let path = dir.path().join("status/phase.collect.json");
    fs::write(&path, "{\"version\": 2, \"snap").unwrap();
    let output = run(&mut orchestrator(dir.path()));
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.starts_with(&format!(
            "error: status store: the stored data of instance `phase.collect` at {} is \
             corrupt: invalid JSON",
            path.display()
        )),
        "{message}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "{\"version\": 2, \"snap");
}

/// `(seq, from, action, to)` of every entry of a recorded history.
fn transitions(history: &fsm_runtime::History) -> Vec<(u64, String, String, String)> {
    history
        .iter()
        .map(|e| {
            (
                e.seq(),
                e.from().to_owned(),
                e.action().to_owned(),
                e.to().to_owned(),
            )
        })
        .collect()
}

fn entry(seq: u64, from: &str, action: &str, to: &str) -> (u64, String, String, String) {
    (seq, from.to_owned(), action.to_owned(), to.to_owned())
}

#[test]
fn every_status_file_carries_the_history_of_its_state_changes() {
    let dir = tempfile::tempdir().unwrap();
    assert!(run(&mut orchestrator(dir.path())).status.success());
    let (_, status) = load(dir.path()).unwrap();
    let phase_history = [
        entry(0, "pending", "spawn", "running"),
        entry(1, "running", "output_detected", "completed"),
    ];
    assert_eq!(transitions(status.phases[0].machine.history()), phase_history);
    assert_eq!(transitions(status.phases[1].machine.history()), phase_history);
    assert_eq!(
        transitions(status.run.machine.history()),
        [
            entry(0, "running", "final_phase_completed", "delivering"),
            entry(1, "delivering", "delivered", "delivered"),
        ]
    );
    for worker in status.workers.iter().flatten() {
        assert_eq!(
            transitions(worker.machine.history()),
            [
                entry(0, "pending", "spawn", "running"),
                entry(1, "running", "output_detected", "completed"),
            ],
            "{}",
            worker.id
        );
    }
    // In time order, as `fsmc history` prints them.
    let times: Vec<_> = status.phases[0]
        .machine
        .history()
        .iter()
        .map(|e| e.at())
        .collect();
    assert!(times.windows(2).all(|pair| pair[0] <= pair[1]), "{times:?}");

    // The README's walkthrough shows `fsmc history` on this file: the same
    // transitions, in the table's columns (the times are those of the run
    // it was taken from).
    let readme = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap();
    let command = "fsmc history /tmp/research/status/phase.collect.json\n";
    let shown = readme
        .split(command)
        .nth(1)
        .and_then(|rest| rest.split("```text\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("the README shows `fsmc history` on the pipeline's phase.collect.json");
    let mut lines = shown.lines();
    assert_eq!(
        lines.next(),
        Some("seq  time                      from     action           to")
    );
    let rows: Vec<(u64, String, String, String)> = lines
        .map(|line| {
            let cells: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(cells.len(), 5, "{line:?}");
            entry(cells[0].parse().unwrap(), cells[2], cells[3], cells[4])
        })
        .collect();
    assert_eq!(rows, phase_history);
}
