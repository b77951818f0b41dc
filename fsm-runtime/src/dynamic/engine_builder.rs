//! [`EngineBuilder`]: binding a definition's guards by name.

use super::bind_error::{BindError, BindProblem};
use super::definition::Definition;
use super::engine::Engine;
use crate::history::History;
use serde_json::Value;
use std::fmt;
use std::sync::Arc;

/// A guard: a predicate over the input given to `fire`.
pub(crate) type GuardFn = Box<dyn Fn(&Value) -> bool + Send + Sync>;

/// Builds an [`Engine`], binding each guard the definition names to a
/// closure over the input of `fire`.
///
/// Every guard must be bound exactly once. Problems are collected and
/// reported together by [`build`](Self::build), so a missing guard is found
/// when the engine is built, not when it first needs it.
///
/// ```
/// use fsm_runtime::dynamic::{Definition, Engine};
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
pub struct EngineBuilder {
    definition: Arc<Definition>,
    /// Indexed by guard id.
    guards: Vec<Option<GuardFn>>,
    problems: Vec<BindProblem>,
    history: Option<History>,
}

impl EngineBuilder {
    /// A builder for an engine running `definition`, with no guard bound.
    pub fn new(definition: impl Into<Arc<Definition>>) -> Self {
        let definition = definition.into();
        let guards = definition.guard_names().map(|_| None).collect();
        EngineBuilder {
            definition,
            guards,
            problems: Vec::new(),
            history: None,
        }
    }

    /// Bind the guard called `name` to `guard`, which [`Engine::fire`]
    /// calls with its input when a candidate transition needs the guard.
    pub fn guard(mut self, name: &str, guard: impl Fn(&Value) -> bool + Send + Sync + 'static) -> Self {
        match self.definition.guard_names().position(|g| g == name) {
            Some(index) if self.guards[index].is_some() => self.problems.push(BindProblem::BoundTwice {
                guard: name.to_owned(),
            }),
            Some(index) => self.guards[index] = Some(Box::new(guard)),
            None => self.problems.push(BindProblem::Unknown {
                guard: name.to_owned(),
                suggestion: fsm_grammar::suggest::closest(name, self.definition.guard_names())
                    .map(str::to_owned),
                known: self.definition.guard_names().map(str::to_owned).collect(),
            }),
        }
        self
    }

    /// Record every transition of the engine into `history`, under the
    /// engine's lock; see [`Engine`]'s section on history.
    pub fn history(mut self, history: History) -> Self {
        self.history = Some(history);
        self
    }

    /// The engine, in the definition's initial state; or every problem with
    /// the guards: unknown names, names bound twice, guards left unbound.
    pub fn build(self) -> Result<Engine, BindError> {
        let EngineBuilder {
            definition,
            guards,
            mut problems,
            history,
        } = self;
        let unbound: Vec<String> = definition
            .guard_names()
            .zip(&guards)
            .filter(|(_, guard)| guard.is_none())
            .map(|(name, _)| name.to_owned())
            .collect();
        if !unbound.is_empty() {
            problems.push(BindProblem::Unbound { guards: unbound });
        }
        if !problems.is_empty() {
            return Err(BindError {
                machine: definition.name().to_owned(),
                problems,
            });
        }
        let guards = guards.into_iter().flatten().collect();
        Ok(Engine::from_parts(definition, guards, history))
    }
}

impl fmt::Debug for EngineBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bound: Vec<&str> = self
            .definition
            .guard_names()
            .zip(&self.guards)
            .filter(|(_, guard)| guard.is_some())
            .map(|(name, _)| name)
            .collect();
        f.debug_struct("EngineBuilder")
            .field("machine", &self.definition.name())
            .field("bound", &bound)
            .finish_non_exhaustive()
    }
}
