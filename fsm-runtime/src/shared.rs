//! One machine, fired from many threads.

use crate::fire_error::FireError;
use crate::fired::Fired;
use crate::history::{fire_recording, History, Recorded};
use crate::machine::{Fire, Machine};
use crate::snapshot::Snapshot;
use std::fmt;
use std::sync::{Mutex, MutexGuard, TryLockError};

/// A generated machine that many threads fire at, one action at a time.
///
/// [`fire`](Shared::fire) takes `&self`: it locks, evaluates the guards on
/// the current state, moves, records the transition in the history (if the
/// machine has one), and unlocks. No two fires interleave, so the history's
/// order is the order in which the machine really moved: every entry starts
/// where the previous one ended. Share it with an `Arc`.
///
/// Guards and the history's clock run while the machine is locked: they
/// should be quick, and must not use the same `Shared` (the lock is not
/// reentrant, so that would deadlock). If one of them panics, the panic
/// reaches the caller of `fire` and the machine is unchanged and usable: the
/// lock's poisoning is cleared, because nothing is modified until all user
/// code has returned.
///
/// ```
/// use fsm_runtime::{History, NoGuards, Shared};
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
///                 shared.fire(Action::Tick, &NoGuards).unwrap();
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
struct Inner<M> {
    machine: M,
    history: Option<History>,
}

impl<M: Machine> Shared<M> {
    /// `machine`, without a history.
    pub fn new(machine: M) -> Shared<M> {
        Shared::from_parts(machine, None)
    }

    /// `machine`, recording every transition into `history`.
    pub fn recording(machine: M, history: History) -> Shared<M> {
        Shared::from_parts(machine, Some(history))
    }

    fn from_parts(machine: M, history: Option<History>) -> Shared<M> {
        Shared {
            inner: Mutex::new(Inner { machine, history }),
        }
    }

    /// Fire `action` with `guards` (`&NoGuards` for a machine without
    /// guards), atomically: see [`Fire::fire`] for what firing does, and
    /// the type's documentation for what runs under the lock.
    ///
    /// It takes the guards even for a machine without them, as
    /// [`Recorded::fire`] does and for the same reason: one inherent `fire`
    /// serves every machine.
    pub fn fire<G: ?Sized>(&self, action: M::Action, guards: &G) -> Result<Fired<M>, FireError<M>>
    where
        M: Fire<G>,
    {
        let mut inner = self.lock();
        let Inner { machine, history } = &mut *inner;
        fire_recording(machine, history.as_mut(), action, guards)
    }

    /// True when firing `action` now would succeed. Another thread may fire
    /// before you do, so the answer may be stale by the time you act on it.
    pub fn can_fire<G: ?Sized>(&self, action: M::Action, guards: &G) -> bool
    where
        M: Fire<G>,
    {
        self.lock().machine.can_fire(action, guards)
    }

    /// The current state.
    pub fn state(&self) -> M::State {
        self.lock().machine.state()
    }

    /// The current state and history, taken together, ready to be stored.
    pub fn snapshot(&self) -> Snapshot {
        let inner = self.lock();
        let snapshot = inner.machine.snapshot();
        match &inner.history {
            Some(history) => snapshot.with_history(history),
            None => snapshot,
        }
    }

    /// Call `f` with the machine, locked: nothing fires until it returns.
    pub fn with<R>(&self, f: impl FnOnce(&M) -> R) -> R {
        f(&self.lock().machine)
    }

    /// Call `f` with the history, locked, or return `None` if the machine
    /// records none.
    pub fn with_history<R>(&self, f: impl FnOnce(&History) -> R) -> Option<R> {
        self.lock().history.as_ref().map(f)
    }

    /// The machine and its history, if it has one.
    pub fn into_parts(self) -> (M, Option<History>) {
        let inner = self
            .inner
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        (inner.machine, inner.history)
    }

    /// Lock, taking over a lock poisoned by a panicking guard, clock or
    /// [`with`](Shared::with) closure: none of them can leave the machine
    /// half-changed (see [`fire_recording`]).
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
    /// The machine, recording into its history.
    fn from(recorded: Recorded<M>) -> Shared<M> {
        let (machine, history) = recorded.into_parts();
        Shared::recording(machine, history)
    }
}

impl<M: Machine> Default for Shared<M> {
    /// A machine in its initial state, without a history.
    fn default() -> Shared<M> {
        Shared::new(M::new())
    }
}

impl<M: Machine> fmt::Debug for Shared<M> {
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
