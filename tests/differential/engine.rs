//! What the implementations under test have in common: the [`Engine`] trait
//! they are driven through, the guard values they are handed
//! ([`TestGuards`]), and the engine-neutral form of what a `fire` did
//! ([`Report`], [`Outcome`]), compared field by field.
//!
//! An implementation plugs in by implementing [`Engine`] over names: actions
//! come in as `&str`, and states, actions, outputs and guards go out as
//! names, so the reference interpreter, the generated code and the dynamic
//! engine are comparable however they represent them inside.

use fsm_runtime::Snapshot;
use std::cell::RefCell;
use std::fmt;

/// One implementation of the `.fsm` semantics, holding one machine and its
/// current state.
pub trait Engine {
    /// Which implementation this is, for messages: `reference`, `generated`, ...
    fn kind(&self) -> &'static str;

    /// The name of the current state.
    fn state(&self) -> String;

    /// The names of the actions valid in the current state, in the order the
    /// engine reports them.
    fn valid_actions(&self) -> Vec<String>;

    /// Whether the current state is terminal.
    fn is_terminal(&self) -> bool;

    /// Fire the action named `action`, asking `guards` for guard values, in
    /// the order the engine evaluates them. An engine that cannot be handed
    /// this name at all (generated code only knows its own actions) reports
    /// [`Outcome::NotApplicable`] and changes nothing.
    fn fire(&mut self, action: &str, guards: &TestGuards) -> Report;

    /// A snapshot of the current state.
    fn snapshot(&self) -> Snapshot;

    /// Move to the state of `snapshot`, or say why not (and change nothing).
    fn restore(&mut self, snapshot: &Snapshot) -> Result<(), String>;
}

/// The guard values of one `fire`, by guard index (the position in
/// `Machine::guards`), recording every evaluation so that the order and
/// number of guard calls can be compared between engines.
pub struct TestGuards {
    values: Vec<bool>,
    calls: RefCell<Vec<usize>>,
}

impl TestGuards {
    /// Guards answering `values[i]` for guard `i`.
    pub fn new(values: Vec<bool>) -> Self {
        TestGuards {
            values,
            calls: RefCell::new(Vec::new()),
        }
    }

    /// The value of guard `index`, recording that it was asked for.
    ///
    /// # Panics
    ///
    /// When the machine has no guard `index`: the glue is wrong.
    pub fn guard(&self, index: usize) -> bool {
        let value = *self.values.get(index).unwrap_or_else(|| {
            panic!(
                "guard {index} asked for, but the machine has {}",
                self.values.len()
            )
        });
        self.calls.borrow_mut().push(index);
        value
    }

    /// The indices of the guards evaluated so far, in order, repeats included.
    pub fn calls(&self) -> Vec<usize> {
        self.calls.borrow().clone()
    }

    /// Every guard's value, by guard index, without recording anything: for
    /// an engine that takes its guard values as data rather than asking for
    /// them one by one (it must then report each evaluation with
    /// [`guard`](Self::guard), in order).
    pub fn values(&self) -> &[bool] {
        &self.values
    }
}

/// What an engine says about one `fire`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// What happened, with every detail.
    pub outcome: Outcome,
    /// How the implementation words it: the `Display` of the transition or
    /// error it returned. The words are compared between the implementations
    /// that have them (the reference interpreter has none, `None`).
    pub text: Option<String>,
}

/// What firing one action did, with every detail an engine reports, as names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A transition was taken.
    Fired {
        /// The state before.
        from: String,
        /// The state after (`from` for an internal transition).
        to: String,
        /// The action fired.
        action: String,
        /// The outputs, in order.
        outputs: Vec<String>,
        /// Whether it was an internal transition (no target), as opposed to
        /// one with a target (a self-transition exits and re-enters).
        internal: bool,
    },
    /// The action has no transition in the state.
    InvalidTransition {
        /// The current state.
        state: String,
        /// The action fired.
        action: String,
        /// The actions that do have one, in order.
        valid: Vec<String>,
        /// Whether the state is terminal.
        terminal: bool,
    },
    /// Every candidate's guard was false.
    GuardRejected {
        /// The current state.
        state: String,
        /// The action fired.
        action: String,
        /// The candidates, in the order they were tried.
        candidates: Vec<Candidate>,
    },
    /// The machine has no action of that name.
    UnknownAction {
        /// The current state.
        state: String,
        /// The name fired.
        action: String,
    },
    /// The engine cannot be handed this action at all.
    NotApplicable,
}

/// A rejected candidate: its guard's canonical text and its target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The guard expression, as canonical `.fsm` text.
    pub guard: String,
    /// The target state; `None` for an internal transition.
    pub target: Option<String>,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Fired {
                from,
                to,
                action,
                outputs,
                internal,
            } => write!(
                f,
                "fired `{from}` --{action}--> `{to}`{}, outputs [{}]",
                if *internal { " (internal)" } else { "" },
                outputs.join(", ")
            ),
            Outcome::InvalidTransition {
                state,
                action,
                valid,
                terminal,
            } => write!(
                f,
                "InvalidTransition: `{action}` in `{state}`, valid [{}], terminal: {terminal}",
                valid.join(", ")
            ),
            Outcome::GuardRejected {
                state,
                action,
                candidates,
            } => {
                write!(f, "GuardRejected: `{action}` in `{state}`, candidates [")?;
                for (i, candidate) in candidates.iter().enumerate() {
                    let separator = if i == 0 { "" } else { ", " };
                    let target = candidate.target.as_deref().unwrap_or("(internal)");
                    write!(f, "{separator}[{}] -> {target}", candidate.guard)?;
                }
                f.write_str("]")
            }
            Outcome::UnknownAction { state, action } => {
                write!(f, "unknown action `{action}` in `{state}`")
            }
            Outcome::NotApplicable => f.write_str("not applicable to this engine"),
        }
    }
}
