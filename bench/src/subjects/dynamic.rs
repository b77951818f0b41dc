//! The dynamic engine, `fsm_dynamic::Engine`, loaded from
//! `bench/machines/agent_loop.fsm` at run time, its guards bound to closures over
//! the step's JSON input (`{"retries_left": true, ...}`), as its
//! documentation shows. Fired by name ([`ByName`]) and by an id resolved
//! before the trace ([`ById`]).

use super::Subject;
use crate::agent::{self, Guards, Output, State};
use crate::harness::Sink;
use crate::trace::Step;
use fsm_dynamic::{ActionId, Definition, Engine, Fired};
use fsm_runtime::Snapshot;
use serde_json::Value;

/// The engine of the agent machine, in its initial state.
///
/// # Panics
///
/// When the definition does not load or a guard is left unbound: both are
/// bugs of this benchmark.
pub fn engine() -> Engine {
    let definition = Definition::from_fsm(agent::SOURCE).expect("agent_loop.fsm loads");
    Guards::NAMES
        .iter()
        .fold(Engine::builder(definition), |builder, &name| {
            builder.guard(name, move |input| agent::json_flag(input, name))
        })
        .build()
        .expect("every guard is bound")
}

fn state(engine: &Engine) -> State {
    State::named(engine.state_name())
}

fn accepted<S: Sink>(engine: &Engine, fired: Fired<'_>, sink: &mut S) {
    let definition = fired.definition();
    sink.accepted(
        fired
            .outputs
            .iter()
            .map(|&o| Output::named(definition.output_name(o))),
        || state(engine),
    );
}

/// `Engine::fire(name, &input)`: one hash lookup of the action's name per
/// event.
pub struct ByName {
    engine: Engine,
    initial: Snapshot,
}

impl ByName {
    /// A fresh engine, and its initial state as a snapshot.
    pub fn new() -> ByName {
        let engine = engine();
        let initial = engine.snapshot();
        ByName { engine, initial }
    }
}

impl Default for ByName {
    fn default() -> Self {
        ByName::new()
    }
}

impl Subject for ByName {
    type Event = (&'static str, &'static Value);

    const NAME: &'static str = "dynamic engine, by name";

    fn prepare(&self, step: &Step) -> Self::Event {
        (step.action.name(), step.guards.json())
    }

    fn run<S: Sink>(&self, events: &[Self::Event], sink: &mut S) {
        let engine = &self.engine;
        restart(engine, &self.initial);
        for &(action, input) in events {
            match engine.fire(action, input) {
                Ok(fired) => accepted(engine, fired, sink),
                Err(_) => sink.rejected(|| state(engine)),
            }
        }
    }
}

/// `Engine::fire_id(id, &input)`, ids resolved with
/// `Definition::action_id` before the trace.
pub struct ById {
    engine: Engine,
    initial: Snapshot,
}

impl ById {
    /// A fresh engine, and its initial state as a snapshot.
    pub fn new() -> ById {
        let engine = engine();
        let initial = engine.snapshot();
        ById { engine, initial }
    }
}

impl Default for ById {
    fn default() -> Self {
        ById::new()
    }
}

impl Subject for ById {
    type Event = (ActionId, &'static Value);

    const NAME: &'static str = "dynamic engine, by id";

    fn prepare(&self, step: &Step) -> Self::Event {
        let id = self
            .engine
            .definition()
            .action_id(step.action.name())
            .expect("the definition has every action of the agent machine");
        (id, step.guards.json())
    }

    fn run<S: Sink>(&self, events: &[Self::Event], sink: &mut S) {
        let engine = &self.engine;
        restart(engine, &self.initial);
        for &(action, input) in events {
            match engine.fire_id(action, input) {
                Ok(fired) => accepted(engine, fired, sink),
                Err(_) => sink.rejected(|| state(engine)),
            }
        }
    }
}

/// Back to the initial state, from a snapshot taken when the engine was
/// built (once per pass): what an orchestrator restoring a stored agent
/// does.
fn restart(engine: &Engine, initial: &Snapshot) {
    engine
        .restore(initial)
        .expect("a snapshot of the engine's own definition restores");
}
