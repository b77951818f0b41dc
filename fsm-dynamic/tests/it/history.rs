//! The dynamic engine and `fsm-runtime`'s histories: an engine's transitions
//! recorded by name and restored into the generated machine, and the
//! numbering limit of a restored history, refused as generated code refuses
//! it. (fsm-runtime's `tests/it/history.rs` holds the rest of the history tests.)

use fsm_dynamic::{Definition, Engine};
use fsm_runtime::{FingerprintPolicy, History, Machine, Recorded, RestoreError, Snapshot};
use serde_json::json;

fsm_runtime::fsm!(file = "../fsm-runtime/tests/support/execution.fsm");

// fsm-runtime's history tests' clock and rows, one file for both crates.
#[path = "../../../fsm-runtime/tests/support/ticking.rs"]
mod ticking;
use ticking::{steps, ticking_clock};

use execution::{Execution, State};

/// `Execution` as a dynamic definition.
fn execution_definition() -> Definition {
    Definition::from_fsm(include_str!("../../../fsm-runtime/tests/support/execution.fsm")).unwrap()
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
fn a_history_records_transitions_of_a_dynamic_engine() {
    let definition = Definition::from_fsm(
        "machine Execution {
            initial state idle { on start -> executing; }
            state executing { on success -> completed; }
            terminal state completed;
        }",
    )
    .unwrap();
    let engine = Engine::new(definition).unwrap();
    let mut history = History::new().with_clock(ticking_clock().0);
    for action in ["start", "success"] {
        let fired = engine.fire(action, &json!({})).unwrap();
        let (from, action, to) = (fired.from_name(), fired.action_name(), fired.to_name());
        history.record_names(from.to_owned(), action.to_owned(), to.to_owned());
    }
    let snapshot = engine.snapshot().with_history(&history);
    // The same snapshot restores into the generated machine, history and all.
    let run =
        Recorded::<Execution>::restore_with(&snapshot, FingerprintPolicy::Ignore, History::new()).unwrap();
    assert_eq!(run.state(), State::Completed);
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
            (
                1,
                "2026-01-10T09:32:16.000Z".to_owned(),
                "executing",
                "success",
                "completed"
            ),
        ]
    );
}

#[test]
fn an_engine_refuses_a_history_too_close_to_the_top_of_u64() {
    for seq in [u64::MAX, u64::MAX - 1, History::MAX_RESUMED_SEQ + 1] {
        let snapshot = snapshot_ending_at(seq);
        let expected = RestoreError::SeqOutOfRange {
            machine: "Execution".to_owned(),
            seq,
            max: History::MAX_RESUMED_SEQ,
        };
        assert_eq!(Recorded::<Execution>::restore(&snapshot).unwrap_err(), expected);

        // A dynamic engine that records a history refuses it, unchanged.
        let ignore = FingerprintPolicy::Ignore;
        let engine = Engine::builder(execution_definition())
            .history(History::new())
            .build()
            .unwrap();
        engine.fire("start", &json!({})).unwrap();
        engine.fire("success", &json!({})).unwrap();
        let before = engine.snapshot();
        assert_eq!(engine.restore_with(&snapshot, ignore).unwrap_err(), expected);
        assert_eq!(engine.snapshot(), before);
        // One without a history ignores the entries, as the plain machine does.
        let plain = Engine::new(execution_definition()).unwrap();
        assert_eq!(plain.state_name(), "idle");
        plain.restore_with(&snapshot, ignore).unwrap();
        assert_eq!(plain.state_name(), "executing");
        assert_eq!(Execution::restore(&snapshot).unwrap().state(), State::Executing);
    }
}
