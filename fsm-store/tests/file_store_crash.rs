//! `FileStore` across processes: a writer killed with SIGKILL mid-save, and
//! several processes racing on one instance.
//!
//! The child processes are this test binary run again with an environment
//! variable that turns one of the `child_*` tests into the child's body; in a
//! normal run those tests return at once.

#![cfg(unix)]

use fsm_runtime::Snapshot;
use fsm_store::{FileStore, Store, StoreError, Version};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ID: &str = "hammer";
/// Set in a child: the directory to hammer saves into.
const HAMMER_DIR: &str = "FSM_TEST_HAMMER_DIR";
/// Set in a child: the directory to race saves into.
const RACER_DIR: &str = "FSM_TEST_RACER_DIR";
/// Set in a racing child: how many saves it must win.
const RACER_SAVES: &str = "FSM_TEST_RACER_SAVES";

/// The one snapshot the hammer ever writes as `version`: the version is in
/// the fingerprint and, modulo 7, in the state, so any content found on disk
/// can be checked against its version without a log.
fn snapshot_of(version: Version) -> Snapshot {
    Snapshot::new("Hammer", format!("{version:016x}"), format!("s{}", version % 7))
}

/// This test binary, run as a child executing test `name` only.
fn child(name: &str, env: &[(&str, &str)]) -> Child {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--exact", name, "--test-threads=1", "--quiet"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    command.spawn().unwrap()
}

/// The child of [`a_writer_killed_mid_save_never_leaves_a_bad_file`]: saves
/// versions n+1, n+2, ... as fast as it can, and says `ready` on stderr after
/// its first save.
#[test]
fn child_hammer() {
    let Some(dir) = std::env::var_os(HAMMER_DIR) else {
        return;
    };
    let store = FileStore::open(dir).unwrap();
    let mut version = match store.load(ID).unwrap() {
        Some((version, snapshot)) => {
            assert_eq!(snapshot, snapshot_of(version));
            version
        }
        None => 0,
    };
    let mut ready = false;
    loop {
        version = store.save(ID, version, &snapshot_of(version + 1)).unwrap();
        if !ready {
            // Raw stderr, not `eprintln!`: the test harness captures that.
            std::io::stderr().write_all(b"ready\n").unwrap();
            ready = true;
        }
    }
}

/// SIGKILL at random moments of a writer that does nothing but save: after
/// every kill the file parses, holds a version never lower than before, and
/// holds the very snapshot the writer saved as that version.
#[test]
fn a_writer_killed_mid_save_never_leaves_a_bad_file() {
    const KILLS: usize = 250;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{ID}.json"));
    let store = FileStore::open(dir.path()).unwrap();
    let dir_text = dir.path().to_str().unwrap();
    let mut last: Version = 0;
    let mut mid_save = 0;
    let start = Instant::now();
    for kill in 0..KILLS {
        let mut writer = child("child_hammer", &[(HAMMER_DIR, dir_text)]);
        let mut line = String::new();
        BufReader::new(writer.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line, "ready\n", "kill {kill}: the writer did not start");
        std::thread::sleep(Duration::from_micros(fastrand::u64(0..8000)));
        writer.kill().unwrap(); // SIGKILL
        writer.wait().unwrap();

        let bytes = std::fs::read(&path).unwrap();
        if let Err(error) = serde_json::from_slice::<serde_json::Value>(&bytes) {
            panic!("kill {kill}: {} does not parse: {error}", path.display());
        }
        let (version, snapshot) = match store.load(ID) {
            Ok(Some(found)) => found,
            Ok(None) => panic!("kill {kill}: the instance vanished"),
            Err(error) => panic!("kill {kill}: {error}"),
        };
        assert!(
            version >= last,
            "kill {kill}: the version went back from {last} to {version}"
        );
        assert_eq!(
            snapshot,
            snapshot_of(version),
            "kill {kill}: version {version} holds a snapshot never saved as it"
        );
        last = version;
        if dir.path().join(format!(".{ID}.json.tmp")).exists() {
            mid_save += 1;
        }
    }
    assert!(last >= KILLS as Version, "every writer saved at least once");
    // A temporary file may be left by the last kill; nothing else is.
    let mut names = dir_names(dir.path());
    names.retain(|name| name != ".hammer.json.tmp");
    assert_eq!(names, ["hammer.json", "hammer.lock"]);
    println!(
        "{KILLS} kills in {:?}: {last} versions saved, {mid_save} kills left a temporary file",
        start.elapsed()
    );
}

/// The child of [`processes_racing_on_one_instance_never_lose_an_update`]:
/// wins `RACER_SAVES` saves, reloading after every conflict, and prints
/// each version it won on stderr.
#[test]
fn child_racer() {
    let Some(dir) = std::env::var_os(RACER_DIR) else {
        return;
    };
    let saves: usize = std::env::var(RACER_SAVES).unwrap().parse().unwrap();
    let store = FileStore::open(dir).unwrap();
    let mut won = String::new();
    let mut count = 0;
    let pid = std::process::id();
    while count < saves {
        let current = store.load(ID).unwrap().map_or(0, |(version, _)| version);
        let snapshot = Snapshot::new("Racer", "f", format!("p{pid}"));
        match store.save(ID, current, &snapshot) {
            Ok(version) => {
                won.push_str(&format!("{version}\n"));
                count += 1;
            }
            Err(StoreError::Conflict { .. }) => {}
            Err(other) => panic!("{other}"),
        }
    }
    std::io::stderr().write_all(won.as_bytes()).unwrap();
}

/// Four processes save to one instance at once, each from the version it
/// loaded. Each version is won by exactly one of them: none is lost, none is
/// written twice.
#[test]
fn processes_racing_on_one_instance_never_lose_an_update() {
    const PROCESSES: usize = 4;
    const SAVES: usize = 40;
    let dir = tempfile::tempdir().unwrap();
    let dir_text = dir.path().to_str().unwrap();
    let saves = SAVES.to_string();
    let racers: Vec<Child> = (0..PROCESSES)
        .map(|_| child("child_racer", &[(RACER_DIR, dir_text), (RACER_SAVES, &saves)]))
        .collect();
    let mut won: Vec<Version> = Vec::new();
    for racer in racers {
        let output = racer.wait_with_output().unwrap();
        assert!(output.status.success(), "a racer failed: {output:?}");
        let text = String::from_utf8(output.stderr).unwrap();
        let versions: Vec<Version> = text.lines().map(|l| l.parse().unwrap()).collect();
        assert_eq!(versions.len(), SAVES);
        won.extend(versions);
    }
    let total = (PROCESSES * SAVES) as Version;
    let distinct: BTreeSet<Version> = won.iter().copied().collect();
    assert_eq!(won.len(), distinct.len(), "a version was won twice");
    assert_eq!(distinct, (1..=total).collect());
    let store = FileStore::open(dir.path()).unwrap();
    assert_eq!(store.load(ID).unwrap().unwrap().0, total);
    assert_eq!(dir_names(dir.path()), ["hammer.json", "hammer.lock"]);
}

fn dir_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}
