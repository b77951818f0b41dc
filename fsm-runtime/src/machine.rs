//! The traits every generated machine implements, so that generic code
//! (histories, stores, shared handles, drivers) can drive any of them.

use crate::fire_error::FireError;
use crate::fired::Fired;
#[cfg(feature = "alloc")]
use crate::snapshot::{FingerprintPolicy, RestoreError, RestorePolicy, Snapshot, SnapshotError};
use crate::state::MachineState;
use crate::symbol::Symbol;
use crate::timer::{TimerFired, TimerRejected};
use crate::timestamp::Timestamp;
use core::fmt;
use core::hash::Hash;
use core::ops::Deref;

/// A state machine generated from a `.fsm` definition: its types, its
/// constants, and its current state.
///
/// Every generated machine implements it, with or without a context,
/// payloads, timers, nested or parallel states: the machine type itself
/// (`Door`, `Job<K>`), so generic code holds the machine the user holds.
/// A machine without parallel states is in one leaf (`State` is its `State`
/// enum, `Outputs` and `Valid` are `&'static` slices); one with them is in a
/// configuration (`State` is its `Configuration`, and a step's outputs and a
/// configuration's valid actions are [`List`](crate::List)s, collected in
/// place). Firing is
/// the job of [`FireEvent`] (`fire(event)`) or, for a machine that takes its
/// guards per call, [`Fire<G>`](Fire) (`fire(event, &guards)`); timers are
/// [`Timed`]'s (or, fired with guards passed per call,
/// [`TimedWith<G>`](TimedWith)'s), snapshots [`Persist`]'s and [`Restore`]'s.
///
/// `state`, `valid_actions` and `is_terminal` have inherent twins on the
/// generated type, so users who hold a concrete machine rarely need to
/// import this trait; `NAME`, `FINGERPRINT` and the per-state tables are
/// reached through it (`<Door as Machine>::FINGERPRINT`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a generated state machine: it does not implement `fsm_runtime::Machine`",
    label = "`Machine` is for the machines that `fsm!`, `fsmc build` and build scripts generate",
    note = "a `Recorded` or `Shared` machine is reached through `get()`, and a dynamic machine (`fsm_dynamic::Engine`) is not generated"
)]
pub trait Machine: Sized {
    /// The machine's current state: its generated `State` enum, one leaf
    /// (with nested states, a composite state is never current); with
    /// parallel states, its generated `Configuration`, a leaf in each active
    /// region.
    type State: MachineState;
    /// The actions it accepts.
    type Action: Symbol;
    /// The outputs it emits.
    type Output: Symbol;
    /// What `fire` takes: the generated `Event` (each action with its
    /// payload) for a machine with a context or payloads, and `Action`
    /// itself for one without.
    type Event: fmt::Debug;
    /// The outputs one step returns, in order: `&'static [Output]`, written
    /// out ahead of time, for a machine without parallel states;
    /// [`List<Output, N>`](crate::List), collected in place, for one with
    /// them. Either reads as a slice.
    type Outputs: Copy + Eq + Hash + fmt::Debug + Deref<Target = [Self::Output]>;
    /// The actions valid in a state, in declaration order: `&'static
    /// [Action]` for a machine without parallel states,
    /// [`List<Action, N>`](crate::List) for one with them (the actions some
    /// active leaf has a transition for). Either reads as a slice.
    type Valid: Copy + Eq + Hash + fmt::Debug + Deref<Target = [Self::Action]>;

    /// The machine's name, as written.
    const NAME: &'static str;
    /// A stable hash of the machine's canonical definition: 16 hex digits.
    /// It is the same however the code was generated, and changes when the
    /// behaviour can change.
    const FINGERPRINT: &'static str;
    /// The state the machine starts in: its initial state, or with nested
    /// states the end of that state's initial descent (with parallel states,
    /// of every region's).
    const INITIAL: Self::State;
    /// The terminal states, in declaration order: the states in which no
    /// action is valid and the machine has ended. Always top-level leaves.
    const TERMINAL: &'static [Self::State];

    /// The current state.
    fn state(&self) -> Self::State;

    /// The action of `event`.
    fn action_of(event: &Self::Event) -> Self::Action;

    /// The actions that have a transition in `state` (its own, those it
    /// inherits from the states holding it, and `any`'s), whether or not its
    /// guards would let it fire, in declaration order. Empty for terminal
    /// states.
    fn valid_actions_in(state: Self::State) -> Self::Valid;

    /// True when `state` is terminal: no action is valid in it.
    fn is_terminal_state(state: Self::State) -> bool;

    /// The actions that have a transition in the current state.
    fn valid_actions(&self) -> Self::Valid {
        Self::valid_actions_in(self.state())
    }

    /// True when the current state is terminal.
    fn is_terminal(&self) -> bool {
        Self::is_terminal_state(self.state())
    }
}

/// Firing events with guards of type `G`, passed per call.
///
/// A machine whose guards are passed per call (one with guards and no
/// context) implements `Fire<G>` for every `G` that implements its generated
/// `Guards` trait (including `dyn Guards`). A plain machine without guards
/// implements it for every `G` and never looks at the value; every other
/// machine (with a context, or with payloads or timers and no guards)
/// implements `Fire<NoGuards>`. So [`NoGuards`] (the default) works for
/// every machine that does not take guards. Generic code that
/// drives machines with guards and without alike names the guards as a type
/// parameter:
///
/// ```
/// use fsm_runtime::{Fire, FireError, Fired};
///
/// /// Fire every event in turn and stop at the first error.
/// fn fire_all<M: Fire<G>, G: ?Sized>(
///     machine: &mut M,
///     events: Vec<M::Event>,
///     guards: &G,
/// ) -> Result<Vec<Fired<M>>, FireError<M>> {
///     events.into_iter().map(|event| machine.fire(event, guards)).collect()
/// }
/// ```
///
/// Generic code for machines that take no guards per call can bound
/// [`FireEvent`] instead, and fire as their inherent methods do:
/// `fire(event)`. The two traits are independent (neither is a supertrait of
/// the other), so a function bounded by either one calls its `fire`
/// unambiguously, even with both imported; a type's inherent `fire` wins over
/// both.
///
/// Taking the guards as a trait parameter rather than an associated type
/// keeps calls statically dispatched and lets guards borrow data (a
/// `Guards` impl for `Ctx<'a>` works, which `&dyn Guards + 'static` would
/// reject).
pub trait Fire<G: ?Sized = NoGuards>: Machine {
    /// Fire `event`: on success the machine moves to [`Fired::to`] and the
    /// caller performs [`Fired::outputs`]; on error it stays where it is,
    /// nothing ran, and the error hands the event back.
    ///
    /// The candidates for the event's action are tried by priority (ties in
    /// declaration order, the state's own transitions before `any`), and
    /// their guards are evaluated lazily in that order, each at most once.
    /// Neither outcome allocates. With the `tracing` feature, both are
    /// logged.
    fn fire(&mut self, event: Self::Event, guards: &G) -> Result<Fired<Self>, FireError<Self>>;

    /// True when firing `event` now would succeed. Evaluates the guards it
    /// needs, exactly as [`Fire::fire`] would, but changes nothing.
    fn can_fire(&self, event: &Self::Event, guards: &G) -> bool;
}

/// Firing events on a machine that takes no guards per call: `fire(event)`,
/// as the generated machine's inherent methods read, for generic code.
///
/// Every generated machine implements it except one whose guards are passed
/// per call (a machine with guards and no context), which implements
/// [`Fire<G>`](Fire) alone. A machine without guards, context, payloads or
/// timers fires its `Action`s; a machine with a context or payloads, its
/// `Event`s.
///
/// It is neither a supertrait nor a subtrait of [`Fire`], so code bounded
/// by one of them calls that one's `fire`, with both traits imported.
///
/// ```
/// use fsm_runtime::{FireError, FireEvent, Fired};
///
/// /// Fire every event in turn and stop at the first error.
/// fn fire_all<M: FireEvent>(
///     machine: &mut M,
///     events: Vec<M::Event>,
/// ) -> Result<Vec<Fired<M>>, FireError<M>> {
///     events.into_iter().map(|event| machine.fire(event)).collect()
/// }
///
/// fsm_runtime::fsm! {
///     machine Turnstile {
///         initial state locked { on coin -> unlocked emit release; }
///         state unlocked { on push -> locked; }
///     }
/// }
/// use turnstile::{Action, State, Turnstile};
///
/// let mut gate = Turnstile::new();
/// let fired = fire_all(&mut gate, vec![Action::Coin, Action::Push, Action::Coin])?;
/// assert_eq!(fired.len(), 3);
/// assert_eq!(gate.state(), State::Unlocked);
/// // The inherent methods read the same.
/// assert!(gate.can_fire(Action::Push));
/// assert!(Turnstile::transition(State::Locked, Action::Push).is_err());
/// # Ok::<(), turnstile::FireError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not fire an event alone, so it does not implement `FireEvent`",
    label = "`FireEvent` is for generated machines that do not take their guards per call",
    note = "a generated machine with guards and no context takes them per call: it fires through `fsm_runtime::Fire`, as `fire(event, &guards)`, and a driver runs it as `fsm_runtime::driver::with_guards(&mut machine, &guards)`",
    note = "a `Recorded` or `Shared` machine fires through its own `fire(event)`"
)]
pub trait FireEvent: Machine {
    /// Fire `event`: on success the machine moves to [`Fired::to`] and the
    /// caller performs [`Fired::outputs`]; on error it stays where it is,
    /// nothing ran, and the error hands the event back. Neither outcome
    /// allocates. With the `tracing` feature, both are logged.
    fn fire(&mut self, event: Self::Event) -> Result<Fired<Self>, FireError<Self>>;

    /// True when firing `event` now would succeed. Changes nothing.
    fn can_fire(&self, event: &Self::Event) -> bool;
}

/// A machine's timers, for the drivers and wrappers. Every generated machine
/// implements it, and one without timers keeps the defaults (nothing is ever
/// due), except a machine with timers whose guards are passed per call: its
/// own `fire_next_due(&guards)` and `fire_due(&guards, each)` take them, so
/// it implements [`TimedWith<G>`](TimedWith) instead, which generic code,
/// [`Recorded::fire_next_due_with`](crate::Recorded::fire_next_due_with)
/// and the drivers (through
/// [`driver::with_guards`](crate::driver::with_guards)) fire its timers by.
/// Every `Timed` machine implements `TimedWith<G>` for every `G` too, so
/// generic code that takes guards bounds `TimedWith<G>` alone.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not fire its timers alone, so it does not implement `Timed`",
    label = "`Timed` is for generated machines that do not take their guards per call",
    note = "a generated machine with timers and guards passed per call fires them with its guards: bound `fsm_runtime::TimedWith<G>` and call `fire_next_due_with(&guards)`, and drive it with `fsm_runtime::driver::with_guards(&mut machine, &guards)`"
)]
pub trait Timed: Machine {
    /// When the next armed timer is due; `None` when none is armed.
    fn next_deadline(&self) -> Option<Timestamp> {
        None
    }

    /// The time by the machine's own clock: the system clock for a machine
    /// without timers.
    #[cfg(feature = "std")]
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }

    /// The time by the machine's own clock. Without the standard library a
    /// machine without timers has no clock, and does not implement `Timed`.
    #[cfg(not(feature = "std"))]
    fn now(&self) -> Timestamp;

    /// Fire the earliest timer whose deadline has passed, if any: `Ok` with
    /// what it did, or `Err` when its group's guards all failed.
    fn fire_next_due(&mut self) -> Option<Result<TimerFired<Self>, TimerRejected<Self>>> {
        None
    }
}

/// A machine's timers, fired with guards of type `G` passed per call: the
/// one bound for generic code that fires the timers of every machine,
/// whether it takes its guards per call or not.
///
/// A generated machine with timers whose guards are passed per call (one
/// with guards and no context) implements it for every `G` that implements
/// its generated `Guards` trait (including `dyn Guards`), and fires its
/// timers with them; it does not implement [`Timed`]. Every [`Timed`]
/// machine implements it for every `G`, and never looks at the value. So,
/// as with [`Fire<G>`](Fire), [`NoGuards`] (the default) works for every
/// machine that does not take guards.
///
/// [`Recorded::fire_next_due_with`](crate::Recorded::fire_next_due_with),
/// [`Shared::fire_next_due_with`](crate::Shared::fire_next_due_with) and
/// [`driver::with_guards`](crate::driver::with_guards) take it.
///
/// ```
/// use fsm_runtime::{ManualClock, TimedWith};
/// use std::time::{Duration, UNIX_EPOCH};
///
/// /// Fire every timer due by now; how many held a guard.
/// fn fire_due<M: TimedWith<G>, G: ?Sized>(machine: &mut M, guards: &G) -> usize {
///     let mut fired = 0;
///     while let Some(result) = machine.fire_next_due_with(guards) {
///         fired += usize::from(result.is_ok());
///     }
///     fired
/// }
///
/// fsm_runtime::fsm! {
///     machine Lamp {
///         guard powered;
///         initial state on { after 1s [powered] -> off; }
///         state off;
///     }
/// }
///
/// struct Mains(bool);
/// impl lamp::Guards for Mains {
///     fn powered(&self) -> bool {
///         self.0
///     }
/// }
///
/// let clock = ManualClock::new(UNIX_EPOCH);
/// let mut lamp = lamp::Lamp::with_clock(clock.clone());
/// clock.advance(Duration::from_secs(1));
/// assert_eq!(fire_due(&mut lamp, &Mains(true)), 1);
/// assert_eq!(lamp.state(), lamp::State::Off);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not fire its timers with guards of type `{G}`",
    label = "`TimedWith<{G}>` is for generated machines, and with guards passed per call for the types that implement their `Guards` trait",
    note = "a `Recorded` or `Shared` machine fires its timers through its own `fire_next_due_with(&guards)`"
)]
pub trait TimedWith<G: ?Sized = NoGuards>: Machine {
    /// When the next armed timer is due; `None` when none is armed.
    fn next_deadline(&self) -> Option<Timestamp>;

    /// The time by the machine's own clock.
    fn now(&self) -> Timestamp;

    /// Fire the earliest timer whose deadline has passed, if any, with
    /// `guards`: `Ok` with what it did, or `Err` when its group's guards all
    /// failed.
    fn fire_next_due_with(&mut self, guards: &G) -> Option<Result<TimerFired<Self>, TimerRejected<Self>>>;
}

/// A machine that fires its timers alone fires them with any guards,
/// without looking at them.
impl<M: Timed, G: ?Sized> TimedWith<G> for M {
    #[inline]
    fn next_deadline(&self) -> Option<Timestamp> {
        Timed::next_deadline(self)
    }

    #[inline]
    fn now(&self) -> Timestamp {
        Timed::now(self)
    }

    #[inline]
    fn fire_next_due_with(&mut self, _guards: &G) -> Option<Result<TimerFired<Self>, TimerRejected<Self>>> {
        Timed::fire_next_due(self)
    }
}

/// Snapshots of a machine, for generic code ([`Recorded`](crate::Recorded),
/// [`Shared`](crate::Shared), stores).
///
/// Every generated machine without a context implements it; one with a
/// context does with `fsm-runtime`'s `serde` feature (the snapshot carries
/// the context as JSON), when the context serializes. [`Restore`] brings a
/// machine back from its snapshot.
#[cfg(feature = "alloc")]
pub trait Persist: Machine {
    /// The current state, context, armed timers and history memory, with the
    /// machine's name and fingerprint, ready to be stored.
    ///
    /// # Errors
    ///
    /// When the context does not serialize; never for a machine without one.
    fn snapshot(&self) -> Result<Snapshot, SnapshotError>;
}

/// Machines restored from their snapshots, for generic code
/// ([`Recorded::restore`](crate::Recorded::restore)).
///
/// Every machine that implements [`Persist`] implements it when it can be
/// built from the snapshot alone: with timers, when its clock is `Default`
/// (the system clock is); with a context, when the context deserializes. A
/// machine on another clock is restored by its own `restore_with`, then
/// handed to [`Recorded::resume`](crate::Recorded::resume).
#[cfg(feature = "alloc")]
pub trait Restore: Persist {
    /// A machine in the state of `snapshot`, with `policy` deciding whether a
    /// snapshot taken from a different definition is accepted, and what
    /// becomes of a timer the snapshot lost: a [`RestorePolicy`], or a
    /// [`FingerprintPolicy`] (which refuses a lost timer). A machine without
    /// timers reads only its fingerprint policy.
    ///
    /// # Errors
    ///
    /// When the snapshot is of another machine or definition, names what the
    /// machine does not have, lost a timer (under
    /// [`MissingTimerPolicy::Refuse`](crate::MissingTimerPolicy::Refuse)), or
    /// carries a context that does not read.
    fn restore_with(snapshot: &Snapshot, policy: impl Into<RestorePolicy>) -> Result<Self, RestoreError>;

    /// A machine in the state of `snapshot`, which must come from this
    /// machine and this exact definition ([`FingerprintPolicy::Strict`]).
    ///
    /// # Errors
    ///
    /// As [`Restore::restore_with`].
    fn restore(snapshot: &Snapshot) -> Result<Self, RestoreError> {
        Self::restore_with(snapshot, FingerprintPolicy::Strict)
    }
}

/// The guards value of a machine whose guards are not passed per call, for
/// [`Fire`] and the wrappers that take guards; [`FireEvent`] fires such a
/// machine without it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NoGuards;
