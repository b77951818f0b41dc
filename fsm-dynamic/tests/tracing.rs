//! With the `tracing` feature the dynamic engine logs what generated code
//! logs, with the same fields: every transition and every rejection.

use fsm_dynamic::{Definition, Engine};
use serde_json::Value;
// fsm-runtime's recording subscriber: the engine logs as generated code does.
#[path = "../../fsm-runtime/tests/support/recorder.rs"]
mod recorder;
use recorder::Recorder;

#[test]
fn transitions_and_rejections_are_logged() {
    let definition = Definition::from_fsm(
        "machine Door {
            initial state closed { on open -> opened; on lock [has_key] -> locked emit engage_bolt; }
            state opened { on close -> closed; }
            state locked { on unlock -> closed; }
        }",
    )
    .unwrap();
    let engine = Engine::builder(definition)
        .guard("has_key", |_| true)
        .build()
        .unwrap();
    let recorder = Recorder::default();
    tracing::subscriber::with_default(recorder.clone(), || {
        engine.fire("lock", &Value::Null).unwrap();
        engine.fire("open", &Value::Null).unwrap_err();
        engine.fire("opne", &Value::Null).unwrap_err();
        // `can_fire` only looks; it logs nothing.
        assert!(engine.can_fire("unlock", &Value::Null));
    });
    let events = recorder.events.lock().unwrap();
    assert_eq!(
        *events,
        [
            vec!["message=transition", "machine=Door", "from=closed", "action=lock", "to=locked", "outputs=1"],
            vec![
                "message=rejected",
                "machine=Door",
                "state=locked",
                "action=open",
                "error=action `open` is not valid in state `locked`; valid actions: `unlock`"
            ],
            vec![
                "message=rejected",
                "machine=Door",
                "action=opne",
                "error=unknown action `opne` in machine `Door`; expected one of `open`, `lock`, `close`, `unlock` \
                 (did you mean `open`?)"
            ],
        ]
    );
}
