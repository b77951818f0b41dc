//! Why a `fire` did not happen. Every error borrows `'static` tables that the
//! generated code holds, so building one never allocates; it hands back the
//! event that was fired, payload and all.

use crate::machine::Machine;
use crate::state::MachineState;
use crate::symbol::{write_names, Symbol};
use core::fmt;
use core::hash::{Hash, Hasher};

/// Why an event did not fire. The machine is unchanged, nothing ran, and the
/// error holds the event (`event()`, `into_event()`), so a payload is never
/// lost. The same type for every generated machine, with or without a
/// context, payloads, timers or nested states: one `match` reads them all.
///
/// It displays as the specific error of its variant, which is not repeated
/// as its [`source`](core::error::Error::source): match on the variant to get
/// at it.
///
/// Every error is read through methods, and the dynamic engine's
/// `fsm_dynamic::FireError` (crate `fsm-dynamic`) has the same variants and
/// methods (`state()`, `action()`, `valid()`, `terminal()`, `candidates()`),
/// returning this machine's typed `State` and `Action` where the dynamic
/// engine returns ids. Code written against one reads the same against the
/// other:
///
/// ```
/// use fsm_runtime::FireError;
///
/// fsm_runtime::fsm! {
///     machine Door {
///         initial state closed { on open -> opened; }
///         state opened { on close -> closed; }
///     }
/// }
/// use door::{Action, Door, State};
///
/// let mut door = Door::new();
/// match door.fire(Action::Close) {
///     Err(FireError::InvalidTransition(e)) => {
///         assert_eq!((e.state(), e.action()), (State::Closed, Action::Close));
///         assert_eq!(e.valid(), [Action::Open]);
///         assert!(!e.terminal());
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
pub enum FireError<M: Machine> {
    /// No transition for the action exists in the current state.
    InvalidTransition(InvalidTransition<M>),
    /// Transitions exist, but the guard of every one of them was false.
    GuardRejected(GuardRejected<M>),
    /// The event fired, but the `always` and `done` transitions after it
    /// ran past a bound: they were still enabled after 1,000 microsteps (a
    /// guarded cycle whose guards kept holding), as the dynamic engine's
    /// `fsm_dynamic::FireError::Runaway`; or, in a generated machine whose
    /// `always` and `done` transitions can cycle, they emitted more outputs
    /// than its [`List`](crate::List) of outputs holds (the most a `fire`
    /// emits taking none of them twice), whether or not they then settled
    /// ([`Runaway::settled`]). Unlike the other errors, this one comes after
    /// the machine moved: it is where the last microstep left it, and the
    /// outputs of every microstep were emitted ([`Runaway::outputs`]; the
    /// first ones the list holds, and [`Runaway::emitted`] counts them
    /// all).
    // Added with the runaway of generated machines (bounded `always` and
    // `done` cycles): the `Runaway` variant, its struct and its arms below.
    Runaway(Runaway<M>),
}

impl<M: Machine> FireError<M> {
    /// An [`InvalidTransition`]: `event`'s action has no transition in
    /// `state`, where `valid` are the actions that do. For generated code.
    pub const fn invalid(state: M::State, event: M::Event, valid: M::Valid, terminal: bool) -> Self {
        FireError::InvalidTransition(InvalidTransition {
            state,
            event,
            valid,
            terminal,
        })
    }

    /// A [`GuardRejected`]: the guard of each of `candidates` was false.
    /// For generated code.
    pub const fn rejected(state: M::State, event: M::Event, candidates: &'static [Candidate]) -> Self {
        FireError::GuardRejected(GuardRejected {
            state,
            event,
            candidates,
        })
    }

    /// A [`Runaway`]: `event`, fired in `from`, ran its `always` and
    /// `done` transitions up to the bound and stopped in `state`, having
    /// emitted `emitted` outputs, the first of which `outputs` holds. For
    /// generated code.
    pub const fn runaway(
        from: M::State,
        state: M::State,
        event: M::Event,
        outputs: M::Outputs,
        emitted: usize,
    ) -> Self {
        FireError::Runaway(Runaway {
            from,
            state,
            event,
            outputs,
            emitted: saturating_u32(emitted),
            settled: false,
        })
    }

    /// A [`Runaway`] that settled: `event`, fired in `from`, ran its
    /// `always` and `done` transitions to `state`, where nothing more was
    /// enabled, but emitted `emitted` outputs, more than `outputs` holds.
    /// For generated code.
    pub const fn overflow(
        from: M::State,
        state: M::State,
        event: M::Event,
        outputs: M::Outputs,
        emitted: usize,
    ) -> Self {
        FireError::Runaway(Runaway {
            from,
            state,
            event,
            outputs,
            emitted: saturating_u32(emitted),
            settled: true,
        })
    }

    /// The state in which the event was fired.
    pub fn state(&self) -> M::State {
        match self {
            FireError::Runaway(e) => e.from,
            FireError::InvalidTransition(e) => e.state,
            FireError::GuardRejected(e) => e.state,
        }
    }

    /// The action of the event that was fired.
    pub fn action(&self) -> M::Action {
        M::action_of(self.event())
    }

    /// The event that was fired, with its payload.
    pub fn event(&self) -> &M::Event {
        match self {
            FireError::InvalidTransition(e) => &e.event,
            FireError::GuardRejected(e) => &e.event,
            FireError::Runaway(e) => &e.event,
        }
    }

    /// The event that was fired, with its payload, giving the error up.
    pub fn into_event(self) -> M::Event {
        match self {
            FireError::InvalidTransition(e) => e.event,
            FireError::GuardRejected(e) => e.event,
            FireError::Runaway(e) => e.event,
        }
    }
}

/// An event whose action has no transition in the current state.
pub struct InvalidTransition<M: Machine> {
    state: M::State,
    event: M::Event,
    valid: M::Valid,
    terminal: bool,
}

impl<M: Machine> InvalidTransition<M> {
    /// The current state.
    pub fn state(&self) -> M::State {
        self.state
    }

    /// The action that was fired.
    pub fn action(&self) -> M::Action {
        M::action_of(&self.event)
    }

    /// The event that was fired, with its payload.
    pub fn event(&self) -> &M::Event {
        &self.event
    }

    /// The event that was fired, giving the error up.
    pub fn into_event(self) -> M::Event {
        self.event
    }

    /// The actions that have a transition in the state, in declaration
    /// order (with parallel states, those some active leaf has one for).
    pub fn valid(&self) -> M::Valid {
        self.valid
    }

    /// True when the state is terminal (and [`valid`](Self::valid)
    /// therefore empty).
    pub fn terminal(&self) -> bool {
        self.terminal
    }
}

/// An event whose every candidate transition was rejected by its guard.
pub struct GuardRejected<M: Machine> {
    state: M::State,
    event: M::Event,
    candidates: &'static [Candidate],
}

impl<M: Machine> GuardRejected<M> {
    /// The current state.
    pub fn state(&self) -> M::State {
        self.state
    }

    /// The action that was fired.
    pub fn action(&self) -> M::Action {
        M::action_of(&self.event)
    }

    /// The event that was fired, with its payload.
    pub fn event(&self) -> &M::Event {
        &self.event
    }

    /// The event that was fired, giving the error up.
    pub fn into_event(self) -> M::Event {
        self.event
    }

    /// The candidates, in the order their guards were evaluated; each guard
    /// was false. With parallel states, those of every active leaf, leaves
    /// in document order, a transition that several of them inherit (one
    /// declared on a state holding them) listed once, where the first tried
    /// it, as the dynamic engine lists them; empty when more than six leaves
    /// have candidates for the action (its lists are written out ahead of
    /// time, one per combination of those leaves).
    pub fn candidates(&self) -> &'static [Candidate] {
        self.candidates
    }
}

/// An event whose `always` and `done` transitions did not settle within
/// 1,000 microsteps, or emitted more outputs than the machine's outputs
/// hold (see [`FireError::Runaway`]).
pub struct Runaway<M: Machine> {
    from: M::State,
    state: M::State,
    event: M::Event,
    outputs: M::Outputs,
    // A `u32`, with `settled`, keeps `Runaway` (and so every machine's
    // `FireError` and `fire`'s result) as large as it was without them.
    emitted: u32,
    settled: bool,
}

impl<M: Machine> Runaway<M> {
    /// The state in which the event was fired.
    pub fn from(&self) -> M::State {
        self.from
    }

    /// Where the machine stopped: the state the last microstep left it
    /// in, which it is now in.
    pub fn state(&self) -> M::State {
        self.state
    }

    /// The action that was fired.
    pub fn action(&self) -> M::Action {
        M::action_of(&self.event)
    }

    /// The event that was fired, with its payload.
    pub fn event(&self) -> &M::Event {
        &self.event
    }

    /// The event that was fired, giving the error up.
    pub fn into_event(self) -> M::Event {
        self.event
    }

    /// Every output emitted, in order: the caller must perform them. When
    /// the `fire` emitted more than the machine's outputs hold, the first
    /// ones, and the list's [`overflow`](crate::List::overflow) counts the
    /// others (see [`Runaway::emitted`]).
    pub fn outputs(&self) -> M::Outputs {
        self.outputs
    }

    /// How many outputs the `fire` emitted, those [`outputs`](Self::outputs)
    /// holds and those past its capacity.
    pub fn emitted(&self) -> usize {
        self.emitted as usize
    }

    /// True when the `always` and `done` transitions settled within the
    /// bound, and the error is that the outputs they emitted did not all
    /// fit ([`emitted`](Self::emitted) is more than the outputs held);
    /// false when they were still enabled after 1,000 microsteps.
    pub fn settled(&self) -> bool {
        self.settled
    }
}

/// `n`, or `u32::MAX` past it (more outputs than one `fire` can emit).
const fn saturating_u32(n: usize) -> u32 {
    if n > u32::MAX as usize {
        u32::MAX
    } else {
        n as u32
    }
}

/// A guarded transition that was a candidate for an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Candidate {
    guard: &'static str,
    target: Option<&'static str>,
}

impl Candidate {
    /// The candidate with guard `guard` leading to the state named
    /// `target`. For generated code, which keeps them in `static` tables.
    pub const fn new(guard: &'static str, target: Option<&'static str>) -> Self {
        Candidate { guard, target }
    }

    /// The guard expression, as canonical `.fsm` text (`!a && b`).
    pub fn guard(&self) -> &'static str {
        self.guard
    }

    /// The name of the state it leads to, as its transition names it: a
    /// leaf, or with nested states possibly a composite state (entered
    /// through its initial states or its history); `None` for an internal
    /// transition. [`Symbol::from_name`](crate::Symbol::from_name) turns a
    /// leaf's name back into a state.
    pub fn target(&self) -> Option<&'static str> {
        self.target
    }
}

/// `` state `closed` ``, or `` configuration [`a1`, `b1`] `` for several
/// leaves.
fn write_in<S: MachineState>(f: &mut fmt::Formatter<'_>, state: &S) -> fmt::Result {
    f.write_str(if state.leaf().is_some() {
        "state "
    } else {
        "configuration "
    })?;
    crate::state::write_state(f, state)
}

impl<M: Machine> fmt::Display for InvalidTransition<M> {
    /// `` action `close` is not valid in state `closed`; valid actions: `open`, `lock` ``
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "action `{}` is not valid in ", self.action())?;
        write_in(f, &self.state)?;
        if self.terminal {
            f.write_str(": the state is terminal")
        } else if self.valid.is_empty() {
            f.write_str("; no action is valid in this state")
        } else {
            f.write_str("; valid actions: ")?;
            write_names(f, self.valid.iter().map(|a| a.name()))
        }
    }
}

impl<M: Machine> fmt::Display for GuardRejected<M> {
    /// `` action `review` rejected in state `running`: guard `ok` was false (-> done), ... ``
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "action `{}` rejected in ", self.action())?;
        write_in(f, &self.state)?;
        f.write_str(": ")?;
        if self.candidates.is_empty() {
            return f.write_str("no guard of its transitions held");
        }
        for (i, candidate) in self.candidates.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "guard `{}` was false ", candidate.guard)?;
            match candidate.target {
                Some(target) => write!(f, "(-> {target})")?,
                None => f.write_str("(internal)")?,
            }
        }
        Ok(())
    }
}

impl<M: Machine> fmt::Display for FireError<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FireError::InvalidTransition(e) => e.fmt(f),
            FireError::GuardRejected(e) => e.fmt(f),
            FireError::Runaway(e) => e.fmt(f),
        }
    }
}

impl<M: Machine> fmt::Display for Runaway<M> {
    /// `` action `go` did not settle: ... more than 1,000 microsteps ... ``,
    /// or `` action `go` emitted 12 outputs, more than the 8 its machine's outputs hold ... ``
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kept, emitted) = (self.outputs.len(), self.emitted());
        if self.settled {
            write!(
                f,
                "action `{}` emitted {emitted} outputs, more than the {kept} its machine's outputs hold: the \
                 first {kept} were kept; the machine settled in ",
                self.action()
            )?;
            return crate::state::write_state(f, &self.state);
        }
        write!(
            f,
            "action `{}` did not settle: its `always` and `done` transitions were still enabled after 1,000 \
             microsteps; the machine stopped in ",
            self.action()
        )?;
        crate::state::write_state(f, &self.state)?;
        write!(f, " after emitting {emitted} outputs")?;
        if emitted > kept {
            write!(
                f,
                ", of which the first {kept} were kept (the most its machine's outputs hold)"
            )?;
        }
        Ok(())
    }
}

impl<M: Machine> core::error::Error for InvalidTransition<M> {}
impl<M: Machine> core::error::Error for GuardRejected<M> {}
impl<M: Machine> core::error::Error for Runaway<M> {}

/// No `source`: a `FireError` displays as the error it holds (thiserror's
/// `#[error(transparent)]`), so reporting that error again as its source
/// would print the message twice in a chain (anyhow's `{:#}`). Match on the
/// variant to reach the specific error.
impl<M: Machine> core::error::Error for FireError<M> {}

/// `Clone`, `Copy`, `PartialEq`, `Eq`, `Hash` and `Debug` of the errors,
/// by hand: derives would demand the traits of `M` itself, while only the
/// fields need them, and the event has each when its payload types do.
macro_rules! impl_error_traits {
    ($($ty:ident { $($field:ident),* })*) => {$(
        impl<M: Machine> Clone for $ty<M>
        where
            M::Event: Clone,
        {
            fn clone(&self) -> Self {
                $ty { $($field: self.$field.clone()),* }
            }
        }

        impl<M: Machine> Copy for $ty<M> where M::Event: Copy {}

        impl<M: Machine> PartialEq for $ty<M>
        where
            M::Event: PartialEq,
        {
            fn eq(&self, other: &Self) -> bool {
                true $(&& self.$field == other.$field)*
            }
        }

        impl<M: Machine> Eq for $ty<M> where M::Event: Eq {}

        impl<M: Machine> Hash for $ty<M>
        where
            M::Event: Hash,
        {
            fn hash<H: Hasher>(&self, hasher: &mut H) {
                $(self.$field.hash(hasher);)*
            }
        }

        impl<M: Machine> fmt::Debug for $ty<M> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($ty))
                    $(.field(stringify!($field), &self.$field))*
                    .finish()
            }
        }
    )*};
}

impl_error_traits! {
    InvalidTransition { state, event, valid, terminal }
    GuardRejected { state, event, candidates }
    Runaway { from, state, event, outputs, emitted, settled }
}

impl<M: Machine> fmt::Debug for FireError<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FireError::InvalidTransition(e) => f.debug_tuple("InvalidTransition").field(e).finish(),
            FireError::GuardRejected(e) => f.debug_tuple("GuardRejected").field(e).finish(),
            FireError::Runaway(e) => f.debug_tuple("Runaway").field(e).finish(),
        }
    }
}

impl<M: Machine> Clone for FireError<M>
where
    M::Event: Clone,
{
    fn clone(&self) -> Self {
        match self {
            FireError::InvalidTransition(e) => FireError::InvalidTransition(e.clone()),
            FireError::GuardRejected(e) => FireError::GuardRejected(e.clone()),
            FireError::Runaway(e) => FireError::Runaway(e.clone()),
        }
    }
}

impl<M: Machine> Copy for FireError<M> where M::Event: Copy {}

impl<M: Machine> PartialEq for FireError<M>
where
    M::Event: PartialEq,
{
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (FireError::InvalidTransition(a), FireError::InvalidTransition(b)) => a == b,
            (FireError::GuardRejected(a), FireError::GuardRejected(b)) => a == b,
            (FireError::Runaway(a), FireError::Runaway(b)) => a == b,
            _ => false,
        }
    }
}

impl<M: Machine> Eq for FireError<M> where M::Event: Eq {}

impl<M: Machine> Hash for FireError<M>
where
    M::Event: Hash,
{
    fn hash<H: Hasher>(&self, hasher: &mut H) {
        match self {
            FireError::InvalidTransition(e) => {
                0u8.hash(hasher);
                e.hash(hasher);
            }
            FireError::GuardRejected(e) => {
                1u8.hash(hasher);
                e.hash(hasher);
            }
            FireError::Runaway(e) => {
                2u8.hash(hasher);
                e.hash(hasher);
            }
        }
    }
}
