//! A literal rendering of the string-keyed strategy design (`FsmStrategy`):
//! what the dynamic engine replaces, written as that design describes it.
//!
//! - `transitions: HashMap<(FsmStateId, ActionId), Vec<FsmTransition>>`,
//!   with `FsmStateId` and `ActionId` newtypes around `String`; each list
//!   sorted by descending priority (a stable sort keeps declaration order
//!   among equal priorities);
//! - `current: Mutex<FsmStateId>`;
//! - guards `Option<Box<dyn GuardCondition>>`, the one shipped being a
//!   `ClosureGuard { name, f: Box<dyn Fn(&Value) -> bool + Send + Sync> }`;
//! - `execute` locks the mutex, looks up `(current, action)`, takes the first
//!   transition whose guard passes (or that has none), updates the state,
//!   and fails with `InvalidTransition` (state, action, the valid actions)
//!   or `GuardRejected` (naming the guards).
//!
//! What that design does not have, emulated as its user would:
//! - outputs: an `emit: Vec<String>` on each transition, returned by
//!   reference with the chosen transition;
//! - internal transitions: a transition back to the same state (the agent
//!   machine has no enter/exit outputs, so this is equivalent);
//! - `any`: the builder registers the transition for every non-terminal
//!   state.
//!
//! The design's `(String, String)` key cannot be looked up by `(&str, &str)`,
//! so each `execute` clones the current state and the action into a key;
//! and each transition clones the target into the state. That is the design,
//! not a choice of this benchmark.

use super::Subject;
use crate::agent::{self, Action, Guards, Output, State};
use crate::harness::Sink;
use crate::trace::Step;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

/// A state's name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FsmStateId(pub String);

/// An action's name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActionId(pub String);

/// A condition on the caller's input that enables a transition.
pub trait GuardCondition: Send + Sync {
    /// The name, for error messages.
    fn name(&self) -> &str;
    /// True when the transition may fire.
    fn evaluate(&self, input: &Value) -> bool;
}

/// The guard the design ships: a named closure.
pub struct ClosureGuard {
    name: String,
    f: Box<dyn Fn(&Value) -> bool + Send + Sync>,
}

impl ClosureGuard {
    /// A guard called `name` that passes when `f` is true.
    pub fn new(name: impl Into<String>, f: impl Fn(&Value) -> bool + Send + Sync + 'static) -> Self {
        ClosureGuard {
            name: name.into(),
            f: Box::new(f),
        }
    }
}

impl GuardCondition for ClosureGuard {
    fn name(&self) -> &str {
        &self.name
    }

    fn evaluate(&self, input: &Value) -> bool {
        (self.f)(input)
    }
}

/// One transition for a `(state, action)` pair.
pub struct FsmTransition {
    /// The state entered.
    pub target: FsmStateId,
    /// The guard; `None` always passes.
    pub guard: Option<Box<dyn GuardCondition>>,
    /// Higher is tried first.
    pub priority: i32,
    /// The outputs (not in the design; see the module docs).
    pub emit: Vec<String>,
}

/// Why `execute` did not fire.
#[derive(Debug)]
pub enum FsmError {
    /// No transition for the action in the current state.
    InvalidTransition {
        /// The current state.
        state: FsmStateId,
        /// The action attempted.
        action: ActionId,
        /// The actions valid in the current state, sorted.
        valid: Vec<ActionId>,
    },
    /// Every candidate's guard was false.
    GuardRejected {
        /// The current state.
        state: FsmStateId,
        /// The action attempted.
        action: ActionId,
        /// The guards that rejected it, in the order tried.
        guards: Vec<String>,
    },
}

impl fmt::Display for FsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FsmError::InvalidTransition { state, action, valid } => write!(
                f,
                "invalid transition: action {} in state {}; valid actions: {:?}",
                action.0, state.0, valid
            ),
            FsmError::GuardRejected {
                state,
                action,
                guards,
            } => write!(
                f,
                "guards {guards:?} rejected action {} in state {}",
                action.0, state.0
            ),
        }
    }
}

impl std::error::Error for FsmError {}

/// The design's strategy.
pub struct FsmStrategy {
    initial: FsmStateId,
    current: Mutex<FsmStateId>,
    transitions: HashMap<(FsmStateId, ActionId), Vec<FsmTransition>>,
}

impl FsmStrategy {
    /// Fire `action` with `input` for the guards: the transition taken, or
    /// why none was.
    pub fn execute(&self, action: &ActionId, input: &Value) -> Result<&FsmTransition, FsmError> {
        let mut current = self.current.lock().unwrap();
        let Some(candidates) = self.transitions.get(&(current.clone(), action.clone())) else {
            let mut valid: Vec<ActionId> = self
                .transitions
                .keys()
                .filter(|(state, _)| *state == *current)
                .map(|(_, action)| action.clone())
                .collect();
            valid.sort();
            return Err(FsmError::InvalidTransition {
                state: current.clone(),
                action: action.clone(),
                valid,
            });
        };
        for transition in candidates {
            let passes = match &transition.guard {
                None => true,
                Some(guard) => guard.evaluate(input),
            };
            if passes {
                *current = transition.target.clone();
                return Ok(transition);
            }
        }
        Err(FsmError::GuardRejected {
            state: current.clone(),
            action: action.clone(),
            guards: candidates
                .iter()
                .filter_map(|t| t.guard.as_ref().map(|g| g.name().to_string()))
                .collect(),
        })
    }

    /// The current state.
    pub fn current_state(&self) -> FsmStateId {
        self.current.lock().unwrap().clone()
    }

    /// Back to the initial state.
    pub fn reset(&self) {
        *self.current.lock().unwrap() = self.initial.clone();
    }
}

/// The design's builder, reduced to what the agent machine needs.
pub struct FsmStrategyBuilder {
    initial: Option<FsmStateId>,
    states: Vec<FsmStateId>,
    terminal: Vec<FsmStateId>,
    transitions: HashMap<(FsmStateId, ActionId), Vec<FsmTransition>>,
}

impl FsmStrategyBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        FsmStrategyBuilder {
            initial: None,
            states: Vec::new(),
            terminal: Vec::new(),
            transitions: HashMap::new(),
        }
    }

    /// Declare a state.
    pub fn state(mut self, name: &str) -> Self {
        self.states.push(FsmStateId(name.into()));
        self
    }

    /// Declare the initial state.
    pub fn initial(mut self, name: &str) -> Self {
        self.initial = Some(FsmStateId(name.into()));
        self.state(name)
    }

    /// Declare a terminal state.
    pub fn terminal(mut self, name: &str) -> Self {
        self.terminal.push(FsmStateId(name.into()));
        self.state(name)
    }

    /// An unguarded transition at priority 0.
    pub fn transition(self, from: &str, action: &str, to: &str, emit: &[&str]) -> Self {
        self.add(from, action, to, None, 0, emit)
    }

    /// A transition guarded by the boolean field `guard` of the input.
    pub fn guarded_transition(
        self,
        from: &str,
        action: &str,
        to: &str,
        guard: &'static str,
        priority: i32,
        emit: &[&str],
    ) -> Self {
        let guard: Box<dyn GuardCondition> = Box::new(ClosureGuard::new(guard, move |input| {
            agent::json_flag(input, guard)
        }));
        self.add(from, action, to, Some(guard), priority, emit)
    }

    /// The transition from every non-terminal state (the `.fsm` `any`).
    pub fn from_any(mut self, action: &str, to: &str, emit: &[&str]) -> Self {
        let sources: Vec<FsmStateId> = self
            .states
            .iter()
            .filter(|s| !self.terminal.contains(s))
            .cloned()
            .collect();
        for from in sources {
            self = self.add(&from.0, action, to, None, 0, emit);
        }
        self
    }

    fn add(
        mut self,
        from: &str,
        action: &str,
        to: &str,
        guard: Option<Box<dyn GuardCondition>>,
        priority: i32,
        emit: &[&str],
    ) -> Self {
        let list = self
            .transitions
            .entry((FsmStateId(from.into()), ActionId(action.into())))
            .or_default();
        list.push(FsmTransition {
            target: FsmStateId(to.into()),
            guard,
            priority,
            emit: emit.iter().map(|s| s.to_string()).collect(),
        });
        list.sort_by_key(|t| std::cmp::Reverse(t.priority));
        self
    }

    /// The strategy, in its initial state.
    ///
    /// # Panics
    ///
    /// Without an initial state.
    pub fn build(self) -> FsmStrategy {
        let initial = self.initial.expect("an initial state");
        FsmStrategy {
            current: Mutex::new(initial.clone()),
            initial,
            transitions: self.transitions,
        }
    }
}

impl Default for FsmStrategyBuilder {
    fn default() -> Self {
        FsmStrategyBuilder::new()
    }
}

/// The agent machine, transcribed from `agent_loop.fsm` into builder calls.
pub fn agent_strategy() -> FsmStrategy {
    FsmStrategyBuilder::new()
        .initial("waiting_for_user_input")
        .state("calling_llm")
        .state("processing_llm_response")
        .state("executing_tools")
        .state("post_tools_hook")
        .state("error")
        .terminal("shutting_down")
        .transition(
            "waiting_for_user_input",
            "user_input",
            "calling_llm",
            &["send_llm_request"],
        )
        .transition("calling_llm", "text_delta", "calling_llm", &["display_message"])
        .transition(
            "calling_llm",
            "tool_call_delta",
            "calling_llm",
            &["wait_for_input"],
        )
        .transition("calling_llm", "llm_completed", "processing_llm_response", &[])
        .guarded_transition(
            "calling_llm",
            "llm_error",
            "error",
            "retries_left",
            1,
            &["wait_for_input"],
        )
        .transition(
            "calling_llm",
            "llm_error",
            "waiting_for_user_input",
            &["display_error"],
        )
        .guarded_transition(
            "processing_llm_response",
            "response_examined",
            "executing_tools",
            "has_tool_calls",
            1,
            &["execute_tools"],
        )
        .transition(
            "processing_llm_response",
            "response_examined",
            "waiting_for_user_input",
            &["wait_for_input"],
        )
        .guarded_transition(
            "executing_tools",
            "tool_completed",
            "executing_tools",
            "tools_pending",
            2,
            &["wait_for_input"],
        )
        .guarded_transition(
            "executing_tools",
            "tool_completed",
            "post_tools_hook",
            "mutating_tools",
            1,
            &["run_post_tools_hook"],
        )
        .transition(
            "executing_tools",
            "tool_completed",
            "calling_llm",
            &["send_llm_request"],
        )
        .transition(
            "post_tools_hook",
            "post_tools_hook_completed",
            "calling_llm",
            &["send_llm_request"],
        )
        .transition(
            "error",
            "retry_timeout_fired",
            "calling_llm",
            &["send_llm_request"],
        )
        .from_any("shutdown_requested", "shutting_down", &["shutdown"])
        .build()
}

fn action_ids() -> &'static [ActionId] {
    static IDS: OnceLock<Vec<ActionId>> = OnceLock::new();
    IDS.get_or_init(|| {
        Action::ALL
            .iter()
            .map(|a| ActionId(a.name().to_string()))
            .collect()
    })
}

/// The string-keyed design, [`agent_strategy`].
pub struct Literal {
    strategy: FsmStrategy,
}

impl Literal {
    /// A fresh strategy.
    pub fn new() -> Literal {
        Literal {
            strategy: agent_strategy(),
        }
    }
}

impl Default for Literal {
    fn default() -> Self {
        Literal::new()
    }
}

impl Subject for Literal {
    type Event = (&'static ActionId, &'static Value);

    const NAME: &'static str = "the string-keyed design, literally";

    fn prepare(&self, step: &Step) -> Self::Event {
        let index = Action::ALL.iter().position(|&a| a == step.action).unwrap();
        (&action_ids()[index], Guards::json(step.guards))
    }

    fn run<S: Sink>(&self, events: &[Self::Event], sink: &mut S) {
        let strategy = &self.strategy;
        strategy.reset();
        let state = || State::named(&strategy.current_state().0);
        for &(action, input) in events {
            match strategy.execute(action, input) {
                Ok(transition) => sink.accepted(transition.emit.iter().map(|o| Output::named(o)), state),
                Err(_) => sink.rejected(state),
            }
        }
    }
}
