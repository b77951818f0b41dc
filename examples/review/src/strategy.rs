//! The machine as a strategy, like the string-keyed design's `FsmStrategy`:
//! the current state behind a mutex, so that several threads can fire actions
//! and each transition is atomic.

use crate::review::{self, Event, FireError, Fired, Review, State};
use fsm_runtime::Snapshot;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A [`Review`] machine shared between threads.
///
/// `execute` locks, fires and unlocks, so two threads racing to fire see the
/// transitions one after the other: the second is judged against the state
/// the first left.
#[derive(Debug, Default)]
pub struct Strategy {
    current: Mutex<Review>,
}

impl Strategy {
    /// A strategy in the machine's initial state.
    pub fn new() -> Self {
        Self::default()
    }

    /// A strategy holding `machine`, restored from a snapshot for example.
    pub fn from_machine(machine: Review) -> Self {
        Strategy {
            current: Mutex::new(machine),
        }
    }

    /// Fire `event` atomically.
    ///
    /// # Errors
    ///
    /// As [`Review::fire`]: the event's action has no transition in the
    /// current state. The state is then unchanged, and the error hands the
    /// event back.
    pub fn execute<G: review::Guards + ?Sized>(&self, event: Event, guards: &G) -> Result<Fired, FireError> {
        self.lock().fire(event, guards)
    }

    /// The current state.
    pub fn state(&self) -> State {
        self.lock().state()
    }

    /// The current state, ready to be stored with the session's checkpoint.
    pub fn snapshot(&self) -> Snapshot {
        self.lock().snapshot()
    }

    /// The machine is replaced only after a transition succeeded, so it is
    /// never half-updated: a guard that panicked while the lock was held
    /// leaves a poisoned mutex around a valid state, which is safe to use.
    fn lock(&self) -> MutexGuard<'_, Review> {
        self.current.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
