//! The outbox across `kill -9`: a worker that fires, saves, performs the
//! pending outputs, acknowledges them and saves again, killed at random
//! moments and restarted from its `FileStore`, performs every output the
//! machine emitted at least once, under the key the step gave it, and
//! nothing else. A repeat (performed, then killed before the acknowledgment
//! was saved) carries the same key, so the receiver can drop it.

#![cfg(unix)]

use fsm_runtime::Recorded;
use fsm_store::{FileStore, Store, Version};
use std::collections::{BTreeMap, BTreeSet};
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fsm_runtime::fsm! {
    machine Ticker {
        initial state even { on tick -> odd emit ping; }
        state odd { on tick -> even emit ping, pong; }
    }
}

use ticker::Ticker;

const ID: &str = "ticker";
/// Set in a child: the directory of the store it saves into.
const WORKER_DIR: &str = "FSM_TEST_OUTBOX_DIR";
/// The file in that directory the worker "performs" outputs into: one line
/// per output performed, `step/index output`.
const PERFORMED: &str = "performed.log";

/// Perform what `run` holds pending (append it to the log, one `write` per
/// output: a kill cannot cut a line), acknowledge it, and save; returns the
/// new version.
fn perform_and_ack(store: &FileStore, dir: &Path, version: Version, run: &mut Recorded<Ticker>) -> Version {
    let mut log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(PERFORMED))
        .unwrap();
    for pending in run.pending().to_vec() {
        log.write_all(format!("{} {}\n", pending.key, fsm_runtime::Symbol::name(pending.output)).as_bytes())
            .unwrap();
        log.sync_data().unwrap();
        run.ack(pending.key);
    }
    store.save(ID, version, &run.snapshot().unwrap()).unwrap()
}

/// The child of [`outputs_survive_kill_9_through_the_outbox`]: restores the
/// ticker (or starts it), performs what was pending, then ticks, saves,
/// performs, acknowledges and saves, as fast as it can; says `ready` on
/// stderr after its first round.
#[test]
fn child_outbox_worker() {
    let Some(dir) = std::env::var_os(WORKER_DIR) else {
        return;
    };
    let dir = Path::new(&dir);
    let store = FileStore::open(dir).unwrap();
    let (mut version, mut run) = match store.load(ID).unwrap() {
        Some((version, snapshot)) => (version, Recorded::<Ticker>::restore(&snapshot).unwrap()),
        None => (0, Recorded::new(Ticker::new()).with_outbox()),
    };
    version = perform_and_ack(&store, dir, version, &mut run);
    let mut ready = false;
    loop {
        run.fire(ticker::Action::Tick).unwrap();
        version = store.save(ID, version, &run.snapshot().unwrap()).unwrap();
        version = perform_and_ack(&store, dir, version, &mut run);
        if !ready {
            // Raw stderr, not `eprintln!`: the test harness captures that.
            std::io::stderr().write_all(b"ready\n").unwrap();
            ready = true;
        }
    }
}

#[test]
fn outputs_survive_kill_9_through_the_outbox() {
    const KILLS: usize = 40;
    let dir = tempfile::tempdir().unwrap();
    for kill in 0..KILLS {
        let mut worker = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "child_outbox_worker", "--test-threads=1", "--quiet"])
            .env(WORKER_DIR, dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(worker.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line, "ready\n", "kill {kill}: the worker did not start");
        std::thread::sleep(Duration::from_micros(fastrand::u64(0..20_000)));
        worker.kill().unwrap(); // SIGKILL
        worker.wait().unwrap();
    }

    // Recover once more, as the next worker would, and perform what is left.
    let store = FileStore::open(dir.path()).unwrap();
    let (version, snapshot) = store.load(ID).unwrap().expect("the ticker is stored");
    let mut run = Recorded::<Ticker>::restore(&snapshot).unwrap();
    perform_and_ack(&store, dir.path(), version, &mut run);
    assert!(run.pending().is_empty());

    // What the machine emitted, by key: every step of the (whole) history.
    let mut emitted = BTreeSet::new();
    for entry in run.history() {
        emitted.insert(format!("{}/0 ping", entry.seq()));
        if entry.from() == "odd" {
            emitted.insert(format!("{}/1 pong", entry.seq()));
        }
    }
    let log = std::fs::read_to_string(dir.path().join(PERFORMED)).unwrap();
    let mut performed: BTreeMap<&str, usize> = BTreeMap::new();
    for line in log.lines() {
        *performed.entry(line).or_default() += 1;
    }
    let distinct: BTreeSet<String> = performed.keys().map(|line| (*line).to_owned()).collect();
    assert_eq!(
        distinct, emitted,
        "every output performed, under its key, and nothing else"
    );
    // A kill repeats at most the outputs of the step it interrupted.
    let repeats: usize = performed.values().map(|count| count - 1).sum();
    assert!(repeats <= 2 * KILLS, "{repeats} repeats after {KILLS} kills");
    assert!(emitted.len() > KILLS, "every worker ticked at least once");
    println!(
        "{} outputs performed, {repeats} of them again after a kill",
        emitted.len()
    );
}
