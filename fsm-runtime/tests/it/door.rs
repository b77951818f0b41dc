//! The door of the README: firing, error texts, names, snapshots and restore.

#![deny(warnings, missing_docs, rust_2018_idioms, unreachable_pub)]

include!("../generated/door.rs");

use door::{Action, Door, Output, State};
use fsm_runtime::{FingerprintPolicy, FireError, Machine, RestoreError, Snapshot, Symbol};

struct Key(bool);

impl door::Guards for Key {
    fn has_key(&self) -> bool {
        self.0
    }
}

#[test]
fn fires_and_reports_the_transition() {
    let mut door = Door::new();
    assert_eq!(door.state(), State::Closed);
    let fired = door.fire(Action::Open, &Key(false)).unwrap();
    assert_eq!(
        (fired.from, fired.to, fired.action),
        (State::Closed, State::Opened, Action::Open)
    );
    assert!(fired.outputs.is_empty());
    assert_eq!(door.state(), State::Opened);
    assert_eq!(fired.to_string(), "`closed` --open--> `opened`");

    door.fire(Action::Close, &Key(false)).unwrap();
    let fired = door.fire(Action::Lock, &Key(true)).unwrap();
    assert_eq!(fired.outputs, [Output::EngageBolt]);
    assert_eq!(
        fired.to_string(),
        "`closed` --lock--> `locked` (emit `engage_bolt`)"
    );
    assert_eq!(door.state(), State::Locked);
}

#[test]
fn invalid_transition_lists_the_valid_actions() {
    let mut door = Door::new();
    let error = door.fire(Action::Close, &Key(true)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `close` is not valid in state `closed`; valid actions: `open`, `lock`"
    );
    let FireError::InvalidTransition(invalid) = error else {
        panic!("expected InvalidTransition, got {error:?}");
    };
    assert_eq!(invalid.state(), State::Closed);
    assert_eq!(invalid.action(), Action::Close);
    assert_eq!(invalid.valid(), [Action::Open, Action::Lock]);
    assert!(!invalid.terminal());
    assert_eq!(
        door.state(),
        State::Closed,
        "a failed fire leaves the state alone"
    );
}

#[test]
fn guard_rejection_names_the_guard() {
    let mut door = Door::new();
    let error = door.fire(Action::Lock, &Key(false)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `lock` rejected in state `closed`: guard `has_key` was false (-> locked)"
    );
    let FireError::GuardRejected(rejected) = error else {
        panic!("expected GuardRejected, got {error:?}");
    };
    assert_eq!(rejected.candidates().len(), 1);
    assert_eq!(rejected.candidates()[0].guard(), "has_key");
    assert_eq!(rejected.candidates()[0].target(), Some("locked"));
    assert_eq!((error.state(), error.action()), (State::Closed, Action::Lock));
    assert_eq!(door.state(), State::Closed);
}

#[test]
fn errors_are_std_errors() {
    let fire_error = Door::new().fire(Action::Unlock, &Key(true)).unwrap_err();
    let error: Box<dyn std::error::Error> = Box::new(fire_error);
    // A `FireError` displays as the error it holds, so it does not report
    // that error again as its source: a chain (anyhow's `{:#}`) would print
    // the message twice.
    assert!(error.source().is_none());
    let mut chain = vec![error.to_string()];
    let mut source = error.source();
    while let Some(inner) = source {
        chain.push(inner.to_string());
        source = inner.source();
    }
    assert_eq!(
        chain,
        ["action `unlock` is not valid in state `closed`; valid actions: `open`, `lock`"]
    );
    // The specific error is the variant's.
    let FireError::InvalidTransition(invalid) = fire_error else {
        panic!("expected InvalidTransition, got {fire_error:?}");
    };
    assert_eq!(invalid.to_string(), fire_error.to_string());
    assert_eq!(invalid.valid(), [Action::Open, Action::Lock]);
}

#[test]
fn can_fire_and_valid_actions_change_nothing() {
    let door = Door::new();
    assert!(door.can_fire(Action::Open, &Key(false)));
    assert!(door.can_fire(Action::Lock, &Key(true)));
    assert!(!door.can_fire(Action::Lock, &Key(false)));
    assert!(!door.can_fire(Action::Unlock, &Key(true)));
    assert_eq!(door.valid_actions(), [Action::Open, Action::Lock]);
    assert_eq!(Door::from_state(State::Locked).valid_actions(), [Action::Unlock]);
    assert!(!door.is_terminal());
    assert_eq!(door.state(), State::Closed);
    let preview = Door::transition(State::Closed, Action::Lock, &Key(true)).unwrap();
    assert_eq!(preview.to, State::Locked);
}

#[test]
fn symbols_carry_their_dsl_names() {
    assert_eq!(State::ALL, [State::Closed, State::Opened, State::Locked]);
    assert_eq!(Action::ALL.len(), 4);
    assert_eq!(Output::ALL, [Output::EngageBolt, Output::ReleaseBolt]);
    assert_eq!(Output::EngageBolt.name(), "engage_bolt");
    assert_eq!(Output::EngageBolt.to_string(), "engage_bolt");
    assert_eq!("release_bolt".parse::<Output>(), Ok(Output::ReleaseBolt));
    assert_eq!(<State as Symbol>::NAMES, ["closed", "opened", "locked"]);
    assert_eq!(<Action as Symbol>::from_name("unlock"), Some(Action::Unlock));
    assert_eq!(<Action as Symbol>::from_name("Unlock"), None);
}

#[test]
fn parsing_an_unknown_name_says_what_exists() {
    let error = "ajar".parse::<State>().unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown state `ajar` in machine `Door`; expected one of `closed`, `opened`, `locked`"
    );
    assert_eq!(error.input(), "ajar");
    assert_eq!(error.machine(), "Door");
}

#[test]
fn machine_trait_constants() {
    assert_eq!(Door::NAME, "Door");
    assert_eq!(Door::FINGERPRINT.len(), 16);
    assert!(Door::FINGERPRINT.chars().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(Door::INITIAL, State::Closed);
    assert_eq!(Door::new(), Door::default());
}

#[test]
fn snapshot_serializes_to_the_documented_json() {
    let door = Door::from_state(State::Opened);
    let json = serde_json::to_value(door.snapshot()).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "type": "fsm",
            "machine": "Door",
            "fingerprint": Door::FINGERPRINT,
            "current_state": "opened",
        })
    );
    let text = serde_json::to_string(&door.snapshot()).unwrap();
    assert!(
        text.starts_with(r#"{"type":"fsm","machine":"Door","fingerprint":""#),
        "{text}"
    );
}

#[test]
fn snapshot_round_trips() {
    let door = Door::from_state(State::Locked);
    let text = serde_json::to_string(&door.snapshot()).unwrap();
    let snapshot: Snapshot = serde_json::from_str(&text).unwrap();
    assert_eq!(snapshot, door.snapshot());
    assert_eq!(Door::restore(&snapshot), Ok(door));
}

#[test]
fn snapshot_json_errors_are_clear() {
    let error = |json: &str| without_position(serde_json::from_str::<Snapshot>(json).unwrap_err());
    assert_eq!(
        error(r#"{"type": "graph", "machine": "Door", "fingerprint": "x", "current_state": "opened"}"#),
        "not an fsm snapshot: `type` is `graph`, expected `fsm`"
    );
    assert_eq!(
        error(r#"{"type": "fsm", "fingerprint": "x", "current_state": "opened"}"#),
        "missing field `machine`"
    );
    assert_eq!(
        error(r#"{"type": "fsm", "type": "fsm"}"#),
        "duplicate field `type`"
    );
    assert_eq!(error(r#"{"machine": "Door"}"#), "missing field `type`");
    // Every key of a snapshot is fsmc's: a store keeps its own data beside
    // the snapshot, not in it.
    assert_eq!(
        error(
            r#"{"type": "fsm", "machine": "Door", "fingerprint": "f", "current_state": "opened", "saved_at": 3}"#
        ),
        "unknown field `saved_at` in the snapshot, expected `type`, `machine`, `fingerprint`, \
         `current_state`, `configuration`, `context`, `timers`, `last_active`, `history` or `pending`"
    );
}

#[test]
fn restoring_another_machine_fails() {
    let snapshot = Snapshot::new("Window", Door::FINGERPRINT, "opened");
    let error = Door::restore(&snapshot).unwrap_err();
    assert_eq!(
        error,
        RestoreError::OtherMachine {
            expected: "Door".into(),
            found: "Window".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "the snapshot is of machine `Window`, not `Door`"
    );
}

#[test]
fn restoring_an_unknown_state_fails() {
    let snapshot = Snapshot::new("Door", Door::FINGERPRINT, "ajar");
    let error = Door::restore(&snapshot).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the snapshot's state `ajar` does not exist in machine `Door`; its states are `closed`, `opened`, `locked`"
    );
    assert!(matches!(error, RestoreError::UnknownState { .. }));
    // Also when the fingerprint is ignored.
    let snapshot = Snapshot::new("Door", "0000000000000000", "ajar");
    let error = Door::restore_with(&snapshot, FingerprintPolicy::Ignore).unwrap_err();
    assert!(matches!(error, RestoreError::UnknownState { .. }), "{error:?}");
}

#[test]
fn a_changed_definition_is_the_users_call() {
    let snapshot = Snapshot::new("Door", "0123456789abcdef", "locked");
    let error = Door::restore(&snapshot).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "the snapshot of machine `Door` was taken from a different definition (fingerprint \
             0123456789abcdef, this build has {}); restore it with `FingerprintPolicy::Ignore` to accept it",
            Door::FINGERPRINT
        )
    );
    assert_eq!(FingerprintPolicy::default(), FingerprintPolicy::Strict);
    assert_eq!(
        Door::restore_with(&snapshot, FingerprintPolicy::Strict),
        Err(error)
    );
    let door = Door::restore_with(&snapshot, FingerprintPolicy::Ignore).unwrap();
    assert_eq!(door.state(), State::Locked);
}

#[test]
fn symbols_serialize_as_their_names() {
    assert_eq!(
        serde_json::to_string(&Output::EngageBolt).unwrap(),
        r#""engage_bolt""#
    );
    assert_eq!(
        serde_json::from_str::<State>(r#""opened""#).unwrap(),
        State::Opened
    );
    let error = serde_json::from_str::<Action>(r#""kick""#).unwrap_err();
    assert_eq!(
        without_position(error),
        "unknown action `kick` in machine `Door`; expected one of `open`, `lock`, `close`, `unlock`"
    );
    let error = serde_json::from_str::<Action>("3").unwrap_err();
    assert_eq!(
        without_position(error),
        "invalid type: integer `3`, expected the name of one of the actions of machine `Door`"
    );
}

/// serde_json's message without its ` at line L column C` suffix.
fn without_position(error: serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}
