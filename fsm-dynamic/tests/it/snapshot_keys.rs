//! A snapshot's keys are all fsmc's. Reading one with a key it does not have
//! (each key of a real snapshot misspelled, at the top, in a timer or in a
//! history entry) is an error that names the key and where it is: for
//! snapshots of generated machines (plain, and with a context, timers,
//! nested states and history) and of dynamic engines, read directly or from
//! a `FileStore` (`pg_store.rs` reads them from a `PgStore`). A timer armed
//! twice is refused when read and when restored.

use fsm_dynamic::{Definition, Engine};
use fsm_runtime::{ArmedTimer, History, ManualClock, Recorded, RestoreError, Snapshot, Timestamp};
use fsm_store::{FileStore, Store, StoreError};
use serde_json::{json, Value};
use std::time::{Duration, UNIX_EPOCH};

fsm_runtime::fsm! {
    machine Door {
        initial state closed { on open -> opened; }
        state opened { on close -> closed; }
    }
}

const JOB: &str = "machine Job {
    context JobContext;
    initial state queued { on start -> work; }
    state work {
        after 10s -> parked;
        on park -> parked;
        initial state fetch { after 500ms -> process; }
        state process { on done -> finished; }
    }
    state parked { on resume -> work.history; }
    terminal state finished;
}";

fsm_runtime::fsm! {
    machine Job {
        context JobContext;
        initial state queued { on start -> work; }
        state work {
            after 10s -> parked;
            on park -> parked;
            initial state fetch { after 500ms -> process; }
            state process { on done -> finished; }
        }
        state parked { on resume -> work.history; }
        terminal state finished;
    }
}

/// The context of `Job`.
#[derive(Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JobContext {
    name: String,
}

impl job::Context for JobContext {}

const START: u64 = 1_768_037_535_000;

fn clock() -> ManualClock {
    ManualClock::new(UNIX_EPOCH + Duration::from_millis(START))
}

/// A generated `Job` in `fetch` after a round trip through `parked`: its
/// snapshot has a context, two timers and history memory.
fn generated_job() -> job::Job<ManualClock> {
    let context = JobContext {
        name: "nightly".into(),
    };
    let mut machine = job::Job::with_clock(context, clock());
    for event in [job::Event::Start, job::Event::Park, job::Event::Resume] {
        machine.fire(event).unwrap();
    }
    machine
}

/// A dynamic engine of the same `Job`, in the same state, recording a
/// history: its snapshot has every key a snapshot can have.
fn dynamic_job() -> Engine {
    let engine = Engine::with_context(Definition::from_fsm(JOB).unwrap(), json!({"name": "nightly"}))
        .clock(clock())
        .history(History::new().with_clock(clock()))
        .build()
        .unwrap();
    for action in ["start", "park", "resume"] {
        engine.fire(action, &Value::Null).unwrap();
    }
    engine
}

/// A plain generated machine, recorded: its snapshot has history entries.
fn recorded_door() -> Recorded<door::Door> {
    let mut door = Recorded::with_history(door::Door::new(), History::new().with_clock(clock()));
    door.fire(door::Action::Open).unwrap();
    door.fire(door::Action::Close).unwrap();
    door
}

/// A key misspelled: `timers` → `timer`.
fn misspelled(key: &str) -> String {
    key[..key.len() - 1].to_owned()
}

/// Every copy of `snapshot` with one key misspelled, at the top, in a timer
/// or in a history entry, with the misspelled key and where it is as the
/// error words it.
fn misspellings(snapshot: &Value) -> Vec<(Value, String, String)> {
    let rename = |object: &mut Value, key: &str| {
        let object = object.as_object_mut().unwrap();
        let value = object.remove(key).unwrap();
        object.insert(misspelled(key), value);
    };
    let mut cases = Vec::new();
    for key in snapshot.as_object().unwrap().keys() {
        let mut copy = snapshot.clone();
        rename(&mut copy, key);
        cases.push((copy, misspelled(key), "the snapshot".to_owned()));
    }
    for list in ["timers", "history"] {
        let Some(items) = snapshot.get(list) else {
            continue;
        };
        for (index, item) in items.as_array().unwrap().iter().enumerate() {
            for key in item.as_object().unwrap().keys() {
                let mut copy = snapshot.clone();
                rename(&mut copy[list][index], key);
                cases.push((copy, misspelled(key), format!("`{list}[{index}]`")));
            }
        }
    }
    cases
}

/// Checks that `snapshot`, which reads back, is refused with each of its
/// keys misspelled, read directly and from a `FileStore`, which keeps the
/// file as it was. Returns how many keys were tried.
fn every_misspelling_is_refused(snapshot: &Snapshot, keys: &[&str]) -> usize {
    let value = serde_json::to_value(snapshot).unwrap();
    assert_eq!(
        serde_json::from_value::<Snapshot>(value.clone()).unwrap(),
        *snapshot
    );
    for key in keys {
        assert!(value.get(key).is_some(), "the snapshot has no `{key}`: {value}");
    }
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    let cases = misspellings(&value);
    for (copy, key, place) in &cases {
        let expected = format!("unknown field `{key}` in {place}, expected ");
        let error = serde_json::from_value::<Snapshot>(copy.clone())
            .unwrap_err()
            .to_string();
        assert!(error.starts_with(&expected), "{error}");

        let text = serde_json::to_string_pretty(&json!({"version": 1, "snapshot": copy})).unwrap();
        let path = store.path_of("instance").unwrap();
        std::fs::write(&path, &text).unwrap();
        match store.load("instance") {
            Err(StoreError::Corrupt { reason, .. }) => assert!(
                reason.starts_with(&format!("invalid `snapshot`: {expected}")),
                "{reason}"
            ),
            other => panic!("{key} in {place}: {other:?}"),
        }
        // Nor does the store erase the evidence by saving over it.
        assert!(matches!(
            store.save("instance", 1, snapshot),
            Err(StoreError::Corrupt { .. })
        ));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }
    cases.len()
}

#[test]
fn every_key_of_a_plain_machine_s_snapshot_misspelled_is_refused() {
    let mut door = door::Door::new();
    door.fire(door::Action::Open).unwrap();
    let keys = ["type", "machine", "fingerprint", "current_state"];
    assert_eq!(every_misspelling_is_refused(&door.snapshot(), &keys), 4);
}

#[test]
fn every_key_of_a_recorded_machine_s_snapshot_misspelled_is_refused() {
    let snapshot = recorded_door().snapshot().unwrap();
    // 5 keys, and 5 in each of the 2 entries.
    assert_eq!(every_misspelling_is_refused(&snapshot, &["history"]), 15);
}

#[test]
fn every_key_of_a_generated_snapshot_with_context_timers_and_memory_misspelled_is_refused() {
    let snapshot = generated_job().snapshot().unwrap();
    assert_eq!(
        snapshot.timers(),
        [
            ArmedTimer::new("fetch", 0, at(500)),
            ArmedTimer::new("work", 0, at(10_000))
        ]
    );
    // 7 keys, and 3 in each of the 2 timers.
    let keys = ["context", "timers", "last_active"];
    assert_eq!(every_misspelling_is_refused(&snapshot, &keys), 13);
}

#[test]
fn every_key_of_an_engine_s_snapshot_misspelled_is_refused() {
    let engine = dynamic_job();
    let snapshot = engine.snapshot();
    // The same snapshot as generated code, plus the history.
    let generated = generated_job().snapshot().unwrap();
    assert_eq!(
        serde_json::to_value(&snapshot).unwrap()["timers"],
        serde_json::to_value(&generated).unwrap()["timers"]
    );
    // 8 keys, 3 in each of the 2 timers, 5 in each of the 3 entries.
    let keys = ["context", "timers", "last_active", "history"];
    assert_eq!(every_misspelling_is_refused(&snapshot, &keys), 29);
}

#[test]
fn the_issue_s_misspelled_timers_no_longer_restores_a_machine_with_no_timer() {
    let snapshot = generated_job().snapshot().unwrap();
    let mut value = serde_json::to_value(&snapshot).unwrap();
    let timers = value.as_object_mut().unwrap().remove("timers").unwrap();
    value["timer"] = timers;
    let error = serde_json::from_value::<Snapshot>(value).unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown field `timer` in the snapshot, expected `type`, `machine`, `fingerprint`, \
         `current_state`, `configuration`, `context`, `timers`, `last_active`, `history` or `pending`"
    );
    // From text, serde_json adds where the key is.
    let text = r#"{"type": "fsm", "machine": "Job", "fingerprint": "f", "current_state": "fetch",
        "timers": [{"state": "fetch", "timer": 0, "stat": "work"}]}"#;
    assert_eq!(
        serde_json::from_str::<Snapshot>(text).unwrap_err().to_string(),
        "unknown field `stat` in `timers[0]`, expected `state`, `timer` or `due` at line 2 column 56"
    );
}

#[test]
fn an_unknown_key_in_a_history_entry_is_refused_even_beside_a_reason() {
    // `acton` misspelled next to a runtime record's `reason` would otherwise
    // read as the reason.
    let text = json!({
        "type": "fsm", "machine": "Door", "fingerprint": "f", "current_state": "opened",
        "history": [{"seq": 0, "from": "closed", "to": "opened", "acton": "open",
                     "reason": "the user asked", "timestamp": "2026-01-10T09:32:15Z"}]
    });
    assert_eq!(
        serde_json::from_value::<Snapshot>(text).unwrap_err().to_string(),
        "unknown field `acton` in `history[0]`, expected `seq`, `from`, `to`, `action`, `reason` \
         or `timestamp`"
    );
}

#[test]
fn a_hostile_key_is_shortened_in_the_error() {
    let key = format!("{}\n", "k".repeat(100_000));
    let mut value = serde_json::to_value(door::Door::new().snapshot()).unwrap();
    value[&key] = json!(1);
    let error = serde_json::from_value::<Snapshot>(value).unwrap_err().to_string();
    assert!(
        error.starts_with(&format!("unknown field `{}…` in the snapshot", "k".repeat(64))),
        "{}",
        &error[..100]
    );
    assert!(error.len() < 300);
}

fn at(millis_after_start: u64) -> Timestamp {
    Timestamp::from_unix_millis(START + millis_after_start).unwrap()
}

/// The snapshot of `generated_job` with its first timer given twice, the
/// second time with another deadline.
fn with_a_timer_given_twice() -> Snapshot {
    let snapshot = generated_job().snapshot().unwrap();
    let mut timers = snapshot.timers().to_vec();
    timers.push(ArmedTimer::new("fetch", 0, at(900)));
    snapshot.with_timers(timers)
}

#[test]
fn a_timer_given_twice_is_refused_when_read() {
    let value = serde_json::to_value(with_a_timer_given_twice()).unwrap();
    assert_eq!(
        serde_json::from_value::<Snapshot>(value.clone())
            .unwrap_err()
            .to_string(),
        "`timers[2]` arms timer 0 of state `fetch` again, as `timers[0]` does"
    );

    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    let text = serde_json::to_string(&json!({"version": 1, "snapshot": value})).unwrap();
    std::fs::write(store.path_of("job").unwrap(), &text).unwrap();
    let error = store.load("job").unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with("is corrupt: invalid `snapshot`: `timers[2]` arms timer 0 of state `fetch` again, as `timers[0]` does"),
        "{error}"
    );
}

#[test]
fn a_timer_given_twice_is_refused_when_restored_by_generated_code_and_engines() {
    let snapshot = with_a_timer_given_twice();
    let expected = RestoreError::DuplicateTimer {
        machine: "Job".into(),
        state: "fetch".into(),
        timer: 0,
        first: 0,
        second: 2,
    };
    let generated =
        job::Job::restore_with(&snapshot, fsm_runtime::FingerprintPolicy::default(), clock()).unwrap_err();
    assert_eq!(generated, expected);
    assert_eq!(
        generated.to_string(),
        "the snapshot of machine `Job` arms timer 0 of state `fetch` twice, in `timers[0]` and \
         `timers[2]`"
    );
    let engine = dynamic_job();
    let before = engine.snapshot();
    assert_eq!(engine.restore(&snapshot).unwrap_err(), expected);
    assert_eq!(engine.snapshot(), before, "an error changes nothing");

    // A flat machine's timers go through the same check.
    fsm_runtime::fsm! {
        machine Call {
            initial state ringing { on answer -> talking; after 30s -> missed; }
            state talking { on hang_up -> ended; }
            terminal state missed;
            terminal state ended;
        }
    }
    let snapshot = call::Call::new().snapshot().with_timers([
        ArmedTimer::new("ringing", 0, at(1)),
        ArmedTimer::new("ringing", 0, at(2)),
    ]);
    assert_eq!(
        call::Call::restore(&snapshot).unwrap_err(),
        RestoreError::DuplicateTimer {
            machine: "Call".into(),
            state: "ringing".into(),
            timer: 0,
            first: 0,
            second: 1,
        }
    );
}
