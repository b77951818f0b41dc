//! What a successful dynamic `fire` reports.

use super::definition::Definition;
use super::ids::{ActionId, OutputId, StateId};
use fsm_grammar::model::HistoryKind;
use fsm_runtime::__private::write_names;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// A transition that fired in an [`Engine`](super::Engine): the information
/// of generated code's [`Fired`](fsm_runtime::Fired), as ids borrowed from the
/// definition, plus the engine's sequence number.
///
/// `outputs` are the outputs the caller must now perform, in order: the exit
/// outputs of the state left, the transition's own, then the enter outputs
/// of the state entered. An internal transition (one without a target) emits
/// only its own outputs and leaves `to == from`; a self-transition
/// (`-> from`) also has `to == from` but exits and re-enters, with their
/// outputs and hooks: [`internal`](Self::internal) tells the two apart.
///
/// For a machine with parallel states, `final` states, `done` or `always`
/// transitions or `in(...)` guards, one `fire` may take several
/// transitions: those of several regions at once, then the `always` and
/// `done` transitions that follow, each as its own microstep. `outputs`
/// holds them all, in order; [`from_leaves`](Self::from_leaves),
/// [`to_leaves`](Self::to_leaves) and [`taken`](Self::taken) say which
/// leaves were active before and after and which transitions were taken.
#[derive(Clone)]
pub struct Fired<'e> {
    /// The position of this transition among all the engine has fired: 0 for
    /// the first, then one more for each. Assigned under the same lock as the
    /// state change, so sorting transitions by `seq` gives the order they
    /// happened in, each starting where the previous one ended (as long as
    /// nothing restored a snapshot in between).
    pub seq: u64,
    /// The state before: the leaf, or with parallel states the innermost
    /// state holding every active leaf ([`from_leaves`](Self::from_leaves)
    /// lists them).
    pub from: StateId,
    /// The state after, as `from` is.
    pub to: StateId,
    /// The action that was fired.
    pub action: ActionId,
    /// The outputs to perform, in order: borrowed from the definition for a
    /// single transition, collected for a `fire` that takes several.
    pub outputs: Cow<'e, [OutputId]>,
    /// True for an internal transition (`on go;`, no target): no state was
    /// exited or entered, so no exit or enter outputs or hooks ran, no timer
    /// was re-armed, and `to == from`. False for a transition with a target,
    /// a self-transition (`on go -> from;`) included, which exits and
    /// re-enters. The same as generated code's
    /// [`Fired::internal`](fsm_runtime::Fired::internal).
    pub internal: bool,
    pub(crate) trail: Option<Arc<Trail>>,
    pub(crate) definition: &'e Definition,
}

/// The leaves before and after a `fire` over configurations, and the
/// transitions it took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Trail {
    pub(crate) from: Box<[StateId]>,
    pub(crate) to: Box<[StateId]>,
    pub(crate) taken: Box<[Taken]>,
    /// How many effect calls ran.
    pub(crate) effects: usize,
    /// True when the `always` and `done` steps did not settle within
    /// `MAX_MICROSTEPS`.
    pub(crate) ran_away: bool,
}

/// What kind of transition was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TakenKind {
    /// `on ACTION ...;`
    Action,
    /// `after ...;`
    Timer,
    /// `done ...;`
    Done,
    /// `always ...;`
    Always,
}

/// A transition a `fire` took, as written: the state that declares it and
/// its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Taken {
    /// What kind of transition it is.
    pub kind: TakenKind,
    /// The state that declares it; `None` for an `any` transition.
    pub source: Option<StateId>,
    /// Its target; `None` for an internal transition.
    pub target: Option<StateId>,
    /// `Some` when the target is entered through its history
    /// (`-> X.history`, `-> X.deep_history`).
    pub history: Option<HistoryKind>,
}

impl Taken {
    /// The source's name, `any` for an `any` transition.
    pub fn source_name<'d>(&self, definition: &'d Definition) -> &'d str {
        self.source.map_or("any", |s| definition.state_name(s))
    }

    /// The target as written: `idle`, `p.history`, `p.deep_history`; `None`
    /// for an internal transition.
    pub fn target_text(&self, definition: &Definition) -> Option<String> {
        target_text(definition, self.target, self.history)
    }
}

/// A target as written: `idle`, `p.history`, `p.deep_history`; `None` for
/// an internal transition.
pub(crate) fn target_text(
    definition: &Definition,
    target: Option<StateId>,
    history: Option<HistoryKind>,
) -> Option<String> {
    let target = definition.state_name(target?);
    Some(match history {
        None => target.to_owned(),
        Some(HistoryKind::Shallow) => format!("{target}.history"),
        Some(HistoryKind::Deep) => format!("{target}.deep_history"),
    })
}

/// The accessors [`Fired`] and [`FiredTimer`] share for configurations.
macro_rules! configuration_accessors {
    () => {
        /// The active leaves before, in document order: `[from]` for a
        /// machine whose state is one leaf.
        pub fn from_leaves(&self) -> &[StateId] {
            self.trail
                .as_ref()
                .map_or(std::slice::from_ref(&self.from), |t| &t.from)
        }

        /// The active leaves after, in document order: `[to]` for a
        /// machine whose state is one leaf.
        pub fn to_leaves(&self) -> &[StateId] {
            self.trail
                .as_ref()
                .map_or(std::slice::from_ref(&self.to), |t| &t.to)
        }

        /// The transitions taken, in the order they ran, for a machine
        /// with parallel states, `final` states, `done`, `always` or
        /// `in(...)`; empty for the others, whose `fire` takes exactly one.
        pub fn taken(&self) -> &[Taken] {
            self.trail.as_ref().map_or(&[], |t| &t.taken)
        }

        /// How many effect calls ran (hooks' and transitions', every
        /// microstep's), for a machine with parallel states, `final`
        /// states, `done`, `always` or `in(...)`; `None` for the others.
        pub fn effect_count(&self) -> Option<usize> {
            self.trail.as_ref().map(|t| t.effects)
        }

        /// True when the `always` and `done` transitions after the step were
        /// still enabled after [`MAX_MICROSTEPS`](fsm_grammar::model::MAX_MICROSTEPS)
        /// microsteps, a guarded cycle whose guards kept holding: the machine
        /// stopped where the last one left it. For a `fire`, this is
        /// [`FireError::Runaway`](crate::FireError::Runaway) instead; a timer's
        /// step is reported here, beside the others `fire_due` took.
        pub fn ran_away(&self) -> bool {
            self.trail.as_ref().is_some_and(|t| t.ran_away)
        }
    };
}

impl<'e> Fired<'e> {
    /// The definition the ids belong to.
    pub fn definition(&self) -> &'e Definition {
        self.definition
    }

    configuration_accessors!();

    /// The name of the state before.
    pub fn from_name(&self) -> &'e str {
        self.definition.state_name(self.from)
    }

    /// The name of the state after.
    pub fn to_name(&self) -> &'e str {
        self.definition.state_name(self.to)
    }

    /// The name of the action.
    pub fn action_name(&self) -> &'e str {
        self.definition.action_name(self.action)
    }

    /// The names of the outputs, in order.
    pub fn output_names(&self) -> impl ExactSizeIterator<Item = &'e str> + '_ {
        let definition = self.definition;
        self.outputs.iter().map(move |&o| definition.output_name(o))
    }
}

/// `` `closed` --open--> `opened` (emit `engage_bolt`) ``, as generated code's
/// [`Fired`](fsm_runtime::Fired).
impl fmt::Display for Fired<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.from_leaves().len() > 1 || self.to_leaves().len() > 1 {
            let definition = self.definition;
            write_names(f, self.from_leaves().iter().map(|&s| definition.state_name(s)))?;
            write!(f, " --{}--> ", self.action_name())?;
            write_names(f, self.to_leaves().iter().map(|&s| definition.state_name(s)))?;
            if !self.outputs.is_empty() {
                f.write_str(" (emit ")?;
                write_names(f, self.output_names())?;
                f.write_str(")")?;
            }
            return Ok(());
        }
        write!(
            f,
            "`{}` --{}--> `{}`",
            self.from_name(),
            self.action_name(),
            self.to_name()
        )?;
        if !self.outputs.is_empty() {
            f.write_str(" (emit ")?;
            write_names(f, self.output_names())?;
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Fired<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fired")
            .field("seq", &self.seq)
            .field("from", &self.from_name())
            .field("to", &self.to_name())
            .field("action", &self.action_name())
            .field("outputs", &self.output_names().collect::<Vec<_>>())
            .field("internal", &self.internal)
            .finish()
    }
}

impl PartialEq for Fired<'_> {
    /// Equal when they are the same transition of the same definition at
    /// the same position.
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.definition, other.definition)
            && self.seq == other.seq
            && self.from == other.from
            && self.to == other.to
            && self.action == other.action
            && self.outputs == other.outputs
            && self.internal == other.internal
    }
}

impl Eq for Fired<'_> {}

/// A timer that fired in an [`Engine`](super::Engine)'s
/// [`fire_due`](super::Engine::fire_due): like [`Fired`], with the timer in
/// place of the action, as generated code's
/// [`TimerFired`](fsm_runtime::TimerFired).
///
/// `outputs` are ordered as a transition's: the exit outputs of the states
/// left, the timer's own, then the enter outputs of the states entered; an
/// internal timer emits only its own and leaves `to == from`. With nested
/// states the timer may be declared on a composite state holding `from`
/// ([`declared_in`](Self::declared_in)). With parallel states, `done` or
/// `always`, the outputs and transitions of the steps that follow the
/// timer's are included, as [`Fired`]'s.
#[derive(Clone)]
pub struct FiredTimer<'e> {
    /// The position of this transition among all the engine has fired
    /// (actions' and timers').
    pub seq: u64,
    /// The state before (a leaf).
    pub from: StateId,
    /// The state after.
    pub to: StateId,
    /// The state whose `after` this is: `from` or, with nested states, one
    /// of the states holding it.
    pub declared_in: StateId,
    /// The timer's index among the timers of `declared_in`, in declaration
    /// order.
    pub timer: usize,
    /// When it was due.
    pub due: fsm_runtime::Timestamp,
    /// The outputs to perform, in order.
    pub outputs: Cow<'e, [OutputId]>,
    /// True for an internal timer (no target): nothing was exited or
    /// entered. The same as generated code's `TimerFired::internal`.
    pub internal: bool,
    pub(crate) trail: Option<Arc<Trail>>,
    /// How many effect calls its step ran.
    pub(crate) effects: usize,
    pub(crate) definition: &'e Definition,
}

impl<'e> FiredTimer<'e> {
    configuration_accessors!();

    /// How many effect calls the timer's step ran, in the order they ran:
    /// the `exit` hooks of the states it left, its own `do`, the `enter`
    /// hooks of the states it entered, and those of every `always` and
    /// `done` step after it. Timers due at once fire in one `fire_due`,
    /// whose effects run one timer's step after the other: this says which
    /// are whose.
    pub fn effects_ran(&self) -> usize {
        self.effects
    }

    /// The definition the ids belong to.
    pub fn definition(&self) -> &'e Definition {
        self.definition
    }

    /// The name of the state before.
    pub fn from_name(&self) -> &'e str {
        self.definition.state_name(self.from)
    }

    /// The name of the state after.
    pub fn to_name(&self) -> &'e str {
        self.definition.state_name(self.to)
    }

    /// The name of the state whose `after` this is.
    pub fn declared_in_name(&self) -> &'e str {
        self.definition.state_name(self.declared_in)
    }

    /// The timer's delay as written: `30s`, or the name of a delay.
    pub fn delay_text(&self) -> String {
        self.definition.delay_text(self.declared_in, self.timer)
    }

    /// The names of the outputs, in order.
    pub fn output_names(&self) -> impl ExactSizeIterator<Item = &'e str> + '_ {
        let definition = self.definition;
        self.outputs.iter().map(move |&o| definition.output_name(o))
    }
}

/// `` `call_tool` --after 30s--> `fail` (emit `report_timeout`) ``, or for a
/// timer of a state holding the leaf left,
/// `` `talking` --after 2h of `connected`--> `idle` ``.
impl fmt::Display for FiredTimer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let definition = self.definition;
        write_names(f, self.from_leaves().iter().map(|&s| definition.state_name(s)))?;
        write!(f, " --after {}", self.delay_text())?;
        if self.from_leaves() != [self.declared_in] {
            write!(f, " of `{}`", self.declared_in_name())?;
        }
        f.write_str("--> ")?;
        write_names(f, self.to_leaves().iter().map(|&s| definition.state_name(s)))?;
        if !self.outputs.is_empty() {
            f.write_str(" (emit ")?;
            write_names(f, self.output_names())?;
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Debug for FiredTimer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FiredTimer")
            .field("seq", &self.seq)
            .field("from", &self.from_name())
            .field("to", &self.to_name())
            .field("declared_in", &self.declared_in_name())
            .field("timer", &self.timer)
            .field("due", &self.due)
            .field("outputs", &self.output_names().collect::<Vec<_>>())
            .field("internal", &self.internal)
            .finish()
    }
}
