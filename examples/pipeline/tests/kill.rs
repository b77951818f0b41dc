//! Orchestrators killed with SIGKILL at random moments, and restarted, while
//! they drive many runs: every run is delivered, no agent is started twice
//! and no result is delivered twice.
//!
//! Besides the kills from outside, each orchestrator kills itself after a
//! quarter of the outputs it performs, before marking them done
//! ([`DIE_AFTER_PERFORMING_ENV`]): the outputs whose repeat only an
//! idempotent handler keeps harmless are repeated every run of this test.

mod common;

use common::{deliveries, fast, load_all, output, pipeline, start, starts, KillLeftovers};
use pipeline::orchestrator::DIE_AFTER_PERFORMING_ENV;
use pipeline::runs::Workspace;
use std::fs;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 40;
const ORCHESTRATORS: usize = 3;

/// An orchestrator that runs until killed, its lines in `DIR/logs/<n>.log`.
fn orchestrator(dir: &Path, n: usize) -> Child {
    let logs = dir.join("logs");
    fs::create_dir_all(&logs).unwrap();
    let log = fs::File::create(logs.join(format!("{n}.log"))).unwrap();
    // Agents work longer than a lease: an output repeated after its
    // orchestrator died finds the agents it started still running.
    pipeline(dir, "orchestrate")
        .args([
            "--work-ms",
            "400",
            "--poll-ms",
            "5",
            "--lease-ms",
            "200",
            "--forever",
        ])
        .env(DIE_AFTER_PERFORMING_ENV, "25")
        .stdout(log)
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

fn all_delivered(dir: &Path) -> bool {
    let runs = load_all(dir);
    runs.iter().all(|run| run.state == "delivered")
        && runs
            .iter()
            .all(|run| Workspace::new(dir).run(&run.id).delivered().exists())
}

#[test]
fn orchestrators_killed_at_random_lose_no_run_start_no_agent_twice_and_deliver_once() {
    killed_at_random(None);
}

/// The same on PostgreSQL, in a schema of the test's own, named by the
/// parameters in `FSM_TEST_POSTGRES_URL` (`.ci/run` starts a server and sets
/// it). Without it, the test says it was skipped, except in CI, where it
/// fails.
#[test]
fn on_postgres_orchestrators_killed_at_random_lose_no_run_start_no_agent_twice_and_deliver_once() {
    const URL_VAR: &str = "FSM_TEST_POSTGRES_URL";
    let url = match std::env::var(URL_VAR) {
        Ok(url) if !url.trim().is_empty() && !url.contains("://") => url,
        _ => {
            let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
            assert!(
                !ci,
                "{URL_VAR} is not set (as `key=value` parameters), and CI needs it"
            );
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "skipped: {URL_VAR} is not set (see .ci/run)");
            return;
        }
    };
    let schema = format!("pipeline_kill_test_{}", std::process::id());
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
        ))
        .unwrap();
    killed_at_random(Some(format!("{url} options='-c search_path={schema}'")));
    admin
        .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
        .unwrap();
}

/// Runs [`RUNS`] runs with [`ORCHESTRATORS`] orchestrators killed at random,
/// on `db` (the workspace's SQLite file when `None`).
fn killed_at_random(db: Option<String>) {
    let on = db.as_ref().map_or("SQLite", |_| "PostgreSQL");
    common::use_db(db);
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let _leftovers = KillLeftovers(dir);
    let ids = start(dir, RUNS, &[]);
    assert_eq!(ids.len(), RUNS);

    let began = Instant::now();
    let mut spawned = 0;
    let mut workers: Vec<Child> = (0..ORCHESTRATORS)
        .map(|_| {
            spawned += 1;
            orchestrator(dir, spawned)
        })
        .collect();
    let (mut kills, mut suicides) = (0, 0);
    while !all_delivered(dir) {
        assert!(
            began.elapsed() < Duration::from_secs(40),
            "not every run was delivered after 40 s"
        );
        std::thread::sleep(Duration::from_millis(fastrand::u64(0..80)));
        // One killed from outside, at a random moment of its work.
        let victim = fastrand::usize(0..ORCHESTRATORS);
        workers[victim].kill().unwrap(); // SIGKILL
        workers[victim].wait().unwrap();
        kills += 1;
        spawned += 1;
        workers[victim] = orchestrator(dir, spawned);
        // Restart those that killed themselves.
        for worker in &mut workers {
            if let Some(status) = worker.try_wait().unwrap() {
                assert_eq!(status.code(), None, "an orchestrator failed: see its error above");
                suicides += 1;
                spawned += 1;
                *worker = orchestrator(dir, spawned);
            }
        }
    }
    for worker in &mut workers {
        worker.kill().unwrap();
        worker.wait().unwrap();
    }
    // Outputs claimed by the last orchestrators killed are performed now; an
    // orchestrator run on finished runs starts nothing and delivers nothing.
    let last = output(fast(&mut pipeline(dir, "run")).args(["--workers", "2"]));
    assert!(last.status.success(), "{last:?}");

    let workspace = Workspace::new(dir);
    let roles = ["researcher-a", "researcher-b", "synthesizer"];
    for run in load_all(dir) {
        let id = &run.id;
        assert_eq!(run.state, "delivered", "{id}");
        assert_eq!(starts(dir, id), roles, "{id}: each agent started exactly once");
        let files = workspace.run(id);
        for role in roles {
            assert!(files.started(role).exists(), "{id}: {role} has its start marker");
        }
        let delivered = fs::read(files.delivered()).unwrap();
        assert_eq!(delivered, fs::read(files.output("synthesizer")).unwrap(), "{id}");
        // A result is logged when its `final.md` is created; a kill between
        // the two can leave it unlogged, never logged twice.
        assert!(
            deliveries(dir, id) <= 1,
            "{id}: delivered {} times",
            deliveries(dir, id)
        );
    }
    let logged: usize = ids.iter().map(|id| deliveries(dir, id)).sum();
    assert!(logged > 0, "no delivery was logged");

    // The repeats happened, and changed nothing.
    let lines: String = fs::read_dir(dir.join("logs"))
        .unwrap()
        .map(|entry| fs::read_to_string(entry.unwrap().path()).unwrap())
        .collect();
    let repeated_deliveries = lines.matches("was delivered already").count();
    let repeated_starts = lines.matches("not started again").count();
    let after_exit = lines.matches("ran; not started again").count();
    println!(
        "{on}: {RUNS} runs in {:?}: {kills} orchestrators killed, {suicides} killed themselves after \
         performing; {repeated_deliveries} repeated deliveries and {repeated_starts} repeated agent \
         starts found done ({after_exit} after the agent exited)",
        began.elapsed()
    );
    assert!(kills >= 10, "too few kills ({kills}) to mean anything");
    assert!(
        repeated_deliveries > 0,
        "no delivery was repeated: the test proves nothing"
    );
    assert!(
        repeated_starts > 0,
        "no agent start was repeated: the test proves nothing"
    );
}
