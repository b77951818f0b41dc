//! One machine, fired from many threads.

use crate::fire_error::FireError;
use crate::fired::Fired;
use crate::history::{record, History, Recorded, Timestamp};
use crate::machine::{Fire, FireEvent, Machine, Persist, Timed, TimedWith};
use crate::outbox::{self, OutputKey, Pending};
#[allow(unused_imports)]
use crate::prelude::*;
use crate::snapshot::{Snapshot, SnapshotError};
use crate::timer::{TimerFired, TimerRejected};
use core::fmt;
use std::sync::{Mutex, MutexGuard, TryLockError};

/// A generated machine that many threads fire at, one action at a time.
///
/// [`fire`](Shared::fire) takes `&self`: it locks, evaluates the guards on
/// the current state, moves, records the transition in the history (if the
/// machine has one), and unlocks. No two fires interleave, so the history's
/// order is the order in which the machine really moved: every entry starts
/// where the previous one ended. Share it with an `Arc`.
///
/// Any generated machine: with or without a context, payloads, timers or
/// nested states; [`fire_next_due`](Shared::fire_next_due) (or, with guards
/// passed per call, [`fire_next_due_with`](Shared::fire_next_due_with))
/// fires its timers under the same lock.
///
/// Guards, effects, delays and the history's clock run while the machine is
/// locked: they should be quick, and must not use the same `Shared` (the
/// lock is not reentrant, so that would deadlock). If one of them panics,
/// the panic reaches the caller of `fire` and the machine stays usable: the
/// lock's poisoning is cleared. A panicking guard leaves it unchanged; a
/// panicking effect leaves the changes the effects before it made to the
/// context.
///
/// ```
/// use fsm_runtime::{History, Shared};
/// use std::sync::Arc;
///
/// fsm_runtime::fsm! {
///     machine Counter {
///         initial state even { on tick -> odd; }
///         state odd { on tick -> even; }
///     }
/// }
/// use counter::{Action, Counter, State};
///
/// let shared = Arc::new(Shared::recording(Counter::new(), History::new()));
/// let threads: Vec<_> = (0..4)
///     .map(|_| {
///         let shared = Arc::clone(&shared);
///         std::thread::spawn(move || {
///             for _ in 0..25 {
///                 shared.fire(Action::Tick).unwrap();
///             }
///         })
///     })
///     .collect();
/// for thread in threads {
///     thread.join().unwrap();
/// }
/// assert_eq!(shared.state(), State::Even);
/// assert_eq!(shared.with_history(|history| history.recorded()), Some(100));
/// ```
pub struct Shared<M: Machine> {
    inner: Mutex<Inner<M>>,
}

/// What the lock protects.
struct Inner<M: Machine> {
    machine: M,
    history: Option<History>,
    /// The outputs not acknowledged yet, when it keeps an outbox (which
    /// needs `history`, to number the steps).
    outbox: Option<Vec<Pending<M::Output>>>,
}

impl<M: Machine> Inner<M> {
    /// Keep the outputs of the step numbered `step`, when there is an outbox.
    fn keep(&mut self, step: Option<u64>, outputs: &[M::Output]) {
        if let (Some(outbox), Some(step)) = (&mut self.outbox, step) {
            outbox::push_step(outbox, step, outputs);
        }
    }

    /// Record the timer of `result` read at `at`, if it fired and there is
    /// a history, and keep its outputs.
    fn keep_timer(
        &mut self,
        at: Option<Timestamp>,
        result: &Option<Result<TimerFired<M>, TimerRejected<M>>>,
    ) {
        if let Some(Ok(fired)) = result {
            let step = match (&mut self.history, at) {
                (Some(history), Some(at)) => Some(history.push_timer(at, fired).seq()),
                _ => None,
            };
            self.keep(step, &fired.outputs);
        }
    }
}

impl<M: Machine> Shared<M> {
    /// `machine`, recording no history.
    pub fn new(machine: M) -> Shared<M> {
        Shared::from_parts(machine, None)
    }

    /// `machine`, recording every transition into `history`.
    pub fn recording(machine: M, history: History) -> Shared<M> {
        Shared::from_parts(machine, Some(history))
    }

    fn from_parts(machine: M, history: Option<History>) -> Shared<M> {
        Shared {
            inner: Mutex::new(Inner {
                machine,
                history,
                outbox: None,
            }),
        }
    }

    /// This machine, keeping an outbox from now on, as
    /// [`Recorded::with_outbox`] does: every output stays
    /// [`pending`](Shared::pending) under its key until
    /// [acknowledged](Shared::ack), and the snapshot carries it. Keys number
    /// steps as the history does; a machine recording none starts one that
    /// keeps the last entry.
    pub fn with_outbox(self) -> Shared<M> {
        let mut inner = self.into_inner();
        inner
            .history
            .get_or_insert_with(|| History::bounded(core::num::NonZeroUsize::MIN));
        inner.outbox.get_or_insert_with(Vec::new);
        Shared {
            inner: Mutex::new(inner),
        }
    }

    /// The outputs emitted and not acknowledged yet, in the order they were
    /// emitted, copied under the lock; empty without an outbox.
    pub fn pending(&self) -> Vec<Pending<M::Output>> {
        self.lock().outbox.clone().unwrap_or_default()
    }

    /// Acknowledge the output under `key` as performed; false when none is
    /// pending under it.
    pub fn ack(&self, key: OutputKey) -> bool {
        self.lock()
            .outbox
            .as_mut()
            .is_some_and(|outbox| outbox::ack(outbox, key))
    }

    /// Fire `event` under the lock, as the machine's own `fire(event)` does,
    /// and record the transition if it fires.
    ///
    /// # Errors
    ///
    /// As the machine's `fire`: the event is handed back in the error.
    pub fn fire(&self, event: M::Event) -> Result<Fired<M>, FireError<M>>
    where
        M: FireEvent,
    {
        let mut inner = self.lock();
        let at = inner.history.as_ref().map(History::now);
        let result = inner.machine.fire(event);
        let step = match (&mut inner.history, at) {
            (Some(history), Some(at)) => record(history, at, &result),
            _ => None,
        };
        if let Some(outputs) = crate::history::emitted(&result) {
            inner.keep(step, &outputs);
        }
        result
    }

    /// Fire `event` with `guards` under the lock, for a machine that takes
    /// its guards per call, and record the transition if it fires.
    ///
    /// # Errors
    ///
    /// As the machine's `fire`.
    pub fn fire_with<G: ?Sized>(&self, event: M::Event, guards: &G) -> Result<Fired<M>, FireError<M>>
    where
        M: Fire<G>,
    {
        let mut inner = self.lock();
        let at = inner.history.as_ref().map(History::now);
        let result = inner.machine.fire(event, guards);
        let step = match (&mut inner.history, at) {
            (Some(history), Some(at)) => record(history, at, &result),
            _ => None,
        };
        if let Some(outputs) = crate::history::emitted(&result) {
            inner.keep(step, &outputs);
        }
        result
    }

    /// True when firing `event` now would succeed. Changes nothing. Another
    /// thread may fire before you do, so the answer may be stale by the time
    /// you act on it.
    pub fn can_fire(&self, event: &M::Event) -> bool
    where
        M: FireEvent,
    {
        self.lock().machine.can_fire(event)
    }

    /// True when firing `event` with `guards` now would succeed. Changes
    /// nothing; the answer may be stale, as [`Shared::can_fire`]'s.
    pub fn can_fire_with<G: ?Sized>(&self, event: &M::Event, guards: &G) -> bool
    where
        M: Fire<G>,
    {
        self.lock().machine.can_fire(event, guards)
    }

    /// Fire the earliest timer whose deadline has passed, if any, under the
    /// lock, and record it if it fired.
    pub fn fire_next_due(&self) -> Option<Result<TimerFired<M>, TimerRejected<M>>>
    where
        M: Timed,
    {
        let mut inner = self.lock();
        let at = inner.history.as_ref().map(History::now);
        let result = inner.machine.fire_next_due();
        inner.keep_timer(at, &result);
        result
    }

    /// Fire the earliest timer whose deadline has passed, if any, with
    /// `guards`, under the lock, for a machine whose guards are passed per
    /// call, and record it if it fired, as [`Shared::fire_next_due`] does.
    /// Any machine with [`Timed`] fires its timers this way too, ignoring
    /// `guards`.
    pub fn fire_next_due_with<G: ?Sized>(&self, guards: &G) -> Option<Result<TimerFired<M>, TimerRejected<M>>>
    where
        M: TimedWith<G>,
    {
        let mut inner = self.lock();
        let at = inner.history.as_ref().map(History::now);
        let result = inner.machine.fire_next_due_with(guards);
        inner.keep_timer(at, &result);
        result
    }

    /// When the machine's next armed timer is due; `None` when none is.
    pub fn next_deadline(&self) -> Option<Timestamp>
    where
        M: Timed,
    {
        Timed::next_deadline(&self.lock().machine)
    }

    /// The current state.
    pub fn state(&self) -> M::State {
        self.lock().machine.state()
    }

    /// The machine's snapshot, with the history if it records one, taken
    /// under the lock.
    ///
    /// # Errors
    ///
    /// When the machine's context does not serialize.
    pub fn snapshot(&self) -> Result<Snapshot, SnapshotError>
    where
        M: Persist,
    {
        let inner = self.lock();
        let mut snapshot = inner.machine.snapshot()?;
        if let Some(history) = &inner.history {
            snapshot = snapshot.with_history(history);
        }
        if let Some(outbox) = &inner.outbox {
            snapshot = snapshot.with_pending(outbox.iter().map(|p| Pending {
                key: p.key,
                output: crate::Symbol::name(p.output),
            }));
        }
        Ok(snapshot)
    }

    /// Call `f` with the machine, under the lock.
    pub fn with<R>(&self, f: impl FnOnce(&M) -> R) -> R {
        f(&self.lock().machine)
    }

    /// Call `f` with the history, under the lock; `None` when it records
    /// none.
    pub fn with_history<R>(&self, f: impl FnOnce(&History) -> R) -> Option<R> {
        self.lock().history.as_ref().map(f)
    }

    /// The machine and its history, if it records one. With an outbox,
    /// [`Shared::into_recorded`] keeps what is pending.
    pub fn into_parts(self) -> (M, Option<History>) {
        let inner = self.into_inner();
        (inner.machine, inner.history)
    }

    /// The machine as a [`Recorded`] one, with its history (a new one if it
    /// recorded none) and its outbox.
    pub fn into_recorded(self) -> Recorded<M> {
        let inner = self.into_inner();
        let history = inner.history.unwrap_or_default();
        Recorded::from_parts(inner.machine, history, inner.outbox)
    }

    fn into_inner(self) -> Inner<M> {
        self.inner
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn lock(&self) -> MutexGuard<'_, Inner<M>> {
        self.inner.lock().unwrap_or_else(|poisoned| {
            self.inner.clear_poison();
            poisoned.into_inner()
        })
    }
}

impl<M: Machine> From<M> for Shared<M> {
    /// [`Shared::new`].
    fn from(machine: M) -> Shared<M> {
        Shared::new(machine)
    }
}

impl<M: Machine> From<Recorded<M>> for Shared<M> {
    /// The machine, recording into its history, with its outbox.
    fn from(recorded: Recorded<M>) -> Shared<M> {
        let (machine, history, outbox) = recorded.into_all_parts();
        Shared {
            inner: Mutex::new(Inner {
                machine,
                history: Some(history),
                outbox,
            }),
        }
    }
}

impl<M: Machine + Default> Default for Shared<M> {
    /// A machine in its initial state, without a history.
    fn default() -> Shared<M> {
        Shared::new(M::default())
    }
}

impl<M: Machine + fmt::Debug> fmt::Debug for Shared<M> {
    /// Does not wait for the lock: a machine locked elsewhere shows as
    /// `<locked>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("Shared");
        let inner = match self.inner.try_lock() {
            Ok(inner) => inner,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => {
                return debug.field("machine", &format_args!("<locked>")).finish();
            }
        };
        debug
            .field("machine", &inner.machine)
            .field("history", &inner.history)
            .finish()
    }
}
