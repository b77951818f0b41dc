//! The research run left alone, then killed with SIGKILL at random moments
//! and started again, over and over, until it finishes: each result is
//! published once, the synthesis starts only after both researchers are
//! done, and the report is delivered once.

use fsm_runtime::Snapshot;
use fsm_store::{FileStore, Store};
use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a worker works, in milliseconds.
const WORK_MS: u64 = 30;
/// The runs each kill test drives to the end, each in a directory of its
/// own.
const RUNS: usize = 20;
/// The lives (processes) a run may take before the test gives up on it.
const MAX_LIVES: u64 = 100;
/// Set it to a seed a failed run printed to draw the same lives again.
const SEED_VAR: &str = "RESEARCH_KILL_SEED";

/// `research --dir DIR --work-ms WORK_MS ARGS`.
fn research(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_research"));
    command
        .arg("--dir")
        .arg(dir)
        .args(["--work-ms", &WORK_MS.to_string()])
        .args(args)
        .stderr(Stdio::inherit());
    command
}

/// The lines of `DIR/log.txt`.
fn log(dir: &Path) -> Vec<String> {
    fs::read_to_string(dir.join("log.txt"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn count(log: &[String], line: &str) -> usize {
    log.iter().filter(|l| *l == line).count()
}

fn position(log: &[String], line: &str) -> usize {
    log.iter()
        .position(|l| l == line)
        .unwrap_or_else(|| panic!("no `{line}` in the log: {log:#?}"))
}

/// The run's saved snapshot, if any.
fn snapshot(dir: &Path) -> Option<Snapshot> {
    let (_, snapshot) = FileStore::open(dir.join("state"))
        .unwrap()
        .load("research")
        .unwrap()?;
    Some(snapshot)
}

/// What every finished run must show, whatever killed it on the way.
///
/// A result is published by linking it into place, which fails when the
/// name exists, so it is published at most once; the publisher logs
/// `done X`, and a kill between the link and the line leaves the line to
/// the first worker that finds the result published and not logged. So a
/// second publication would show as a second `done X`.
fn check_finished(dir: &Path, partial: bool) {
    let log = log(dir);
    for worker in ["a", "b", "synthesis"] {
        assert_eq!(count(&log, &format!("done {worker}")), 1, "{log:#?}");
    }
    // The synthesis started once both researchers had published, and read
    // both results.
    let first_synthesis = position(&log, "start synthesis");
    assert!(
        first_synthesis > position(&log, "done a") && first_synthesis > position(&log, "done b"),
        "{log:#?}"
    );
    let synthesis = fs::read_to_string(dir.join("synthesis.md")).unwrap();
    let a = match partial {
        true => "(researcher a gave up)".to_owned(),
        false => fs::read_to_string(dir.join("a.md")).unwrap(),
    };
    assert!(synthesis.contains(&a), "{synthesis}");
    assert!(
        synthesis.contains(&fs::read_to_string(dir.join("b.md")).unwrap()),
        "{synthesis}"
    );
    assert_eq!(count(&log, "delivered"), 1, "{log:#?}");
    assert_eq!(count(&log, "note_partial") > 0, partial, "{log:#?}");
    assert_eq!(fs::read_to_string(dir.join("delivered.md")).unwrap(), synthesis);

    let snapshot = snapshot(dir).expect("the run is saved");
    assert_eq!(snapshot.leaves(), ["delivered"]);
    let last = snapshot.history().last().expect("the last step");
    let synthesis = if partial { "partial_synthesis" } else { "synthesis" };
    assert_eq!((last.from(), last.to()), (synthesis, "delivered"));
    assert_eq!(
        snapshot.pending().map(|p| p.len()),
        Some(0),
        "every output performed"
    );
    let staged = fs::read_dir(dir.join(".tmp")).unwrap().count();
    assert_eq!(staged, 0, "a temporary file is left in {}", dir.display());
}

#[test]
fn a_run_left_alone_delivers_once() {
    let dir = tempfile::tempdir().unwrap();
    let output = research(dir.path(), &[]).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    // A line per step, the researchers' in the order they finished.
    let steps: Vec<&str> = stdout.lines().collect();
    assert_eq!(steps.len(), 5, "{stdout}");
    assert_eq!(
        steps[0],
        "`idle` --start--> `a_running`, `b_running` (emit `spawn_researcher_a`, `spawn_researcher_b`)"
    );
    assert!(
        steps[2].ends_with("--> `synthesis` (emit `mark_a`, `spawn_synthesizer`)")
            || steps[2].ends_with("--> `synthesis` (emit `mark_b`, `spawn_synthesizer`)"),
        "{stdout}"
    );
    assert_eq!(
        steps[3],
        "`synthesis` --s_written--> `delivered` (emit `deliver`)"
    );
    assert_eq!(steps[4], "finished in delivered");

    check_finished(dir.path(), false);
    let log = log(dir.path());
    for worker in ["a", "b", "synthesis"] {
        assert_eq!(count(&log, &format!("start {worker}")), 1, "{log:#?}");
    }
    // Started again, a finished run only says so.
    let again = research(dir.path(), &[]).output().unwrap();
    assert!(again.status.success(), "{again:?}");
    assert_eq!(
        String::from_utf8(again.stdout).unwrap(),
        "resumed in delivered\nfinished in delivered\n"
    );
    assert_eq!(self::log(dir.path()), log);
}

#[test]
fn a_run_killed_at_random_moments_delivers_once() {
    killed_at_random(&[], false);
}

#[test]
fn a_run_whose_researcher_gives_up_delivers_a_partial_synthesis() {
    killed_at_random(&["--fail-a"], true);
}

/// Drives [`RUNS`] runs to the end, each killed at random moments and
/// started again, and checks each as [`check_finished`] does.
fn killed_at_random(args: &[&str], partial: bool) {
    let seed = match std::env::var(SEED_VAR) {
        Ok(seed) => seed.parse().expect("a seed is a number"),
        Err(_) => fastrand::u64(..),
    };
    eprintln!("seed {seed} ({SEED_VAR}={seed} draws the same lives again)");
    let mut rng = fastrand::Rng::with_seed(seed);
    let root = tempfile::tempdir().unwrap();
    let began = Instant::now();
    let mut kills = 0;
    // Where the kills landed: the leaves saved when each came.
    let mut killed_in: BTreeMap<String, usize> = BTreeMap::new();
    let (mut restarted_work, mut resumed_with_outputs) = (0, 0);
    for run in 0..RUNS {
        let dir = root.path().join(format!("run-{run}"));
        let out = root.path().join(format!("run-{run}.out"));
        for lives in 1.. {
            assert!(
                lives <= MAX_LIVES,
                "seed {seed}: run {run} was not delivered after {MAX_LIVES} lives; its log: {:#?}",
                log(&dir)
            );
            let stdout = OpenOptions::new().create(true).append(true).open(&out).unwrap();
            let mut child = research(&dir, args).stdout(stdout).spawn().unwrap();
            // Mostly shorter than a run (three works, one after another), so that kills land in
            // every phase; longer as lives go by, so that a run ends even on
            // a slow machine.
            let life = Duration::from_millis(rng.u64(1..2 * WORK_MS + 5 * lives));
            let born = Instant::now();
            let finished = loop {
                if let Some(status) = child.try_wait().unwrap() {
                    assert!(status.success(), "seed {seed}, run {run}: {status}");
                    break true;
                }
                if born.elapsed() >= life {
                    child.kill().unwrap(); // SIGKILL
                    child.wait().unwrap();
                    break false;
                }
                std::thread::sleep(Duration::from_millis(1));
            };
            if finished {
                break;
            }
            kills += 1;
            let leaves = snapshot(&dir).map_or("(nothing saved)".to_owned(), |s| s.leaves().join(", "));
            *killed_in.entry(leaves).or_default() += 1;
        }
        check_finished(&dir, partial);
        let log = log(&dir);
        restarted_work += ["a", "b", "synthesis"]
            .iter()
            .map(|worker| count(&log, &format!("start {worker}")) - 1)
            .sum::<usize>();
        resumed_with_outputs += fs::read_to_string(&out)
            .unwrap()
            .matches("outputs pending")
            .count();
    }
    eprintln!(
        "{RUNS} runs in {:?}: {kills} kills, with the snapshot in {killed_in:?}; {restarted_work} works \
         started again, {resumed_with_outputs} restarts performed outputs left pending",
        began.elapsed()
    );
    // The kills landed where they matter.
    assert!(
        kills >= RUNS,
        "seed {seed}: too few kills ({kills}) to mean anything"
    );
    assert!(
        killed_in.keys().any(|leaves| leaves.contains(", ")),
        "seed {seed}: no kill while both researchers were at work: {killed_in:?}"
    );
    assert!(
        killed_in.keys().any(|leaves| leaves.ends_with("synthesis")),
        "seed {seed}: no kill during the synthesis: {killed_in:?}"
    );
    assert!(
        restarted_work > 0,
        "seed {seed}: no work was started again after a kill"
    );
}
