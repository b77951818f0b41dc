//! What the tests share: running the `pipeline` binary and reading a
//! workspace's runs.

#![allow(dead_code)]

use pipeline::runs::{self, Run, Workspace};
use pipeline::session;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

thread_local! {
    /// The fleet's database when it is not the workspace's SQLite file: a
    /// PostgreSQL database's parameters ([`use_db`]).
    static DB: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Run the commands of this thread's test on `db` (`--db`) instead of the
/// workspace's own SQLite file.
pub fn use_db(db: Option<String>) {
    DB.with(|cell| *cell.borrow_mut() = db);
}

/// The database this thread's test runs on.
pub fn db(dir: &Path) -> String {
    DB.with(|cell| cell.borrow().clone())
        .unwrap_or_else(|| Workspace::new(dir).default_db().display().to_string())
}

/// The `pipeline` binary, in `dir`'s workspace (on the database of
/// [`use_db`], if any).
pub fn pipeline(dir: &Path, command: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pipeline"));
    cmd.arg(command).arg("--dir").arg(dir);
    if let Some(db) = DB.with(|cell| cell.borrow().clone()) {
        cmd.arg("--db").arg(db);
    }
    cmd
}

/// Fast agents and orchestrators, for `run` and `orchestrate`.
pub fn fast(cmd: &mut Command) -> &mut Command {
    cmd.args(["--work-ms", "20", "--poll-ms", "5", "--lease-ms", "300"])
}

/// Runs `cmd` to its end.
pub fn output(cmd: &mut Command) -> Output {
    cmd.output().expect("the pipeline binary runs")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Starts `count` runs in `dir`, with `args` added.
pub fn start(dir: &Path, count: usize, args: &[&str]) -> Vec<String> {
    let out = output(
        pipeline(dir, "start")
            .args(["--count", &count.to_string()])
            .args(args),
    );
    assert!(out.status.success(), "{out:?}");
    stdout(&out)
        .lines()
        .map(|line| line["started ".len()..line.find(':').unwrap()].to_owned())
        .collect()
}

/// Every run of `dir`, from its fleet.
pub fn load_all(dir: &Path) -> Vec<Run> {
    let workspace = Workspace::new(dir);
    let mut fleet = runs::open_fleet(&db(dir)).unwrap();
    workspace
        .run_ids()
        .unwrap()
        .iter()
        .map(|id| {
            runs::load(&mut fleet, id)
                .unwrap()
                .expect("every run directory has an instance")
        })
        .collect()
}

/// The roles started in run `id`, one per line of its `starts.log`, sorted.
pub fn starts(dir: &Path, id: &str) -> Vec<String> {
    let log = Workspace::new(dir).run(id).starts_log();
    let mut roles: Vec<String> = std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|line| line.split(' ').next().unwrap().to_owned())
        .collect();
    roles.sort();
    roles
}

/// The lines of `DIR/deliveries.log` naming run `id`.
pub fn deliveries(dir: &Path, id: &str) -> usize {
    std::fs::read_to_string(Workspace::new(dir).deliveries_log())
        .unwrap_or_default()
        .lines()
        .filter(|line| line.split(' ').next() == Some(id))
        .count()
}

/// Kills the agents of `dir`'s runs left running when a test ends, failed or
/// not.
pub struct KillLeftovers<'a>(pub &'a Path);

impl Drop for KillLeftovers<'_> {
    fn drop(&mut self) {
        let workspace = Workspace::new(self.0);
        for id in workspace.run_ids().unwrap_or_default() {
            let sessions = workspace.run(&id).dir().join("sessions");
            for entry in std::fs::read_dir(sessions).into_iter().flatten().flatten() {
                if entry.path().extension().is_some_and(|e| e == "lock") {
                    let _ = session::kill(&entry.path(), Duration::from_secs(5));
                }
            }
        }
    }
}

/// A schema of the test's own on the PostgreSQL server that
/// `FSM_TEST_POSTGRES_URL` names (as `key=value` parameters; `.ci/run`
/// starts a server and sets it), dropped when the test ends.
pub struct PgSchema {
    admin: postgres::Client,
    schema: String,
    /// The parameters of the fleet's database, in that schema (`--db`).
    pub db: String,
}

impl Drop for PgSchema {
    fn drop(&mut self) {
        let _ = self
            .admin
            .batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.schema));
    }
}

/// A new schema named after `test` on the server of
/// `FSM_TEST_POSTGRES_URL`. Without the variable, `None`, and the test says
/// it was skipped, except in CI, where it fails.
pub fn postgres(test: &str) -> Option<PgSchema> {
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
            return None;
        }
    };
    let schema = format!("pipeline_{test}_{}", std::process::id());
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
        ))
        .unwrap();
    let db = format!("{url} options='-c search_path={schema}'");
    Some(PgSchema { admin, schema, db })
}

/// Runs `cmd` to its end, or kills it after `limit` and fails.
pub fn output_within(cmd: &mut Command, limit: Duration) -> Output {
    use std::io::Read;
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the pipeline binary runs");
    // Read as it goes: a full pipe would stop the child.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let stdout = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = out.read_to_end(&mut bytes);
        bytes
    });
    let stderr = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = err.read_to_end(&mut bytes);
        bytes
    });
    let began = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if began.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            let out = String::from_utf8_lossy(&stdout.join().unwrap()).into_owned();
            panic!("{cmd:?} did not finish within {limit:?}; it printed:\n{out}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// Waits up to `limit` for `ready`; fails with `what` if it never is.
pub fn wait_for(what: &str, limit: Duration, mut ready: impl FnMut() -> bool) {
    let began = std::time::Instant::now();
    while !ready() {
        assert!(began.elapsed() < limit, "{what}: not after {limit:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether the agent `role` of run `id` holds its session lock (runs).
/// Only for a role whose start marker exists: no orchestrator then takes
/// the lock to start one, so looking cannot get in the way.
pub fn agent_running(dir: &Path, id: &str, role: &str) -> bool {
    let lock = Workspace::new(dir).run(id).session(role);
    matches!(session::Session::probe(&lock).unwrap(), session::Session::Running)
}
