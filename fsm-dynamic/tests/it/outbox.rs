//! The engine's outbox: outputs pending under the keys generated code's
//! `Recorded::with_outbox` gives them, acknowledged one by one, carried by
//! the snapshot, and restored across the two engines.

use fsm_dynamic::{Definition, Engine};
use fsm_runtime::{History, ManualClock, OutputKey, Recorded, RestoreError, Snapshot};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

/// The machine of fsm-runtime's outbox test, for both engines.
const DELIVERY: &str = include_str!("../../../fsm-runtime/tests/delivery.fsm");

fsm_runtime::fsm!(file = "../fsm-runtime/tests/delivery.fsm");

fn definition() -> Arc<Definition> {
    Arc::new(Definition::from_fsm(DELIVERY).unwrap())
}

/// The engine's pending outputs as `step/index output`.
fn pending(engine: &Engine) -> Vec<String> {
    let definition = definition();
    engine
        .pending()
        .iter()
        .map(|p| format!("{} {}", p.key, definition.output_name(p.output)))
        .collect()
}

#[test]
fn the_engine_keeps_outputs_pending_until_acknowledged() {
    let clock = ManualClock::new(UNIX_EPOCH);
    let engine = Engine::builder(definition())
        .clock(clock.clone())
        .outbox()
        .build()
        .unwrap();
    engine.fire("skip", &Value::Null).unwrap();
    engine.fire("ready", &Value::Null).unwrap();
    clock.advance(Duration::from_secs(30));
    assert_eq!(engine.fire_due().len(), 1);
    engine.fire("ready", &Value::Null).unwrap();
    engine.fire("written", &Value::Null).unwrap();
    assert_eq!(
        pending(&engine),
        [
            "1/0 spawn_writer",
            "2/0 notify_timeout",
            "3/0 spawn_writer",
            "4/0 deliver",
            "4/1 archive"
        ]
    );
    assert!(engine.ack(OutputKey::new(2, 0)));
    assert!(!engine.ack(OutputKey::new(2, 0)));
    assert_eq!(pending(&engine).len(), 4);

    // Without a history of its own, the engine keeps the last entry: enough
    // for the snapshot to go on numbering after a restore.
    let snapshot = serde_json::to_value(engine.snapshot()).unwrap();
    assert_eq!(snapshot["history"].as_array().unwrap().len(), 1);
    // Timed by the engine's clock, not the system's.
    assert_eq!(snapshot["history"][0]["timestamp"], "1970-01-01T00:00:30.000Z");
    assert_eq!(snapshot["pending"].as_array().unwrap().len(), 4);
}

#[test]
fn generated_code_and_the_engine_give_the_same_outbox_and_restore_each_other_s() {
    let mut generated = Recorded::new(delivery::Delivery::new()).with_outbox();
    let engine = Engine::builder(definition())
        .history(History::new())
        .outbox()
        .build()
        .unwrap();
    for action in [
        delivery::Action::Skip,
        delivery::Action::Ready,
        delivery::Action::Written,
    ] {
        generated.fire(action).unwrap();
        engine
            .fire(fsm_runtime::Symbol::name(action), &Value::Null)
            .unwrap();
    }
    generated.ack(OutputKey::new(2, 1));
    engine.ack(OutputKey::new(2, 1));
    let from_generated = serde_json::to_value(generated.snapshot().unwrap()).unwrap();
    let from_engine = serde_json::to_value(engine.snapshot()).unwrap();
    assert_eq!(from_generated["pending"], from_engine["pending"]);
    assert_eq!(
        from_engine["pending"],
        json!([
            {"step": 1, "index": 0, "output": "spawn_writer"},
            {"step": 2, "index": 0, "output": "deliver"},
        ])
    );

    // An engine built without an outbox takes one from the snapshot: what it
    // holds is not dropped.
    let plain = Engine::new(definition()).unwrap();
    plain
        .restore(&serde_json::from_value(from_generated).unwrap())
        .unwrap();
    assert_eq!(pending(&plain), ["1/0 spawn_writer", "2/0 deliver"]);
    let restored = Recorded::<delivery::Delivery>::restore(&engine.snapshot()).unwrap();
    assert_eq!(restored.pending(), generated.pending());
}

#[test]
fn a_wrong_outbox_leaves_the_engine_unchanged() {
    let engine = Engine::builder(definition()).outbox().build().unwrap();
    engine.fire("ready", &Value::Null).unwrap();
    let mut json = serde_json::to_value(engine.snapshot()).unwrap();
    json["current_state"] = json!("waiting");
    json.as_object_mut().unwrap().remove("timers");
    json["pending"] = json!([{"step": 0, "index": 0, "output": "deliverr"}]);
    let snapshot: Snapshot = serde_json::from_value(json).unwrap();
    let error = engine.restore(&snapshot).unwrap_err();
    assert!(
        matches!(error, RestoreError::InvalidPending { index: 0, .. }),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        "the snapshot of machine `Delivery` holds `pending[0]` in its outbox, \
         but `deliverr` is not an output of the machine"
    );
    assert_eq!(pending(&engine), ["0/0 spawn_writer"]);
    assert_eq!(engine.definition().state_name(engine.state()), "writing");
}
