//! A generated machine that records its own history.

use super::History;
use crate::fire_error::FireError;
use crate::fired::Fired;
use crate::machine::{Fire, Machine};
use crate::snapshot::{FingerprintPolicy, RestoreError, Snapshot};
use crate::trace;

/// A generated machine and the [`History`] of every action it fired.
///
/// Every successful [`fire`](Recorded::fire) is recorded, internal
/// transitions included; rejected actions are not. Its
/// [`snapshot`](Recorded::snapshot) carries the history and
/// [`restore`](Recorded::restore) brings it back. For a machine fired from
/// several threads, see [`Shared`](crate::Shared).
///
/// ```
/// use fsm_runtime::{NoGuards, Recorded};
///
/// fsm_runtime::fsm! {
///     machine Execution {
///         initial state idle { on start -> executing; }
///         state executing { on success -> completed; on error -> failed; }
///         terminal state completed;
///         terminal state failed;
///     }
/// }
/// use execution::{Action, Execution, State};
///
/// let mut run = Recorded::new(Execution::new());
/// run.fire(Action::Start, &NoGuards)?;
/// assert!(run.fire(Action::Start, &NoGuards).is_err()); // not recorded
///
/// let resumed = Recorded::<Execution>::restore(&run.snapshot())?;
/// assert_eq!(resumed.state(), State::Executing);
/// assert_eq!(resumed.history().last().map(|e| e.to()), Some("executing"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Recorded<M: Machine> {
    machine: M,
    history: History,
}

impl<M: Machine> Recorded<M> {
    /// `machine`, recording into a new history that keeps every entry.
    pub fn new(machine: M) -> Recorded<M> {
        Recorded::with_history(machine, History::new())
    }

    /// `machine`, recording into `history`, which continues from its own
    /// entries and sequence numbers.
    pub fn with_history(machine: M, history: History) -> Recorded<M> {
        Recorded { machine, history }
    }

    /// The machine.
    pub fn machine(&self) -> &M {
        &self.machine
    }

    /// The machine's current state.
    pub fn state(&self) -> M::State {
        self.machine.state()
    }

    /// The history so far.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Fire `action` with `guards` (`&NoGuards` for a machine without
    /// guards), as [`Fire::fire`] does, and record the transition if it
    /// fires.
    ///
    /// It takes the guards even for a machine without them, unlike that
    /// machine's own `fire` and [`Unguarded::fire`](crate::Unguarded::fire):
    /// `Recorded` holds any machine, Rust gives it only one inherent `fire`
    /// whatever the arity, and a pair of traits instead would need importing
    /// and be ambiguous for a guardless machine, which implements both.
    ///
    /// If a guard or the history's clock panics, neither the machine nor
    /// the history has changed.
    pub fn fire<G: ?Sized>(&mut self, action: M::Action, guards: &G) -> Result<Fired<M>, FireError<M>>
    where
        M: Fire<G>,
    {
        fire_recording(&mut self.machine, Some(&mut self.history), action, guards)
    }

    /// The machine's snapshot, carrying the history's entries.
    pub fn snapshot(&self) -> Snapshot {
        self.machine.snapshot().with_history(&self.history)
    }

    /// The machine and history of `snapshot`, which must come from this
    /// machine and this exact definition. The history keeps every entry and
    /// uses the [`SystemClock`](crate::SystemClock).
    pub fn restore(snapshot: &Snapshot) -> Result<Recorded<M>, RestoreError> {
        Recorded::restore_with(snapshot, FingerprintPolicy::Strict, History::new())
    }

    /// The machine and history of `snapshot`, with `policy` deciding whether
    /// a snapshot of a different definition is accepted. The snapshot's
    /// entries replace those of `history`, which gives the retention and the
    /// clock (see [`History::resumed_from`]).
    ///
    /// # Errors
    ///
    /// What [`Machine::restore_with`] refuses, then
    /// [`RestoreError::SeqOutOfRange`] for a history whose sequence numbers
    /// are too close to the top of `u64` to continue.
    pub fn restore_with(
        snapshot: &Snapshot,
        policy: FingerprintPolicy,
        history: History,
    ) -> Result<Recorded<M>, RestoreError> {
        let machine = M::restore_with(snapshot, policy)?;
        Ok(Recorded::with_history(machine, history.resumed_from(snapshot)?))
    }

    /// The machine and its history.
    pub fn into_parts(self) -> (M, History) {
        (self.machine, self.history)
    }
}

impl<M: Machine> Default for Recorded<M> {
    /// A machine in its initial state with an empty history.
    fn default() -> Recorded<M> {
        Recorded::new(M::new())
    }
}

/// What [`Fire::fire`] does, and record the transition in `history`.
///
/// All user code (the guards, then the clock) runs before anything changes,
/// so a panic in it leaves the machine and the history as they were. That
/// is what lets [`Shared`](crate::Shared) recover from a poisoned lock.
pub(crate) fn fire_recording<M: Fire<G>, G: ?Sized>(
    machine: &mut M,
    history: Option<&mut History>,
    action: M::Action,
    guards: &G,
) -> Result<Fired<M>, FireError<M>> {
    let result = M::transition(machine.state(), action, guards);
    match &result {
        Ok(fired) => {
            if let Some(history) = history {
                let at = history.now();
                history.push_fired(at, fired);
            }
            *machine = M::from_state(fired.to);
            trace::fired(fired);
        }
        Err(error) => trace::rejected(error),
    }
    result
}
