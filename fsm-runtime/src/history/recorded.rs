//! A generated machine that records its own history.

use super::{History, Timestamp};
use crate::fire_error::FireError;
use crate::fired::Fired;
use crate::machine::{Fire, FireEvent, Machine, Persist, Restore, Timed, TimedWith};
use crate::outbox::{self, OutputKey, Pending};
#[allow(unused_imports)]
use crate::prelude::*;
use crate::snapshot::{RestoreError, RestorePolicy, Snapshot, SnapshotError};
use crate::timer::{TimerFired, TimerRejected};

/// A generated machine and the [`History`] of every transition it took.
///
/// Any generated machine: with or without a context, payloads, timers or
/// nested states. Every successful [`fire`](Recorded::fire) is recorded,
/// internal transitions included, and so is every timer that fires through
/// [`fire_next_due`](Recorded::fire_next_due) (or, with guards passed per
/// call, [`fire_next_due_with`](Recorded::fire_next_due_with)) or a
/// driver, with the
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
///
/// # The outbox
///
/// A machine [`with_outbox`](Recorded::with_outbox) also keeps every output
/// it emits as [`pending`](Recorded::pending), keyed by the step that
/// emitted it, until the caller [acknowledges](Recorded::ack) it as
/// performed; its snapshot carries what is pending, so a crash between
/// saving the state and performing the outputs loses none. Save, perform,
/// acknowledge, save:
///
/// ```
/// use fsm_runtime::Recorded;
///
/// fsm_runtime::fsm! {
///     machine Run {
///         initial state running { on done -> delivered emit deliver, archive; }
///         terminal state delivered;
///     }
/// }
///
/// let mut run = Recorded::new(run::Run::new()).with_outbox();
/// run.fire(run::Action::Done)?;
/// let saved = run.snapshot()?; // the state and both outputs, pending
///
/// // The process dies here, before performing anything. Restored, the
/// // outputs are pending still, under the same keys.
/// let mut run = Recorded::<run::Run>::restore(&saved)?;
/// let keys: Vec<String> = run.pending().iter().map(|p| format!("order-17/{}", p.key)).collect();
/// assert_eq!(keys, ["order-17/0/0", "order-17/0/1"]);
/// for pending in run.pending().to_vec() {
///     // perform(pending.output) with its key, then:
///     run.ack(pending.key);
/// }
/// assert!(run.pending().is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Recorded<M: Machine> {
    machine: M,
    history: History,
    /// The outputs not acknowledged yet, in key order, when the machine
    /// keeps an outbox.
    outbox: Option<Vec<Pending<M::Output>>>,
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
        Recorded {
            machine,
            history,
            outbox: None,
        }
    }

    /// This machine, keeping an outbox from now on: every output a step
    /// emits stays [`pending`](Recorded::pending), under its key, until
    /// [acknowledged](Recorded::ack), and the [`snapshot`](Recorded::snapshot)
    /// carries what is pending (a restored machine keeps its outbox).
    pub fn with_outbox(mut self) -> Recorded<M> {
        self.outbox.get_or_insert_with(Vec::new);
        self
    }

    /// The outputs emitted and not acknowledged yet, in the order they were
    /// emitted; empty without an outbox.
    pub fn pending(&self) -> &[Pending<M::Output>] {
        self.outbox.as_deref().unwrap_or_default()
    }

    /// Acknowledge the output under `key` as performed: it is no longer
    /// pending, and the next snapshot no longer carries it. False when no
    /// output is pending under `key` (acknowledged already, or never
    /// emitted).
    pub fn ack(&mut self, key: OutputKey) -> bool {
        self.outbox
            .as_mut()
            .is_some_and(|outbox| outbox::ack(outbox, key))
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
    /// nothing is recorded, except after a [`FireError::Runaway`], which
    /// moved the machine: the move is recorded and its outputs kept.
    pub fn fire(&mut self, event: M::Event) -> Result<Fired<M>, FireError<M>>
    where
        M: FireEvent,
    {
        let at = self.history.now();
        let result = self.machine.fire(event);
        self.keep(at, &result);
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
        self.keep(at, &result);
        result
    }

    /// Record the step of `result`, if it fired, and keep its outputs in the
    /// outbox under the step's number.
    fn keep(&mut self, at: Timestamp, result: &Result<Fired<M>, FireError<M>>) {
        if let Some(step) = record(&mut self.history, at, result) {
            if let (Some(outbox), Some(outputs)) = (&mut self.outbox, emitted(result)) {
                outbox::push_step(outbox, step, &outputs);
            }
        }
    }

    /// Fire the earliest timer whose deadline has passed, if any, as the
    /// machine's own `fire_next_due` does, and record it if it fired.
    pub fn fire_next_due(&mut self) -> Option<Result<TimerFired<M>, TimerRejected<M>>>
    where
        M: Timed,
    {
        let at = self.history.now();
        let result = self.machine.fire_next_due();
        self.keep_timer(at, &result);
        result
    }

    /// Fire the earliest timer whose deadline has passed, if any, with
    /// `guards`, for a machine whose guards are passed per call, as its own
    /// `fire_next_due(&guards)` does, and record it if it fired, as
    /// [`Recorded::fire_next_due`] does. Any machine with [`Timed`] fires
    /// its timers this way too, ignoring `guards`.
    pub fn fire_next_due_with<G: ?Sized>(
        &mut self,
        guards: &G,
    ) -> Option<Result<TimerFired<M>, TimerRejected<M>>>
    where
        M: TimedWith<G>,
    {
        let at = self.history.now();
        let result = self.machine.fire_next_due_with(guards);
        self.keep_timer(at, &result);
        result
    }

    /// Record the timer of `result`, if it fired, and keep its outputs in
    /// the outbox under the step's number.
    fn keep_timer(&mut self, at: Timestamp, result: &Option<Result<TimerFired<M>, TimerRejected<M>>>) {
        if let Some(Ok(fired)) = result {
            let step = self.history.push_timer(at, fired).seq();
            if let Some(outbox) = &mut self.outbox {
                outbox::push_step(outbox, step, &fired.outputs);
            }
        }
    }

    /// When the machine's next armed timer is due; `None` when none is.
    pub fn next_deadline(&self) -> Option<Timestamp>
    where
        M: Timed,
    {
        Timed::next_deadline(&self.machine)
    }

    /// The machine's snapshot, carrying the history, and the outbox when it
    /// keeps one.
    ///
    /// # Errors
    ///
    /// When the machine's context does not serialize.
    pub fn snapshot(&self) -> Result<Snapshot, SnapshotError>
    where
        M: Persist,
    {
        let snapshot = self.machine.snapshot()?.with_history(&self.history);
        Ok(match &self.outbox {
            Some(outbox) => snapshot.with_pending(outbox.iter().map(|p| Pending {
                key: p.key,
                output: crate::Symbol::name(p.output),
            })),
            None => snapshot,
        })
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
        Recorded::restore_with(snapshot, RestorePolicy::STRICT, History::new())
    }

    /// As [`Recorded::restore`], with `policy` deciding whether a snapshot
    /// of a different definition is accepted and what becomes of a timer it
    /// lost (a [`RestorePolicy`], or a
    /// [`FingerprintPolicy`](crate::FingerprintPolicy), which refuses a lost
    /// timer), recording into `history` (whose clock and retention are kept,
    /// its entries replaced by the snapshot's).
    ///
    /// # Errors
    ///
    /// As [`Recorded::restore`].
    pub fn restore_with(
        snapshot: &Snapshot,
        policy: impl Into<RestorePolicy>,
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
    /// The outbox, when the snapshot carries one, comes back with it.
    ///
    /// # Errors
    ///
    /// [`RestoreError::SeqOutOfRange`] when the snapshot's history ends past
    /// [`History::MAX_RESUMED_SEQ`], and [`RestoreError::InvalidPending`]
    /// when its outbox holds something that is not an output of the machine
    /// or a key the history has not numbered.
    pub fn resume(machine: M, snapshot: &Snapshot, history: History) -> Result<Recorded<M>, RestoreError> {
        let outbox = snapshot.pending_of::<M>()?;
        Ok(Recorded {
            machine,
            history: history.resumed_from(snapshot)?,
            outbox,
        })
    }

    /// The machine and its history (what the outbox holds is not kept:
    /// convert it to a [`Shared`](crate::Shared) to keep it, or read
    /// [`pending`](Recorded::pending) first).
    pub fn into_parts(self) -> (M, History) {
        (self.machine, self.history)
    }

    /// The machine, its history and its outbox (for [`Shared`](crate::Shared)).
    #[cfg(feature = "std")]
    pub(crate) fn into_all_parts(self) -> (M, History, Option<Vec<Pending<M::Output>>>) {
        (self.machine, self.history, self.outbox)
    }

    /// The machine, recording into `history`, with `outbox` (for
    /// [`Shared`](crate::Shared)).
    #[cfg(feature = "std")]
    pub(crate) fn from_parts(
        machine: M,
        history: History,
        outbox: Option<Vec<Pending<M::Output>>>,
    ) -> Recorded<M> {
        Recorded {
            machine,
            history,
            outbox,
        }
    }
}

#[cfg(feature = "std")]
impl<M: Machine + Default> Default for Recorded<M> {
    fn default() -> Recorded<M> {
        Recorded::new(M::default())
    }
}

/// Record the step of `result` at `at`, if it fired, and return its `seq`.
/// The time is read before the machine fires, so a clock that panics leaves
/// the machine where it was.
pub(crate) fn record<M: Machine>(
    history: &mut History,
    at: Timestamp,
    result: &Result<Fired<M>, FireError<M>>,
) -> Option<u64> {
    match result {
        Ok(fired) => Some(history.push_fired(at, fired).seq()),
        // A runaway moved the machine, which kept every microstep: the
        // history keeps the move, and the outbox its outputs.
        Err(FireError::Runaway(e)) => Some(
            history
                .push_moved::<M>(at, &e.from(), e.action(), &e.state())
                .seq(),
        ),
        Err(_) => None,
    }
}

/// The outputs a `fire` emitted: a fired step's, or a runaway's (which
/// moved the machine); none for a refusal.
pub(crate) fn emitted<M: Machine>(result: &Result<Fired<M>, FireError<M>>) -> Option<M::Outputs> {
    match result {
        Ok(fired) => Some(fired.outputs),
        Err(FireError::Runaway(e)) => Some(e.outputs()),
        Err(_) => None,
    }
}
