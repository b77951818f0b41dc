//! Orchestrators killed with SIGKILL at random moments, and restarted, while
//! they drive many runs: every run is delivered, no agent is started twice
//! and no result is delivered twice.
//!
//! Besides the kills from outside, each orchestrator kills itself after a
//! quarter of the outputs it performs, before marking them done
//! ([`DIE_AFTER_PERFORMING_ENV`]): the outputs whose repeat only an
//! idempotent handler keeps harmless are repeated every run of this test.
//!
//! Then the two moments a kill leaves behind, each on SQLite and on
//! PostgreSQL: agents that exit after their orchestrator was killed, and an
//! output performed but not marked done.

mod common;

use common::{
    agent_running, deliveries, fast, load_all, output, output_within, pipeline, start, starts, stdout,
    wait_for, KillLeftovers,
};
use pipeline::agent::CRASH_ENV;
use pipeline::orchestrator::{outbox, DIE_AFTER_OUTPUT_ENV, DIE_AFTER_PERFORMING_ENV};
use pipeline::runs::Workspace;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// How a test kills orchestrators.
struct Chaos {
    /// Runs started.
    runs: usize,
    /// Orchestrators at once.
    orchestrators: usize,
    /// The options of `pipeline orchestrate` besides `--forever`.
    options: &'static [&'static str],
    /// One orchestrator is killed from outside every 0 to this many ms.
    kill_every_ms: u64,
    /// How often an orchestrator kills itself after performing an output,
    /// in percent ([`DIE_AFTER_PERFORMING_ENV`]).
    self_kill_percent: u32,
    /// How long every run may take to be delivered.
    limit: Duration,
    /// The options of the last `pipeline run` besides `--workers`.
    last_run: &'static [&'static str],
    /// Whether a repeated delivery and a repeated start must have been
    /// seen for the test to mean anything.
    expect_repeats: bool,
}

/// The test CI runs: 40 runs, 3 orchestrators, one killed every 0 to
/// 80 ms, a quarter of the outputs performed followed by a kill. Agents work
/// longer than a lease: an output repeated after its orchestrator died finds
/// the agents it started still running.
const QUICK: Chaos = Chaos {
    runs: 40,
    orchestrators: 3,
    options: &["--work-ms", "400", "--poll-ms", "5", "--lease-ms", "200"],
    kill_every_ms: 80,
    self_kill_percent: 25,
    limit: Duration::from_secs(40),
    last_run: &["--work-ms", "20", "--poll-ms", "5", "--lease-ms", "300"],
    expect_repeats: true,
};

/// The check by hand: 100 runs with every default of `pipeline run` (two
/// orchestrators, 300 ms agents, 30 s leases, 16 agents each), one
/// orchestrator killed every 0 to 1 s, and 5% of the outputs performed
/// followed by a kill.
const DEFAULTS: Chaos = Chaos {
    runs: 100,
    orchestrators: 2,
    options: &[],
    kill_every_ms: 1000,
    self_kill_percent: 5,
    limit: Duration::from_secs(900),
    last_run: &[],
    expect_repeats: false,
};

/// An orchestrator that runs until killed, its lines in `DIR/logs/<n>.log`.
fn orchestrator(dir: &Path, n: usize, chaos: &Chaos) -> Child {
    let logs = dir.join("logs");
    fs::create_dir_all(&logs).unwrap();
    let log = fs::File::create(logs.join(format!("{n}.log"))).unwrap();
    pipeline(dir, "orchestrate")
        .args(chaos.options)
        .arg("--forever")
        .env(DIE_AFTER_PERFORMING_ENV, chaos.self_kill_percent.to_string())
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
    killed_at_random(None, &QUICK);
}

/// The same on PostgreSQL, in a schema of the test's own, on the server
/// `FSM_TEST_POSTGRES_URL` names ([`common::postgres`]).
#[test]
fn on_postgres_orchestrators_killed_at_random_lose_no_run_start_no_agent_twice_and_deliver_once() {
    if let Some(pg) = common::postgres("kill") {
        killed_at_random(Some(pg.db.clone()), &QUICK);
    }
}

/// [`DEFAULTS`], by hand (a few minutes: each kill leaves the outputs its
/// orchestrator claimed to wait out a 30 s lease):
/// `cargo test -p pipeline --test kill -- --ignored --nocapture`.
#[test]
#[ignore = "minutes long: run by hand (docs/durability.md)"]
fn a_hundred_runs_with_the_defaults_and_orchestrators_killed_at_random() {
    killed_at_random(None, &DEFAULTS);
}

/// [`DEFAULTS`] on PostgreSQL, by hand, with `FSM_TEST_POSTGRES_URL` set.
#[test]
#[ignore = "minutes long: run by hand (docs/durability.md)"]
fn on_postgres_a_hundred_runs_with_the_defaults_and_orchestrators_killed_at_random() {
    if let Some(pg) = common::postgres("defaults") {
        killed_at_random(Some(pg.db.clone()), &DEFAULTS);
    }
}

/// Runs `chaos`, on `db` (the workspace's SQLite file when `None`).
fn killed_at_random(db: Option<String>, chaos: &Chaos) {
    let on = db.as_ref().map_or("SQLite", |_| "PostgreSQL");
    common::use_db(db);
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let _leftovers = KillLeftovers(dir);
    let ids = start(dir, chaos.runs, &[]);
    assert_eq!(ids.len(), chaos.runs);

    let began = Instant::now();
    let mut spawned = 0;
    let mut workers: Vec<Child> = (0..chaos.orchestrators)
        .map(|_| {
            spawned += 1;
            orchestrator(dir, spawned, chaos)
        })
        .collect();
    let (mut kills, mut suicides) = (0, 0);
    while !all_delivered(dir) {
        assert!(
            began.elapsed() < chaos.limit,
            "not every run was delivered after {:?}",
            chaos.limit
        );
        std::thread::sleep(Duration::from_millis(fastrand::u64(0..chaos.kill_every_ms)));
        // One killed from outside, at a random moment of its work.
        let victim = fastrand::usize(0..chaos.orchestrators);
        workers[victim].kill().unwrap(); // SIGKILL
        workers[victim].wait().unwrap();
        kills += 1;
        spawned += 1;
        workers[victim] = orchestrator(dir, spawned, chaos);
        // Restart those that killed themselves.
        for worker in &mut workers {
            if let Some(status) = worker.try_wait().unwrap() {
                assert_eq!(status.code(), None, "an orchestrator failed: see its error above");
                suicides += 1;
                spawned += 1;
                *worker = orchestrator(dir, spawned, chaos);
            }
        }
    }
    let delivered_in = began.elapsed();
    for worker in &mut workers {
        worker.kill().unwrap();
        worker.wait().unwrap();
    }
    // Outputs claimed by the last orchestrators killed are performed now,
    // once their leases ran out; an orchestrator run on finished runs starts
    // nothing and delivers nothing.
    let last = output(pipeline(dir, "run").args(["--workers", "2"]).args(chaos.last_run));
    assert!(last.status.success(), "{last:?}");
    assert!(
        stdout(&last).ends_with(&format!("runs: {} delivered\n", chaos.runs)),
        "{last:?}"
    );
    let left = outbox(&mut None, &common::db(dir)).unwrap();
    assert_eq!(
        (
            left.outputs_due,
            left.outputs_leased,
            left.outputs_waiting,
            left.outputs_dead
        ),
        (0, 0, 0, 0),
        "{left:?}"
    );

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
    let repeated_deliveries = lines.matches("was delivered already").count()
        + stdout(&last).matches("was delivered already").count();
    let repeated_starts = lines.matches("not started again").count();
    let after_exit = lines.matches("ran; not started again").count();
    println!(
        "{on}: {} runs delivered in {delivered_in:?}, {:?} with the last run: {kills} orchestrators \
         killed, {suicides} killed themselves after performing; {repeated_deliveries} repeated \
         deliveries and {repeated_starts} repeated agent starts found done ({after_exit} after the \
         agent exited); {logged} deliveries logged",
        chaos.runs,
        began.elapsed()
    );
    assert!(kills >= 10, "too few kills ({kills}) to mean anything");
    if chaos.expect_repeats {
        assert!(
            repeated_deliveries > 0,
            "no delivery was repeated: the test proves nothing"
        );
        assert!(
            repeated_starts > 0,
            "no agent start was repeated: the test proves nothing"
        );
    }
}

/// An agent that exits after its orchestrator was killed is reported by the
/// next orchestrator at once: the run fails without waiting for its phase's
/// time limit (600 s plus 120 s). The repro of issue 30, whose `pipeline run`
/// waited for that limit.
#[test]
fn an_agent_that_dies_after_its_orchestrator_was_killed_fails_its_run_at_once() {
    agent_dies_after_its_orchestrator(None);
}

#[test]
fn on_postgres_an_agent_that_dies_after_its_orchestrator_was_killed_fails_its_run_at_once() {
    if let Some(pg) = common::postgres("orphan") {
        agent_dies_after_its_orchestrator(Some(pg.db.clone()));
    }
}

fn agent_dies_after_its_orchestrator(db: Option<String>) {
    common::use_db(db);
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let _leftovers = KillLeftovers(dir);
    start(dir, 1, &[]);
    let mut orchestrator = pipeline(dir, "orchestrate")
        .args(["--work-ms", "1000", "--poll-ms", "5"])
        .env(CRASH_ENV, "researcher-a")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let files = Workspace::new(dir).run("research-1");
    let researchers = ["researcher-a", "researcher-b"];
    wait_for("both researchers started", Duration::from_secs(20), || {
        researchers.iter().all(|role| files.started(role).exists())
    });
    // Its `start_agents` is done: nothing waits for a lease to run out.
    let db = common::db(dir);
    let mut reader = None;
    wait_for("the outbox is empty", Duration::from_secs(20), || {
        let outbox = outbox(&mut reader, &db).unwrap();
        outbox.outputs_due + outbox.outputs_leased + outbox.outputs_waiting == 0
    });
    orchestrator.kill().unwrap(); // SIGKILL
    orchestrator.wait().unwrap();
    // researcher-a crashes, researcher-b writes its output: nobody watches.
    wait_for("both researchers exited", Duration::from_secs(20), || {
        researchers
            .iter()
            .all(|role| !agent_running(dir, "research-1", role))
    });
    assert!(files.output("researcher-b").exists());
    assert!(!files.output("researcher-a").exists());
    let status = output(&mut pipeline(dir, "status"));
    let json: serde_json::Value = serde_json::from_str(&stdout(&status)).unwrap();
    assert_eq!(json[0]["state"], "running");
    assert_eq!(
        json[0]["agents"],
        serde_json::json!({"researcher-a": "exited", "researcher-b": "exited", "synthesizer": "pending"})
    );

    let out = output_within(
        fast(&mut pipeline(dir, "run")).args(["--workers", "1"]),
        Duration::from_secs(20),
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = stdout(&out);
    assert!(
        text.contains("research-1: agent researcher-a exited without writing its output\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "notify user: research-1 failed: agent researcher-a exited without writing its output, \
             and no cause was recorded"
        ),
        "{text}"
    );
    assert!(text.ends_with("runs: 1 failed\n"), "{text}");
    let run = &load_all(dir)[0];
    assert_eq!(run.state, "failed");
    assert_eq!(run.context.failed.as_deref(), Some("researcher-a"));
    assert_eq!(starts(dir, "research-1"), researchers);
}

/// An orchestrator killed after delivering a result and before marking its
/// `deliver_result` done leaves that output leased: `pipeline run` waits for
/// the lease to run out, performs it again (finding it delivered) and marks
/// it done, and only then says the runs are finished.
#[test]
fn run_finishes_only_when_no_output_is_left_to_perform() {
    delivery_left_leased(None);
}

#[test]
fn on_postgres_run_finishes_only_when_no_output_is_left_to_perform() {
    if let Some(pg) = common::postgres("outbox") {
        delivery_left_leased(Some(pg.db.clone()));
    }
}

fn delivery_left_leased(db: Option<String>) {
    common::use_db(db);
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let _leftovers = KillLeftovers(dir);
    start(dir, 1, &[]);
    let died = output_within(
        pipeline(dir, "orchestrate")
            .args(["--work-ms", "20", "--poll-ms", "5", "--lease-ms", "2000"])
            .env(DIE_AFTER_OUTPUT_ENV, "deliver_result"),
        Duration::from_secs(20),
    );
    assert_eq!(died.status.signal(), Some(libc::SIGKILL), "{died:?}");
    let files = Workspace::new(dir).run("research-1");
    assert!(files.delivered().exists());
    assert_eq!(deliveries(dir, "research-1"), 1);
    let db = common::db(dir);
    let left = outbox(&mut None, &db).unwrap();
    assert_eq!(
        (left.outputs_leased, left.outputs_due, left.outputs_dead),
        (1, 0, 0),
        "{left:?}"
    );

    let began = Instant::now();
    let out = output_within(
        fast(&mut pipeline(dir, "run")).args(["--workers", "1"]),
        Duration::from_secs(20),
    );
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(
        text.contains(
            "waiting for 1 output(s) claimed by other orchestrators: one that was killed holds them \
             until its lease runs out\n"
        ),
        "{text}"
    );
    assert!(text.contains("research-1: "), "{text}");
    assert!(text.contains("final.md was delivered already\n"), "{text}");
    assert!(text.ends_with("runs: 1 delivered\n"), "{text}");
    // The lease had at least a second to run.
    assert!(
        began.elapsed() >= Duration::from_millis(500),
        "{:?}",
        began.elapsed()
    );
    let left = outbox(&mut None, &db).unwrap();
    assert_eq!(
        (
            left.outputs_due,
            left.outputs_leased,
            left.outputs_waiting,
            left.outputs_dead
        ),
        (0, 0, 0, 0),
        "{left:?}"
    );
    assert_eq!(deliveries(dir, "research-1"), 1);
}
