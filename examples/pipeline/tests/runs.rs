//! Whole runs of the `pipeline` binary: many runs delivered by several
//! orchestrators, `status`, an agent that crashes or hangs, a pause, and bad
//! input.

mod common;

use common::{deliveries, fast, load_all, output, pipeline, start, starts, stderr, stdout, KillLeftovers};
use pipeline::agent::{CRASH_ENV, ERROR_ENV, HANG_ENV};
use pipeline::runs::Workspace;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Writes a one-pipeline `workflows.json` like the built-in one, with
/// `collect`'s timeout and `pause_after` replaced.
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

#[test]
fn many_runs_are_delivered_by_several_orchestrators_and_a_second_run_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let _leftovers = KillLeftovers(dir);
    let ids = start(dir, 6, &["--topic", "kill -9"]);
    assert_eq!(
        ids,
        [
            "research-1",
            "research-2",
            "research-3",
            "research-4",
            "research-5",
            "research-6"
        ]
    );
    // More runs take the next free numbers.
    assert_eq!(start(dir, 1, &[]), ["research-7"]);

    let out = output(fast(&mut pipeline(dir, "run")).args(["--workers", "3"]));
    assert!(out.status.success(), "{out:?}");
    assert!(stdout(&out).ends_with("runs: 7 delivered\n"), "{}", stdout(&out));
    for run in load_all(dir) {
        let files = Workspace::new(dir).run(&run.id);
        assert_eq!(run.state, "delivered");
        assert_eq!(
            starts(dir, &run.id),
            ["researcher-a", "researcher-b", "synthesizer"]
        );
        assert_eq!(deliveries(dir, &run.id), 1);
        let result = fs::read_to_string(files.delivered()).unwrap();
        assert!(result.starts_with("# synthesizer\n"), "{result}");
        assert!(result.contains("## From researcher-b.md"), "{result}");
    }
    assert!(
        fs::read_to_string(Workspace::new(dir).run("research-1").delivered())
            .unwrap()
            .contains("Topic: kill -9\n")
    );

    let again = output(fast(&mut pipeline(dir, "run")).args(["--workers", "1"]));
    assert!(again.status.success(), "{again:?}");
    assert_eq!(stdout(&again), "runs: 7 delivered\n");

    let status = output(&mut pipeline(dir, "status"));
    assert!(status.status.success(), "{status:?}");
    let json: serde_json::Value = serde_json::from_str(&stdout(&status)).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 7);
    assert_eq!(
        json[0],
        serde_json::json!({
            "id": "research-1", "pipeline": "research", "topic": "kill -9", "state": "delivered",
            "phase": null, "delivered": true, "parked": null,
            "agents": {"researcher-a": "done", "researcher-b": "done", "synthesizer": "done"}
        })
    );
}

#[test]
fn an_agent_that_dies_without_output_fails_its_run_at_once_and_the_others_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let _leftovers = KillLeftovers(dir);
    start(dir, 2, &[]);
    let began = Instant::now();
    // Every run's researcher-b crashes: both runs fail, long before any
    // timeout (600 s plus 120 s).
    let out = output(
        fast(&mut pipeline(dir, "run"))
            .args(["--workers", "2"])
            .env(CRASH_ENV, "researcher-b"),
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(began.elapsed() < Duration::from_secs(30));
    let text = stdout(&out);
    assert!(
        text.contains("notify user: research-1 failed: agent researcher-b exited"),
        "{text}"
    );
    assert!(text.ends_with("runs: 2 failed\n"), "{text}");
    for run in load_all(dir) {
        assert_eq!(run.state, "failed");
        assert_eq!(run.context.failed.as_deref(), Some("researcher-b"));
        let files = Workspace::new(dir).run(&run.id);
        assert!(!files.delivered().exists());
        // The cause is the exit status the orchestrator saw.
        assert_eq!(
            fs::read_to_string(files.failure()).unwrap(),
            format!(
                "# {} failed\n\nagent researcher-b exited without writing its output: it exited \
                 with exit status: 3\n",
                run.id
            )
        );
        // The synthesizer never started.
        assert_eq!(starts(dir, &run.id), ["researcher-a", "researcher-b"]);
    }
}

/// An agent's own error is its run's cause of failure, in `failure.md`,
/// and its line on the orchestrator's standard error names its run and
/// role.
#[test]
fn an_agent_error_is_the_cause_in_its_runs_failure_and_its_line_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let _leftovers = KillLeftovers(dir);
    start(dir, 2, &[]);
    let out = output(
        fast(&mut pipeline(dir, "run"))
            .args(["--workers", "2"])
            .env(ERROR_ENV, "researcher-a"),
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let errors = stderr(&out);
    for id in ["research-1", "research-2"] {
        let cause = format!("model sonnet refused the task ({ERROR_ENV} is set)");
        assert!(
            errors
                .lines()
                .any(|line| line == format!("{id}/researcher-a: error: {cause}")),
            "{errors}"
        );
        let failure = fs::read_to_string(Workspace::new(dir).run(id).failure()).unwrap();
        assert_eq!(
            failure,
            format!("# {id} failed\n\nagent researcher-a exited without writing its output: {cause}\n")
        );
    }
    // Every line on standard error is an agent's, whole.
    assert!(
        errors
            .lines()
            .all(|line| line.starts_with("research-1/researcher-a: error: ")
                || line.starts_with("research-2/researcher-a: error: ")),
        "{errors}"
    );
}

/// The agent processes working on `dir`'s runs now, from `/proc`.
fn agents_running(dir: &Path) -> usize {
    let dir = dir.to_str().unwrap();
    let Ok(entries) = fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter_map(|entry| fs::read(entry.path().join("cmdline")).ok())
        .filter(|cmdline| {
            let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
            args.get(1) == Some(&&b"agent"[..]) && args.get(3) == Some(&dir.as_bytes())
        })
        .count()
}

/// `--max-agents 1`: one orchestrator never runs two agents at once, and a
/// phase of two researchers waits for room rather than failing.
#[test]
fn an_orchestrator_runs_at_most_max_agents_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let _leftovers = KillLeftovers(dir);
    start(dir, 3, &[]);
    let mut child = fast(&mut pipeline(dir, "run"))
        .args(["--workers", "1", "--max-agents", "1"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut most = 0;
    let began = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "not finished after 30 s"
        );
        most = most.max(agents_running(dir));
        std::thread::sleep(Duration::from_millis(2));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert_eq!(most, 1, "{text}");
    assert!(
        text.contains(": agent researcher-b waits: this orchestrator runs 1 agent(s), its limit\n"),
        "{text}"
    );
    assert!(text.ends_with("runs: 3 delivered\n"), "{text}");
    for run in load_all(dir) {
        assert_eq!(
            starts(dir, &run.id),
            ["researcher-a", "researcher-b", "synthesizer"]
        );
    }
}

#[test]
fn a_hung_agent_is_killed_when_its_run_runs_out_of_time() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let _leftovers = KillLeftovers(dir);
    let definition = workflows(dir, 1, false);
    let definition = definition.to_str().unwrap();
    start(dir, 1, &["--workflows", definition, "--grace-secs", "0"]);
    let began = Instant::now();
    let out = output(
        fast(&mut pipeline(dir, "run"))
            .args(["--workers", "1"])
            .env(HANG_ENV, "researcher-a"),
    );
    let elapsed = began.elapsed();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = stdout(&out);
    // `collect` may run 1 s: then the run fails and its agent is killed.
    assert!(text.contains("killed agent researcher-a"), "{text}");
    assert!(
        text.contains("notify user: research-1 failed: its phase collect ran longer than its timeout (1 s) plus the grace (0 s)"),
        "{text}"
    );
    assert!(
        elapsed >= Duration::from_secs(1) && elapsed < Duration::from_secs(30),
        "{elapsed:?}"
    );
    let run = &load_all(dir)[0];
    assert_eq!((run.state.as_str(), run.context.phase), ("failed", 0));
    let lock = Workspace::new(dir).run("research-1").session("researcher-a");
    assert!(matches!(
        pipeline::session::Session::probe(&lock).unwrap(),
        pipeline::session::Session::Free(_)
    ));
}

#[test]
fn a_phase_with_pause_after_waits_for_resume() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let _leftovers = KillLeftovers(dir);
    let definition = workflows(dir, 600, true);
    start(dir, 1, &["--workflows", definition.to_str().unwrap()]);
    let out = output(fast(&mut pipeline(dir, "run")).args(["--workers", "1"]));
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(
        text.contains(
            "research-1: phase collect completed with researcher-a.md, researcher-b.md; paused: \
             `pipeline resume --id research-1` goes on"
        ),
        "{text}"
    );
    assert!(text.ends_with("runs: 1 paused\n"), "{text}");

    let resumed = output(pipeline(dir, "resume").args(["--id", "research-1"]));
    assert!(resumed.status.success(), "{resumed:?}");
    assert_eq!(
        stdout(&resumed),
        "research-1: resumed; the next orchestrator goes on with it\n"
    );
    // Until an orchestrator takes it, a second resume is the same one.
    let twice = output(pipeline(dir, "resume").args(["--id", "research-1"]));
    assert_eq!(
        stdout(&twice),
        "research-1: resumed already; the next orchestrator goes on with it\n"
    );
    let out = output(fast(&mut pipeline(dir, "run")).args(["--workers", "1"]));
    assert!(out.status.success(), "{out:?}");
    assert!(stdout(&out).ends_with("runs: 1 delivered\n"), "{}", stdout(&out));
    assert_eq!(
        starts(dir, "research-1"),
        ["researcher-a", "researcher-b", "synthesizer"]
    );
    let late = output(pipeline(dir, "resume").args(["--id", "research-1"]));
    assert_eq!(late.status.code(), Some(2));
    assert_eq!(
        stderr(&late),
        "error: run `research-1` is delivered, not paused\n"
    );
}

/// Runs `pipeline` with `args` in a new directory; returns its exit code and
/// standard error, after checking it printed nothing on standard output.
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let args: Vec<String> = args
        .iter()
        .map(|arg| arg.replace("DIR", dir.path().to_str().unwrap()))
        .collect();
    let out = output(std::process::Command::new(env!("CARGO_BIN_EXE_pipeline")).args(&args));
    assert_eq!(stdout(&out), "", "{args:?}");
    (out.status.code(), stderr(&out))
}

#[test]
fn bad_input_is_refused_with_a_message_naming_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    fs::write(path.join("bad.json"), r#"{"research": {"phases": []}}"#).unwrap();
    let bad = path.join("bad.json");
    let bad = bad.to_str().unwrap();
    for (args, expected) in [
        (
            vec!["start", "--dir", "DIR", "--pipeline", "review"],
            "error: pipeline definition: there is no pipeline \"review\"; workflows.json defines research\n",
        ),
        (
            vec!["start", "--dir", "DIR", "--workflows", bad],
            "error: pipeline definition: pipeline \"research\": `phases` is empty\n",
        ),
        (
            vec!["start", "--dir", "DIR", "--count", "0"],
            "error: --count must be at least 1\n",
        ),
        (
            vec!["start", "--dir", "DIR", "--id", "Research/1"],
            "error: \"Research/1\" cannot name a run: use 1 to 64 lowercase ASCII letters, digits, `-` \
             and `_`, starting with a letter or a digit\n",
        ),
        (
            vec![
                "run",
                "--dir",
                "DIR",
                "--db",
                "postgresql://fleet@127.0.0.1:1/pipelines",
            ],
            "error: opening the fleet in PostgreSQL: the fleet's database failed: error connecting to \
             server: Connection refused (os error 111)\n",
        ),
        (
            vec!["run", "--dir", "DIR", "--workers", "0"],
            "error: --workers must be at least 1\n",
        ),
        (
            vec!["run", "--dir", "DIR", "--max-agents", "0"],
            "error: --max-agents must be at least 1\n",
        ),
    ] {
        assert_eq!(refused(&args), (Some(2), expected.to_owned()), "{args:?}");
    }
    // No database: reported, and not created.
    let nowhere = path.join("nowhere");
    for command in ["status", "run", "resume"] {
        let mut cmd = pipeline(&nowhere, command);
        if command == "resume" {
            cmd.args(["--id", "research-9"]);
        }
        let out = output(&mut cmd);
        assert_eq!(out.status.code(), Some(2), "{command}: {out:?}");
        assert_eq!(
            stderr(&out),
            format!(
                "error: there is no fleet database {}: `pipeline start` creates it\n",
                nowhere.join("fleet.db").display()
            ),
            "{command}"
        );
        assert!(!nowhere.exists(), "{command}");
    }
    start(path, 1, &[]);
    let out = output(pipeline(path, "resume").args(["--id", "research-9"]));
    assert_eq!(stderr(&out), "error: there is no run `research-9`\n");
    // A file that is not a fleet's database.
    fs::write(path.join("notes.txt"), "not a database").unwrap();
    let notes = path.join("notes.txt");
    let (code, message) = refused(&["status", "--dir", "DIR", "--db", notes.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(
        message.starts_with(&format!("error: opening the fleet {}: ", notes.display())),
        "{message}"
    );
}

#[test]
fn an_id_taken_is_refused_and_the_run_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    assert_eq!(start(dir, 1, &["--id", "survey"]), ["survey"]);
    let again = output(pipeline(dir, "start").args(["--id", "survey", "--topic", "other"]));
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(
        stderr(&again),
        "error: a run `survey` exists already; choose another --id\n"
    );
    assert_eq!(load_all(dir)[0].context.topic, "FSA architecture");
}
