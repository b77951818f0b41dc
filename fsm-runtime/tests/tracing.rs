//! The `tracing` feature logs every transition and every rejection with the
//! machine, the states and the action. A minimal subscriber records the
//! events' fields.

#![deny(warnings)]

include!("generated/door.rs");

use door::{Action, Door};
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

struct Key;

impl door::Guards for Key {
    fn has_key(&self) -> bool {
        true
    }
}

#[test]
fn transitions_and_rejections_are_logged() {
    let recorder = Recorder::default();
    tracing::subscriber::with_default(recorder.clone(), || {
        let mut door = Door::new();
        door.fire(Action::Lock, &Key).unwrap();
        door.fire(Action::Open, &Key).unwrap_err();
        // `can_fire` and `transition` only look; they log nothing.
        assert!(door.can_fire(Action::Unlock, &Key));
        Door::transition(door.state(), Action::Unlock, &Key).unwrap();
    });
    let events = recorder.events.lock().unwrap();
    assert_eq!(
        *events,
        [
            vec![
                "message=transition",
                "machine=Door",
                "from=closed",
                "action=lock",
                "to=locked",
                "outputs=1"
            ],
            vec![
                "message=rejected",
                "machine=Door",
                "state=locked",
                "action=open",
                "error=action `open` is not valid in state `locked`; valid actions: `unlock`"
            ],
        ]
    );
}
