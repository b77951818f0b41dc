//! The dynamic engine (`fsm_dynamic`) as an [`Engine`]: each
//! machine loaded from the text of its `.fsm` file with
//! `Definition::from_fsm_named` (or from that definition's JSON export with
//! `Definition::from_json`), and fired by name.
//!
//! Its guards are closures over the input of `fire`, so the guard values of
//! a step travel as data: the input is a JSON object holding every guard's
//! value under its name (`{"retries_left": true, "fatal": false}`). Each
//! closure reads its own value from it and records its call in a log shared
//! with the adapter (closures must be `Send + Sync`, hence a mutex); after
//! `fire`, the adapter replays the log through [`TestGuards::guard`], so the
//! guards evaluated and their order are compared exactly as for the other
//! engines.

use crate::engine::{Candidate, Engine, Outcome, Report, TestGuards};
use fsm_dynamic::{Definition, FireError};
use fsm_grammar::model::Machine;
use fsm_runtime::Snapshot;
use serde_json::{Map, Value};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The definition of the machine `machine` of the file whose text is `text`,
/// exactly as a user loads it.
///
/// # Panics
///
/// When the dynamic engine refuses a machine that `fsmc check` accepts.
pub fn definition(text: &str, machine: &str) -> Arc<Definition> {
    match Definition::from_fsm_named(text, machine) {
        Ok(definition) => Arc::new(definition),
        Err(error) => panic!("the dynamic engine cannot load machine `{machine}`: {error}"),
    }
}

/// The definition of the JSON `definition` exports, as a tool in another
/// language would load it.
///
/// # Panics
///
/// When the dynamic engine refuses its own export.
pub fn definition_from_json(definition: &Definition) -> Arc<Definition> {
    let json = definition.to_json();
    match Definition::from_json(&json) {
        Ok(definition) => Arc::new(definition),
        Err(error) => panic!(
            "the dynamic engine cannot load the JSON export of machine `{}`: {error}\n{json}",
            definition.name()
        ),
    }
}

/// A dynamic engine running `definition` in its initial state, called
/// `kind` in messages, with each guard of `machine` (the model of the same
/// machine) bound by name. A guard call is recorded as its index in
/// `machine.guards`, the index [`TestGuards`] answers by.
///
/// # Panics
///
/// When the engine refuses the bindings: the definition's guards are not
/// the model's.
pub fn engine(kind: &'static str, definition: &Arc<Definition>, machine: &Machine) -> Box<dyn Engine> {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let input = Arc::new(Mutex::new(Value::Null));
    let mut builder = fsm_dynamic::Engine::builder(Arc::clone(definition));
    for (index, guard) in machine.guards.iter().enumerate() {
        let name = guard.name.clone();
        let calls = Arc::clone(&calls);
        let fired_with = Arc::clone(&input);
        builder = builder.guard(&guard.name, move |input: &Value| {
            // The guards of the `always` and `done` steps after an action's
            // get no payload: they read the values the action came with.
            let fired_with = lock(&fired_with).clone();
            let input = if input.is_null() { &fired_with } else { input };
            let value = input.get(&name).and_then(Value::as_bool).unwrap_or_else(|| {
                panic!("guard `{name}` was called with {input}, which is not the input given to `fire`")
            });
            lock(&calls).push(index);
            value
        });
    }
    let engine = builder
        .build()
        .unwrap_or_else(|e| panic!("the {kind} engine does not take the model's guards: {e}"));
    Box::new(DynamicEngine {
        kind,
        engine,
        guard_names: machine.guards.iter().map(|g| g.name.clone()).collect(),
        calls,
        input,
    })
}

/// A dynamic engine and the log its guards write to.
struct DynamicEngine {
    /// What [`Engine::kind`] says: which definition this is.
    kind: &'static str,
    engine: fsm_dynamic::Engine,
    /// The model's guard names, by guard index.
    guard_names: Vec<String>,
    /// The indices of the guards called during the current `fire`, in order.
    calls: Arc<Mutex<Vec<usize>>>,
    /// The input of the current `fire`.
    input: Arc<Mutex<Value>>,
}

impl DynamicEngine {
    /// The input of `fire` carrying `guards`' values: every guard's value
    /// under its name.
    fn input(&self, guards: &TestGuards) -> Value {
        let values = guards.values();
        assert_eq!(
            values.len(),
            self.guard_names.len(),
            "guard values for {} guards, but the machine has {}",
            values.len(),
            self.guard_names.len()
        );
        let object: Map<String, Value> = self
            .guard_names
            .iter()
            .zip(values)
            .map(|(name, &value)| (name.clone(), Value::Bool(value)))
            .collect();
        Value::Object(object)
    }

    /// `fire`, turned into names.
    fn outcome(&self, result: Result<fsm_dynamic::Fired<'_>, FireError>) -> Outcome {
        let definition = self.engine.definition();
        let state_name = |state: fsm_dynamic::StateId| definition.state_name(state).to_owned();
        match result {
            Ok(fired) => Outcome::Fired {
                from: fired.from_name().to_owned(),
                to: fired.to_name().to_owned(),
                action: fired.action_name().to_owned(),
                outputs: fired.output_names().map(str::to_owned).collect(),
                internal: fired.internal,
            },
            // Refused without looking at the state: it is the one the engine
            // is still in.
            Err(FireError::UnknownAction(error)) => Outcome::UnknownAction {
                state: self.engine.state_name().to_owned(),
                action: error.action().to_owned(),
            },
            Err(FireError::InvalidTransition(error)) => Outcome::InvalidTransition {
                state: state_name(error.state()),
                action: definition.action_name(error.action()).to_owned(),
                valid: error
                    .valid()
                    .iter()
                    .map(|&a| definition.action_name(a).to_owned())
                    .collect(),
                terminal: error.terminal(),
            },
            Err(FireError::GuardRejected(error)) => Outcome::GuardRejected {
                state: state_name(error.state()),
                action: definition.action_name(error.action()).to_owned(),
                candidates: error
                    .candidates()
                    .map(|c| Candidate {
                        guard: c.guard().to_owned(),
                        target: c.target().map(state_name),
                    })
                    .collect(),
            },
            // Only machines that run over configurations run away, and the
            // differential's machines do not (yet: code generation refuses them).
            Err(error @ FireError::Runaway(_)) => panic!("{error}"),
        }
    }
}

impl Engine for DynamicEngine {
    fn kind(&self) -> &'static str {
        self.kind
    }

    fn state(&self) -> String {
        self.engine.state_name().to_owned()
    }

    fn valid_actions(&self) -> Vec<String> {
        let definition = self.engine.definition();
        self.engine
            .valid_actions()
            .iter()
            .map(|&a| definition.action_name(a).to_owned())
            .collect()
    }

    fn is_terminal(&self) -> bool {
        self.engine.is_terminal()
    }

    /// Words the outcome with the `Display` of what `fire` returned, and
    /// replays the guard calls into `guards`.
    ///
    /// Also checks what only the dynamic engine has: `can_fire` first, which
    /// must predict whether `fire` succeeds and ask the same guards in the
    /// same order, and the sequence number, which counts the transitions.
    ///
    /// # Panics
    ///
    /// When one of those checks fails.
    fn fire(&mut self, action: &str, guards: &TestGuards) -> Report {
        let input = self.input(guards);
        *lock(&self.input) = input.clone();
        let state = self.state();
        let count = self.engine.fired_count();
        lock(&self.calls).clear();
        let can_fire = self.engine.can_fire(action, &input);
        let asked_by_can_fire = std::mem::take(&mut *lock(&self.calls));
        let result = self.engine.fire(action, &input);
        let asked = std::mem::take(&mut *lock(&self.calls));
        let step = || {
            format!(
                "machine `{}`, {} engine: `{action}` in `{state}` with input {input}",
                self.engine.definition().name(),
                self.kind
            )
        };
        // `fire` goes on to ask the guards of the `always` and `done` steps
        // after the action's, which `can_fire` does not take.
        let asked_for_the_action = if result.is_ok() {
            &asked[..asked_by_can_fire.len().min(asked.len())]
        } else {
            &asked[..]
        };
        assert_eq!(
            asked_by_can_fire,
            asked_for_the_action,
            "{}: `can_fire` and `fire` ask different guards (by index)",
            step()
        );
        assert_eq!(can_fire, result.is_ok(), "{}: `can_fire` is wrong", step());
        let expected_count = match &result {
            Ok(fired) => {
                assert_eq!(fired.seq, count, "{}: the sequence number", step());
                count + 1
            }
            Err(_) => count,
        };
        assert_eq!(
            self.engine.fired_count(),
            expected_count,
            "{}: the count of transitions afterwards",
            step()
        );
        for index in asked {
            guards.guard(index);
        }
        let text = match &result {
            Ok(fired) => fired.to_string(),
            Err(error) => error.to_string(),
        };
        Report {
            outcome: self.outcome(result),
            text: Some(text),
        }
    }

    fn snapshot(&self) -> Snapshot {
        self.engine.snapshot()
    }

    fn restore(&mut self, snapshot: &Snapshot) -> Result<(), String> {
        self.engine.restore(snapshot).map_err(|e| e.to_string())?;
        Ok(())
    }
}

/// The guard call log or the input, whether or not a guard panicked while
/// holding it.
fn lock<T>(shared: &Mutex<T>) -> MutexGuard<'_, T> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}
