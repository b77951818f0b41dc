//! One step of an observed machine, and the JSON lines the observer sends.

use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::string::{String, ToString};
use std::vec::Vec;

/// What a step was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepKind {
    /// An action fired.
    Fired,
    /// An action was refused: no transition, or no guard held. The machine
    /// did not move.
    Rejected,
    /// A timer fired.
    Timer,
    /// Timers came due and none of their guards held; the machine did not
    /// move.
    TimerRejected,
}

impl StepKind {
    /// The name the protocol gives it.
    pub fn name(self) -> &'static str {
        match self {
            StepKind::Fired => "fired",
            StepKind::Rejected => "rejected",
            StepKind::Timer => "timer",
            StepKind::TimerRejected => "timer_rejected",
        }
    }
}

/// One step of a machine, as the inspector shows it: what
/// [`Probe::report`](super::Probe::report) takes. [`Observed`](super::Observed)
/// and the dynamic engine's `ObservedEngine` build them; another engine can
/// too.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// What it was.
    pub kind: StepKind,
    /// The action's name, or for a timer its label (`after 30s`).
    pub action: Cow<'static, str>,
    /// The active leaves before the step (one without parallel states).
    pub from: Vec<Cow<'static, str>>,
    /// The active leaves after it: `from` when it was refused.
    pub to: Vec<Cow<'static, str>>,
    /// The outputs it emitted, in order.
    pub outputs: Vec<Cow<'static, str>>,
    /// True for an internal transition (no target).
    pub internal: bool,
    /// For a timer, the state whose `after` it is.
    pub declared_in: Option<Cow<'static, str>>,
    /// Why it was refused.
    pub error: Option<String>,
    /// The event's payload, as the event sanitizer gave it.
    pub payload: Option<Value>,
    /// The context after the step, as the context sanitizer gave it.
    pub context: Option<Value>,
}

impl Step {
    /// A step of `kind` by `action`, from `from` to `to`, with nothing else.
    pub fn new(
        kind: StepKind,
        action: impl Into<Cow<'static, str>>,
        from: Vec<Cow<'static, str>>,
        to: Vec<Cow<'static, str>>,
    ) -> Step {
        Step {
            kind,
            action: action.into(),
            from,
            to,
            outputs: Vec::new(),
            internal: false,
            declared_in: None,
            error: None,
            payload: None,
            context: None,
        }
    }
}

/// What identifies an instance on every line.
pub(crate) struct Stamp<'a> {
    pub machine: &'a str,
    pub instance: &'a str,
    pub fingerprint: &'a str,
}

impl Stamp<'_> {
    fn object(&self, kind: &str) -> Map<String, Value> {
        let mut object = Map::new();
        object.insert("kind".into(), json!(kind));
        object.insert("machine".into(), json!(self.machine));
        object.insert("instance".into(), json!(self.instance));
        object.insert("fingerprint".into(), json!(self.fingerprint));
        object
    }

    /// `{"kind": "hello", ...}`: an instance, once per connection.
    pub fn hello(&self, state: &[Cow<'static, str>], definition: Option<&str>, dropped: u64) -> String {
        let mut object = self.object("hello");
        object.insert("protocol".into(), json!(super::observer::PROTOCOL));
        object.insert("state".into(), json!(state));
        object.insert("definition".into(), json!(definition));
        object.insert("dropped".into(), json!(dropped));
        line(object)
    }

    /// `{"kind": "gone", ...}`: the instance was dropped.
    pub fn gone(&self, dropped: u64) -> String {
        let mut object = self.object("gone");
        object.insert("dropped".into(), json!(dropped));
        line(object)
    }

    /// `{"kind": "step", ...}`.
    pub fn step(&self, step: &Step, seq: u64, at_micros: u64, dropped: u64) -> String {
        let mut object = self.object("step");
        object.insert("seq".into(), json!(seq));
        object.insert("at_us".into(), json!(at_micros));
        object.insert("step".into(), json!(step.kind.name()));
        object.insert("action".into(), json!(step.action));
        object.insert("from".into(), json!(step.from));
        object.insert("to".into(), json!(step.to));
        object.insert("outputs".into(), json!(step.outputs));
        object.insert("internal".into(), json!(step.internal));
        if let Some(declared_in) = &step.declared_in {
            object.insert("declared_in".into(), json!(declared_in));
        }
        if let Some(error) = &step.error {
            object.insert("error".into(), json!(error));
        }
        if let Some(payload) = &step.payload {
            object.insert("payload".into(), payload.clone());
        }
        if let Some(context) = &step.context {
            object.insert("context".into(), context.clone());
        }
        object.insert("dropped".into(), json!(dropped));
        line(object)
    }
}

fn line(object: Map<String, Value>) -> String {
    let mut text = Value::Object(object).to_string();
    text.push('\n');
    text
}
