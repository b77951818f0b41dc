//! Histories: what is recorded, timestamps, retention, and the trip through
//! a snapshot and back.

use fsm_runtime::{
    FingerprintPolicy, History, HistoryEntry, Machine, Recorded, RestoreError, Retention, Snapshot, Timestamp,
};
use serde_json::json;
use std::num::NonZeroUsize;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::time::{Duration, UNIX_EPOCH};

fsm_runtime::fsm!(file = "tests/support/execution.fsm");

#[path = "../support/ticking.rs"]
mod ticking;
use ticking::{steps, ticking_clock, RUN_SECONDS};

use execution::{Action, Execution, State};

fn recorded() -> Recorded<Execution> {
    Recorded::with_history(Execution::new(), History::new().with_clock(ticking_clock().0))
}

fn cap(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap()
}

// ---------------------------------------------------------------------------
// timestamps
// ---------------------------------------------------------------------------

#[test]
fn timestamps_are_rfc_3339_in_utc_with_milliseconds() {
    let at = |millis: u64| Timestamp::from_unix_millis(millis).unwrap().to_string();
    assert_eq!(at(0), "1970-01-01T00:00:00.000Z");
    assert_eq!(at(RUN_SECONDS * 1000), "2026-01-10T09:32:15.000Z");
    assert_eq!(at(RUN_SECONDS * 1000 + 7), "2026-01-10T09:32:15.007Z");
    // `date -u -d @951782400` and friends: leap days, a century that is a
    // leap year, the last millisecond of a year.
    assert_eq!(at(951_782_400_000), "2000-02-29T00:00:00.000Z");
    assert_eq!(at(1_709_164_799_999), "2024-02-28T23:59:59.999Z");
    assert_eq!(at(1_709_164_800_000), "2024-02-29T00:00:00.000Z");
    assert_eq!(at(4_102_444_799_999), "2099-12-31T23:59:59.999Z");
    assert_eq!(at(4_107_542_400_000), "2100-03-01T00:00:00.000Z");
    assert_eq!(Timestamp::MAX.to_string(), "9999-12-31T23:59:59.999Z");
    assert_eq!(
        Timestamp::from_unix_millis(Timestamp::MAX.unix_millis() + 1),
        None
    );
}

#[test]
fn timestamps_come_from_system_time_truncated_and_clamped() {
    let time = UNIX_EPOCH + Duration::from_nanos(RUN_SECONDS * 1_000_000_000 + 123_999_999);
    let at = Timestamp::from_system_time(time);
    assert_eq!(at.to_string(), "2026-01-10T09:32:15.123Z");
    assert_eq!(
        at.to_system_time(),
        UNIX_EPOCH + Duration::from_millis(RUN_SECONDS * 1000 + 123)
    );
    assert_eq!(
        Timestamp::from(UNIX_EPOCH - Duration::from_secs(1)),
        Timestamp::UNIX_EPOCH
    );
    let far = UNIX_EPOCH + Duration::from_secs(400_000_000_000);
    assert_eq!(Timestamp::from(far), Timestamp::MAX);
    let now = Timestamp::now().to_string();
    assert!(
        now.len() == 24 && now.ends_with('Z') && now.as_str() > "2025",
        "{now}"
    );
}

#[test]
fn timestamps_parse_any_rfc_3339_form() {
    let start = Timestamp::from_unix_millis(RUN_SECONDS * 1000).unwrap();
    for text in [
        "2026-01-10T09:32:15Z",
        "2026-01-10t09:32:15z",
        "2026-01-10T09:32:15.000Z",
        "2026-01-10T09:32:15.0009999Z",
        "2026-01-10T10:32:15+01:00",
        "2026-01-10T04:02:15-05:30",
        "2026-01-10T09:32:15-00:00",
    ] {
        assert_eq!(text.parse(), Ok(start), "{text}");
    }
    assert_eq!(
        "2026-01-10T09:32:15.5Z"
            .parse::<Timestamp>()
            .unwrap()
            .unix_millis()
            % 1000,
        500
    );
    // Past midnight in UTC, the day before locally.
    assert_eq!(
        "2025-12-31T23:30:00-01:00"
            .parse::<Timestamp>()
            .unwrap()
            .to_string(),
        "2026-01-01T00:30:00.000Z"
    );
}

#[test]
fn bad_timestamps_say_what_is_wrong() {
    let error = |text: &str| text.parse::<Timestamp>().unwrap_err().to_string();
    assert_eq!(
        error("2026-1-10T09:32:15Z"),
        "`2026-1-10T09:32:15Z` is not an RFC 3339 timestamp like `2026-01-10T09:32:15Z`: \
         the month must have two digits"
    );
    let problem = |text: &str| error(text).rsplit_once(": ").unwrap().1.to_owned();
    assert_eq!(
        problem("2026-01-10 09:32:15Z"),
        "expected `T` between the date and the time"
    );
    assert_eq!(
        problem("2026-01-10T09:32:15"),
        "expected `Z` or an offset like `+01:00` after the time"
    );
    assert_eq!(
        problem("2026-01-10T09:32:15ZZ"),
        "unexpected text after the timestamp"
    );
    assert_eq!(
        problem("2026-13-10T09:32:15Z"),
        "the month must be between 01 and 12"
    );
    assert_eq!(
        problem("2025-02-29T09:32:15Z"),
        "the day does not exist in that month"
    );
    assert_eq!(
        problem("2026-04-31T09:32:15Z"),
        "the day does not exist in that month"
    );
    assert_eq!(problem("2026-01-10T24:00:00Z"), "the time of day is out of range");
    assert_eq!(problem("2016-12-31T23:59:60Z"), "leap seconds are not supported");
    assert_eq!(problem("2026-01-10T09:32:15.Z"), "expected digits after `.`");
    assert_eq!(problem("2026-01-10T09:32:15+24:00"), "the offset is out of range");
    assert_eq!(
        problem("1969-12-31T23:59:59Z"),
        "it is outside the years 1970 to 9999 in UTC"
    );
    assert_eq!(
        problem("1970-01-01T00:30:00+01:00"),
        "it is outside the years 1970 to 9999 in UTC"
    );
    assert_eq!(problem("12026-01-10T09:32:15Z"), "the year must have four digits");
    assert_eq!(problem(""), "the year must have four digits");
    assert_eq!(
        "2026-01-10T09:32:1Z".parse::<Timestamp>().unwrap_err().input(),
        "2026-01-10T09:32:1Z"
    );
}

// ---------------------------------------------------------------------------
// recording
// ---------------------------------------------------------------------------

#[test]
fn every_successful_fire_is_recorded_in_order() {
    let mut run = recorded();
    run.fire(Action::Start).unwrap();
    run.fire(Action::Heartbeat).unwrap();
    run.fire(Action::Retry).unwrap();
    run.fire(Action::Success).unwrap();
    assert_eq!(
        steps(run.history()),
        [
            (
                0,
                "2026-01-10T09:32:15.000Z".to_owned(),
                "idle",
                "start",
                "executing"
            ),
            // Internal transitions too, with from == to; and self-transitions.
            (
                1,
                "2026-01-10T09:32:16.000Z".to_owned(),
                "executing",
                "heartbeat",
                "executing"
            ),
            (
                2,
                "2026-01-10T09:32:17.000Z".to_owned(),
                "executing",
                "retry",
                "executing"
            ),
            (
                3,
                "2026-01-10T09:32:18.000Z".to_owned(),
                "executing",
                "success",
                "completed"
            ),
        ]
    );
    assert_eq!(run.state(), State::Completed);
    assert_eq!(run.history().recorded(), 4);
    assert_eq!(
        run.history().last().unwrap().to_string(),
        "#3 2026-01-10T09:32:18.000Z `executing` --success--> `completed`"
    );
}

#[test]
fn rejected_actions_are_not_recorded() {
    let (clock, calls) = ticking_clock();
    let mut run = Recorded::with_history(Execution::new(), History::new().with_clock(clock));
    let error = run.fire(Action::Success).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `success` is not valid in state `idle`; valid actions: `start`"
    );
    assert!(run.history().is_empty());
    // The time is read before the machine fires (so that a clock that
    // panics leaves the machine where it was), once per fire.
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    run.fire(Action::Start).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(run.history().first().unwrap().seq(), 0);
}

#[test]
fn a_bounded_history_keeps_the_last_entries_and_never_renumbers() {
    let mut run = Recorded::with_history(Execution::new(), History::bounded(cap(3)));
    assert_eq!(run.history().retention(), Retention::Last(cap(3)));
    run.fire(Action::Start).unwrap();
    for _ in 0..5 {
        run.fire(Action::Heartbeat).unwrap();
    }
    run.fire(Action::Error).unwrap();
    let seqs: Vec<u64> = run.history().iter().map(HistoryEntry::seq).collect();
    assert_eq!(seqs, [4, 5, 6]);
    assert_eq!(run.history().len(), 3);
    assert_eq!(run.history().recorded(), 7);
    assert_eq!(run.history().last().unwrap().to(), "failed");

    let mut one = History::bounded(cap(1));
    one.record_names("a", "go", "b");
    let entry = one.record_names("b", "go", "c");
    assert_eq!((entry.seq(), entry.from()), (1, "b"));
    assert_eq!(one.len(), 1);
}

#[test]
fn the_default_history_keeps_everything() {
    let history = History::default();
    assert_eq!(history.retention(), Retention::All);
    let mut run = Recorded::new(Execution::new());
    run.fire(Action::Start).unwrap();
    for _ in 0..10_000 {
        run.fire(Action::Heartbeat).unwrap();
    }
    assert_eq!(run.history().len(), 10_001);
    assert_eq!(run.history().first().unwrap().action(), "start");
}

#[test]
fn a_history_records_transitions_from_generated_code_directly() {
    let mut machine = Execution::new();
    let mut history = History::new().with_clock(ticking_clock().0);
    let fired = machine.fire(Action::Start).unwrap();
    let entry = history.record(&fired);
    assert_eq!(
        (entry.seq(), entry.from(), entry.action(), entry.to()),
        (0, "idle", "start", "executing")
    );
}

#[test]
fn a_panicking_clock_changes_nothing() {
    let mut run = Recorded::with_history(
        Execution::new(),
        History::new().with_clock(|| -> Timestamp { panic!("the clock broke") }),
    );
    let panic = catch_unwind(AssertUnwindSafe(|| run.fire(Action::Start)));
    assert!(panic.is_err());
    assert_eq!(run.state(), State::Idle);
    assert!(run.history().is_empty());
    assert_eq!(run.history().recorded(), 0);
}

// ---------------------------------------------------------------------------
// snapshots
// ---------------------------------------------------------------------------

#[test]
fn a_snapshot_carries_the_history_as_json() {
    let mut run = recorded();
    run.fire(Action::Start).unwrap();
    run.fire(Action::Heartbeat).unwrap();
    let snapshot = run.snapshot().unwrap();
    assert_eq!(snapshot.history().len(), 2);
    assert_eq!(
        serde_json::to_value(&snapshot).unwrap(),
        json!({
            "type": "fsm",
            "machine": "Execution",
            "fingerprint": Execution::FINGERPRINT,
            "current_state": "executing",
            "history": [
                {"seq": 0, "from": "idle", "to": "executing", "action": "start",
                 "timestamp": "2026-01-10T09:32:15.000Z"},
                {"seq": 1, "from": "executing", "to": "executing", "action": "heartbeat",
                 "timestamp": "2026-01-10T09:32:16.000Z"},
            ],
        })
    );
    // Field order, as documented.
    let text = serde_json::to_string(&snapshot).unwrap();
    assert!(
        text.contains(r#""current_state":"executing","history":[{"seq":0,"from":"idle","to":"executing","action":"start","timestamp":"2026-01-10T09:32:15.000Z"}"#),
        "{text}"
    );
}

#[test]
fn a_snapshot_without_history_is_unchanged() {
    let run = recorded();
    let snapshot = run.snapshot().unwrap();
    assert!(snapshot.history().is_empty());
    assert_eq!(snapshot, Execution::new().snapshot());
    assert_eq!(
        serde_json::to_value(&snapshot).unwrap(),
        json!({
            "type": "fsm",
            "machine": "Execution",
            "fingerprint": Execution::FINGERPRINT,
            "current_state": "idle",
        })
    );
    let read: Snapshot = serde_json::from_str(&serde_json::to_string(&snapshot).unwrap()).unwrap();
    assert_eq!(read, snapshot);
    // An empty array reads as no history.
    let read: Snapshot = serde_json::from_value(json!({
        "type": "fsm", "machine": "Execution", "fingerprint": "f", "current_state": "idle", "history": []
    }))
    .unwrap();
    assert!(read.history().is_empty());
}

#[test]
fn snapshots_with_history_round_trip_through_json_objects_and_arrays() {
    let mut run = recorded();
    run.fire(Action::Start).unwrap();
    run.fire(Action::Error).unwrap();
    let snapshot = run.snapshot().unwrap();
    let read: Snapshot = serde_json::from_str(&serde_json::to_string(&snapshot).unwrap()).unwrap();
    assert_eq!(read, snapshot);

    // The positional form, as self-describing formats may hand it over.
    let entries = serde_json::to_value(snapshot.history()).unwrap();
    let positional = json!(["fsm", "Execution", Execution::FINGERPRINT, "failed", entries]);
    let read: Snapshot = serde_json::from_value(positional).unwrap();
    assert_eq!(read, snapshot);
    let entry: HistoryEntry =
        serde_json::from_value(json!([0, "idle", "executing", "start", "2026-01-10T09:32:15Z"])).unwrap();
    assert_eq!(&entry, &snapshot.history()[0]);
}

#[test]
fn restoring_brings_the_history_back_and_continues_it() {
    let mut run = recorded();
    run.fire(Action::Start).unwrap();
    run.fire(Action::Heartbeat).unwrap();
    let text = serde_json::to_string(&run.snapshot().unwrap()).unwrap();

    let snapshot: Snapshot = serde_json::from_str(&text).unwrap();
    let mut resumed = Recorded::<Execution>::restore_with(
        &snapshot,
        FingerprintPolicy::Strict,
        History::new().with_clock(|| Timestamp::from(UNIX_EPOCH + Duration::from_secs(RUN_SECONDS + 60))),
    )
    .unwrap();
    assert_eq!(resumed.state(), State::Executing);
    resumed.fire(Action::Success).unwrap();
    assert_eq!(
        steps(resumed.history()),
        [
            (
                0,
                "2026-01-10T09:32:15.000Z".to_owned(),
                "idle",
                "start",
                "executing"
            ),
            (
                1,
                "2026-01-10T09:32:16.000Z".to_owned(),
                "executing",
                "heartbeat",
                "executing"
            ),
            (
                2,
                "2026-01-10T09:33:15.000Z".to_owned(),
                "executing",
                "success",
                "completed"
            ),
        ]
    );
    // Restoring also works through the plain machine, which ignores it.
    assert_eq!(Execution::restore(&snapshot).unwrap().state(), State::Executing);
    assert_eq!(
        Recorded::<Execution>::restore(&snapshot).unwrap().history().len(),
        2
    );
}

#[test]
fn restoring_into_a_smaller_history_keeps_the_latest_entries() {
    let mut run = recorded();
    run.fire(Action::Start).unwrap();
    for _ in 0..4 {
        run.fire(Action::Heartbeat).unwrap();
    }
    let snapshot = run.snapshot().unwrap();
    let mut resumed =
        Recorded::<Execution>::restore_with(&snapshot, FingerprintPolicy::Strict, History::bounded(cap(2)))
            .unwrap();
    let seqs: Vec<u64> = resumed.history().iter().map(HistoryEntry::seq).collect();
    assert_eq!(seqs, [3, 4]);
    resumed.fire(Action::Heartbeat).unwrap();
    let seqs: Vec<u64> = resumed.history().iter().map(HistoryEntry::seq).collect();
    assert_eq!(seqs, [4, 5]);
    assert_eq!(resumed.history().recorded(), 6);

    // A history resumed from a snapshot without entries starts from 0.
    let empty = History::new().resumed_from(&Execution::new().snapshot()).unwrap();
    assert_eq!((empty.len(), empty.recorded()), (0, 0));
}

/// A snapshot of `Execution` in `executing` whose history ends with `seq`.
fn snapshot_ending_at(seq: u64) -> Snapshot {
    serde_json::from_value(json!({
        "type": "fsm", "machine": "Execution", "fingerprint": Execution::FINGERPRINT,
        "current_state": "executing",
        "history": [{"seq": seq, "from": "idle", "to": "executing", "action": "start",
                     "timestamp": "2026-01-10T09:32:15Z"}],
    }))
    .unwrap()
}

#[test]
fn a_history_too_close_to_the_top_of_u64_is_refused_on_restore() {
    // Each of these used to panic at `seq + 1` (debug builds) or wrap to 0
    // and save a snapshot that could not be read back (release builds);
    // u64::MAX - 1 got one fire further before the same happened. (The
    // dynamic engine's refusal is in fsm-dynamic's tests/it/history.rs.)
    for seq in [u64::MAX, u64::MAX - 1, History::MAX_RESUMED_SEQ + 1] {
        let snapshot = snapshot_ending_at(seq);
        let expected = RestoreError::SeqOutOfRange {
            machine: "Execution".to_owned(),
            seq,
            max: History::MAX_RESUMED_SEQ,
        };
        assert_eq!(Recorded::<Execution>::restore(&snapshot).unwrap_err(), expected);
        assert_eq!(History::new().resumed_from(&snapshot).unwrap_err(), expected);
        assert_eq!(
            expected.to_string(),
            format!(
                "the snapshot's history of machine `Execution` ends at `seq` {seq}, above \
                 9223372036854775807, the largest a restored history can go on numbering from"
            )
        );

        assert_eq!(Execution::restore(&snapshot).unwrap().state(), State::Executing);
    }

    // The largest accepted goes on numbering, and what it saves reads back.
    let snapshot = snapshot_ending_at(History::MAX_RESUMED_SEQ);
    let mut run = Recorded::<Execution>::restore(&snapshot).unwrap();
    run.fire(Action::Heartbeat).unwrap();
    run.fire(Action::Success).unwrap();
    let seqs: Vec<u64> = run.history().iter().map(HistoryEntry::seq).collect();
    let max = History::MAX_RESUMED_SEQ;
    assert_eq!(seqs, [max, max + 1, max + 2]);
    let text = serde_json::to_string(&run.snapshot().unwrap()).unwrap();
    let read: Snapshot = serde_json::from_str(&text).unwrap();
    assert_eq!(read, run.snapshot().unwrap());
}

#[test]
fn restoring_checks_the_machine_before_the_history() {
    let snapshot = Snapshot::new("Door", Execution::FINGERPRINT, "idle");
    assert!(matches!(
        Recorded::<Execution>::restore(&snapshot),
        Err(RestoreError::OtherMachine { .. })
    ));
    let snapshot = Snapshot::new("Execution", "0123456789abcdef", "idle");
    assert!(matches!(
        Recorded::<Execution>::restore(&snapshot),
        Err(RestoreError::FingerprintMismatch { .. })
    ));
}

#[test]
fn snapshots_and_entries_refuse_a_field_given_twice() {
    let error = |text: &str| serde_json::from_str::<Snapshot>(text).unwrap_err().to_string();
    let entry_error = |text: &str| {
        serde_json::from_str::<HistoryEntry>(text)
            .unwrap_err()
            .to_string()
    };
    let head = r#""type": "fsm", "machine": "M", "fingerprint": "f", "current_state": "a""#;
    let entry = r#""seq": 0, "from": "a", "to": "a", "action": "x", "timestamp": "2026-01-10T09:32:15Z""#;
    assert_eq!(
        error(&format!(r#"{{{head}, "current_state": "b"}}"#)),
        "duplicate field `current_state` at line 1 column 95"
    );
    // In a snapshot, a field an entry does not have is refused at once; an
    // entry read alone (a runtime record's) skips it, but only once.
    assert_eq!(
        error(&format!(r#"{{{head}, "history": [{{{entry}, "note": 1}}]}}"#)),
        "unknown field `note` in `history[0]`, expected `seq`, `from`, `to`, `action`, `reason` or \
         `timestamp` at line 1 column 179"
    );
    assert_eq!(
        entry_error(&format!(r#"{{{entry}, "note": 1, "note": 2}}"#)),
        "duplicate field `note` at line 1 column 104"
    );
    assert_eq!(
        serde_json::from_str::<HistoryEntry>(&format!(r#"{{{entry}, "note": 1}}"#))
            .unwrap()
            .action(),
        "x"
    );
    // `reason` too, even when the first one is null.
    assert_eq!(
        error(&format!(
            r#"{{{head}, "history": [{{{entry}, "reason": null, "reason": "y"}}]}}"#
        )),
        "duplicate field `reason` at line 1 column 197"
    );
    let once = format!(r#"{{{head}, "history": [{{{entry}, "reason": null}}]}}"#);
    assert_eq!(
        serde_json::from_str::<Snapshot>(&once).unwrap().history().len(),
        1
    );
}

#[test]
fn bad_histories_in_json_are_reported_clearly() {
    let error = |history: serde_json::Value| {
        let document = json!({
            "type": "fsm", "machine": "Execution", "fingerprint": "f", "current_state": "idle",
            "history": history,
        });
        serde_json::from_value::<Snapshot>(document)
            .unwrap_err()
            .to_string()
    };
    let entry = |seq: u64| {
        json!({"seq": seq, "from": "idle", "to": "executing", "action": "start",
               "timestamp": "2026-01-10T09:32:15Z"})
    };
    assert_eq!(
        error(json!([entry(1), entry(1)])),
        "history entries must have increasing `seq`: 1 follows 1"
    );
    assert_eq!(
        error(json!([entry(5), entry(2)])),
        "history entries must have increasing `seq`: 2 follows 5"
    );
    assert_eq!(
        error(json!([{"seq": 0, "from": "idle", "to": "executing", "timestamp": "2026-01-10T09:32:15Z"}])),
        "missing field `action`"
    );
    // A runtime record calls the action `reason`; `action` wins when both are
    // given.
    let entries = |history: serde_json::Value| -> Vec<String> {
        let snapshot: Snapshot = serde_json::from_value(json!({
            "type": "fsm", "machine": "M", "fingerprint": "f", "current_state": "executing",
            "history": history
        }))
        .unwrap();
        snapshot.history().iter().map(|e| e.action().to_owned()).collect()
    };
    assert_eq!(
        entries(
            json!([{"seq": 0, "from": "idle", "to": "executing", "reason": "start_execution",
                        "timestamp": "2026-01-10T09:32:15Z"}])
        ),
        ["start_execution"]
    );
    assert_eq!(
        entries(
            json!([{"seq": 0, "from": "idle", "to": "executing", "action": "start",
                        "reason": "the user asked", "timestamp": "2026-01-10T09:32:15Z"}])
        ),
        ["start"]
    );

    assert_eq!(
        error(
            json!([{"seq": 0, "from": "idle", "to": "executing", "action": "start",
                      "timestamp": "yesterday"}])
        ),
        "`yesterday` is not an RFC 3339 timestamp like `2026-01-10T09:32:15Z`: \
         the year must have four digits"
    );
    assert_eq!(error(json!({"seq": 0})), "invalid type: map, expected a sequence");
    // Gaps are allowed (entries may have been dropped), as are extra fields.
    let mut with_extra = entry(9);
    with_extra["reason"] = json!("start");
    let snapshot: Snapshot = serde_json::from_value(json!({
        "type": "fsm", "machine": "Execution", "fingerprint": "f", "current_state": "idle",
        "history": [entry(2), with_extra],
    }))
    .unwrap();
    let seqs: Vec<u64> = snapshot.history().iter().map(HistoryEntry::seq).collect();
    assert_eq!(seqs, [2, 9]);
    let error = serde_json::from_str::<Snapshot>(
        r#"{"type": "fsm", "history": [], "history": [], "machine": "Execution"}"#,
    )
    .unwrap_err();
    assert!(
        error.to_string().starts_with("duplicate field `history`"),
        "{error}"
    );
}
