//! [`Engine`]: a definition, its guards, and a current state that many
//! threads may fire at.

use super::bind_error::BindError;
use super::definition::Definition;
use super::engine_builder::{EngineBuilder, GuardFn};
use super::fire_error::{FireError, GuardRejected, InvalidTransition, UnknownAction};
use super::fired::Fired;
use super::ids::{ActionId, StateId};
use super::trace;
use crate::history::{next_seq_after, History};
use crate::snapshot::{FingerprintPolicy, Snapshot};
use crate::RestoreError;
use serde_json::Value;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};

/// A running machine: a [`Definition`], a closure for each of its guards,
/// and the current state.
///
/// # Firing
///
/// [`fire`](Self::fire) takes `&self` and is atomic: it locks the current
/// state, chooses the transition, moves, and unlocks, so an engine can be
/// shared between threads (in an `Arc`) and no transition is lost or torn.
/// Transitions are chosen exactly as generated code chooses them: the
/// candidates for the action in the current state by priority, ties in
/// declaration order, the state's own before `any`; guards are evaluated
/// lazily in that order, each at most once per `fire`.
///
/// # The lock
///
/// The lock guards the current state and the sequence number only; the
/// definition is immutable and read without locking. It is held while the
/// guards run, because the transition they choose must start from the state
/// they were asked about. So guards should be quick predicates over their
/// input, and a guard must not fire at (or otherwise lock) its own engine,
/// which would deadlock. A guard that panics leaves the engine unchanged and
/// usable: the state is only written once a transition has been chosen.
///
/// # History
///
/// An engine built with [`EngineBuilder::history`] records every transition
/// under its lock, so the history's order is the order in which the engine
/// really moved, and its [`snapshot`](Self::snapshot) carries the entries.
/// The history's clock runs under the lock too, as guards do. Recording
/// copies the three names of each entry: that is the one allocation of a
/// recording engine's `fire`.
///
/// # Cost
///
/// [`fire`](Self::fire) hashes the action's name once;
/// [`fire_id`](Self::fire_id) takes an id resolved in advance with
/// [`Definition::action_id`] and hashes nothing. Neither allocates or clones
/// a string on success.
pub struct Engine {
    definition: Arc<Definition>,
    /// Indexed by guard id.
    guards: Box<[GuardFn]>,
    current: Mutex<Current>,
}

/// What the lock guards.
#[derive(Debug)]
struct Current {
    state: StateId,
    /// The `seq` of the next transition.
    seq: u64,
    /// Where transitions are recorded, if anywhere.
    history: Option<History>,
}

impl Engine {
    /// An engine for a definition that has no guards, in its initial state.
    /// Fails, listing them, when the definition has guards; bind them with
    /// [`Engine::builder`].
    pub fn new(definition: impl Into<Arc<Definition>>) -> Result<Engine, BindError> {
        EngineBuilder::new(definition).build()
    }

    /// A builder that binds the definition's guards.
    pub fn builder(definition: impl Into<Arc<Definition>>) -> EngineBuilder {
        EngineBuilder::new(definition)
    }

    pub(crate) fn from_parts(
        definition: Arc<Definition>,
        guards: Box<[GuardFn]>,
        history: Option<History>,
    ) -> Engine {
        let state = definition.initial();
        Engine {
            definition,
            guards,
            current: Mutex::new(Current {
                state,
                seq: 0,
                history,
            }),
        }
    }

    /// The definition.
    pub fn definition(&self) -> &Arc<Definition> {
        &self.definition
    }

    /// The current state. With other threads firing, it may have changed by
    /// the time it is used; [`Fired`] says which state each transition left.
    pub fn state(&self) -> StateId {
        self.lock().state
    }

    /// The name of the current state.
    pub fn state_name(&self) -> &str {
        self.definition.state_name(self.state())
    }

    /// True when the current state is terminal.
    pub fn is_terminal(&self) -> bool {
        self.definition.is_terminal(self.state())
    }

    /// The actions that have a transition in the current state.
    pub fn valid_actions(&self) -> &[ActionId] {
        self.definition.valid_actions(self.state())
    }

    /// How many transitions this engine has fired: the `seq` the next one
    /// will get.
    pub fn fired_count(&self) -> u64 {
        self.lock().seq
    }

    /// Fire the action called `action`, with `input` for the guards: on
    /// success the engine moves to [`Fired::to`] and the caller performs
    /// [`Fired::outputs`]; on error it stays where it is.
    ///
    /// Fails with [`FireError::UnknownAction`] for a name the definition
    /// does not have, [`FireError::InvalidTransition`] when the action has
    /// no transition in the current state, and [`FireError::GuardRejected`]
    /// when every candidate's guard is false. With the `tracing` feature,
    /// every outcome is logged.
    pub fn fire(&self, action: &str, input: &Value) -> Result<Fired<'_>, FireError> {
        match self.definition.action_id(action) {
            Some(action) => self.fire_id(action, input),
            None => {
                let error = FireError::UnknownAction(UnknownAction {
                    action: action.into(),
                    definition: Arc::clone(&self.definition),
                });
                trace::rejected(&error);
                Err(error)
            }
        }
    }

    /// [`fire`](Self::fire) an action given by id: no hashing at all.
    ///
    /// Resolve the id with this engine's definition
    /// ([`Definition::action_id`]): an id is an index, so one from another
    /// definition fires whichever action has that index here.
    ///
    /// # Panics
    ///
    /// When `action` is out of range for this engine's definition.
    pub fn fire_id(&self, action: ActionId, input: &Value) -> Result<Fired<'_>, FireError> {
        self.assert_action(action);
        let definition = &*self.definition;
        let tables = &definition.tables;
        let mut current = self.lock();
        let from = current.state;
        let chosen = tables
            .candidates(from, action)
            .map(|candidates| tables.select(candidates, |guard| (self.guards[guard.index()])(input)));
        let candidate = match chosen {
            Some(Some(candidate)) => candidate,
            Some(None) => {
                drop(current);
                return Err(self.refuse(FireError::GuardRejected(GuardRejected {
                    state: from,
                    action,
                    definition: Arc::clone(&self.definition),
                })));
            }
            None => {
                drop(current);
                return Err(self.refuse(FireError::InvalidTransition(InvalidTransition {
                    state: from,
                    action,
                    definition: Arc::clone(&self.definition),
                })));
            }
        };
        let to = candidate.target.unwrap_or(from);
        if let Some(history) = &mut current.history {
            history.record_names(
                definition.state_name(from).to_owned(),
                definition.action_name(action).to_owned(),
                definition.state_name(to).to_owned(),
            );
        }
        let seq = current.seq;
        current.state = to;
        current.seq = seq + 1;
        drop(current);
        let fired = Fired {
            seq,
            from,
            to,
            action,
            outputs: tables.outputs(candidate),
            definition,
        };
        trace::fired(&fired);
        Ok(fired)
    }

    /// True when firing the action called `action` now would succeed.
    /// Evaluates the guards it needs, exactly as [`fire`](Self::fire) would,
    /// but changes nothing. False for an unknown action.
    pub fn can_fire(&self, action: &str, input: &Value) -> bool {
        self.definition
            .action_id(action)
            .is_some_and(|action| self.can_fire_id(action, input))
    }

    /// [`can_fire`](Self::can_fire) an action given by id.
    ///
    /// # Panics
    ///
    /// When `action` is not an action of this engine's definition.
    pub fn can_fire_id(&self, action: ActionId, input: &Value) -> bool {
        self.assert_action(action);
        let tables = &self.definition.tables;
        let current = self.lock();
        tables
            .candidates(current.state, action)
            .and_then(|candidates| tables.select(candidates, |guard| (self.guards[guard.index()])(input)))
            .is_some()
    }

    /// The current state, with the machine's name and fingerprint, ready to
    /// be stored: the same snapshot generated code takes for the same
    /// source, so either can restore the other's. It carries the history's
    /// entries when the engine records one, taken with the state under one
    /// lock.
    pub fn snapshot(&self) -> Snapshot {
        let current = self.lock();
        let snapshot = self.definition.snapshot_in(current.state);
        match &current.history {
            Some(history) => snapshot.with_history(history),
            None => snapshot,
        }
    }

    /// Call `f` with the history, locked (nothing fires until it returns),
    /// or return `None` when the engine records none. `f` must not use the
    /// engine: the lock is not reentrant, so that would deadlock.
    pub fn with_history<R>(&self, f: impl FnOnce(&History) -> R) -> Option<R> {
        self.lock().history.as_ref().map(f)
    }

    /// Move to the state of `snapshot`, which must come from this machine and
    /// this exact definition ([`FingerprintPolicy::Strict`]). Returns the
    /// state. On error the engine is unchanged.
    ///
    /// Restoring is not a transition: [`fired_count`](Self::fired_count)
    /// keeps counting from where it was. An engine that records a history
    /// takes the snapshot's entries in place of its own (see
    /// [`History::resumed_from`]), and refuses a snapshot whose history
    /// it could not go on numbering ([`RestoreError::SeqOutOfRange`]).
    pub fn restore(&self, snapshot: &Snapshot) -> Result<StateId, RestoreError> {
        self.restore_with(snapshot, FingerprintPolicy::Strict)
    }

    /// [`restore`](Self::restore), with `policy` deciding whether a snapshot
    /// taken from a different definition is accepted.
    pub fn restore_with(
        &self,
        snapshot: &Snapshot,
        policy: FingerprintPolicy,
    ) -> Result<StateId, RestoreError> {
        let state = self.definition.state_of(snapshot, policy)?;
        let mut current = self.lock();
        if current.history.is_some() {
            // Checked before anything changes.
            let next_seq = next_seq_after(snapshot)?;
            current.history = current
                .history
                .take()
                .map(|history| history.resumed_at(snapshot, next_seq));
        }
        current.state = state;
        Ok(state)
    }

    /// The lock on the current state. A guard that panicked poisoned it, but
    /// the state is only written after the guards ran, so it is consistent.
    #[inline]
    fn lock(&self) -> MutexGuard<'_, Current> {
        self.current.lock().unwrap_or_else(PoisonError::into_inner)
    }

    #[inline]
    fn assert_action(&self, action: ActionId) {
        let count = self.definition.machine().actions.len();
        assert!(
            action.index() < count,
            "{action:?} is not an action of machine `{}`, which has {count}",
            self.definition.name()
        );
    }

    #[cold]
    fn refuse(&self, error: FireError) -> FireError {
        trace::rejected(&error);
        error
    }
}

impl fmt::Debug for Engine {
    /// Never waits for the lock (a guard may be printing its own engine):
    /// while another thread holds it, the state shows as `<locked>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("Engine");
        s.field("machine", &self.definition.name());
        let current = match self.current.try_lock() {
            Ok(current) => Some((current.state, current.seq)),
            Err(TryLockError::Poisoned(poisoned)) => {
                let current = poisoned.into_inner();
                Some((current.state, current.seq))
            }
            Err(TryLockError::WouldBlock) => None,
        };
        match current {
            Some((state, seq)) => s
                .field("state", &self.definition.state_name(state))
                .field("fired_count", &seq),
            None => s.field("state", &format_args!("<locked>")),
        };
        s.finish_non_exhaustive()
    }
}
