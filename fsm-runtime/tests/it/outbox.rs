//! The outbox of a `Recorded` machine: outputs pending under their keys
//! until acknowledged, carried by the snapshot (an empty outbox too), back
//! after a restore under the same keys, and refused when a snapshot's
//! outbox is wrong.

#![deny(warnings)]

use fsm_runtime::{
    FingerprintPolicy, History, ManualClock, OutputKey, Pending, Recorded, RestoreError, Snapshot,
};
use serde_json::json;
use std::time::{Duration, UNIX_EPOCH};

fsm_runtime::fsm!(file = "tests/delivery.fsm");

use delivery::{Action, Delivery, Output};

fn key(step: u64, index: u32) -> OutputKey {
    OutputKey::new(step, index)
}

fn pending<K: fsm_runtime::Clock>(run: &Recorded<Delivery<K>>) -> Vec<(String, Output)> {
    run.pending()
        .iter()
        .map(|p| (p.key.to_string(), p.output))
        .collect()
}

#[test]
fn outputs_wait_under_their_keys_until_acknowledged() {
    let mut run = Recorded::new(Delivery::new()).with_outbox();
    run.fire(Action::Skip).unwrap(); // step 0: no output
    run.fire(Action::Ready).unwrap(); // step 1
    run.fire(Action::Written).unwrap(); // step 2: two outputs
    assert_eq!(
        pending(&run),
        [
            ("1/0".to_owned(), Output::SpawnWriter),
            ("2/0".to_owned(), Output::Deliver),
            ("2/1".to_owned(), Output::Archive),
        ]
    );
    assert!(run.ack(key(2, 0)));
    assert!(!run.ack(key(2, 0)), "acknowledged already");
    assert!(!run.ack(key(7, 0)), "never emitted");
    assert_eq!(
        pending(&run),
        [
            ("1/0".to_owned(), Output::SpawnWriter),
            ("2/1".to_owned(), Output::Archive)
        ]
    );
    // A rejected action emits nothing and takes no step.
    assert!(run.fire(Action::Ready).is_err());
    assert_eq!(run.pending().len(), 2);
}

#[test]
fn without_an_outbox_nothing_is_kept_and_the_snapshot_is_unchanged() {
    let mut run = Recorded::new(Delivery::new());
    run.fire(Action::Ready).unwrap();
    assert!(run.pending().is_empty());
    assert!(!run.ack(key(0, 0)));
    let snapshot = serde_json::to_value(run.snapshot().unwrap()).unwrap();
    assert!(snapshot.get("pending").is_none(), "{snapshot}");
}

#[test]
fn the_snapshot_carries_the_outbox_and_a_restore_brings_it_back() {
    let mut run = Recorded::new(Delivery::new()).with_outbox();
    run.fire(Action::Ready).unwrap();
    run.fire(Action::Written).unwrap();
    run.ack(key(0, 0));
    let json = serde_json::to_value(run.snapshot().unwrap()).unwrap();
    assert_eq!(
        json["pending"],
        json!([
            {"step": 1, "index": 0, "output": "deliver"},
            {"step": 1, "index": 1, "output": "archive"},
        ])
    );

    let snapshot: Snapshot = serde_json::from_value(json).unwrap();
    let restored = Recorded::<Delivery>::restore(&snapshot).unwrap();
    assert_eq!(restored.pending(), run.pending());
    assert_eq!(
        snapshot.pending().unwrap().collect::<Vec<_>>(),
        [
            Pending {
                key: key(1, 0),
                output: "deliver"
            },
            Pending {
                key: key(1, 1),
                output: "archive"
            },
        ]
    );
}

#[test]
fn an_empty_outbox_is_kept_across_a_restore_and_keys_go_on() {
    let mut run = Recorded::new(Delivery::new()).with_outbox();
    run.fire(Action::Skip).unwrap();
    let json = serde_json::to_value(run.snapshot().unwrap()).unwrap();
    assert_eq!(json["pending"], json!([]));

    let mut restored = Recorded::<Delivery>::restore(&serde_json::from_value(json).unwrap()).unwrap();
    restored.fire(Action::Ready).unwrap();
    // Step 1: the history numbered step 0 before the restore.
    assert_eq!(pending(&restored), [("1/0".to_owned(), Output::SpawnWriter)]);
}

#[test]
fn a_timer_s_outputs_are_pending_too() {
    let clock = ManualClock::new(UNIX_EPOCH);
    let history = History::new().with_clock(clock.clone());
    let mut run = Recorded::with_history(Delivery::with_clock(clock.clone()), history).with_outbox();
    run.fire(Action::Ready).unwrap();
    run.ack(key(0, 0));
    clock.advance(Duration::from_secs(30));
    let fired = run.fire_next_due().unwrap().unwrap();
    assert_eq!(fired.outputs, [Output::NotifyTimeout]);
    assert_eq!(pending(&run), [("1/0".to_owned(), Output::NotifyTimeout)]);
    assert_eq!(run.history().last().unwrap().action(), "after 30s");
}

/// A snapshot of `Delivery` with `pending`, after a history of two steps.
fn snapshot_with(pending: serde_json::Value) -> serde_json::Value {
    let mut run = Recorded::new(Delivery::new()).with_outbox();
    run.fire(Action::Skip).unwrap();
    run.fire(Action::Ready).unwrap();
    let mut json = serde_json::to_value(run.snapshot().unwrap()).unwrap();
    json["pending"] = pending;
    json
}

fn restore(json: serde_json::Value) -> Result<Recorded<Delivery>, String> {
    let snapshot: Snapshot = serde_json::from_value(json).map_err(|e| format!("parse: {e}"))?;
    Recorded::<Delivery>::restore_with(&snapshot, FingerprintPolicy::Strict, History::new())
        .map_err(|e| format!("restore: {e}"))
}

#[test]
fn a_wrong_outbox_is_refused_naming_the_entry() {
    let cases = [
        (
            json!([{"step": 1, "index": 0, "output": "deliverr"}]),
            "restore: the snapshot of machine `Delivery` holds `pending[0]` in its outbox, \
             but `deliverr` is not an output of the machine",
        ),
        (
            json!([{"step": 2, "index": 0, "output": "deliver"}]),
            "restore: the snapshot of machine `Delivery` holds `pending[0]` in its outbox, \
             but its step 2 is after the history's last, 1",
        ),
        (
            json!([{"step": 1, "index": 1, "output": "deliver"}, {"step": 1, "index": 0, "output": "archive"}]),
            "parse: `pending[1]` has key 1/0, which does not come after `pending[0]`'s, 1/1",
        ),
        (
            json!([{"step": 1, "index": 0, "outptu": "deliver"}]),
            "parse: unknown field `outptu` in `pending[0]`, expected `step`, `index` or `output`",
        ),
        (
            json!([{"step": 1, "output": "deliver"}]),
            "parse: missing field `index`",
        ),
    ];
    for (pending, expected) in cases {
        let error = restore(snapshot_with(pending.clone())).map(|_| ()).unwrap_err();
        assert_eq!(error, expected, "{pending}");
    }
    // A snapshot without a history cannot hold pending outputs: a new step
    // would reuse their keys.
    let mut json = snapshot_with(json!([{"step": 0, "index": 0, "output": "deliver"}]));
    json.as_object_mut().unwrap().remove("history");
    let snapshot: Snapshot = serde_json::from_value(json).unwrap();
    assert!(matches!(
        Recorded::<Delivery>::restore(&snapshot),
        Err(RestoreError::InvalidPending { index: 0, .. })
    ));
}

#[test]
fn keys_display_as_step_slash_index() {
    assert_eq!(key(12, 3).to_string(), "12/3");
    assert_eq!(format!("order-17/{}", key(0, 1)), "order-17/0/1");
    assert!(key(1, 9) < key(2, 0));
}

#[test]
fn shared_keeps_the_outbox_of_the_recorded_machine_it_is_made_from() {
    let mut run = Recorded::new(Delivery::new()).with_outbox();
    run.fire(Action::Ready).unwrap();
    let shared = fsm_runtime::Shared::from(run);
    shared.fire(Action::Written).unwrap();
    let keys: Vec<String> = shared.pending().iter().map(|p| p.key.to_string()).collect();
    assert_eq!(keys, ["0/0", "1/0", "1/1"]);
    assert!(shared.ack(key(0, 0)));
    let json = serde_json::to_value(shared.snapshot().unwrap()).unwrap();
    assert_eq!(json["pending"].as_array().unwrap().len(), 2);
    let back = shared.into_recorded();
    assert_eq!(back.pending().len(), 2);

    // A shared machine recording no history gets one for its keys.
    let shared = fsm_runtime::Shared::new(Delivery::new()).with_outbox();
    shared.fire(Action::Ready).unwrap();
    assert_eq!(shared.pending()[0].key, key(0, 0));
}
