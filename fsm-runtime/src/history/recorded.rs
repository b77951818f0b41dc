//! A generated machine that records its own history.

use super::{History, Timestamp};
use crate::fire_error::FireError;
use crate::fired::Fired;
use crate::machine::{Fire, FireEvent, Machine, Persist, Restore, Timed};
#[allow(unused_imports)]
use crate::prelude::*;
use crate::snapshot::{FingerprintPolicy, RestoreError, Snapshot, SnapshotError};
use crate::timer::{TimerFired, TimerRejected};

/// A generated machine and the [`History`] of every transition it took.
///
/// Any generated machine: with or without a context, payloads, timers or
/// nested states. Every successful [`fire`](Recorded::fire) is recorded,
/// internal transitions included, and so is every timer that fires through
/// [`fire_next_due`](Recorded::fire_next_due) (or a driver), with the
/// timer's label (`after 30s`) as its action; rejected events are not. Its
/// [`snapshot`](Recorded::snapshot) carries the history and
/// [`restore`](Recorded::restore) brings it back. For a machine fired from
/// several threads, see [`Shared`](crate::Shared).
///
/// Each entry is stamped by the history's clock, read before the machine
/// fires; a machine on a [`ManualClock`](crate::ManualClock) records the
/// times of that clock when its history is given it too
/// (`History::new().with_clock(clock.clone())`).
///
/// ```
/// use fsm_runtime::Recorded;
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
/// run.fire(Action::Start)?;
/// assert!(run.fire(Action::Start).is_err()); // not recorded
///
/// let resumed = Recorded::<Execution>::restore(&run.snapshot()?)?;
/// assert_eq!(resumed.state(), State::Executing);
/// assert_eq!(resumed.history().last().map(|e| e.to()), Some("executing"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Recorded<M> {
    machine: M,
    history: History,
}

impl<M: Machine> Recorded<M> {
    /// `machine`, recording into a new history that keeps every entry, timed
    /// by the system clock (feature `std`; without it, [`Recorded::with_history`]).
    #[cfg(feature = "std")]
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

    /// Fire `event`, as the machine's own `fire(event)` does, and record the
    /// transition if it fires.
    ///
    /// # Errors
    ///
    /// As the machine's `fire`: the event is handed back in the error, and
    /// nothing is recorded.
    pub fn fire(&mut self, event: M::Event) -> Result<Fired<M>, FireError<M>>
    where
        M: FireEvent,
    {
        let at = self.history.now();
        let result = self.machine.fire(event);
        record(&mut self.history, at, &result);
        result
    }

    /// Fire `event` with `guards`, for a machine that takes its guards per
    /// call, as its `fire(event, &guards)` does, and record the transition
    /// if it fires.
    ///
    /// # Errors
    ///
    /// As the machine's `fire`.
    pub fn fire_with<G: ?Sized>(&mut self, event: M::Event, guards: &G) -> Result<Fired<M>, FireError<M>>
    where
        M: Fire<G>,
    {
        let at = self.history.now();
        let result = self.machine.fire(event, guards);
        record(&mut self.history, at, &result);
        result
    }

    /// Fire the earliest timer whose deadline has passed, if any, as the
    /// machine's own `fire_next_due` does, and record it if it fired.
    pub fn fire_next_due(&mut self) -> Option<Result<TimerFired<M>, TimerRejected<M>>>
    where
        M: Timed,
    {
        let at = self.history.now();
        let result = self.machine.fire_next_due();
        if let Some(Ok(fired)) = &result {
            self.history.push_timer(at, fired);
        }
        result
    }

    /// When the machine's next armed timer is due; `None` when none is.
    pub fn next_deadline(&self) -> Option<Timestamp>
    where
        M: Timed,
    {
        self.machine.next_deadline()
    }

    /// The machine's snapshot, carrying the history.
    ///
    /// # Errors
    ///
    /// When the machine's context does not serialize.
    pub fn snapshot(&self) -> Result<Snapshot, SnapshotError>
    where
        M: Persist,
    {
        Ok(self.machine.snapshot()?.with_history(&self.history))
    }

    /// The machine in `snapshot`'s state (and context, timers and history
    /// memory), recording into a new history that continues from the
    /// snapshot's entries. The snapshot must come from this exact
    /// definition.
    ///
    /// # Errors
    ///
    /// As [`Restore::restore`], and [`RestoreError::SeqOutOfRange`] when the
    /// snapshot's history ends past [`History::MAX_RESUMED_SEQ`].
    #[cfg(feature = "std")]
    pub fn restore(snapshot: &Snapshot) -> Result<Recorded<M>, RestoreError>
    where
        M: Restore,
    {
        Recorded::restore_with(snapshot, FingerprintPolicy::Strict, History::new())
    }

    /// As [`Recorded::restore`], with `policy` deciding whether a snapshot
    /// of a different definition is accepted, recording into `history`
    /// (whose clock and retention are kept, its entries replaced by the
    /// snapshot's).
    ///
    /// # Errors
    ///
    /// As [`Recorded::restore`].
    pub fn restore_with(
        snapshot: &Snapshot,
        policy: FingerprintPolicy,
        history: History,
    ) -> Result<Recorded<M>, RestoreError>
    where
        M: Restore,
    {
        let machine = M::restore_with(snapshot, policy)?;
        Recorded::resume(machine, snapshot, history)
    }

    /// `machine`, already restored from `snapshot` by its own constructor
    /// (a machine on a clock of the caller's, or given its context), recording
    /// into `history` continued from the snapshot's entries.
    ///
    /// # Errors
    ///
    /// [`RestoreError::SeqOutOfRange`] when the snapshot's history ends past
    /// [`History::MAX_RESUMED_SEQ`].
    pub fn resume(machine: M, snapshot: &Snapshot, history: History) -> Result<Recorded<M>, RestoreError> {
        Ok(Recorded::with_history(machine, history.resumed_from(snapshot)?))
    }

    /// The machine and its history.
    pub fn into_parts(self) -> (M, History) {
        (self.machine, self.history)
    }
}

#[cfg(feature = "std")]
impl<M: Machine + Default> Default for Recorded<M> {
    fn default() -> Recorded<M> {
        Recorded::new(M::default())
    }
}

/// Record the step of `result` at `at`, if it fired. The time is read
/// before the machine fires, so a clock that panics leaves the machine where
/// it was.
pub(crate) fn record<M: Machine>(
    history: &mut History,
    at: Timestamp,
    result: &Result<Fired<M>, FireError<M>>,
) {
    if let Ok(fired) = result {
        history.push_fired(at, fired);
    }
}
