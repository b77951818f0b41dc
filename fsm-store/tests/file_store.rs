//! `FileStore`: compare-and-swap, the file format, corrupt files, invalid ids,
//! and concurrent writers in one process. Crashes and writers in several
//! processes are in `file_store_crash.rs`.

use fsm_runtime::Snapshot;
use fsm_store::{FileStore, Store, StoreError, Version};
use std::fs;
use std::sync::Arc;

fn snapshot(state: &str) -> Snapshot {
    Snapshot::new("Door", "0123456789abcdef", state.to_owned())
}

fn store() -> (tempfile::TempDir, FileStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    (dir, store)
}

#[test]
fn a_missing_instance_loads_as_none() {
    let (_dir, store) = store();
    assert_eq!(store.load("door-1").unwrap(), None);
}

#[test]
fn open_creates_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("a").join("b");
    let store = FileStore::open(&nested).unwrap();
    assert!(nested.is_dir());
    assert_eq!(store.dir(), nested);
}

#[test]
fn saves_count_versions_from_one() {
    let (_dir, store) = store();
    assert_eq!(store.save("door-1", 0, &snapshot("closed")).unwrap(), 1);
    assert_eq!(store.save("door-1", 1, &snapshot("opened")).unwrap(), 2);
    assert_eq!(store.load("door-1").unwrap(), Some((2, snapshot("opened"))));
}

#[test]
fn instances_are_independent() {
    let (_dir, store) = store();
    store.save("a", 0, &snapshot("closed")).unwrap();
    store.save("b", 0, &snapshot("opened")).unwrap();
    store.save("b", 1, &snapshot("closed")).unwrap();
    assert_eq!(store.load("a").unwrap(), Some((1, snapshot("closed"))));
    assert_eq!(store.load("b").unwrap(), Some((2, snapshot("closed"))));
}

#[test]
fn the_file_is_the_documented_json() {
    let (dir, store) = store();
    store.save("door-1", 0, &snapshot("opened")).unwrap();
    let path = dir.path().join("door-1.json");
    assert_eq!(store.path_of("door-1").unwrap(), path);
    let value: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(
        value,
        serde_json::json!({
            "version": 1,
            "snapshot": {
                "type": "fsm",
                "machine": "Door",
                "fingerprint": "0123456789abcdef",
                "current_state": "opened",
            },
        })
    );
}

#[test]
fn a_file_written_by_hand_loads() {
    let (dir, store) = store();
    fs::write(
        dir.path().join("door-1.json"),
        r#"{"snapshot": {"type": "fsm", "machine": "Door", "fingerprint": "0123456789abcdef",
            "current_state": "locked"}, "version": 7}"#,
    )
    .unwrap();
    assert_eq!(store.load("door-1").unwrap(), Some((7, snapshot("locked"))));
    assert_eq!(store.save("door-1", 7, &snapshot("closed")).unwrap(), 8);
}

#[test]
fn two_handles_saving_from_the_same_version_conflict() {
    let (dir, first) = store();
    let second = FileStore::open(dir.path()).unwrap();
    first.save("door-1", 0, &snapshot("closed")).unwrap();

    let (version, _) = first.load("door-1").unwrap().unwrap();
    let (same, _) = second.load("door-1").unwrap().unwrap();
    assert_eq!(first.save("door-1", version, &snapshot("opened")).unwrap(), 2);
    let error = second.save("door-1", same, &snapshot("locked")).unwrap_err();
    assert!(
        matches!(
            &error,
            StoreError::Conflict { id, expected: 1, current: 2 } if id == "door-1"
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "instance `door-1` was saved by someone else: expected version 1, found version 2; \
         reload it and try again"
    );
    // The loser's snapshot was not written.
    assert_eq!(first.load("door-1").unwrap(), Some((2, snapshot("opened"))));
}

#[test]
fn creating_an_existing_instance_conflicts() {
    let (_dir, store) = store();
    store.save("door-1", 0, &snapshot("closed")).unwrap();
    let error = store.save("door-1", 0, &snapshot("opened")).unwrap_err();
    assert!(
        matches!(
            error,
            StoreError::Conflict {
                expected: 0,
                current: 1,
                ..
            }
        ),
        "{error:?}"
    );
}

#[test]
fn expecting_a_version_of_a_missing_instance_conflicts() {
    let (_dir, store) = store();
    let error = store.save("door-1", 3, &snapshot("closed")).unwrap_err();
    assert!(
        matches!(
            error,
            StoreError::Conflict {
                expected: 3,
                current: 0,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(store.load("door-1").unwrap(), None);
}

#[test]
fn expecting_a_version_from_the_future_conflicts() {
    let (_dir, store) = store();
    store.save("door-1", 0, &snapshot("closed")).unwrap();
    let error = store.save("door-1", 5, &snapshot("opened")).unwrap_err();
    assert!(
        matches!(
            error,
            StoreError::Conflict {
                expected: 5,
                current: 1,
                ..
            }
        ),
        "{error:?}"
    );
}

/// Writes `contents` as instance `door-1`, then checks that load and save
/// both report it as corrupt, with its path and `reason`, and leave it as it
/// was.
fn assert_corrupt(contents: &[u8], reason: &str) {
    let (dir, store) = store();
    let path = dir.path().join("door-1.json");
    fs::write(&path, contents).unwrap();

    let check = |error: StoreError| match error {
        StoreError::Corrupt {
            id,
            location,
            reason: found,
        } => {
            assert_eq!(id, "door-1");
            assert_eq!(location, path.display().to_string());
            assert!(
                found.contains(reason),
                "expected a reason containing {reason:?}, got {found:?}"
            );
        }
        other => panic!("expected Corrupt, got {other:?}"),
    };
    check(store.load("door-1").unwrap_err());
    for expected in [0, 1, 2] {
        check(store.save("door-1", expected, &snapshot("opened")).unwrap_err());
    }
    assert_eq!(fs::read(&path).unwrap(), contents, "the corrupt file was changed");
}

#[test]
fn a_truncated_file_is_corrupt_and_kept() {
    let (_dir, store) = store();
    store.save("door-1", 0, &snapshot("closed")).unwrap();
    let full = fs::read(store.path_of("door-1").unwrap()).unwrap();
    assert_corrupt(&full[..full.len() / 2], "invalid JSON: EOF while parsing");
}

#[test]
fn an_empty_file_is_corrupt_and_kept() {
    assert_corrupt(b"", "the file is empty");
}

#[test]
fn garbage_is_corrupt_and_kept() {
    assert_corrupt(b"\x00\x01 not json", "invalid JSON");
}

#[test]
fn a_file_without_a_version_is_corrupt() {
    assert_corrupt(
        br#"{"snapshot": {"type": "fsm", "machine": "Door", "fingerprint": "f", "current_state": "s"}}"#,
        "missing field `version`",
    );
}

#[test]
fn version_zero_is_corrupt() {
    assert_corrupt(
        br#"{"version": 0, "snapshot": {"type": "fsm", "machine": "Door", "fingerprint": "f", "current_state": "s"}}"#,
        "`version` is 0",
    );
}

#[test]
fn a_negative_version_is_corrupt() {
    assert_corrupt(
        br#"{"version": -1, "snapshot": {"type": "fsm", "machine": "Door", "fingerprint": "f", "current_state": "s"}}"#,
        "`version` is -1, expected a positive integer",
    );
}

#[test]
fn a_bad_snapshot_is_corrupt() {
    assert_corrupt(
        br#"{"version": 2, "snapshot": {"type": "fsm", "machine": "Door"}}"#,
        "invalid `snapshot`: missing field `fingerprint`",
    );
}

#[test]
fn an_unknown_field_is_corrupt() {
    assert_corrupt(
        br#"{"version": 2, "owner": "me", "snapshot": {"type": "fsm", "machine": "Door", "fingerprint": "f", "current_state": "s"}}"#,
        "unknown field `owner`",
    );
}

#[test]
fn a_key_given_twice_is_corrupt_at_any_depth() {
    // serde_json::Value keeps the last one: this loaded as version 5.
    assert_corrupt(
        br#"{"version": 1, "version": 5, "snapshot": {"type": "fsm", "machine": "Door", "fingerprint": "f", "current_state": "s"}}"#,
        "duplicate key `version` at line 1 column 24",
    );
    // In the snapshot, a field it reads and one it skips.
    assert_corrupt(
        br#"{"version": 1, "snapshot": {"type": "fsm", "machine": "Door", "fingerprint": "f", "current_state": "s", "current_state": "t"}}"#,
        "duplicate key `current_state`",
    );
    assert_corrupt(
        br#"{"version": 1, "snapshot": {"type": "fsm", "machine": "Door", "fingerprint": "f", "current_state": "s", "note": 1, "note": 2}}"#,
        "duplicate key `note`",
    );
    // In a history entry.
    assert_corrupt(
        br#"{"version": 1, "snapshot": {"type": "fsm", "machine": "Door", "fingerprint": "f", "current_state": "s",
            "history": [{"seq": 0, "from": "a", "to": "s", "action": "x", "action": "y", "timestamp": "2026-01-10T09:32:15Z"}]}}"#,
        "duplicate key `action` at line 2 column",
    );
}

#[test]
fn a_json_array_is_corrupt() {
    assert_corrupt(b"[1, 2]", "expected a JSON object");
}

#[test]
fn the_corrupt_error_names_the_file() {
    let (dir, store) = store();
    let path = dir.path().join("door-1.json");
    fs::write(&path, "{").unwrap();
    let message = store.load("door-1").unwrap_err().to_string();
    assert!(
        message.starts_with(&format!(
            "the stored data of instance `door-1` at {} is corrupt: invalid JSON",
            path.display()
        )),
        "{message}"
    );
}

#[test]
fn a_removed_corrupt_file_can_be_recreated() {
    let (dir, store) = store();
    let path = dir.path().join("door-1.json");
    fs::write(&path, "{").unwrap();
    assert!(store.save("door-1", 0, &snapshot("closed")).is_err());
    // The documented recovery: move the file aside, then save as new.
    fs::rename(&path, dir.path().join("door-1.json.corrupt")).unwrap();
    assert_eq!(store.save("door-1", 0, &snapshot("closed")).unwrap(), 1);
}

#[test]
fn a_leftover_temporary_file_is_ignored_and_replaced() {
    let (dir, store) = store();
    store.save("door-1", 0, &snapshot("closed")).unwrap();
    let temp = dir.path().join(".door-1.json.tmp");
    fs::write(&temp, "{\"version\": 99, \"snap").unwrap();

    assert_eq!(store.load("door-1").unwrap(), Some((1, snapshot("closed"))));
    assert_eq!(store.save("door-1", 1, &snapshot("opened")).unwrap(), 2);
    assert!(!temp.exists(), "the next save renamed the temporary file away");
    assert_eq!(store.load("door-1").unwrap(), Some((2, snapshot("opened"))));
}

#[test]
fn a_save_leaves_only_the_instance_and_its_lock() {
    let (dir, store) = store();
    store.save("door-1", 0, &snapshot("closed")).unwrap();
    store.save("door-1", 1, &snapshot("opened")).unwrap();
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["door-1.json", "door-1.lock"]);
}

#[test]
fn invalid_ids_are_refused_before_touching_the_disk() {
    let (dir, store) = store();
    let long = "a".repeat(201);
    let cases: &[(&str, &str)] = &[
        ("", "it is empty"),
        ("..", "it starts with `.`"),
        (".", "it starts with `.`"),
        (".hidden", "it starts with `.`"),
        ("a/b", "it contains '/'"),
        ("../escape", "it starts with `.`"),
        ("a\\b", "it contains '\\\\'"),
        ("a b", "it contains ' '"),
        ("a\0b", "it contains '\\0'"),
        ("tür", "it contains 'ü'"),
        ("a:b", "it contains ':'"),
        (&long, "it is 201 bytes long, the limit is 200"),
    ];
    for &(id, reason) in cases {
        let check = |error: StoreError| match error {
            StoreError::InvalidId {
                id: found,
                reason: why,
            } => {
                assert_eq!(found, id);
                assert!(why.starts_with(reason), "{id:?}: {why}");
            }
            other => panic!("{id:?}: expected InvalidId, got {other:?}"),
        };
        check(store.load(id).unwrap_err());
        check(store.save(id, 0, &snapshot("closed")).unwrap_err());
        check(store.path_of(id).unwrap_err());
    }
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    assert_eq!(
        store.load("a/b").unwrap_err().to_string(),
        "invalid instance id \"a/b\": it contains '/'; ids may only contain ASCII letters, \
         digits, `-`, `_` and `.`"
    );
}

#[test]
fn valid_ids_use_the_whole_charset() {
    let (_dir, store) = store();
    for id in ["a", "A-Z_0.9", "run.2024-01-01", &"x".repeat(200), "a..b"] {
        assert_eq!(store.save(id, 0, &snapshot("closed")).unwrap(), 1, "{id}");
        assert_eq!(store.load(id).unwrap().unwrap().0, 1, "{id}");
    }
}

#[test]
fn a_vanished_directory_is_an_io_error_with_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    // Removed behind the store's back: creating the lock file fails.
    fs::remove_dir_all(dir.path()).unwrap();
    let error = store.save("door-1", 0, &snapshot("closed")).unwrap_err();
    match &error {
        StoreError::Io { id, location, .. } => {
            assert_eq!(id, "door-1");
            assert_eq!(*location, dir.path().join("door-1.lock").display().to_string());
        }
        other => panic!("expected Io, got {other:?}"),
    }
    assert!(std::error::Error::source(&error).is_some());
}

/// Threads with their own handles on one directory: every save succeeds
/// exactly once per version, and no update is lost.
#[test]
fn concurrent_writers_never_lose_an_update() {
    const THREADS: usize = 4;
    const SAVES: usize = 25;
    let dir = tempfile::tempdir().unwrap();
    let path = Arc::new(dir.path().to_owned());
    let handles: Vec<_> = (0..THREADS)
        .map(|thread| {
            let path = Arc::clone(&path);
            std::thread::spawn(move || {
                let store = FileStore::open(&*path).unwrap();
                let mut won: Vec<Version> = Vec::new();
                let mut conflicts = 0;
                while won.len() < SAVES {
                    let current = store.load("counter").unwrap().map_or(0, |(v, _)| v);
                    let state = format!("t{thread}");
                    match store.save("counter", current, &snapshot(&state)) {
                        Ok(version) => {
                            assert_eq!(version, current + 1);
                            won.push(version);
                        }
                        Err(StoreError::Conflict { current: now, .. }) => {
                            assert!(now > current, "a conflict means someone saved");
                            conflicts += 1;
                        }
                        Err(other) => panic!("{other}"),
                    }
                }
                (won, conflicts)
            })
        })
        .collect();
    let mut all: Vec<Version> = Vec::new();
    for handle in handles {
        let (won, _conflicts) = handle.join().unwrap();
        all.extend(won);
    }
    all.sort_unstable();
    let total = (THREADS * SAVES) as Version;
    assert_eq!(all, (1..=total).collect::<Vec<_>>());
    let store = FileStore::open(dir.path()).unwrap();
    assert_eq!(store.load("counter").unwrap().unwrap().0, total);
}

#[test]
fn the_store_is_usable_as_a_trait_object() {
    let (_dir, store) = store();
    let shared: Arc<dyn Store> = Arc::new(store);
    let clone = Arc::clone(&shared);
    std::thread::spawn(move || clone.save("door-1", 0, &snapshot("closed")).unwrap())
        .join()
        .unwrap();
    assert_eq!(shared.load("door-1").unwrap().unwrap().0, 1);
}

#[test]
fn errors_name_their_instance() {
    let (dir, store) = store();
    fs::write(dir.path().join("bad.json"), "{").unwrap();
    assert_eq!(store.load("bad").unwrap_err().id(), "bad");
    assert_eq!(store.load("a/b").unwrap_err().id(), "a/b");
}
