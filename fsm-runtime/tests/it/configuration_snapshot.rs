//! Snapshots of machines with parallel states: `"configuration"` in place
//! of `"current_state"`, history memory of several leaves, and the strict
//! reading of both.

use fsm_runtime::Snapshot;
use serde_json::json;

fn read(value: serde_json::Value) -> Result<Snapshot, String> {
    serde_json::from_value(value).map_err(|e| e.to_string())
}

#[test]
fn a_configuration_and_a_memory_of_several_leaves_round_trip_exactly() {
    let snapshot = Snapshot::of_configuration("Player", "0123456789abcdef", ["playing", "muted"])
        .with_last_leaves([("loaded", vec!["paused", "muted"]), ("playback", vec!["paused"])]);
    let value = serde_json::to_value(&snapshot).unwrap();
    assert_eq!(
        value,
        json!({
            "type": "fsm",
            "machine": "Player",
            "fingerprint": "0123456789abcdef",
            "configuration": ["playing", "muted"],
            "last_active": {"loaded": ["paused", "muted"], "playback": "paused"}
        })
    );
    let back = read(value).unwrap();
    assert_eq!(back, snapshot);
    assert_eq!(back.leaves(), ["playing", "muted"]);
    assert_eq!(back.configuration().map(<[_]>::len), Some(2));
    // It names no one state.
    assert_eq!(back.current_state(), "");
    let memory: Vec<(&str, usize)> = back.last_leaves().map(|(s, l)| (s, l.len())).collect();
    assert_eq!(memory, [("loaded", 2), ("playback", 1)]);
    assert_eq!(back.last_active().len(), 3);
}

#[test]
fn one_active_leaf_is_still_a_configuration() {
    let snapshot = Snapshot::of_configuration("Player", "0123456789abcdef", ["empty"]);
    let value = serde_json::to_value(&snapshot).unwrap();
    assert_eq!(value["configuration"], json!(["empty"]));
    assert_eq!(value.get("current_state"), None);
    let back = read(value).unwrap();
    assert_eq!(back.current_state(), "empty");
    assert_eq!(back, snapshot);
}

#[test]
fn a_machine_without_parallel_states_writes_what_it_always_wrote() {
    let snapshot =
        Snapshot::new("Call", "0123456789abcdef", "paused").with_last_active([("connected", "on_hold")]);
    assert_eq!(
        serde_json::to_string(&snapshot).unwrap(),
        r#"{"type":"fsm","machine":"Call","fingerprint":"0123456789abcdef","current_state":"paused","last_active":{"connected":"on_hold"}}"#
    );
    assert_eq!(snapshot.configuration(), None);
    assert_eq!(snapshot.leaves(), ["paused"]);
}

#[test]
fn reading_refuses_what_is_not_a_configuration_with_the_key_named() {
    let base = json!({"type": "fsm", "machine": "M", "fingerprint": "0123456789abcdef"});
    let with = |key: &str, value: serde_json::Value| {
        let mut v = base.clone();
        v[key] = value;
        v
    };
    let mut both = with("current_state", json!("a"));
    both["configuration"] = json!(["a"]);
    assert!(read(both).unwrap_err().contains("not both"));
    assert!(read(base.clone())
        .unwrap_err()
        .contains("missing field `current_state` (or `configuration`"));
    assert!(read(with("configuration", json!([])))
        .unwrap_err()
        .contains("`configuration` is empty"));
    assert_eq!(
        read(with("configuration", json!(["a1", "b1", "a1"]))).unwrap_err(),
        "`configuration[2]` names `a1` again, as `configuration[0]` does"
    );
    let mut empty_memory = with("configuration", json!(["a1", "b1"]));
    empty_memory["last_active"] = json!({"p": []});
    assert!(read(empty_memory)
        .unwrap_err()
        .contains("remembers no leaf for `p`"));
    let text =
        r#"{"type":"fsm","machine":"M","fingerprint":"0","configuration":["a"],"configuration":["b"]}"#;
    assert!(serde_json::from_str::<Snapshot>(text)
        .unwrap_err()
        .to_string()
        .contains("duplicate field `configuration`"));
}
