//! End-to-end tests of `fsmc history`: the table it prints for snapshots and
//! store files written by `fsm-runtime`, and its errors and exit statuses.

use crate::harness;

use fsm_runtime::{History, Snapshot, Timestamp};
use fsm_store::{FileStore, Store};
use harness::Scratch;
use std::num::NonZeroUsize;
use std::time::{Duration, UNIX_EPOCH};

/// A run of `execution_fsm_v1`: started at 2026-01-10T09:32:15Z, then one
/// step a second.
fn execution_history(mut history: History) -> History {
    let steps = [
        ("idle", "start", "executing"),
        ("executing", "heartbeat", "executing"),
        ("executing", "error", "failed"),
    ];
    for (second, (from, action, to)) in (1_768_037_535..).zip(steps) {
        let at = Timestamp::from(UNIX_EPOCH + Duration::from_secs(second));
        history = history.with_clock(move || at);
        history.record_names(from, action, to);
    }
    history
}

fn execution_snapshot() -> Snapshot {
    Snapshot::new("Execution", "0123456789abcdef", "failed").with_history(&execution_history(History::new()))
}

const EXECUTION_TABLE: &str = "\
seq  time                      from       action     to
  0  2026-01-10T09:32:15.000Z  idle       start      executing
  1  2026-01-10T09:32:16.000Z  executing  heartbeat  executing
  2  2026-01-10T09:32:17.000Z  executing  error      failed
";

#[test]
fn prints_a_snapshots_history_as_a_table() {
    let dir = Scratch::new();
    dir.write(
        "run.json",
        &serde_json::to_string_pretty(&execution_snapshot()).unwrap(),
    );
    let run = dir.fsmc(&["history", "run.json"]).expect(0);
    assert_eq!(run.stdout(), EXECUTION_TABLE);
    assert_eq!(run.stderr(), "");
}

#[test]
fn prints_the_history_in_a_store_file() {
    let dir = Scratch::new();
    let store = FileStore::open(dir.path("instances")).unwrap();
    let version = store.save("run-1", 0, &execution_snapshot()).unwrap();
    store.save("run-1", version, &execution_snapshot()).unwrap();
    let run = dir.fsmc(&["history", "instances/run-1.json"]).expect(0);
    assert_eq!(run.stdout(), EXECUTION_TABLE);
}

#[test]
fn a_bounded_history_shows_where_it_starts() {
    let dir = Scratch::new();
    let history = execution_history(History::bounded(NonZeroUsize::new(2).unwrap()));
    let snapshot = Snapshot::new("Execution", "0123456789abcdef", "failed").with_history(&history);
    dir.write("run.json", &serde_json::to_string(&snapshot).unwrap());
    let run = dir.fsmc(&["history", "run.json"]).expect(0);
    assert_eq!(
        run.stdout(),
        "\
seq  time                      from       action     to
  1  2026-01-10T09:32:16.000Z  executing  heartbeat  executing
  2  2026-01-10T09:32:17.000Z  executing  error      failed
"
    );
}

#[test]
fn a_snapshot_without_history_is_an_error() {
    let dir = Scratch::new();
    let snapshot = Snapshot::new("Execution", "0123456789abcdef", "idle");
    dir.write("run.json", &serde_json::to_string(&snapshot).unwrap());
    let run = dir.fsmc(&["history", "run.json"]).expect(1);
    assert_eq!(run.stdout(), "");
    assert_eq!(
        run.stderr(),
        "error: `run.json` has no history: its snapshot of machine `Execution` (in state `idle`) was \
         saved without one; record one with `fsm_runtime::Recorded` or `Shared::recording`\n"
    );
}

fsm_runtime::fsm! {
    /// Two researchers at once, as in the research pipeline.
    machine Research {
        initial state idle { on start -> collect; }
        parallel state collect {
            done -> written;
            state researcher_a { initial state a_running { on a_written -> a_done; } final state a_done; }
            state researcher_b { initial state b_running { on b_written -> b_done; } final state b_done; }
        }
        terminal state written;
    }
}

#[test]
fn prints_the_history_of_a_machine_with_parallel_states_by_its_leaves() {
    use research::{Action, Research};
    let dir = Scratch::new();
    let at = Timestamp::from(UNIX_EPOCH + Duration::from_secs(1_768_037_535));
    let history = History::new().with_clock(move || at);
    let mut recorded = fsm_runtime::Recorded::with_history(Research::new(), history);
    let store = FileStore::open(dir.path("instances")).unwrap();
    store.save("run-1", 0, &recorded.snapshot().unwrap()).unwrap();
    let run = dir.fsmc(&["history", "instances/run-1.json"]).expect(1);
    assert_eq!(
        run.stderr(),
        "error: `instances/run-1.json` has no history: its snapshot of machine `Research` (in state \
         `idle`) was saved without one; record one with `fsm_runtime::Recorded` or \
         `Shared::recording`\n"
    );
    for action in [Action::Start, Action::AWritten] {
        recorded.fire(action).unwrap();
    }
    store.save("run-1", 1, &recorded.snapshot().unwrap()).unwrap();
    let run = dir.fsmc(&["history", "instances/run-1.json"]).expect(0);
    assert_eq!(
        run.stdout(),
        "\
seq  time                      from                  action     to
  0  2026-01-10T09:32:15.000Z  idle                  start      a_running, b_running
  1  2026-01-10T09:32:15.000Z  a_running, b_running  a_written  a_done, b_running
"
    );
    // Without a history, the leaves it was saved in.
    let bare = fsm_runtime::Persist::snapshot(recorded.machine()).unwrap();
    dir.write("bare.json", &serde_json::to_string(&bare).unwrap());
    let run = dir.fsmc(&["history", "bare.json"]).expect(1);
    assert_eq!(
        run.stderr(),
        "error: `bare.json` has no history: its snapshot of machine `Research` (in the leaves \
         `a_done`, `b_running`) was saved without one; record one with `fsm_runtime::Recorded` or \
         `Shared::recording`\n"
    );
}

#[test]
fn input_that_is_not_a_snapshot_is_an_error() {
    let dir = Scratch::new();
    let cases = [
        (
            "notes.txt",
            "hello",
            "`notes.txt` is not JSON: expected value at line 1 column 1",
        ),
        (
            "run.json",
            r#"{"id": "execution_fsm_v1", "current_state": "idle", "history": []}"#,
            "`run.json` has no history: its runtime record of `execution_fsm_v1` has an empty `history`",
        ),
        (
            "graph.json",
            r#"{"type": "graph", "machine": "M", "fingerprint": "f", "current_state": "a"}"#,
            "`graph.json` is not a snapshot: not an fsm snapshot: `type` is `graph`, expected `fsm`",
        ),
        (
            "bad-time.json",
            r#"{"type": "fsm", "machine": "M", "fingerprint": "f", "current_state": "a", "history": [
                {"seq": 0, "from": "a", "to": "a", "action": "x", "timestamp": "2026-01-10 09:32:15"}]}"#,
            "`bad-time.json` is not a snapshot: `2026-01-10 09:32:15` is not an RFC 3339 timestamp like \
             `2026-01-10T09:32:15Z`: expected `T` between the date and the time",
        ),
        (
            "store.json",
            r#"{"version": 1, "snapshot": {"type": "fsm", "machine": "M"}}"#,
            "`store.json` is a store file whose `snapshot` is invalid: missing field `fingerprint`",
        ),
        (
            "list.json",
            "[]",
            "`list.json` is not a snapshot: expected a JSON object",
        ),
    ];
    for (file, text, message) in cases {
        dir.write(file, text);
        let run = dir.fsmc(&["history", file]).expect(1);
        assert_eq!(run.stdout(), "", "{file}");
        assert_eq!(run.stderr(), format!("error: {message}\n"), "{file}");
    }
}

#[test]
fn prints_the_history_of_a_runtime_record() {
    // A runtime record as an execution runtime writes it: the action under
    // `reason`, no `seq`.
    let dir = Scratch::new();
    dir.write(
        "record.json",
        r#"{
  "id": "execution_fsm_v1",
  "states": ["idle", "executing", "completed", "failed"],
  "current_state": "idle",

  "history": [
    {
      "from": "idle",
      "to": "executing",
      "timestamp": "2026-01-10T09:32:15Z",
      "reason": "start_execution"
    }
  ]
}"#,
    );
    let run = dir.fsmc(&["history", "record.json"]).expect(0);
    assert_eq!(run.stderr(), "");
    assert_eq!(
        run.stdout(),
        "\
seq  time                      from  action           to
  0  2026-01-10T09:32:15.000Z  idle  start_execution  executing
"
    );
}

#[test]
fn a_key_given_twice_is_an_error_and_the_store_file_is_kept() {
    let dir = Scratch::new();
    let store = FileStore::open(dir.path("instances")).unwrap();
    store.save("run-1", 0, &execution_snapshot()).unwrap();
    let path = store.path_of("run-1").unwrap();
    let saved = std::fs::read_to_string(&path).unwrap();
    // A second `version`: `serde_json::Value` kept the last one.
    let edited = saved.replacen("\"version\": 1\n", "\"version\": 1,\n  \"version\": 5\n", 1);
    assert_ne!(edited, saved);
    std::fs::write(&path, &edited).unwrap();
    let line = edited.lines().count() - 1;
    let run = dir.fsmc(&["history", "instances/run-1.json"]).expect(1);
    assert_eq!(run.stdout(), "");
    assert_eq!(
        run.stderr(),
        format!(
            "error: `instances/run-1.json` is ambiguous: duplicate key `version` at line {line} column 11\n"
        )
    );
    // The store refuses it too, and leaves it as it is.
    let error = store.load("run-1").unwrap_err().to_string();
    assert!(
        error.ends_with(&format!(
            "is corrupt: duplicate key `version` at line {line} column 11"
        )),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
}

#[test]
fn a_runtime_record_entry_without_reason_is_named_by_its_index() {
    let dir = Scratch::new();
    dir.write(
        "record.json",
        r#"{"id": "execution_fsm_v1", "history": [
            {"from": "idle", "to": "executing", "timestamp": "2026-01-10T09:32:15Z", "reason": "start_execution"},
            {"from": "executing", "to": "completed", "timestamp": "2026-01-10T09:40:00Z"}]}"#,
    );
    let run = dir.fsmc(&["history", "record.json"]).expect(1);
    assert_eq!(
        run.stderr(),
        "error: `record.json` is a runtime record whose `history` is invalid: entry 1: missing field \
         `reason`\n"
    );
}

#[test]
fn names_of_any_length_print_and_are_cut() {
    // Format padding stops at 65,535: this panicked.
    let dir = Scratch::new();
    let long = "s".repeat(65_536);
    let mut history =
        History::new().with_clock(|| Timestamp::from(UNIX_EPOCH + Duration::from_secs(1_768_037_535)));
    history.record_names("idle", "start", long.clone());
    let snapshot = Snapshot::new("Execution", "0123456789abcdef", long).with_history(&history);
    dir.write("run.json", &serde_json::to_string(&snapshot).unwrap());
    let run = dir.fsmc(&["history", "run.json"]).expect(0);
    assert_eq!(run.stderr(), "");
    assert_eq!(
        run.stdout(),
        format!(
            "seq  time                      from  action  to\n  0  2026-01-10T09:32:15.000Z  idle  start   {}…\n",
            "s".repeat(63)
        )
    );
}

#[test]
fn a_file_that_cannot_be_read_is_trouble() {
    let dir = Scratch::new();
    let run = dir.fsmc(&["history", "missing.json"]).expect(2);
    assert!(
        run.stderr().starts_with("error: cannot read `missing.json`: "),
        "{}",
        run.stderr()
    );
    dir.fsmc(&["history"]).expect(2);
}
