//! `fsmc verify`: every configuration a machine can reach, explored with
//! the one step, and properties checked over them.
//!
//! The search is breadth-first over *stored states*: a configuration, the
//! memory of each history slot, and the remaining time of each armed timer
//! group. From each, the environment may fire any action (at that instant)
//! or let time pass to the earliest deadline ([`Move`]). Each move is taken
//! by `fsm_step`'s `select`, `remove_conflicts`, `microstep` and `settle`,
//! the functions every engine runs, never by a second account of the
//! semantics.
//!
//! - **Guards are free at each evaluation**: each time an engine asks a
//!   guard (at most once per step: the action's or timer's step, and each
//!   `always` or `done` step after it, asks afresh), it may answer true or
//!   false. The search runs each move once per sequence of answers the step
//!   can ask for. `in(...)`, priorities and candidate order are exact.
//! - **Time**: an action happens at the instant of a stored state; an
//!   advance goes to the earliest deadline and fires every group due then,
//!   in the runtime's tie order (`first_due`). Literal delays are tracked
//!   exactly. The search says *inconclusive* instead of *holds* when firing
//!   an action between two deadlines could order timers otherwise (an
//!   action that arms a timer while another stays armed), or when a named
//!   delay races another timer.
//! - Every path reported is replayed on the dynamic engine
//!   ([`fsm_dynamic::Engine`], a manual clock, guards bound to the path's
//!   answers) before it is reported; a lasso's cycle twice.
//! - `never` and `reachable` are decided as states are found (a shortest
//!   path); `recoverable`, `escapable` (no loop of death) and `leads to`
//!   on the graph of moves once the search is complete, the last over the
//!   strongly connected components of the states where its target does
//!   not hold, under the fairness docs/dsl.md states.
//!
//! docs/verifying.md is the guide.

mod cover;
mod liveness;
mod replay;
mod search;
mod step;

pub use cover::{cover, Goal, Suite};
/// Formulas and the kinds of property are the front end's: a machine's
/// `.fsm` file states its properties, and `fsmc verify` reads more from its
/// command line ([`Formula::parse`]) into the same types.
pub use fsm_grammar::model::{Formula, FormulaError, PropertyKind as Kind};
pub use step::{Move, Outcome, NAMED_DELAY_MS};

use fsm_grammar::model::{ActionId, GuardId, Machine, StateId};

/// A property: a kind and its formula.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// What is asked.
    pub kind: Kind,
    /// Of which configurations.
    pub formula: Formula,
    /// For `F leads to G` ([`Kind::LeadsTo`]): `G`, and the fairness.
    pub leads_to: Option<LeadsTo>,
}

/// What `F leads to G assuming a, b` asks after `F`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeadsTo {
    /// `G`.
    pub formula: Formula,
    /// The actions the environment keeps sending: on a run that comes
    /// back again and again to configurations accepting one, it is taken
    /// again and again (strong fairness).
    pub assuming: Vec<ActionId>,
}

impl Property {
    /// A property of a kind written before its formula (`never F`).
    pub fn new(kind: Kind, formula: Formula) -> Property {
        Property {
            kind,
            formula,
            leads_to: None,
        }
    }
}

impl From<&fsm_grammar::model::Property> for Property {
    fn from(p: &fsm_grammar::model::Property) -> Property {
        Property {
            kind: p.kind,
            formula: p.formula.clone(),
            leads_to: p.leads_to.as_ref().map(|l| LeadsTo {
                formula: l.formula.clone(),
                assuming: l.assuming.iter().map(|&(a, _)| a).collect(),
            }),
        }
    }
}

/// Limits of the search.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The most stored states; the search stops there and what it did not
    /// decide is inconclusive.
    pub max_states: usize,
    /// The most sequences of guard answers followed for one move from one
    /// state.
    pub max_answers: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_states: 10_000_000,
            max_answers: 1 << 16,
        }
    }
}

/// One step of a path: the move, the guard answers it used (in the order
/// the engine asks them), what it did, and the active leaves after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The action fired, or the advance.
    pub mv: Move,
    /// Each guard asked, in order, with its answer.
    pub guards: Vec<(GuardId, bool)>,
    /// How far time moved, which timers fired, whether a chain ran away.
    pub outcome: Outcome,
    /// The active leaves after the step, in document order.
    pub leaves: Vec<StateId>,
}

/// A path from the start, replayed on the dynamic engine; a lasso when it
/// ends in a cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    /// The active leaves at the start.
    pub start: Vec<StateId>,
    /// The steps.
    pub steps: Vec<Step>,
    /// For a lasso: the index in `steps` where the cycle begins. After the
    /// last step the machine is in the very stored state (configuration,
    /// history, remaining time of each timer) it was in before that step,
    /// so `steps[cycle..]` repeat forever.
    pub cycle: Option<usize>,
}

/// The verdict on one property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The property holds (`never`, `recoverable`, `escapable`).
    Holds,
    /// A shortest path to a configuration that breaks it: one satisfying a
    /// `never` formula, or one from which a `recoverable` formula cannot be
    /// reached. For `escapable`, a lasso: a shortest path into a loop of
    /// death, then the cycle of timer steps it repeats forever. For
    /// `leads to`, a fair run on which `F` holds and `G` never does after:
    /// a lasso, or a path that ends where the machine rests (no timer
    /// armed, no assumed action accepted) for ever.
    Violated(Path),
    /// A shortest path to a configuration satisfying a `reachable` formula.
    Reached(Path),
    /// No reachable configuration satisfies a `reachable` formula.
    Unreachable,
    /// The search cannot say: why, each reason once.
    Inconclusive(Vec<String>),
}

/// What the search found.
#[derive(Clone, Debug)]
pub struct Report {
    /// One per property, in order.
    pub verdicts: Vec<Verdict>,
    /// States stored.
    pub states: usize,
    /// Moves taken (each sequence of guard answers counts).
    pub successors: u64,
    /// Bytes of memory per stored state.
    pub bytes_per_state: usize,
    /// True when every stored state was explored.
    pub complete: bool,
}

/// Why a machine cannot be searched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// Its states.
    pub states: usize,
}

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the machine has {} states; the search takes machines of at most {}",
            self.states,
            fsm_step::MAX_STATES
        )
    }
}

impl std::error::Error for TooLarge {}

/// Search `machine` and decide each of `properties`.
///
/// # Errors
///
/// A machine with more states than the one step takes.
pub fn verify(machine: &Machine, properties: &[Property], options: &Options) -> Result<Report, TooLarge> {
    if machine.states.len() > fsm_step::MAX_STATES {
        return Err(TooLarge {
            states: machine.states.len(),
        });
    }
    let words = machine.states.len().div_ceil(64).max(1);
    Ok(fsm_step::by_width!(words, W => search::search::<W>(machine, properties, options)))
}
