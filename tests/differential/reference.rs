//! The reference interpreter: the firing rules of `docs/dsl.md`, written as
//! plainly as possible over `fsm_grammar::model::Machine`, for tests only.
//!
//! It deliberately does not call `Machine::candidate_groups` or
//! `Machine::candidates` (what code generation uses): the candidate order is
//! derived here again from the spec, so that a mistake there shows up as a
//! disagreement. It only borrows `Machine::guard_text` for the canonical
//! text of a guard, which is presentation, not behaviour.
//!
//! The rules, from "Priorities and how a transition is chosen", "`any`
//! blocks", "Terminal states" and "What firing a transition emits":
//!
//! - the candidates for action `A` in state `S` are the transitions on `A`
//!   written in `S`'s body and in the `any` blocks, except that a terminal
//!   state has none (no action is valid there);
//! - they are tried highest priority first; at equal priority the state's
//!   own transitions before the `any` ones; then in declaration order;
//! - the first whose guard holds, or that has none, is taken; guards are
//!   evaluated lazily in that order, each at most once per firing;
//! - candidates but none taken: `GuardRejected`, listing every candidate;
//!   no candidates: `InvalidTransition`, listing the actions that have some,
//!   in declaration order;
//! - a taken transition emits the exit outputs of the state left, its own
//!   outputs, then the enter outputs of the state entered; an internal one
//!   (no target) only its own; a self transition all three.
//!
//! With nested states ([`crate::tree`]) the state is a leaf, the candidates
//! come from every level, and "the state left" and "the state entered" are
//! the exits and entries of the transition's path, in order.
//!
//! From "`always` and `done` after a step" (machines without parallel
//! states, whose configuration is one leaf and the states holding it):
//!
//! - after every step, the `always` transitions of the leaf and of the
//!   states holding it are tried, highest priority first, then innermost
//!   first, then in declaration order; the first whose guard holds is the
//!   next step, in the same firing;
//! - when none holds and the step entered a `final` leaf, the `done`
//!   transitions of the state holding it are tried (highest priority, then
//!   declaration), once;
//! - `in(S)` holds when the leaf before the step is `S` or lies inside it;
//! - the outputs of every step are the firing's, in order; it is internal
//!   when no step had a target.

use crate::engine::{Candidate, Engine, Outcome, Report, TestGuards};
use crate::tree::{self, Memory};
use fsm_grammar::model::{ActionId, GuardExpr, Machine, OutputId, StateId, Transition};
use fsm_runtime::Snapshot;

/// One machine, its current leaf and its history memory.
pub struct Reference<'m> {
    machine: &'m Machine,
    state: StateId,
    memory: Memory,
}

impl<'m> Reference<'m> {
    /// `machine` in its initial state.
    pub fn new(machine: &'m Machine) -> Self {
        Reference {
            machine,
            state: *tree::start(machine).last().expect("the initial state"),
            memory: Memory::new(),
        }
    }

    /// A snapshot of `machine` in the state named `state`, as every engine
    /// must write it: the machine's name, the model's fingerprint, the
    /// state's name.
    pub fn snapshot_in(machine: &Machine, state: &str) -> Snapshot {
        Snapshot::new(machine.name.clone(), machine.fingerprint(), state.to_owned())
    }

    /// The transitions tried when `action` is fired in `state`, in order.
    fn candidates(&self, state: StateId, action: ActionId) -> Vec<&'m Transition> {
        tree::candidates(self.machine, state, action.index())
    }

    /// The actions with at least one candidate in `state`, in declaration order.
    fn valid_in(&self, state: StateId) -> Vec<String> {
        self.machine
            .actions
            .iter()
            .enumerate()
            .filter(|&(index, _)| !self.candidates(state, action_id(index)).is_empty())
            .map(|(_, action)| action.name.clone())
            .collect()
    }

    fn state_name(&self, state: StateId) -> String {
        self.machine.state(state).name.clone()
    }

    fn output_names(&self, outputs: &[OutputId]) -> Vec<String> {
        outputs
            .iter()
            .map(|o| self.machine.outputs[o.index()].name.clone())
            .collect()
    }

    /// Fire the action named `action_name`, asking `guards` for guard values.
    fn outcome_of(&mut self, action_name: &str, guards: &TestGuards) -> Outcome {
        let state = self.state;
        let Some(index) = self.machine.actions.iter().position(|a| a.name == action_name) else {
            return Outcome::UnknownAction {
                state: self.state_name(state),
                action: action_name.to_owned(),
            };
        };
        let candidates = self.candidates(state, action_id(index));
        if candidates.is_empty() {
            return Outcome::InvalidTransition {
                state: self.state_name(state),
                action: action_name.to_owned(),
                valid: self.valid_in(state),
                terminal: self.is_terminal(),
            };
        }
        // One cache for the whole firing: each guard is asked at most once.
        let mut known: Vec<Option<bool>> = vec![None; self.machine.guards.len()];
        for transition in &candidates {
            let taken = match &transition.guard {
                None => true,
                Some(guard) => holds(self.machine, state, &guard.expr, &mut known, guards),
            };
            if !taken {
                continue;
            }
            let (exits, entries) = tree::take(
                self.machine,
                state,
                transition.source,
                transition.target,
                transition.history,
                &mut self.memory,
            );
            let mut outputs = Vec::new();
            for &s in &exits {
                outputs.extend(self.output_names(&self.machine.state(s).exit));
            }
            outputs.extend(self.output_names(&transition.emits));
            for &s in &entries {
                outputs.extend(self.output_names(&self.machine.state(s).enter));
            }
            let to = entries.last().copied().unwrap_or(state);
            self.state = to;
            let mut internal = transition.target.is_none();
            self.settle(
                transition.target.is_some(),
                &mut known,
                guards,
                &mut outputs,
                &mut internal,
            );
            return Outcome::Fired {
                from: self.state_name(state),
                to: self.state_name(self.state),
                action: action_name.to_owned(),
                outputs,
                internal,
            };
        }
        Outcome::GuardRejected {
            state: self.state_name(state),
            action: action_name.to_owned(),
            candidates: candidates
                .iter()
                .map(|t| Candidate {
                    guard: t
                        .guard
                        .as_ref()
                        .map(|g| self.machine.guard_text(&g.expr))
                        .unwrap_or_default(),
                    target: t.target.map(|s| self.state_name(s)),
                })
                .collect(),
        }
    }
}

impl Reference<'_> {
    /// The `always` and `done` steps after a step that left the machine in
    /// `self.state` (`entered`: the step had a target), until none is taken.
    fn settle(
        &mut self,
        mut entered: bool,
        known: &mut [Option<bool>],
        guards: &TestGuards,
        outputs: &mut Vec<String>,
        internal: &mut bool,
    ) {
        let m = self.machine;
        for _ in 0..fsm_grammar::model::MAX_MICROSTEPS {
            // Each step asks its guards afresh, at most once each: the
            // effects of the step before may have changed what they read.
            known.fill(None);
            let leaf = self.state;
            let next = tree::settle_candidates(m, leaf, entered)
                .into_iter()
                .find(|e| match &e.guard {
                    None => true,
                    Some(g) => holds(m, leaf, &g.expr, known, guards),
                });
            let Some(e) = next else { return };
            let (exits, entries) = tree::take(m, leaf, e.source, e.target, e.history, &mut self.memory);
            for &s in &exits {
                outputs.extend(self.output_names(&m.state(s).exit));
            }
            outputs.extend(self.output_names(&e.emits));
            for &s in &entries {
                outputs.extend(self.output_names(&m.state(s).enter));
            }
            self.state = entries.last().copied().unwrap_or(leaf);
            entered = e.target.is_some();
            *internal &= e.target.is_none();
        }
        panic!("the corpus has no cycle of `always` or `done` transitions");
    }
}

impl Engine for Reference<'_> {
    fn kind(&self) -> &'static str {
        "reference"
    }

    fn state(&self) -> String {
        self.state_name(self.state)
    }

    fn valid_actions(&self) -> Vec<String> {
        self.valid_in(self.state)
    }

    fn is_terminal(&self) -> bool {
        self.machine.state(self.state).is_terminal()
    }

    /// The reference has no words of its own: only the outcome.
    fn fire(&mut self, action: &str, guards: &TestGuards) -> Report {
        Report {
            outcome: self.outcome_of(action, guards),
            text: None,
        }
    }

    fn snapshot(&self) -> Snapshot {
        Reference::snapshot_in(self.machine, &self.state())
            .with_last_active(tree::last_active(self.machine, &self.memory))
    }

    fn restore(&mut self, snapshot: &Snapshot) -> Result<(), String> {
        if snapshot.machine() != self.machine.name {
            return Err(format!("the snapshot is of machine `{}`", snapshot.machine()));
        }
        if snapshot.fingerprint() != self.machine.fingerprint() {
            return Err(format!(
                "fingerprint {} is not this definition's",
                snapshot.fingerprint()
            ));
        }
        let state = self
            .machine
            .state_by_name(snapshot.current_state())
            .filter(|&s| self.machine.state(s).children.is_empty())
            .ok_or_else(|| format!("no leaf state `{}`", snapshot.current_state()))?;
        self.memory = tree::memory_of(self.machine, snapshot)?;
        self.state = state;
        Ok(())
    }
}

/// Whether `expr` holds, evaluating `&&` and `||` left to right with short
/// circuits and asking `guards` only for guards not in `known` yet.
/// `in(S)` holds when `leaf`, the leaf before the step, is `S` or lies
/// inside it (the corpus has no parallel state).
fn holds(
    m: &Machine,
    leaf: StateId,
    expr: &GuardExpr,
    known: &mut [Option<bool>],
    guards: &TestGuards,
) -> bool {
    match expr {
        GuardExpr::Var(g) => *known[g.index()].get_or_insert_with(|| guards.guard(g.index())),
        GuardExpr::In(s) => m.ancestors_or_self(leaf).any(|a| a == *s),
        GuardExpr::Not(e) => !holds(m, leaf, e, known, guards),
        GuardExpr::And(a, b) => holds(m, leaf, a, known, guards) && holds(m, leaf, b, known, guards),
        GuardExpr::Or(a, b) => holds(m, leaf, a, known, guards) || holds(m, leaf, b, known, guards),
    }
}

/// The id of the action at `index` of `Machine::actions`.
fn action_id(index: usize) -> ActionId {
    ActionId(u32::try_from(index).expect("fewer than 2^32 actions"))
}
