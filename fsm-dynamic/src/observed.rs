//! The `inspect` feature: an engine whose every step goes to
//! `fsmc inspect --listen ADDR`.

use super::definition::Definition;
use super::engine::Engine;
use super::fire_error::FireError;
use super::fired::{Fired, FiredTimer};
use super::ids::StateId;
use super::timer_rejected::TimerRejected;
use fsm_runtime::inspect::{Observer, Probe, Step, StepKind};
use serde_json::Value;
use std::borrow::Cow;

type ContextSanitizer<C> = Box<dyn Fn(&C) -> Option<Value> + Send + Sync>;
type PayloadSanitizer = Box<dyn Fn(&str, &Value) -> Option<Value> + Send + Sync>;

/// An [`Engine`] whose every step (fired or refused action, fired or
/// refused timer) goes to an inspector through a
/// [`Probe`], stamped with the definition's name and fingerprint and an
/// instance id, as generated machines' `fsm_runtime::inspect::Observed`
/// does. The probe announces the definition (its JSON export), so the
/// inspector draws it without being given a file.
///
/// It fires as the engine does, through `&self`, from any thread; the
/// engine is reached with [`ObservedEngine::engine`]. Reporting never waits
/// for the inspector. Nothing of a payload or the context is sent unless a
/// sanitizer says what.
///
/// ```no_run
/// use fsm_dynamic::{Definition, Engine, ObservedEngine};
/// use fsm_runtime::inspect::Observer;
/// use serde_json::{json, Value};
///
/// let definition = Definition::from_fsm(
///     "machine Door { action open, close; initial state closed { on open -> opened; } state opened { on close -> closed; } }",
/// )?;
/// let observer = Observer::connect("127.0.0.1:7171")?;
/// let door = ObservedEngine::new(Engine::new(definition)?, &observer, "front-door");
/// door.fire("open", &Value::Null)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ObservedEngine<C = Value> {
    engine: Engine<C>,
    probe: Probe,
    payload: Option<PayloadSanitizer>,
    context: Option<ContextSanitizer<C>>,
}

impl<C> ObservedEngine<C> {
    /// `engine`, reported to `observer` as instance `instance`, from its
    /// current configuration, with its definition.
    pub fn new(engine: Engine<C>, observer: &Observer, instance: impl Into<String>) -> ObservedEngine<C> {
        let definition = engine.definition();
        let state = owned(engine.configuration_names());
        let probe = observer
            .probe(
                definition.name().to_owned(),
                instance,
                definition.fingerprint().to_owned(),
                state,
            )
            .with_definition(definition.to_json());
        ObservedEngine {
            engine,
            probe,
            payload: None,
            context: None,
        }
    }

    /// What the inspector sees of each payload: the JSON `f` returns for
    /// the action's name and the payload (`None`: nothing). Without a
    /// sanitizer it sees no payload.
    pub fn sanitize_payload(
        mut self,
        f: impl Fn(&str, &Value) -> Option<Value> + Send + Sync + 'static,
    ) -> Self {
        self.payload = Some(Box::new(f));
        self
    }

    /// What the inspector sees of the context after each step: the JSON
    /// `f` returns (`None`: nothing). Without a sanitizer it sees no
    /// context.
    pub fn sanitize_context(mut self, f: impl Fn(&C) -> Option<Value> + Send + Sync + 'static) -> Self {
        self.context = Some(Box::new(f));
        self
    }

    /// The engine.
    pub fn engine(&self) -> &Engine<C> {
        &self.engine
    }

    /// The probe the steps go through.
    pub fn probe(&self) -> &Probe {
        &self.probe
    }

    /// The engine, no longer observed (the inspector is told it is gone).
    pub fn into_inner(self) -> Engine<C> {
        self.engine
    }

    /// Fire `action` with `payload`, as [`Engine::fire`] does, and report
    /// the step, fired or refused.
    ///
    /// # Errors
    ///
    /// As [`Engine::fire`].
    pub fn fire(&self, action: &str, payload: &Value) -> Result<Fired<'_>, FireError> {
        let result = self.engine.fire(action, payload);
        let mut step = match &result {
            Ok(fired) => fired_step(fired),
            Err(error) => {
                let state = owned(self.engine.configuration_names());
                let kind = match error {
                    FireError::Runaway(_) => StepKind::Fired,
                    _ => StepKind::Rejected,
                };
                let mut step = Step::new(kind, action.to_owned(), state.clone(), state);
                step.error = Some(error.to_string());
                step
            }
        };
        step.payload = self.payload.as_ref().and_then(|f| f(action, payload));
        self.report(step);
        result
    }

    /// Fire every due timer, as [`Engine::fire_due`] does, and report each.
    pub fn fire_due(&self) -> Vec<Result<FiredTimer<'_>, TimerRejected<'_>>> {
        let due = self.engine.fire_due();
        for result in &due {
            let step = match result {
                Ok(fired) => timer_step(fired),
                Err(rejected) => {
                    let definition = rejected.definition();
                    let state = names(definition, &[rejected.state]);
                    let mut step = Step::new(StepKind::TimerRejected, "timer", state.clone(), state);
                    step.declared_in = Some(rejected.declared_in_name().to_owned().into());
                    step.error = Some(rejected.to_string());
                    step
                }
            };
            self.report(step);
        }
        due
    }

    fn report(&self, mut step: Step) {
        if let Some(f) = &self.context {
            step.context = self.engine.with_context_ref(|c| f(c));
        }
        self.probe.report(step);
    }
}

fn fired_step(fired: &Fired<'_>) -> Step {
    let definition = fired.definition();
    let mut step = Step::new(
        StepKind::Fired,
        fired.action_name().to_owned(),
        names(definition, fired.from_leaves()),
        names(definition, fired.to_leaves()),
    );
    step.outputs = fired.output_names().map(|o| Cow::Owned(o.to_owned())).collect();
    step.internal = fired.internal;
    step
}

fn timer_step(fired: &FiredTimer<'_>) -> Step {
    let definition = fired.definition();
    let mut step = Step::new(
        StepKind::Timer,
        format!("after {}", fired.delay_text()),
        names(definition, fired.from_leaves()),
        names(definition, fired.to_leaves()),
    );
    step.outputs = fired.output_names().map(|o| Cow::Owned(o.to_owned())).collect();
    step.internal = fired.internal;
    step.declared_in = Some(fired.declared_in_name().to_owned().into());
    step
}

fn names(definition: &Definition, states: &[StateId]) -> Vec<Cow<'static, str>> {
    states
        .iter()
        .map(|&s| Cow::Owned(definition.state_name(s).to_owned()))
        .collect()
}

fn owned(names: Vec<&str>) -> Vec<Cow<'static, str>> {
    names.into_iter().map(|n| Cow::Owned(n.to_owned())).collect()
}

impl<C> std::fmt::Debug for ObservedEngine<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObservedEngine")
            .field("engine", &self.engine)
            .field("probe", &self.probe)
            .finish_non_exhaustive()
    }
}
