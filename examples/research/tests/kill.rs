//! The research run killed with SIGKILL at random moments and started
//! again, over and over, until it finishes: each result is published once,
//! the synthesis starts only after both researchers are done, and the
//! report is delivered once.

use fsm_store::{FileStore, Store};
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `research --dir DIR --work-ms 40 ARGS`.
fn research(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_research"));
    command
        .arg("--dir")
        .arg(dir)
        .args(["--work-ms", "40"])
        .args(args)
        .stdout(Stdio::null())
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

/// What every finished run must show, whatever killed it on the way.
///
/// A result is published by linking it into place, which fails when the
/// name exists: so it exists at most once, and the log says `done X` at
/// most once. (A kill between the link and the log line leaves the result
/// published and the line missing, which is why the log is not the proof.)
fn check_finished(dir: &Path, partial: bool) {
    let log = log(dir);
    for worker in ["a", "b", "synthesis"] {
        assert!(count(&log, &format!("done {worker}")) <= 1, "{log:#?}");
        assert!(dir.join(format!("{worker}.md")).exists(), "{worker}.md: {log:#?}");
    }
    // The synthesis read both researchers' published results: it started
    // after both were done.
    let synthesis = fs::read_to_string(dir.join("synthesis.md")).unwrap();
    let a = if partial {
        "(researcher a gave up)".to_owned()
    } else {
        fs::read_to_string(dir.join("a.md")).unwrap()
    };
    assert!(synthesis.contains(&a), "{synthesis}");
    assert!(
        synthesis.contains(&fs::read_to_string(dir.join("b.md")).unwrap()),
        "{synthesis}"
    );
    assert!(count(&log, "delivered") <= 1, "{log:#?}");
    assert_eq!(fs::read_to_string(dir.join("delivered.md")).unwrap(), synthesis);
    let (_, snapshot) = FileStore::open(dir.join("state"))
        .unwrap()
        .load("research")
        .unwrap()
        .expect("the run is saved");
    assert_eq!(snapshot.leaves(), ["delivered"]);
    assert_eq!(
        snapshot.pending().map(|p| p.len()),
        Some(0),
        "every output performed"
    );
    if partial {
        assert!(log.iter().any(|l| l == "note_partial"), "{log:#?}");
    }
}

#[test]
fn a_run_left_alone_delivers_once() {
    let dir = tempfile::tempdir().unwrap();
    let status = research(dir.path(), &[]).status().unwrap();
    assert!(status.success());
    check_finished(dir.path(), false);
    // Left alone, each worker starts and publishes once, the synthesis
    // after both researchers, and the report is delivered once.
    let log = log(dir.path());
    for worker in ["a", "b", "synthesis"] {
        assert_eq!(count(&log, &format!("start {worker}")), 1, "{log:#?}");
        assert_eq!(count(&log, &format!("done {worker}")), 1, "{log:#?}");
    }
    let synthesis = position(&log, "start synthesis");
    assert!(synthesis > position(&log, "done a") && synthesis > position(&log, "done b"));
    assert_eq!(count(&log, "delivered"), 1, "{log:#?}");
    // Started again, a finished run only says so.
    assert!(research(dir.path(), &[]).status().unwrap().success());
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

fn killed_at_random(args: &[&str], partial: bool) {
    let seed = fastrand::u64(..);
    eprintln!("seed {seed}");
    let mut rng = fastrand::Rng::with_seed(seed);
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut kills = 0;
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the run never finished (seed {seed}, {kills} kills)"
        );
        let mut child = research(dir.path(), args).spawn().unwrap();
        // The first twenty lives are mostly shorter than a worker's 40 ms,
        // so kills land in every phase; later ones grow, so the run ends.
        let longest = if kills < 20 { 60 } else { 300 };
        let life = Duration::from_millis(rng.u64(1..longest));
        let born = Instant::now();
        let finished = loop {
            if let Some(status) = child.try_wait().unwrap() {
                assert!(status.success(), "seed {seed}: {status}");
                break true;
            }
            if born.elapsed() >= life {
                child.kill().unwrap();
                child.wait().unwrap();
                kills += 1;
                break false;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        if finished {
            break;
        }
    }
    eprintln!("finished after {kills} kills");
    check_finished(dir.path(), partial);
}
