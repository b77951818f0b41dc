//! Snapshots move between generated machines and dynamic engines for the
//! same source, in both directions, with the same errors.

use fsm_dynamic::{Definition, Engine, RestoreError};
use fsm_runtime::{FingerprintPolicy, Machine, Snapshot};
use serde_json::Value;

const DOOR: &str = "machine Door {
    initial state closed {
        on open -> opened;
        on lock -> locked;
    }
    state opened {
        on close -> closed;
    }
    state locked {
        on unlock -> closed;
    }
}";

fsm_runtime::fsm! {
    machine Door {
        initial state closed {
            on open -> opened;
            on lock -> locked;
        }
        state opened {
            on close -> closed;
        }
        state locked {
            on unlock -> closed;
        }
    }
}

fn engine() -> Engine {
    Engine::new(Definition::from_fsm(DOOR).unwrap()).unwrap()
}

#[test]
fn a_generated_snapshot_restores_into_the_engine() {
    let mut generated = door::Door::new();
    generated.fire(door::Action::Lock).unwrap();
    let snapshot = generated.snapshot();

    let engine = engine();
    assert_eq!(
        engine.restore(&snapshot).unwrap(),
        engine.definition().state_id("locked").unwrap()
    );
    assert_eq!(engine.state_name(), "locked");
    assert_eq!(engine.snapshot(), snapshot);
    engine.fire("unlock", &Value::Null).unwrap();
    assert_eq!(engine.state_name(), "closed");
}

#[test]
fn an_engine_snapshot_restores_into_generated_code() {
    let engine = engine();
    engine.fire("open", &Value::Null).unwrap();
    let snapshot = engine.snapshot();
    assert_eq!(snapshot.machine(), door::Door::NAME);
    assert_eq!(snapshot.fingerprint(), door::Door::FINGERPRINT);

    let json = serde_json::to_string(&snapshot).unwrap();
    assert_eq!(
        json,
        format!(
            r#"{{"type":"fsm","machine":"Door","fingerprint":"{}","current_state":"opened"}}"#,
            door::Door::FINGERPRINT
        )
    );
    let stored: Snapshot = serde_json::from_str(&json).unwrap();
    let generated = door::Door::restore(&stored).unwrap();
    assert_eq!(generated.state(), door::State::Opened);
    assert_eq!(generated.snapshot(), snapshot);
}

#[test]
fn restore_errors_match_generated_code() {
    let changed = Definition::from_fsm(&DOOR.replace(
        "on close -> closed;",
        "on close -> closed;\n        on slam -> closed;",
    ))
    .unwrap();
    let engine = engine();
    let cases = [
        Snapshot::new("Window", door::Door::FINGERPRINT, "closed"),
        changed.snapshot_in(changed.initial()),
        Snapshot::new("Door", door::Door::FINGERPRINT, "ajar"),
    ];
    for snapshot in &cases {
        let generated = door::Door::restore(snapshot).unwrap_err();
        let dynamic = engine.restore(snapshot).unwrap_err();
        assert_eq!(dynamic.to_string(), generated.to_string());
        assert_eq!(dynamic, generated);
        assert_eq!(engine.state_name(), "closed", "an error changes nothing");
    }
    assert!(matches!(
        engine.restore(&cases[1]).unwrap_err(),
        RestoreError::FingerprintMismatch { .. }
    ));

    // Ignoring the fingerprint accepts a state that still exists, as generated code does.
    let state = engine.restore_with(&cases[1], FingerprintPolicy::Ignore).unwrap();
    assert_eq!(engine.definition().state_name(state), "closed");
    let generated = door::Door::restore_with(&cases[1], FingerprintPolicy::Ignore).unwrap();
    assert_eq!(generated.state(), door::State::Closed);
}

#[test]
fn restoring_is_not_a_transition() {
    let engine = engine();
    engine.fire("open", &Value::Null).unwrap();
    engine.restore(&door::Door::new().snapshot()).unwrap();
    assert_eq!(engine.fired_count(), 1);
    assert_eq!(engine.fire("lock", &Value::Null).unwrap().seq, 1);
}
