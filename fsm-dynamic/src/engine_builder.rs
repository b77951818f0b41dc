//! [`EngineBuilder`]: binding a definition's guards, effects and delays by
//! name, and choosing the engine's context and clock.

use super::bind_error::{BindError, BindProblem, Binding};
use super::definition::Definition;
use super::engine::Engine;
use fsm_runtime::History;
use fsm_runtime::{Clock, SystemClock};
use serde_json::Value;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// A guard: a predicate over the context and the payload given to `fire`.
pub(crate) type GuardFn<C> = Box<dyn Fn(&C, &Value) -> bool + Send + Sync>;
/// An effect: an update of the context, given the payload.
pub(crate) type EffectFn<C> = Box<dyn Fn(&mut C, &Value) + Send + Sync>;
/// A delay: a duration the context computes.
pub(crate) type DelayFn<C> = Box<dyn Fn(&C) -> Duration + Send + Sync>;

/// The closures of an engine, each indexed by the id of what it binds.
pub(crate) struct Bound<C> {
    pub(crate) guards: Box<[GuardFn<C>]>,
    pub(crate) effects: Box<[EffectFn<C>]>,
    pub(crate) delays: Box<[DelayFn<C>]>,
}

/// Builds an [`Engine`], binding each guard, effect and delay the
/// definition names to a closure, and setting its context and clock.
///
/// Every guard, effect and delay must be bound exactly once. Problems are
/// collected and reported together by [`build`](Self::build), so a missing
/// closure is found when the engine is built, not when it first needs it.
///
/// ```
/// use fsm_dynamic::{Definition, Engine};
/// use serde_json::json;
///
/// let definition = Definition::from_fsm("machine M { initial state a { on go [ready] -> b; } terminal state b; }")?;
/// let error = Engine::builder(definition.clone()).guard("redy", |_| true).build().unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "cannot build the engine of machine `M`: `redy` is not a guard of the machine (did you mean `ready`?); \
///      guard `ready` is not bound; bind each with `.guard(name, |input| ...)`"
/// );
///
/// let engine = Engine::builder(definition).guard("ready", |input| input["ready"] == true).build()?;
/// assert!(engine.fire("go", &json!({"ready": true})).is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// With a typed context:
///
/// ```
/// use fsm_dynamic::{Definition, Engine};
/// use serde_json::json;
///
/// #[derive(Debug, Default)]
/// struct Tries { left: u32 }
///
/// let definition = Definition::from_fsm(
///     "machine Retry { context Tries; guard tries_left; effect use_try; \
///      initial state idle { on fail [tries_left] -> idle do use_try; on fail -> gave_up; } \
///      terminal state gave_up; }",
/// )?;
/// let engine = Engine::with_context(definition, Tries { left: 1 })
///     .context_guard("tries_left", |tries, _| tries.left > 0)
///     .effect("use_try", |tries, _| tries.left -= 1)
///     .build()?;
/// engine.fire("fail", &json!(null))?;
/// assert_eq!(engine.with_context_ref(|tries| tries.left), 0);
/// assert_eq!(engine.fire("fail", &json!(null))?.to_name(), "gave_up");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct EngineBuilder<C = Value> {
    definition: Arc<Definition>,
    context: C,
    /// Indexed by guard id.
    guards: Vec<Option<GuardFn<C>>>,
    /// Indexed by effect index.
    effects: Vec<Option<EffectFn<C>>>,
    /// Indexed by delay index.
    delays: Vec<Option<DelayFn<C>>>,
    clock: Box<dyn Clock>,
    problems: Vec<BindProblem>,
    history: Option<History>,
    /// Whether to keep an outbox.
    outbox: bool,
}

impl EngineBuilder {
    /// A builder for an engine running `definition`, with nothing bound and
    /// a `null` JSON context.
    pub fn new(definition: impl Into<Arc<Definition>>) -> Self {
        EngineBuilder::with_context(definition, Value::Null)
    }
}

impl<C> EngineBuilder<C> {
    /// A builder for an engine running `definition` that owns `context`,
    /// with nothing bound.
    pub fn with_context(definition: impl Into<Arc<Definition>>, context: C) -> Self {
        let definition = definition.into();
        let machine = definition.machine();
        EngineBuilder {
            guards: machine.guards.iter().map(|_| None).collect(),
            effects: machine.effects.iter().map(|_| None).collect(),
            delays: machine.delays.iter().map(|_| None).collect(),
            definition,
            context,
            clock: Box::new(SystemClock),
            problems: Vec::new(),
            history: None,
            outbox: false,
        }
    }

    /// The context the engine starts with (replacing the one given before).
    pub fn context(mut self, context: C) -> Self {
        self.context = context;
        self
    }

    /// Bind the guard called `name` to `guard`, a predicate over the payload
    /// alone (for machines without payloads, the input given to
    /// [`Engine::fire`]), which is called when a candidate transition needs
    /// the guard.
    pub fn guard(self, name: &str, guard: impl Fn(&Value) -> bool + Send + Sync + 'static) -> Self {
        self.context_guard(name, move |_, payload| guard(payload))
    }

    /// Bind the guard called `name` to `guard`, a predicate over the
    /// context (as it was before the firing) and the payload.
    pub fn context_guard(
        mut self,
        name: &str,
        guard: impl Fn(&C, &Value) -> bool + Send + Sync + 'static,
    ) -> Self {
        let names = self.definition.machine().guards.iter().map(|g| g.name.as_str());
        if let Some(index) = bind_index(&mut self.problems, Binding::Guard, &self.guards, names, name) {
            self.guards[index] = Some(Box::new(guard));
        }
        self
    }

    /// Bind the effect called `name` to `effect`, which updates the context
    /// when a transition or hook that runs it fires. A transition's own
    /// effects get the payload it fired with; hooks' and timers' get `null`.
    pub fn effect(mut self, name: &str, effect: impl Fn(&mut C, &Value) + Send + Sync + 'static) -> Self {
        let names = self.definition.machine().effects.iter().map(|e| e.name.as_str());
        if let Some(index) = bind_index(&mut self.problems, Binding::Effect, &self.effects, names, name) {
            self.effects[index] = Some(Box::new(effect));
        }
        self
    }

    /// Bind the delay called `name` to `delay`, which computes from the
    /// context how long a timer waits, when its state is entered.
    pub fn delay(mut self, name: &str, delay: impl Fn(&C) -> Duration + Send + Sync + 'static) -> Self {
        let names = self.definition.machine().delays.iter().map(|d| d.name.as_str());
        if let Some(index) = bind_index(&mut self.problems, Binding::Delay, &self.delays, names, name) {
            self.delays[index] = Some(Box::new(delay));
        }
        self
    }

    /// Read the time through `clock` (a [`ManualClock`](fsm_runtime::ManualClock)
    /// in tests, any `Fn() -> Timestamp` closure) instead of the
    /// [`SystemClock`]: it arms and fires timers.
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Box::new(clock);
        self
    }

    /// Record every transition of the engine into `history`, under the
    /// engine's lock; see [`Engine`]'s section on history.
    pub fn history(mut self, history: History) -> Self {
        self.history = Some(history);
        self
    }

    /// Keep an outbox: every output a step emits stays pending (see
    /// [`Engine::pending`]) under its key until [acknowledged](Engine::ack),
    /// and the snapshot carries what is pending, as
    /// [`Recorded::with_outbox`](fsm_runtime::Recorded::with_outbox) does for
    /// generated code. Keys number steps as the history does, so an engine
    /// given no [`history`](Self::history) records one that keeps the last
    /// entry, which the snapshot carries to go on numbering after a restore.
    pub fn outbox(mut self) -> Self {
        self.outbox = true;
        self
    }

    /// The engine, in the definition's initial state with its timers armed;
    /// or every problem with the bindings: unknown names, names bound
    /// twice, guards, effects and delays left unbound.
    pub fn build(self) -> Result<Engine<C>, BindError> {
        let EngineBuilder {
            definition,
            context,
            guards,
            effects,
            delays,
            clock,
            mut problems,
            history,
            outbox,
        } = self;
        let machine = definition.machine();
        let unbound = |names: &mut dyn Iterator<Item = &str>, bound: &mut dyn Iterator<Item = bool>| {
            names
                .zip(bound)
                .filter(|(_, bound)| !bound)
                .map(|(name, _)| name.to_owned())
                .collect::<Vec<String>>()
        };
        let unbound_guards = unbound(
            &mut machine.guards.iter().map(|g| g.name.as_str()),
            &mut guards.iter().map(Option::is_some),
        );
        if !unbound_guards.is_empty() {
            problems.push(BindProblem::Unbound {
                guards: unbound_guards,
            });
        }
        for (kind, names) in [
            (
                Binding::Effect,
                unbound(
                    &mut machine.effects.iter().map(|e| e.name.as_str()),
                    &mut effects.iter().map(Option::is_some),
                ),
            ),
            (
                Binding::Delay,
                unbound(
                    &mut machine.delays.iter().map(|d| d.name.as_str()),
                    &mut delays.iter().map(Option::is_some),
                ),
            ),
        ] {
            if !names.is_empty() {
                problems.push(BindProblem::UnboundNames { kind, names });
            }
        }
        if !problems.is_empty() {
            return Err(BindError {
                machine: definition.name().to_owned(),
                problems,
            });
        }
        let bound = Bound {
            guards: guards.into_iter().flatten().collect(),
            effects: effects.into_iter().flatten().collect(),
            delays: delays.into_iter().flatten().collect(),
        };
        Ok(Engine::from_parts(
            definition, bound, clock, context, history, outbox,
        ))
    }
}

/// The index of `name` among `names`, or `None` with the problem recorded:
/// an unknown name, or one bound already.
fn bind_index<'a, T>(
    problems: &mut Vec<BindProblem>,
    kind: Binding,
    slots: &[Option<T>],
    names: impl Iterator<Item = &'a str> + Clone,
    name: &str,
) -> Option<usize> {
    match names.clone().position(|n| n == name) {
        Some(index) if slots[index].is_some() => {
            problems.push(match kind {
                Binding::Guard => BindProblem::BoundTwice {
                    guard: name.to_owned(),
                },
                kind => BindProblem::NameBoundTwice {
                    kind,
                    name: name.to_owned(),
                },
            });
            None
        }
        Some(index) => Some(index),
        None => {
            let suggestion = fsm_grammar::closest(name, names.clone()).map(str::to_owned);
            let known = names.map(str::to_owned).collect();
            problems.push(match kind {
                Binding::Guard => BindProblem::Unknown {
                    guard: name.to_owned(),
                    suggestion,
                    known,
                },
                kind => BindProblem::UnknownName {
                    kind,
                    name: name.to_owned(),
                    suggestion,
                    known,
                },
            });
            None
        }
    }
}

impl<C> fmt::Debug for EngineBuilder<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let machine = self.definition.machine();
        f.debug_struct("EngineBuilder")
            .field("machine", &self.definition.name())
            .field("bound", &bound_names(&machine.guards, &self.guards))
            .field("effects", &bound_names(&machine.effects, &self.effects))
            .field("delays", &bound_names(&machine.delays, &self.delays))
            .finish_non_exhaustive()
    }
}

/// The names of `symbols` whose slot is bound.
fn bound_names<'a, T>(symbols: &'a [fsm_grammar::model::Symbol], slots: &[Option<T>]) -> Vec<&'a str> {
    symbols
        .iter()
        .zip(slots)
        .filter(|(_, slot)| slot.is_some())
        .map(|(symbol, _)| symbol.name.as_str())
        .collect()
}
