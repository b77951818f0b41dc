//! The traits every generated machine implements, so that generic code
//! (histories, stores, shared handles) can drive any of them.

use crate::fire_error::FireError;
use crate::fired::Fired;
use crate::snapshot::{FingerprintPolicy, RestoreError, Snapshot};
use crate::symbol::Symbol;
use crate::trace;
use std::fmt;
use std::hash::Hash;

/// A state machine generated from a `.fsm` definition: its types, its
/// constants, and its current state.
///
/// Firing actions is the job of [`Fire`], which is separate because it
/// depends on the guards type; see there.
///
/// Every method has an inherent twin on the generated type, so users who
/// hold a concrete machine never need to import this trait.
pub trait Machine: Sized + Clone + Eq + Hash + fmt::Debug + Send + Sync + 'static {
    /// The machine's states: its leaves, with nested states (a composite
    /// state is never current).
    type State: Symbol;
    /// The actions it accepts.
    type Action: Symbol;
    /// The outputs it emits.
    type Output: Symbol;

    /// The machine's name, as written.
    const NAME: &'static str;
    /// A stable hash of the machine's canonical definition: 16 hex digits.
    /// It is the same however the code was generated, and changes when the
    /// behaviour can change.
    const FINGERPRINT: &'static str;
    /// The leaf the machine starts in: its initial state, or with nested
    /// states the end of that state's initial descent.
    const INITIAL: Self::State;

    /// A machine in `state`, remembering nothing (a history target then
    /// enters its composite's initial states).
    fn from_state(state: Self::State) -> Self;

    /// The current state.
    fn state(&self) -> Self::State;

    /// The actions that have a transition in `state` (its own, those it
    /// inherits from the states holding it, and `any`'s), whether or not its
    /// guards would let it fire, in declaration order. Empty for terminal
    /// states.
    fn valid_actions_in(state: Self::State) -> &'static [Self::Action];

    /// True when `state` is terminal: no action is valid in it.
    fn is_terminal_state(state: Self::State) -> bool;

    /// A machine in the initial state.
    fn new() -> Self {
        Self::from_state(Self::INITIAL)
    }

    /// The actions that have a transition in the current state.
    fn valid_actions(&self) -> &'static [Self::Action] {
        Self::valid_actions_in(self.state())
    }

    /// True when the current state is terminal.
    fn is_terminal(&self) -> bool {
        Self::is_terminal_state(self.state())
    }

    /// The current state, with the machine's name and fingerprint, ready to
    /// be stored.
    fn snapshot(&self) -> Snapshot {
        Snapshot::new(Self::NAME, Self::FINGERPRINT, self.state().name())
    }

    /// A machine in the state of `snapshot`, which must come from this
    /// machine and this exact definition ([`FingerprintPolicy::Strict`]).
    fn restore(snapshot: &Snapshot) -> Result<Self, RestoreError> {
        Self::restore_with(snapshot, FingerprintPolicy::Strict)
    }

    /// A machine in the state of `snapshot`, with `policy` deciding whether a
    /// snapshot taken from a different definition is accepted.
    fn restore_with(snapshot: &Snapshot, policy: FingerprintPolicy) -> Result<Self, RestoreError> {
        snapshot.state_of::<Self>(policy).map(Self::from_state)
    }
}

/// Firing actions with guards of type `G`.
///
/// A machine with guards implements `Fire<G>` for every `G` that implements
/// its generated `Guards` trait (including `dyn Guards`); a machine without
/// guards implements it for every `G` and never looks at the value, so
/// [`NoGuards`] (the default) always works for it. Generic code that drives
/// machines with guards and without alike names the guards as a type
/// parameter:
///
/// ```
/// use fsm_runtime::{Fire, FireError, Fired};
///
/// /// Fire every action in turn and stop at the first error.
/// fn fire_all<M: Fire<G>, G: ?Sized>(
///     machine: &mut M,
///     actions: &[M::Action],
///     guards: &G,
/// ) -> Result<Vec<Fired<M>>, FireError<M>> {
///     actions.iter().map(|&action| machine.fire(action, guards)).collect()
/// }
/// ```
///
/// Generic code for machines without guards alone can bound [`Unguarded`]
/// instead, and fire as their inherent methods do: `fire(action)`, with no
/// `&NoGuards`. The two traits are independent (neither is a supertrait of
/// the other), so a function bounded by either one calls its `fire`
/// unambiguously, even with both imported; a type's inherent `fire` wins over
/// both.
///
/// Taking the guards as a trait parameter rather than an associated type
/// keeps calls statically dispatched and lets guards borrow data (a
/// `Guards` impl for `Ctx<'a>` works, which `&dyn Guards + 'static` would
/// reject).
pub trait Fire<G: ?Sized = NoGuards>: Machine {
    /// What firing `action` in `state` would do, without changing anything.
    ///
    /// The candidates for `action` are tried by priority (ties in
    /// declaration order, the state's own transitions before `any`), and
    /// their guards are evaluated lazily in that order, each at most once.
    fn transition(
        state: Self::State,
        action: Self::Action,
        guards: &G,
    ) -> Result<Fired<Self>, FireError<Self>>;

    /// Fire `action`: on success the machine moves to [`Fired::to`] and the
    /// caller performs [`Fired::outputs`]; on error it stays where it is.
    ///
    /// Neither outcome allocates. With the `tracing` feature, both are
    /// logged.
    #[inline]
    fn fire(&mut self, action: Self::Action, guards: &G) -> Result<Fired<Self>, FireError<Self>> {
        let result = Self::transition(self.state(), action, guards);
        match &result {
            Ok(fired) => {
                *self = Self::from_state(fired.to);
                trace::fired(fired);
            }
            Err(error) => trace::rejected(error),
        }
        result
    }

    /// True when firing `action` now would succeed. Evaluates the guards it
    /// needs, exactly as [`Fire::fire`] would, but changes nothing.
    #[inline]
    fn can_fire(&self, action: Self::Action, guards: &G) -> bool {
        Self::transition(self.state(), action, guards).is_ok()
    }
}

/// Firing actions on a machine without guards: `fire(action)`, as the
/// generated machine's inherent methods read, for generic code.
///
/// Every machine generated without guards, context, payloads or timers
/// implements it. Its methods are `Fire<NoGuards>`'s with the guards left
/// out, so the two cannot disagree, and a machine with nested states keeps
/// its history memory either way. A machine with guards does not implement
/// it: generic code that takes both kinds bounds [`Fire<G>`](Fire) and
/// passes `&NoGuards` for the guardless ones. (A machine with a context,
/// payloads or timers fires events with its own `fire(event)`, and generic
/// code reaches it through [`Driven`](crate::driver::Driven).)
///
/// It is neither a supertrait nor a subtrait of [`Fire`], so code bounded
/// by one of them calls that one's `fire`, with both traits imported.
///
/// ```
/// use fsm_runtime::{FireError, Fired, Unguarded};
///
/// /// Fire every action in turn and stop at the first error.
/// fn fire_all<M: Unguarded>(
///     machine: &mut M,
///     actions: &[M::Action],
/// ) -> Result<Vec<Fired<M>>, FireError<M>> {
///     actions.iter().map(|&action| machine.fire(action)).collect()
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
/// let fired = fire_all(&mut gate, &[Action::Coin, Action::Push, Action::Coin])?;
/// assert_eq!(fired.len(), 3);
/// assert_eq!(gate.state(), State::Unlocked);
/// // The inherent methods read the same.
/// assert!(gate.can_fire(Action::Push));
/// assert!(Turnstile::transition(State::Locked, Action::Push).is_err());
/// # Ok::<(), turnstile::FireError>(())
/// ```
///
/// The [`Recorded`](crate::Recorded) and [`Shared`](crate::Shared) wrappers
/// still take the guards (`&NoGuards` here): each holds any machine, and
/// Rust gives a type only one inherent `fire`, whatever its arity.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a machine without guards, so it does not implement `Unguarded`",
    label = "`Unguarded` is for machines with no guards, context, payloads or timers",
    note = "a machine with guards fires through `fsm_runtime::Fire`, as `fire(action, &guards)`",
    note = "a machine with a context, payloads or timers fires its events through `fsm_runtime::driver::Driven`"
)]
pub trait Unguarded: Machine {
    /// What firing `action` in `state` would do, without changing anything:
    /// [`Fire::transition`] with [`NoGuards`].
    fn transition(state: Self::State, action: Self::Action) -> Result<Fired<Self>, FireError<Self>>;

    /// Fire `action`: on success the machine moves to [`Fired::to`] and the
    /// caller performs [`Fired::outputs`]; on error it stays where it is.
    /// [`Fire::fire`] with [`NoGuards`].
    ///
    /// Neither outcome allocates. With the `tracing` feature, both are
    /// logged. The default moves to `Self::from_state(fired.to)`; a machine
    /// with history memory overrides it, as generated ones do.
    #[inline]
    fn fire(&mut self, action: Self::Action) -> Result<Fired<Self>, FireError<Self>> {
        let result = Self::transition(self.state(), action);
        match &result {
            Ok(fired) => {
                *self = Self::from_state(fired.to);
                trace::fired(fired);
            }
            Err(error) => trace::rejected(error),
        }
        result
    }

    /// True when firing `action` now would succeed. Changes nothing:
    /// [`Fire::can_fire`] with [`NoGuards`].
    #[inline]
    fn can_fire(&self, action: Self::Action) -> bool {
        Self::transition(self.state(), action).is_ok()
    }
}

/// The guards value of a machine that has no guards, for [`Fire`] and the
/// wrappers that take guards; [`Unguarded`] fires such a machine without it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NoGuards;
