//! The dynamic engine with a typed context, `Engine<AgentContext>`, loaded
//! from `bench/machines/agent_data.fsm` at run time. Payloads are JSON
//! values, as the engine defines them (a string for a text, `{"ok": true,
//! "mutating": false, "output": "..."}` for a tool's outcome); guards
//! `Fn(&AgentContext, &Value) -> bool` and effects
//! `Fn(&mut AgentContext, &Value)` are bound by name. The functions bound
//! here ([`guards`], [`effects`]) are the very ones the string-keyed design
//! is given ([`super::literal`]).

use super::{AgentContext, DataStep, DataSubject, Payload};
use crate::agent::{Output, State};
use crate::harness::Sink;
use fsm_dynamic::{ActionId, Definition, Engine, EngineBuilder, Fired};
use serde_json::{json, Value};
use std::sync::{Arc, OnceLock};

/// The guard functions, bound by name to the engine and the string-keyed
/// design alike.
pub mod guards {
    use super::{flag, AgentContext, Value};

    /// `retries_left`.
    pub fn retries_left(context: &AgentContext, _: &Value) -> bool {
        context.retries_left()
    }
    /// `has_tool_calls`.
    pub fn has_tool_calls(context: &AgentContext, _: &Value) -> bool {
        context.has_tool_calls()
    }
    /// `tools_pending`.
    pub fn tools_pending(context: &AgentContext, _: &Value) -> bool {
        context.tools_pending()
    }
    /// `mutating_tools(ToolOutcome)`: the context, or the outcome's
    /// `"mutating"` field.
    pub fn mutating_tools(context: &AgentContext, outcome: &Value) -> bool {
        context.mutated || flag(outcome, "mutating")
    }
}

/// The effect functions, bound by name to the engine and the string-keyed
/// design alike.
pub mod effects {
    use super::{flag, text_bytes, AgentContext, Value};

    /// `append_user(Text)`.
    pub fn append_user(context: &mut AgentContext, text: &Value) {
        context.append_user_bytes(text_bytes(text));
    }
    /// `append_text(Text)`.
    pub fn append_text(context: &mut AgentContext, text: &Value) {
        context.append_text_bytes(text_bytes(text));
    }
    /// `count_tool_call`.
    pub fn count_tool_call(context: &mut AgentContext, _: &Value) {
        context.count_tool_call();
    }
    /// `finish_response`.
    pub fn finish_response(context: &mut AgentContext, _: &Value) {
        context.finish_response();
    }
    /// `count_retry`.
    pub fn count_retry(context: &mut AgentContext, _: &Value) {
        context.count_retry();
    }
    /// `give_up`.
    pub fn give_up(context: &mut AgentContext, _: &Value) {
        context.give_up();
    }
    /// `start_tools`.
    pub fn start_tools(context: &mut AgentContext, _: &Value) {
        context.start_tools();
    }
    /// `record_tool(ToolOutcome)`.
    pub fn record_tool(context: &mut AgentContext, outcome: &Value) {
        context.record_tool_parts(
            flag(outcome, "ok"),
            flag(outcome, "mutating"),
            outcome.get("output").map_or(0, text_bytes),
        );
    }
}

/// The boolean field `name` of a JSON object, false when absent.
pub fn flag(value: &Value, name: &str) -> bool {
    value.get(name).and_then(Value::as_bool).unwrap_or(false)
}

/// The length of a JSON string, 0 for anything else.
pub fn text_bytes(value: &Value) -> u32 {
    value.as_str().map_or(0, |text| text.len() as u32)
}

/// The JSON payload of a step, from pools built once (each text of
/// [`super::text_pool`], and each tool outcome over them), so a trace step
/// refers to one without allocating.
pub fn payload(payload: Payload) -> &'static Value {
    static NULL: Value = Value::Null;
    static TEXTS: OnceLock<Vec<Value>> = OnceLock::new();
    static OUTCOMES: OnceLock<Vec<Value>> = OnceLock::new();
    let pool = super::text_pool();
    let index = |text: super::Text| {
        pool.iter()
            .position(|t| std::ptr::eq(*t, text.0))
            .expect("payload texts come from the pool")
    };
    match payload {
        Payload::None => &NULL,
        Payload::Text(text) => {
            let texts = TEXTS.get_or_init(|| pool.iter().map(|t| Value::from(*t)).collect());
            &texts[index(text)]
        }
        Payload::Tool(outcome) => {
            let outcomes = OUTCOMES.get_or_init(|| {
                pool.iter()
                    .flat_map(|t| {
                        (0..4).map(
                            move |bits| json!({"ok": bits & 1 != 0, "mutating": bits & 2 != 0, "output": t}),
                        )
                    })
                    .collect()
            });
            let bits = usize::from(outcome.ok) | usize::from(outcome.mutating) << 1;
            &outcomes[4 * index(outcome.output) + bits]
        }
    }
}

/// `builder` with every guard and effect of the machine bound.
pub fn bind(builder: EngineBuilder<AgentContext>) -> EngineBuilder<AgentContext> {
    builder
        .context_guard("retries_left", guards::retries_left)
        .context_guard("has_tool_calls", guards::has_tool_calls)
        .context_guard("tools_pending", guards::tools_pending)
        .context_guard("mutating_tools", guards::mutating_tools)
        .effect("append_user", effects::append_user)
        .effect("append_text", effects::append_text)
        .effect("count_tool_call", effects::count_tool_call)
        .effect("finish_response", effects::finish_response)
        .effect("count_retry", effects::count_retry)
        .effect("give_up", effects::give_up)
        .effect("start_tools", effects::start_tools)
        .effect("record_tool", effects::record_tool)
}

/// The machine's definition, loaded once.
pub fn definition() -> Arc<Definition> {
    static DEFINITION: OnceLock<Arc<Definition>> = OnceLock::new();
    Arc::clone(
        DEFINITION
            .get_or_init(|| Arc::new(Definition::from_fsm(super::SOURCE).expect("agent_data.fsm loads"))),
    )
}

/// A fresh engine in the initial state with a default context.
///
/// # Panics
///
/// When something is left unbound: a bug of this benchmark.
pub fn engine() -> Engine<AgentContext> {
    bind(Engine::with_context(definition(), AgentContext::default()))
        .build()
        .expect("every guard and effect is bound")
}

fn state(engine: &Engine<AgentContext>) -> State {
    State::named(engine.state_name())
}

fn accepted<S: Sink>(engine: &Engine<AgentContext>, fired: Fired<'_>, sink: &mut S) {
    let definition = fired.definition();
    sink.accepted(
        fired
            .outputs
            .iter()
            .map(|&o| Output::named(definition.output_name(o))),
        || state(engine),
    );
}

/// `Engine::fire(name, &payload)`. Each pass builds its engine (a few
/// dozen allocations, once per million events).
#[derive(Default)]
pub struct ByName;

impl ByName {
    /// The subject.
    pub fn new() -> ByName {
        ByName
    }
}

impl DataSubject for ByName {
    type Event = (&'static str, &'static Value);

    const NAME: &'static str = "dynamic engine, by name";

    fn prepare(&self, step: &DataStep) -> Self::Event {
        (step.action.name(), payload(step.payload))
    }

    fn run<S: Sink>(&self, events: &[Self::Event], sink: &mut S) -> AgentContext {
        let engine = engine();
        for &(action, payload) in events {
            match engine.fire(action, payload) {
                Ok(fired) => accepted(&engine, fired, sink),
                Err(_) => sink.rejected(|| state(&engine)),
            }
        }
        engine.into_context()
    }
}

/// `Engine::fire_id(id, &payload)`, ids resolved before the trace.
#[derive(Default)]
pub struct ById;

impl ById {
    /// The subject.
    pub fn new() -> ById {
        ById
    }
}

impl DataSubject for ById {
    type Event = (ActionId, &'static Value);

    const NAME: &'static str = "dynamic engine, by id";

    fn prepare(&self, step: &DataStep) -> Self::Event {
        let id = definition()
            .action_id(step.action.name())
            .expect("the definition has every action");
        (id, payload(step.payload))
    }

    fn run<S: Sink>(&self, events: &[Self::Event], sink: &mut S) -> AgentContext {
        let engine = engine();
        for &(action, payload) in events {
            match engine.fire_id(action, payload) {
                Ok(fired) => accepted(&engine, fired, sink),
                Err(_) => sink.rejected(|| state(&engine)),
            }
        }
        engine.into_context()
    }
}
