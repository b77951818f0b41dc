//! A `tracing` subscriber that records every event's fields, checking that
//! each is logged at `DEBUG` with target `fsm_runtime`: the tracing tests of
//! fsm-runtime and fsm-dynamic both use it (generated code and the engine
//! log alike). Include it with `#[path = "support/recorder.rs"] mod recorder;`.

use std::fmt;
use std::sync::{Arc, Mutex};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Every event as `name=value` pairs, in field order.
#[derive(Clone, Default)]
pub struct Recorder {
    pub events: Arc<Mutex<Vec<Vec<String>>>>,
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
