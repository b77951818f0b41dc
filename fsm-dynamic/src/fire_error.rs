//! Why a dynamic `fire` did not happen. The errors own a handle on the
//! definition (an `Arc`, so building one does not allocate, apart from the
//! text of an unknown action) and are `'static`, `Send` and `Sync`, so they
//! travel through `?` into any error type.

use super::definition::Definition;
use super::ids::{ActionId, OutputId, StateId};
use fsm_grammar::model::HistoryKind;
use fsm_runtime::__private::write_names;
use std::fmt;
use std::sync::Arc;

/// Why an action did not fire. The engine is unchanged, except after
/// [`FireError::Runaway`].
///
/// The variants and methods of generated code's
/// [`FireError`](fsm_runtime::FireError) (`state()`, `action()`, `valid()`,
/// `terminal()`, `candidates()`), returning the definition's ids where
/// generated code returns its typed `State` and `Action`, plus
/// [`UnknownAction`] for text that names no action. Code written against
/// one reads the same against the other:
///
/// ```
/// use fsm_dynamic::{Definition, Engine, FireError};
///
/// let engine = Engine::new(Definition::from_fsm(
///     "machine Door { initial state closed { on open -> opened; } state opened { on close -> closed; } }",
/// )?)?;
/// match engine.fire("close", &serde_json::json!({})) {
///     Err(FireError::InvalidTransition(e)) => {
///         let definition = e.definition();
///         assert_eq!(definition.state_name(e.state()), "closed");
///         assert_eq!(definition.action_name(e.action()), "close");
///         assert_eq!(e.valid(), [definition.action_id("open").unwrap()]);
///         assert!(!e.terminal());
///     }
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub enum FireError {
    /// The definition has no action of that name.
    UnknownAction(UnknownAction),
    /// No transition for the action exists in the current state.
    InvalidTransition(InvalidTransition),
    /// Transitions exist, but the guard of every one of them was false.
    GuardRejected(GuardRejected),
    /// The action fired, but the `always` and `done` transitions after it
    /// were still enabled after [`MAX_MICROSTEPS`](fsm_grammar::model::MAX_MICROSTEPS)
    /// microsteps: a guarded cycle whose guards kept holding. Unlike the
    /// other errors, this one comes after the engine moved: it is where the
    /// last microstep left it, the context as every effect left it, and the
    /// outputs of every microstep ([`Runaway::outputs`]) were emitted, into
    /// the outbox when the engine keeps one.
    Runaway(Runaway),
}

/// A `fire` whose `always` and `done` transitions did not settle (see
/// [`FireError::Runaway`]).
#[derive(Clone)]
pub struct Runaway {
    pub(crate) action: ActionId,
    pub(crate) from: Box<[StateId]>,
    pub(crate) to: Box<[StateId]>,
    pub(crate) outputs: Box<[OutputId]>,
    /// The states of the cycle that kept going, in the order its
    /// transitions were taken; empty when the last microsteps repeat no
    /// transition (a run of more than [`MAX_MICROSTEPS`] distinct steps).
    ///
    /// [`MAX_MICROSTEPS`]: fsm_grammar::model::MAX_MICROSTEPS
    pub(crate) cycle: Box<[StateId]>,
    pub(crate) definition: Arc<Definition>,
}

impl Runaway {
    /// The report of `fired`, which did not settle.
    pub(crate) fn new(fired: &crate::Fired<'_>, definition: Arc<Definition>) -> Runaway {
        let cycle = runaway_cycle(fired.taken());
        Runaway {
            action: fired.action,
            from: fired.from_leaves().into(),
            to: fired.to_leaves().into(),
            outputs: fired.outputs.iter().copied().collect(),
            cycle: cycle.into(),
            definition,
        }
    }

    /// The action fired.
    pub fn action(&self) -> ActionId {
        self.action
    }

    /// The active leaves before the action.
    pub fn from_leaves(&self) -> &[StateId] {
        &self.from
    }

    /// The active leaves where the engine stopped.
    pub fn to_leaves(&self) -> &[StateId] {
        &self.to
    }

    /// Every output emitted, in order: the caller must perform them.
    pub fn outputs(&self) -> &[OutputId] {
        &self.outputs
    }

    /// The states of the cycle that kept going: those declaring the
    /// transitions taken since the last transition taken was taken before,
    /// in the order they were taken, each once. Empty when the last
    /// transition was never taken before in this `fire`: no cycle, but more
    /// than 1,000 distinct steps.
    pub fn cycle(&self) -> &[StateId] {
        &self.cycle
    }

    /// The definition the ids belong to.
    pub fn definition(&self) -> &Arc<Definition> {
        &self.definition
    }
}

impl fmt::Display for Runaway {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let definition = &self.definition;
        write!(
            f,
            "action `{}` did not settle: ",
            definition.action_name(self.action),
        )?;
        if self.cycle.is_empty() {
            write!(
                f,
                "its `always` and `done` transitions took more than {} steps",
                thousands(fsm_grammar::model::MAX_MICROSTEPS)
            )?;
        } else {
            write!(
                f,
                "after {} microsteps the `always` and `done` transitions of the cycle ",
                thousands(fsm_grammar::model::MAX_MICROSTEPS)
            )?;
            write_names(f, self.cycle.iter().map(|&s| definition.state_name(s)))?;
            f.write_str(" were still enabled")?;
        }
        f.write_str("; the machine stopped in ")?;
        write_names(f, self.to.iter().map(|&s| definition.state_name(s)))?;
        write!(f, " after emitting {} outputs", self.outputs.len())
    }
}

/// `1,000`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The cycle of a runaway `fire` whose transitions were `taken`: the
/// sources of the transitions since the last one was taken before, first
/// seen first; empty when it was not (see [`Runaway::cycle`]).
fn runaway_cycle(taken: &[crate::fired::Taken]) -> Vec<StateId> {
    let Some((last, before)) = taken.split_last() else {
        return Vec::new();
    };
    let Some(previous) = before.iter().rposition(|t| t == last) else {
        return Vec::new();
    };
    let mut cycle: Vec<StateId> = Vec::new();
    for t in &taken[previous + 1..] {
        if let Some(s) = t.source {
            if !cycle.contains(&s) {
                cycle.push(s);
            }
        }
    }
    cycle
}

impl fmt::Debug for Runaway {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let definition = &self.definition;
        let names =
            |ids: &[StateId]| -> Vec<&str> { ids.iter().map(|&s| definition.state_name(s)).collect() };
        f.debug_struct("Runaway")
            .field("machine", &definition.name())
            .field("action", &definition.action_name(self.action))
            .field("cycle", &names(&self.cycle))
            .field("to", &names(&self.to))
            .field("outputs", &self.outputs.len())
            .finish()
    }
}

impl std::error::Error for Runaway {}

impl FireError {
    /// The state in which the action was fired; `None` for an unknown
    /// action, which is refused without looking at the state.
    pub fn state(&self) -> Option<StateId> {
        match self {
            FireError::UnknownAction(_) => None,
            FireError::InvalidTransition(e) => Some(e.state),
            FireError::GuardRejected(e) => Some(e.state),
            FireError::Runaway(_) => None,
        }
    }

    /// The action that was fired; `None` for an unknown action, whose text
    /// is [`UnknownAction::action`].
    pub fn action(&self) -> Option<ActionId> {
        match self {
            FireError::UnknownAction(_) => None,
            FireError::InvalidTransition(e) => Some(e.action),
            FireError::GuardRejected(e) => Some(e.action),
            FireError::Runaway(e) => Some(e.action),
        }
    }
}

/// An action the definition has never heard of.
#[derive(Clone)]
pub struct UnknownAction {
    pub(crate) action: Box<str>,
    pub(crate) definition: Arc<Definition>,
}

impl UnknownAction {
    /// The text that was fired.
    pub fn action(&self) -> &str {
        &self.action
    }

    /// The definition's actions, in declaration order.
    pub fn known(&self) -> impl ExactSizeIterator<Item = &str> {
        let definition = &self.definition;
        definition.actions().map(move |a| definition.action_name(a))
    }

    /// The action with the closest name, if one is close enough to be a
    /// plausible typo.
    pub fn suggestion(&self) -> Option<&str> {
        fsm_grammar::closest(&self.action, self.known())
    }
}

/// An action with no transition in the current state.
#[derive(Clone)]
pub struct InvalidTransition {
    pub(crate) state: StateId,
    pub(crate) action: ActionId,
    /// With parallel states: the active leaves.
    pub(crate) leaves: Option<Arc<[StateId]>>,
    /// With parallel states: the actions valid in some active leaf.
    pub(crate) valid: Option<Arc<[ActionId]>>,
    pub(crate) definition: Arc<Definition>,
}

impl InvalidTransition {
    /// The current state.
    pub fn state(&self) -> StateId {
        self.state
    }

    /// The action that was fired.
    pub fn action(&self) -> ActionId {
        self.action
    }

    /// The actions that have a transition in the state, in declaration
    /// order.
    pub fn valid(&self) -> &[ActionId] {
        match &self.valid {
            Some(valid) => valid,
            None => self.definition.valid_actions(self.state),
        }
    }

    /// The active leaves, in document order: `[state]` for a machine whose
    /// state is one leaf.
    pub fn leaves(&self) -> &[StateId] {
        self.leaves
            .as_deref()
            .unwrap_or(std::slice::from_ref(&self.state))
    }

    /// True when the state is terminal (and [`valid`](Self::valid) therefore
    /// empty).
    pub fn terminal(&self) -> bool {
        self.definition.is_terminal(self.state)
    }

    /// The definition the ids belong to.
    pub fn definition(&self) -> &Arc<Definition> {
        &self.definition
    }
}

/// An action whose every candidate transition was rejected by its guard.
#[derive(Clone)]
pub struct GuardRejected {
    pub(crate) state: StateId,
    pub(crate) action: ActionId,
    /// With parallel states: the active leaves.
    pub(crate) leaves: Option<Arc<[StateId]>>,
    pub(crate) definition: Arc<Definition>,
}

/// A guarded transition that was a candidate for an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Candidate<'a> {
    guard: &'a str,
    target: Option<StateId>,
    history: Option<HistoryKind>,
}

impl<'a> Candidate<'a> {
    /// The guard expression, as canonical `.fsm` text (`!a && b`).
    pub fn guard(&self) -> &'a str {
        self.guard
    }

    /// The state it leads to; `None` for an internal transition.
    pub fn target(&self) -> Option<StateId> {
        self.target
    }

    /// `Some` when it enters its target through the target's history.
    pub fn history(&self) -> Option<HistoryKind> {
        self.history
    }

    /// The target as written: `idle`, `p.history`, `p.deep_history`; `None`
    /// for an internal transition.
    pub fn target_text(&self, definition: &Definition) -> Option<String> {
        crate::fired::target_text(definition, self.target, self.history)
    }
}

impl GuardRejected {
    /// The current state.
    pub fn state(&self) -> StateId {
        self.state
    }

    /// The action that was fired.
    pub fn action(&self) -> ActionId {
        self.action
    }

    /// The candidates, in the order their guards were evaluated; each guard
    /// was false. With parallel states, a transition that several active
    /// leaves inherit (one declared on a state holding them, or `any`'s) is
    /// listed once, where the first of them tried it.
    pub fn candidates(&self) -> impl ExactSizeIterator<Item = Candidate<'_>> {
        let tables = &self.definition.tables;
        let machine = self.definition.machine();
        let mut seen = Vec::new();
        let candidates: Vec<Candidate<'_>> = self
            .leaves()
            .iter()
            .flat_map(move |&leaf| {
                tables
                    .candidates(leaf, self.action)
                    .map_or(&[][..], |candidates| candidates.as_slice())
            })
            .filter(|c| {
                let new = !seen.contains(&c.transition());
                if new {
                    seen.push(c.transition());
                }
                new
            })
            .map(move |c| Candidate {
                guard: tables.guard_text(c),
                target: tables.target(c),
                history: machine.transition(c.transition()).history,
            })
            .collect();
        candidates.into_iter()
    }

    /// The active leaves, in document order: `[state]` for a machine whose
    /// state is one leaf.
    pub fn leaves(&self) -> &[StateId] {
        self.leaves
            .as_deref()
            .unwrap_or(std::slice::from_ref(&self.state))
    }

    /// The definition the ids belong to.
    pub fn definition(&self) -> &Arc<Definition> {
        &self.definition
    }
}

impl fmt::Display for UnknownAction {
    /// `` unknown action `strat` in machine `M`; expected one of `start`, `stop` (did you mean `start`?) ``:
    /// the message of parsing a generated `Action` from text, with a
    /// suggestion.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown action `{}` in machine `{}`",
            self.action,
            self.definition.name()
        )?;
        if self.known().len() == 0 {
            return f.write_str("; the machine has no actions");
        }
        f.write_str("; expected one of ")?;
        write_names(f, self.known())?;
        if let Some(close) = self.suggestion() {
            write!(f, " (did you mean `{close}`?)")?;
        }
        Ok(())
    }
}

impl fmt::Display for InvalidTransition {
    /// Word for word generated code's [`fsm_runtime::InvalidTransition`]:
    /// `` action `close` is not valid in state `closed`; valid actions: `open`, `lock` ``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let definition = &self.definition;
        write!(
            f,
            "action `{}` is not valid in ",
            definition.action_name(self.action),
        )?;
        write_where(f, definition, self.state, self.leaves.as_deref())?;
        if self.terminal() {
            f.write_str(": the state is terminal")
        } else if self.valid().is_empty() {
            f.write_str("; no action is valid in this state")
        } else {
            f.write_str("; valid actions: ")?;
            write_names(f, self.valid().iter().map(|&a| definition.action_name(a)))
        }
    }
}

impl fmt::Display for GuardRejected {
    /// Word for word generated code's [`fsm_runtime::GuardRejected`]:
    /// `` action `review` rejected in state `running`: guard `ok` was false (-> done) ``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let definition = &self.definition;
        write!(f, "action `{}` rejected in ", definition.action_name(self.action),)?;
        write_where(f, definition, self.state, self.leaves.as_deref())?;
        f.write_str(": ")?;
        for (i, candidate) in self.candidates().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "guard `{}` was false ", candidate.guard)?;
            match candidate.target {
                Some(target) => write!(f, "(-> {})", definition.state_name(target))?,
                None => f.write_str("(internal)")?,
            }
        }
        Ok(())
    }
}

/// `` state `closed` ``, or with parallel states `` states `a1`, `b1` ``.
fn write_where(
    f: &mut fmt::Formatter<'_>,
    definition: &Definition,
    state: StateId,
    leaves: Option<&[StateId]>,
) -> fmt::Result {
    match leaves {
        Some(leaves) if leaves.len() > 1 => {
            f.write_str("states ")?;
            write_names(f, leaves.iter().map(|&s| definition.state_name(s)))
        }
        Some([leaf]) => write!(f, "state `{}`", definition.state_name(*leaf)),
        _ => write!(f, "state `{}`", definition.state_name(state)),
    }
}

impl fmt::Display for FireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FireError::UnknownAction(e) => e.fmt(f),
            FireError::InvalidTransition(e) => e.fmt(f),
            FireError::GuardRejected(e) => e.fmt(f),
            FireError::Runaway(e) => e.fmt(f),
        }
    }
}

impl fmt::Debug for UnknownAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnknownAction")
            .field("machine", &self.definition.name())
            .field("action", &self.action())
            .finish()
    }
}

impl fmt::Debug for InvalidTransition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let definition = &self.definition;
        let valid: Vec<&str> = self.valid().iter().map(|&a| definition.action_name(a)).collect();
        f.debug_struct("InvalidTransition")
            .field("machine", &definition.name())
            .field("state", &definition.state_name(self.state))
            .field("action", &definition.action_name(self.action))
            .field("valid", &valid)
            .field("terminal", &self.terminal())
            .finish()
    }
}

impl fmt::Debug for GuardRejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let definition = &self.definition;
        let candidates: Vec<(&str, Option<&str>)> = self
            .candidates()
            .map(|c| (c.guard, c.target.map(|t| definition.state_name(t))))
            .collect();
        f.debug_struct("GuardRejected")
            .field("machine", &definition.name())
            .field("state", &definition.state_name(self.state))
            .field("action", &definition.action_name(self.action))
            .field("candidates", &candidates)
            .finish()
    }
}

impl fmt::Debug for FireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FireError::UnknownAction(e) => f.debug_tuple("UnknownAction").field(e).finish(),
            FireError::InvalidTransition(e) => f.debug_tuple("InvalidTransition").field(e).finish(),
            FireError::GuardRejected(e) => f.debug_tuple("GuardRejected").field(e).finish(),
            FireError::Runaway(e) => f.debug_tuple("Runaway").field(e).finish(),
        }
    }
}

impl std::error::Error for UnknownAction {}
impl std::error::Error for InvalidTransition {}
impl std::error::Error for GuardRejected {}

/// No `source`, as generated code's `FireError`: a `FireError` displays as
/// the error it holds (thiserror's `#[error(transparent)]`), so reporting
/// that error again as its source would print it twice. Match on the variant
/// to get the error it holds.
impl std::error::Error for FireError {}
