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
    /// The machine's states.
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
    /// The initial state.
    const INITIAL: Self::State;

    /// A machine in `state`.
    fn from_state(state: Self::State) -> Self;

    /// The current state.
    fn state(&self) -> Self::State;

    /// The actions that have a transition in `state`, whether or not its
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
/// [`NoGuards`] (the default) always works for it. Generic code names the
/// guards as a type parameter:
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

/// The guards value of a machine that has no guards.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NoGuards;
