//! With the `tracing` feature the dynamic engine logs what generated code
//! logs, with the same fields: every transition and every rejection.

use fsm_dynamic::{Definition, Engine};
use serde_json::Value;
use std::fmt;
use std::sync::{Arc, Mutex};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Every event as `name=value` pairs, in field order.
#[derive(Clone, Default)]
struct Recorder {
    events: Arc<Mutex<Vec<Vec<String>>>>,
}

struct Fields<'a>(&'a mut Vec<String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push(format!("{}={value}", field.name()));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.push(format!("{}={value:?}", field.name()));
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        assert_eq!(event.metadata().target(), "fsm_runtime");
        assert_eq!(*event.metadata().level(), tracing::Level::DEBUG);
        let mut fields = Vec::new();
        event.record(&mut Fields(&mut fields));
        self.events.lock().unwrap().push(fields);
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

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
