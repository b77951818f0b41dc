//! The string-keyed strategy design (`crate::subjects::literal`) on the
//! data-carrying trace, given the same guard and effect functions as the
//! dynamic engine ([`super::dynamic::guards`], [`super::dynamic::effects`]).
//!
//! The design is as on the plain trace: a `HashMap<(FsmStateId, ActionId),
//! Vec<FsmTransition>>`, `Mutex<FsmStateId>`, guards
//! `Option<Box<dyn GuardCondition>>` wrapping named closures, the key cloned
//! for each lookup and the target cloned into the state. What the design
//! lacks is emulated as its user would add it: a guard reads the caller's
//! context and the event's JSON payload (`Fn(&AgentContext, &Value)`, the
//! signature the engine binds), each transition carries its effects
//! (`Vec<Box<dyn Fn(&mut AgentContext, &Value)>>`) and its outputs, and
//! `execute` runs the chosen transition's effects on the context the caller
//! passes in.

use super::dynamic::{effects, guards, payload};
use super::{AgentContext, DataStep, DataSubject};
use crate::agent::{Action, Output, State};
use crate::harness::Sink;
use crate::subjects::literal::{ActionId, FsmError, FsmStateId};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// A guard: reads the context and the payload.
type GuardFn = Box<dyn Fn(&AgentContext, &Value) -> bool + Send + Sync>;
/// An effect: updates the context from the payload.
type EffectFn = Box<dyn Fn(&mut AgentContext, &Value) + Send + Sync>;

/// A condition on the context and the payload that enables a transition.
pub trait GuardCondition: Send + Sync {
    /// The name, for error messages.
    fn name(&self) -> &str;
    /// True when the transition may fire.
    fn evaluate(&self, context: &AgentContext, input: &Value) -> bool;
}

/// A named closure guard.
pub struct ClosureGuard {
    name: String,
    f: GuardFn,
}

impl GuardCondition for ClosureGuard {
    fn name(&self) -> &str {
        &self.name
    }

    fn evaluate(&self, context: &AgentContext, input: &Value) -> bool {
        (self.f)(context, input)
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
    /// The effects, in order (emulated).
    pub effects: Vec<EffectFn>,
    /// The outputs (emulated).
    pub emit: Vec<String>,
}

/// The design's strategy, with a context passed to `execute`.
pub struct FsmStrategy {
    initial: FsmStateId,
    current: Mutex<FsmStateId>,
    transitions: HashMap<(FsmStateId, ActionId), Vec<FsmTransition>>,
}

impl FsmStrategy {
    /// Fire `action` with `input`: the transition taken, its effects run on
    /// `context`, or why none was.
    pub fn execute(
        &self,
        action: &ActionId,
        context: &mut AgentContext,
        input: &Value,
    ) -> Result<&FsmTransition, FsmError> {
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
                Some(guard) => guard.evaluate(context, input),
            };
            if passes {
                for effect in &transition.effects {
                    effect(context, input);
                }
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

/// The guard function called `name`, boxed.
fn guard(name: &str) -> GuardFn {
    match name {
        "retries_left" => Box::new(guards::retries_left),
        "has_tool_calls" => Box::new(guards::has_tool_calls),
        "tools_pending" => Box::new(guards::tools_pending),
        "mutating_tools" => Box::new(guards::mutating_tools),
        _ => panic!("no guard `{name}`"),
    }
}

/// The effect function called `name`, boxed.
fn effect(name: &str) -> EffectFn {
    match name {
        "append_user" => Box::new(effects::append_user),
        "append_text" => Box::new(effects::append_text),
        "count_tool_call" => Box::new(effects::count_tool_call),
        "finish_response" => Box::new(effects::finish_response),
        "count_retry" => Box::new(effects::count_retry),
        "give_up" => Box::new(effects::give_up),
        "start_tools" => Box::new(effects::start_tools),
        "record_tool" => Box::new(effects::record_tool),
        _ => panic!("no effect `{name}`"),
    }
}

/// One transition as the builder takes it: from, action, to, guard,
/// priority, effects, outputs.
type Spec = (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    i32,
    &'static [&'static str],
    &'static [&'static str],
);

/// The data-carrying agent machine, transcribed from `agent_data.fsm`.
const TRANSITIONS: &[Spec] = &[
    (
        "waiting_for_user_input",
        "user_input",
        "calling_llm",
        None,
        0,
        &["append_user"],
        &["send_llm_request"],
    ),
    (
        "calling_llm",
        "text_delta",
        "calling_llm",
        None,
        0,
        &["append_text"],
        &["display_message"],
    ),
    (
        "calling_llm",
        "tool_call_delta",
        "calling_llm",
        None,
        0,
        &["count_tool_call"],
        &["wait_for_input"],
    ),
    (
        "calling_llm",
        "llm_completed",
        "processing_llm_response",
        None,
        0,
        &["finish_response"],
        &[],
    ),
    (
        "calling_llm",
        "llm_error",
        "error",
        Some("retries_left"),
        1,
        &["count_retry"],
        &["wait_for_input"],
    ),
    (
        "calling_llm",
        "llm_error",
        "waiting_for_user_input",
        None,
        0,
        &["give_up"],
        &["display_error"],
    ),
    (
        "processing_llm_response",
        "response_examined",
        "executing_tools",
        Some("has_tool_calls"),
        1,
        &["start_tools"],
        &["execute_tools"],
    ),
    (
        "processing_llm_response",
        "response_examined",
        "waiting_for_user_input",
        None,
        0,
        &[],
        &["wait_for_input"],
    ),
    (
        "executing_tools",
        "tool_completed",
        "executing_tools",
        Some("tools_pending"),
        2,
        &["record_tool"],
        &["wait_for_input"],
    ),
    (
        "executing_tools",
        "tool_completed",
        "post_tools_hook",
        Some("mutating_tools"),
        1,
        &["record_tool"],
        &["run_post_tools_hook"],
    ),
    (
        "executing_tools",
        "tool_completed",
        "calling_llm",
        None,
        0,
        &["record_tool"],
        &["send_llm_request"],
    ),
    (
        "post_tools_hook",
        "post_tools_hook_completed",
        "calling_llm",
        None,
        0,
        &[],
        &["send_llm_request"],
    ),
    (
        "error",
        "retry_timeout_fired",
        "calling_llm",
        None,
        0,
        &[],
        &["send_llm_request"],
    ),
];

/// The non-terminal states, for `any`.
const NON_TERMINAL: [&str; 6] = [
    "waiting_for_user_input",
    "calling_llm",
    "processing_llm_response",
    "executing_tools",
    "post_tools_hook",
    "error",
];

/// The strategy for the data-carrying agent machine.
pub fn agent_strategy() -> FsmStrategy {
    let mut transitions: HashMap<(FsmStateId, ActionId), Vec<FsmTransition>> = HashMap::new();
    let any = NON_TERMINAL.iter().map(|&from| -> Spec {
        (
            from,
            "shutdown_requested",
            "shutting_down",
            None,
            0,
            &[],
            &["shutdown"],
        )
    });
    for (from, action, to, guard_name, priority, effect_names, emit) in TRANSITIONS.iter().copied().chain(any)
    {
        let list = transitions
            .entry((FsmStateId(from.into()), ActionId(action.into())))
            .or_default();
        list.push(FsmTransition {
            target: FsmStateId(to.into()),
            guard: guard_name.map(|name| -> Box<dyn GuardCondition> {
                Box::new(ClosureGuard {
                    name: name.into(),
                    f: guard(name),
                })
            }),
            priority,
            effects: effect_names.iter().map(|name| effect(name)).collect(),
            emit: emit.iter().map(|s| s.to_string()).collect(),
        });
        list.sort_by_key(|t| std::cmp::Reverse(t.priority));
    }
    let initial = FsmStateId("waiting_for_user_input".into());
    FsmStrategy {
        current: Mutex::new(initial.clone()),
        initial,
        transitions,
    }
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

/// The string-keyed design on the data trace.
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

impl DataSubject for Literal {
    type Event = (&'static ActionId, &'static Value);

    const NAME: &'static str = "the string-keyed design, literally";

    fn prepare(&self, step: &DataStep) -> Self::Event {
        let index = Action::ALL.iter().position(|&a| a == step.action).unwrap();
        (&action_ids()[index], payload(step.payload))
    }

    fn run<S: Sink>(&self, events: &[Self::Event], sink: &mut S) -> AgentContext {
        let strategy = &self.strategy;
        strategy.reset();
        let mut context = AgentContext::default();
        let state = || State::named(&strategy.current_state().0);
        for &(action, input) in events {
            match strategy.execute(action, &mut context, input) {
                Ok(transition) => sink.accepted(transition.emit.iter().map(|o| Output::named(o)), state),
                Err(_) => sink.rejected(state),
            }
        }
        context
    }
}
