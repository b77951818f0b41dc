//! [`Engine`]: a definition, its guards, and a current state that many
//! threads may fire at.

mod configured;

pub(crate) use configured::{summary_of, ConfiguredPlan};

use super::bind_error::BindError;
use super::definition::Definition;
use super::engine_builder::{Bound, EngineBuilder};
use super::fire_error::{FireError, GuardRejected, InvalidTransition, Runaway, UnknownAction};
use super::fired::{Fired, FiredTimer, Taken, Trail};
use super::ids::{ActionId, OutputId, StateId};
use super::tables::{EffectCall, Move, Step, TimerDelay};
use super::timer_rejected::TimerRejected;
use super::trace;
use fsm_grammar::model::Chosen;
use fsm_runtime::__private::chart::first_due;
use fsm_runtime::__private::deadline;
use fsm_runtime::__private::next_seq_after;
use fsm_runtime::__private::{outbox_ack, outbox_push};
use fsm_runtime::{ArmedTimer, Clock, RestoreError, Timestamp};
use fsm_runtime::{FingerprintPolicy, MissingTimerPolicy, RestorePolicy, Snapshot};
use fsm_runtime::{History, OutputKey, Pending, Retention};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};

/// The payload of hooks' effects and of timers' guards and effects.
static NULL: Value = Value::Null;

/// A running machine: a [`Definition`], a closure for each of its guards,
/// effects and delays, its context, the current state and its armed timers.
///
/// # Context, payloads and effects
///
/// The context is a value of type `C` the engine owns ([`serde_json::Value`]
/// unless the engine is built with [`Engine::with_context`]); payloads are
/// [`serde_json::Value`]s, given to [`fire`](Self::fire) by reference, so a
/// rejected action leaves its payload with the caller. Guards see the
/// context as it was before the firing; only once a transition is chosen do
/// its effects run, in the order of its outputs: the `exit do` effects of
/// the states left (innermost first), the transition's own `do` effects,
/// then the `enter do` effects of the states entered (outermost first); an
/// internal transition runs only its own.
/// A transition's guards and own effects receive the payload; hooks'
/// effects, and timers' guards and effects, receive `null`. No effect runs
/// when the action is rejected.
///
/// # Timers
///
/// A state's timers are armed when it is entered (those of the initial
/// state and its initial descent when the engine is built), at the
/// engine's [clock](EngineBuilder::clock)'s time plus their delay, rounded
/// up to the millisecond (at least one); a named delay is computed by its
/// closure from the context as it is once the entering effects ran. Leaving
/// the state disarms them; an internal transition keeps them; a self
/// transition re-arms them. A composite state's timers stay armed while the
/// engine moves between the states inside it.
/// [`next_deadline`](Self::next_deadline) says when the next is due, and
/// [`fire_due`](Self::fire_due) fires every timer due, each exactly once.
/// Timers of a state with the same delay form a group: when it is due, the
/// first whose guard holds fires (by priority, then declaration order) and
/// the group is disarmed, whether one fired or none did. An internal timer
/// (without a target) thus fires once per entry into its state. Groups due
/// at the same instant are tried by priority, then innermost state first,
/// then declaration order.
///
/// # Firing
///
/// [`fire`](Self::fire) takes `&self` and is atomic: it locks the current
/// state, chooses the transition, moves, and unlocks, so an engine can be
/// shared between threads (in an `Arc`) and no transition is lost or torn.
/// Transitions are chosen exactly as generated code chooses them: the
/// candidates for the action in the current state (its own, those of the
/// states holding it, and `any`'s) by priority, ties to the innermost
/// state, then in declaration order; guards are evaluated lazily in that
/// order, each at most once per `fire`.
///
/// # Parallel states, `done`, `always` and `in(...)`
///
/// A machine with parallel states, `final` states, `done` or `always`
/// transitions or `in(...)` guards is in a *configuration*: one leaf in
/// each active region ([`configuration`](Self::configuration)). A `fire`
/// chooses a transition for each active leaf, keeps those that do not
/// conflict, takes them as one step, then takes the `always` and `done`
/// transitions that follow, each as a step of its own, all within the same
/// call, as docs/dsl.md ("Parallel states") says. The returned [`Fired`]
/// holds every output of the chain, in order, the leaves before and after,
/// and the transitions taken ([`Fired::taken`]). The rules are the
/// runtime's (`fsm_runtime::__private::chart`, over the plan's tables), not this
/// engine's; the one error after which the engine has moved is
/// [`FireError::Runaway`], a guarded cycle past 1,000 microsteps.
///
/// # The lock
///
/// The lock guards the current state, the context, the armed timers and the
/// sequence number; the definition is immutable and read without locking.
/// It is held while guards and effects run, because the transition they
/// choose must start from the state they were asked about. So they should
/// be quick, and must not fire at (or otherwise lock) their own engine,
/// which would deadlock. A guard that panics leaves the engine unchanged and
/// usable: the state is only written once a transition has been chosen and
/// its effects ran. An effect that panics leaves the state unchanged and the
/// context as the effects before it left it.
///
/// # History
///
/// An engine built with [`EngineBuilder::history`] records every transition
/// under its lock, so the history's order is the order in which the engine
/// really moved, and its [`snapshot`](Self::snapshot) carries the entries.
/// The history's clock runs under the lock too, as guards do. Recording
/// copies the three names of each entry: that is the one allocation of a
/// recording engine's `fire`. A timer's entry is recorded with the action
/// `after DELAY` (`after 30s`).
///
/// # Cost
///
/// [`fire`](Self::fire) hashes the action's name once;
/// [`fire_id`](Self::fire_id) takes an id resolved in advance with
/// [`Definition::action_id`] and hashes nothing. Neither allocates or clones
/// a string on success, nor reads the clock unless the state entered has
/// timers.
pub struct Engine<C = Value> {
    definition: Arc<Definition>,
    bound: Bound<C>,
    /// Shared with the history an outbox makes the engine keep.
    clock: Arc<dyn Clock>,
    current: Mutex<Current<C>>,
}

/// What the lock guards.
#[derive(Debug)]
struct Current<C> {
    /// The current leaf.
    state: StateId,
    /// The `seq` of the next transition.
    seq: u64,
    /// Where transitions are recorded, if anywhere.
    history: Option<History>,
    context: C,
    /// Per timer group of the machine: its deadline while armed. Only the
    /// groups of the current leaf and its ancestors are read; the others
    /// hold whatever they held when their state was left, and are armed
    /// afresh when it is entered again.
    armed: Vec<Option<Timestamp>>,
    /// Per history slot (composite whose history is kept): the leaf last
    /// active inside it, once it has been left.
    memory: Vec<Option<StateId>>,
    /// The outputs not acknowledged yet, in key order, when the engine
    /// keeps an outbox (which needs `history`, to number the steps).
    outbox: Option<Vec<Pending<OutputId>>>,
    /// For a machine with parallel states: the active states and the
    /// history memory; `state` is then the innermost state holding every
    /// active one.
    configured: Option<Box<configured::Configured>>,
}

/// The history an engine keeps for its outbox when given none: the last
/// entry (enough to go on numbering steps after a restore), timed by the
/// engine's own clock.
fn last_entry_history(clock: &Arc<dyn Clock>) -> History {
    let clock = Arc::clone(clock);
    History::timed_by(move || clock.now(), Retention::Last(NonZeroUsize::MIN))
}

/// What [`Engine::chain`] did.
struct Chain {
    outputs: Vec<OutputId>,
    taken: Vec<Taken>,
    effects: usize,
    /// True when some step had a target.
    moved: bool,
    ran_away: bool,
}

impl Chain {
    /// The outputs, whether the `fire` stayed internal, and the trail of a
    /// chain from leaf `from` to leaf `to`.
    fn into_parts(self, from: StateId, to: StateId) -> (Vec<OutputId>, bool, Trail) {
        let trail = Trail {
            from: Box::new([from]),
            to: Box::new([to]),
            taken: self.taken.into(),
            effects: self.effects,
            ran_away: self.ran_away,
        };
        (self.outputs, !self.moved, trail)
    }
}

impl<C> Current<C> {
    /// Record the step `from --action--> to` in the history, if kept, and its
    /// `outputs` in the outbox, if kept, under the step's number.
    fn record(&mut self, from: Arc<str>, action: Arc<str>, to: Arc<str>, outputs: &[OutputId]) {
        if let Some(history) = &mut self.history {
            let step = history.record_shared(from, action, to).seq();
            if let Some(outbox) = &mut self.outbox {
                outbox_push(outbox, step, outputs);
            }
        }
    }
}

impl Engine {
    /// An engine for a definition that has no guards, effects or delays, in
    /// its initial state, with a `null` context. Fails, listing them, when
    /// the definition has some; bind them with [`Engine::builder`].
    pub fn new(definition: impl Into<Arc<Definition>>) -> Result<Engine, BindError> {
        EngineBuilder::new(definition).build()
    }

    /// A builder that binds the definition's guards, effects and delays,
    /// for an engine whose context is a JSON value (`null` unless given
    /// with [`EngineBuilder::context`]).
    pub fn builder(definition: impl Into<Arc<Definition>>) -> EngineBuilder {
        EngineBuilder::new(definition)
    }
}

impl<C> Engine<C> {
    /// A builder for an engine that owns `context`, a value of any type:
    /// its guards, effects and delays read and update it.
    pub fn with_context(definition: impl Into<Arc<Definition>>, context: C) -> EngineBuilder<C> {
        EngineBuilder::with_context(definition, context)
    }

    pub(crate) fn from_parts(
        definition: Arc<Definition>,
        bound: Bound<C>,
        clock: Box<dyn Clock>,
        context: C,
        mut history: Option<History>,
        outbox: bool,
    ) -> Engine<C> {
        let clock: Arc<dyn Clock> = Arc::from(clock);
        if outbox && history.is_none() {
            // The last entry is enough to go on numbering steps.
            history = Some(last_entry_history(&clock));
        }
        let state = definition.initial();
        let armed = vec![None; definition.tables.timer_group_count()];
        let memory = vec![None; definition.tables.history_slots().len()];
        let (configured, configured_arms) = match definition.configured.is_some() {
            true => {
                let (configured, arms) = Engine::<C>::initial_configured(&definition);
                (Some(Box::new(configured)), arms)
            }
            false => (None, Vec::new()),
        };
        let engine = Engine {
            definition,
            bound,
            clock,
            current: Mutex::new(Current {
                state,
                seq: 0,
                history,
                context,
                armed,
                memory,
                outbox: outbox.then(Vec::new),
                configured,
            }),
        };
        if !configured_arms.is_empty() {
            let now = engine.clock.now();
            let arms: Vec<u32> = configured_arms.iter().map(|&g| g as u32).collect();
            engine.arm(&mut engine.lock(), &arms, now);
            return engine;
        }
        // The initial state and its initial descent are entered now: arm
        // their timers.
        let arms = engine.definition.tables.initial_arms();
        if !arms.is_empty() {
            let now = engine.clock.now();
            engine.arm(&mut engine.lock(), arms, now);
        }
        engine
    }

    /// The definition.
    pub fn definition(&self) -> &Arc<Definition> {
        &self.definition
    }

    /// The current state: with nested states, the leaf the machine is in;
    /// with parallel states, the innermost state holding every active leaf
    /// (the parallel state, when more than one leaf is active: see
    /// [`configuration`](Self::configuration)). With other threads firing,
    /// it may have changed by the time it is used; [`Fired`] says which
    /// state each transition left.
    pub fn state(&self) -> StateId {
        self.lock().state
    }

    /// The active leaves, in document order: the current leaf alone for a
    /// machine without parallel states, one leaf per active region with
    /// them.
    pub fn configuration(&self) -> Vec<StateId> {
        self.configuration_of(&self.lock())
    }

    /// The names of the active leaves, in document order.
    pub fn configuration_names(&self) -> Vec<&str> {
        self.configuration()
            .into_iter()
            .map(|s| self.definition.state_name(s))
            .collect()
    }

    /// The name of the current state (a leaf).
    pub fn state_name(&self) -> &str {
        self.definition.state_name(self.state())
    }

    /// True when the machine is in the state called `state`: it is the
    /// current leaf, or a composite state holding it. False for a name the
    /// definition does not have. Generated code's `is_in(Composite)`.
    ///
    /// ```
    /// use fsm_dynamic::{Definition, Engine};
    ///
    /// let definition = Definition::from_fsm(
    ///     "machine M { initial state up { on quit -> down; initial state a { on x -> b; } state b; } state down; }",
    /// )?;
    /// let engine = Engine::new(definition)?;
    /// assert!(engine.is_in("up") && engine.is_in("a") && !engine.is_in("b"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_in(&self, state: &str) -> bool {
        self.definition
            .state_id(state)
            .is_some_and(|state| self.is_in_id(state))
    }

    /// [`is_in`](Self::is_in) a state given by id. An id of another
    /// definition is simply not the current leaf or one of its ancestors.
    pub fn is_in_id(&self, state: StateId) -> bool {
        if self.definition.configured.is_some() {
            let current = self.lock();
            let config = &current.configured.as_ref().expect("a configured engine").config;
            return state.index() < self.definition.machine().states.len()
                && configured::contains(config, configured::theirs(state));
        }
        let leaf = self.state();
        leaf == state || self.definition.ancestors(leaf).contains(&state)
    }

    /// The composite states holding the current leaf, innermost first
    /// (empty at the top level and in flat machines). Generated code's
    /// `state.ancestors()`.
    pub fn ancestors(&self) -> &[StateId] {
        self.definition.ancestors(self.state())
    }

    /// True when the current state is terminal.
    pub fn is_terminal(&self) -> bool {
        self.definition.is_terminal(self.state())
    }

    /// The actions that have a transition in the current state, including
    /// those it inherits from the states holding it and from `any`; with
    /// parallel states, in some active leaf.
    pub fn valid_actions(&self) -> std::borrow::Cow<'_, [ActionId]> {
        match self.definition.configured.is_some() {
            true => {
                let current = self.lock();
                let config = &current.configured.as_ref().expect("a configured engine").config;
                configured::valid_in(&self.definition, config).into()
            }
            false => self.definition.valid_actions(self.state()).into(),
        }
    }

    /// How many transitions this engine has fired (timers' included): the
    /// `seq` the next one will get.
    pub fn fired_count(&self) -> u64 {
        self.lock().seq
    }

    /// Call `f` with the context, locked (nothing fires until it returns).
    /// `f` must not use the engine: the lock is not reentrant.
    pub fn with_context_ref<R>(&self, f: impl FnOnce(&C) -> R) -> R {
        f(&self.lock().context)
    }

    /// A copy of the context.
    pub fn context(&self) -> C
    where
        C: Clone,
    {
        self.lock().context.clone()
    }

    /// The context, taking the engine apart.
    pub fn into_context(self) -> C {
        self.current
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
            .context
    }

    /// Fire the action called `action`, with `payload` for its guards and
    /// effects: on success the engine moves to [`Fired::to`], having run the
    /// transition's effects on the context, and the caller performs
    /// [`Fired::outputs`]; on error it stays where it is, nothing ran but
    /// guards, and the payload is still the caller's.
    ///
    /// Machines without payloads take their guards' input here, as before.
    ///
    /// Fails with [`FireError::UnknownAction`] for a name the definition
    /// does not have, [`FireError::InvalidTransition`] when the action has
    /// no transition in the current state, and [`FireError::GuardRejected`]
    /// when every candidate's guard is false. With the `tracing` feature,
    /// every outcome is logged.
    // Always inlined, as `fire_id` and `fire_valid` are: a caller's loop
    // then keeps the `Fired` in registers and pays no call, which measured
    // 5% fewer instructions per event on `data_speed`.
    #[inline(always)]
    pub fn fire(&self, action: &str, payload: &Value) -> Result<Fired<'_>, FireError> {
        match self.definition.action_id(action) {
            // An id from the definition's own index: in range.
            Some(action) => self.fire_valid(action, payload),
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
    #[inline(always)]
    pub fn fire_id(&self, action: ActionId, payload: &Value) -> Result<Fired<'_>, FireError> {
        self.assert_action(action);
        self.fire_valid(action, payload)
    }

    /// [`fire_id`](Self::fire_id) for an action known to be in range.
    #[inline(always)]
    fn fire_valid(&self, action: ActionId, payload: &Value) -> Result<Fired<'_>, FireError> {
        let definition = &*self.definition;
        if definition.configured.is_some() {
            return self.fire_configured(action, payload);
        }
        let tables = &definition.tables;
        let mut guard = self.lock();
        let current = &mut *guard;
        let from = current.state;
        let guards = &self.bound.guards;
        let context = &current.context;
        let chosen = tables
            .candidates(from, action)
            .map(|candidates| tables.select(candidates, |g| (guards[g.index()])(context, payload)));
        let candidate = match chosen {
            Some(Some(candidate)) => candidate,
            Some(None) => {
                drop(guard);
                return Err(self.refuse(FireError::GuardRejected(GuardRejected {
                    state: from,
                    action,
                    leaves: None,
                    definition: Arc::clone(&self.definition),
                })));
            }
            None => {
                drop(guard);
                return Err(self.refuse(FireError::InvalidTransition(InvalidTransition {
                    state: from,
                    action,
                    leaves: None,
                    valid: None,
                    definition: Arc::clone(&self.definition),
                })));
            }
        };
        let mv = tables.resolve(&candidate.step, &current.memory);
        self.run_effects(&mut current.context, tables.effects(mv), payload);
        if tables.has_eventless() {
            let first = configured::taken(definition.machine(), Chosen::Action(candidate.transition()));
            let chain = self.chain(current, &candidate.step, mv, first, None);
            current.record(
                definition.shared_state_name(from).clone(),
                definition.shared_action_name(action).clone(),
                definition.shared_state_name(current.state).clone(),
                &chain.outputs,
            );
            let seq = current.seq;
            current.seq += 1;
            let to = current.state;
            drop(guard);
            let (outputs, internal, trail) = chain.into_parts(from, to);
            let ran_away = trail.ran_away;
            let fired = Fired {
                seq,
                from,
                to,
                action,
                outputs: Cow::Owned(outputs),
                internal,
                trail: Some(Arc::new(trail)),
                definition,
            };
            if ran_away {
                let error = FireError::Runaway(Runaway::new(&fired, Arc::clone(&self.definition)));
                return Err(self.refuse(error));
            }
            trace::fired(&fired);
            return Ok(fired);
        }
        let to = mv.to.unwrap_or(from);
        current.record(
            definition.shared_state_name(from).clone(),
            definition.shared_action_name(action).clone(),
            definition.shared_state_name(to).clone(),
            tables.outputs(mv),
        );
        let seq = current.seq;
        current.seq += 1;
        self.enter(current, &candidate.step, mv, to, None);
        drop(guard);
        let fired = Fired {
            seq,
            from,
            to,
            action,
            outputs: Cow::Borrowed(tables.outputs(mv)),
            internal: mv.to.is_none(),
            trail: None,
            definition,
        };
        trace::fired(&fired);
        Ok(fired)
    }

    /// True when firing the action called `action` with `payload` now would
    /// succeed. Evaluates the guards it needs, exactly as
    /// [`fire`](Self::fire) would, but changes nothing and runs no effect.
    /// False for an unknown action.
    pub fn can_fire(&self, action: &str, payload: &Value) -> bool {
        self.definition
            .action_id(action)
            .is_some_and(|action| self.can_fire_id(action, payload))
    }

    /// [`can_fire`](Self::can_fire) an action given by id.
    ///
    /// # Panics
    ///
    /// When `action` is not an action of this engine's definition.
    pub fn can_fire_id(&self, action: ActionId, payload: &Value) -> bool {
        self.assert_action(action);
        if self.definition.configured.is_some() {
            return self.can_fire_configured(action, payload);
        }
        let tables = &self.definition.tables;
        let current = self.lock();
        let guards = &self.bound.guards;
        tables
            .candidates(current.state, action)
            .and_then(|candidates| {
                tables.select(candidates, |g| (guards[g.index()])(&current.context, payload))
            })
            .is_some()
    }

    /// When the next armed timer is due; `None` when none is armed.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        if self.definition.configured.is_some() {
            return self.next_deadline_configured();
        }
        let current = self.lock();
        self.definition
            .tables
            .leaf_groups(current.state)
            .iter()
            .filter_map(|g| current.armed[g.group as usize])
            .min()
    }

    /// Fire every timer due at the clock's current time, earliest deadline
    /// first (ties in the order of the state's timer groups), each exactly
    /// once, and return each due group's outcome, in order: the timer that
    /// fired, whose outputs the caller performs, or [`TimerRejected`] for a
    /// group none of whose guards held, which is disarmed without firing
    /// (as generated code's `fire_due` reports `Err(TimerRejected)`).
    /// Timers armed by these transitions are due after the time read, so
    /// they wait for a later call.
    pub fn fire_due(&self) -> Vec<Result<FiredTimer<'_>, TimerRejected<'_>>> {
        if self.definition.configured.is_some() {
            return self.fire_due_configured();
        }
        let mut fired = Vec::new();
        let mut guard = self.lock();
        let definition = &*self.definition;
        let tables = &definition.tables;
        let armed = |current: &Current<C>| {
            tables
                .leaf_groups(current.state)
                .iter()
                .any(|g| current.armed[g.group as usize].is_some())
        };
        if !armed(&guard) {
            return fired;
        }
        let now = self.clock.now();
        let guards = &self.bound.guards;
        loop {
            let current = &mut *guard;
            // The earliest deadline; ties in the leaf's trial order (the
            // runtime's one rule).
            let from = current.state;
            let groups = tables.leaf_groups(from);
            let order = groups.iter().map(|g| g.group);
            let Some((group, due)) = first_due(order, &current.armed, Some(now)) else {
                break;
            };
            let Some(leaf_group) = groups.iter().find(|g| g.group == group) else {
                break;
            };
            current.armed[leaf_group.group as usize] = None;
            let context = &current.context;
            let Some(candidate) = tables.select_timer(leaf_group, |g| (guards[g.index()])(context, &NULL))
            else {
                let first = tables.first_timer(leaf_group);
                fired.push(Err(TimerRejected {
                    state: from,
                    declared_in: first.declared_in,
                    timer: first.index as usize,
                    due,
                    leaves: None,
                    definition,
                }));
                continue;
            };
            let mv = tables.resolve(&candidate.step, &current.memory);
            self.run_effects(&mut current.context, tables.effects(mv), &NULL);
            if tables.has_eventless() {
                let first = configured::taken(definition.machine(), Chosen::Timer(candidate.timer()));
                let chain = self.chain(current, &candidate.step, mv, first, Some(now));
                current.record(
                    definition.shared_state_name(from).clone(),
                    tables.timer_group(leaf_group.group).label.clone(),
                    definition.shared_state_name(current.state).clone(),
                    &chain.outputs,
                );
                let seq = current.seq;
                current.seq += 1;
                let to = current.state;
                let (outputs, internal, trail) = chain.into_parts(from, to);
                fired.push(Ok(FiredTimer {
                    effects: trail.effects,
                    seq,
                    from,
                    to,
                    declared_in: candidate.declared_in,
                    timer: candidate.index as usize,
                    due,
                    outputs: Cow::Owned(outputs),
                    internal,
                    trail: Some(Arc::new(trail)),
                    definition,
                }));
                continue;
            }
            let to = mv.to.unwrap_or(from);
            current.record(
                definition.shared_state_name(from).clone(),
                tables.timer_group(leaf_group.group).label.clone(),
                definition.shared_state_name(to).clone(),
                tables.outputs(mv),
            );
            let seq = current.seq;
            current.seq += 1;
            self.enter(current, &candidate.step, mv, to, Some(now));
            fired.push(Ok(FiredTimer {
                effects: tables.effects(mv).len(),
                seq,
                from,
                to,
                declared_in: candidate.declared_in,
                timer: candidate.index as usize,
                due,
                outputs: Cow::Borrowed(tables.outputs(mv)),
                internal: mv.to.is_none(),
                trail: None,
                definition,
            }));
        }
        drop(guard);
        for outcome in &fired {
            match outcome {
                Ok(f) => trace::fired_timer(f),
                Err(r) => trace::timer_rejected(r),
            }
        }
        fired
    }

    /// Call `f` with the history, locked (nothing fires until it returns),
    /// or return `None` when the engine records none. `f` must not use the
    /// engine: the lock is not reentrant, so that would deadlock.
    pub fn with_history<R>(&self, f: impl FnOnce(&History) -> R) -> Option<R> {
        self.lock().history.as_ref().map(f)
    }

    /// The outputs emitted and not acknowledged yet, in the order they were
    /// emitted, when the engine keeps an outbox ([`EngineBuilder::outbox`],
    /// or restored from a snapshot that carries one); empty otherwise.
    pub fn pending(&self) -> Vec<Pending<OutputId>> {
        self.lock().outbox.clone().unwrap_or_default()
    }

    /// Acknowledge the output under `key` as performed: it is no longer
    /// pending, and the next snapshot no longer carries it. False when no
    /// output is pending under `key`.
    pub fn ack(&self, key: OutputKey) -> bool {
        self.lock()
            .outbox
            .as_mut()
            .is_some_and(|outbox| outbox_ack(outbox, key))
    }

    /// The current state, its context (for a machine that declares one) and
    /// its armed timers, with the machine's name and fingerprint, ready to
    /// be stored: the same snapshot generated code takes for the same
    /// source, so either can restore the other's. It carries the history's
    /// entries when the engine records one, all taken under one lock.
    ///
    /// Each armed timer is listed with its deadline, every timer of a group
    /// (the timers of the state with the same delay) with the group's: the
    /// current leaf's first, then those of each state holding it, outward.
    /// With nested states the snapshot also carries the history memory
    /// ([`Snapshot::last_active`]): the leaf last active in each composite
    /// some transition enters through its history, once it has been left.
    ///
    /// # Errors
    ///
    /// When the context does not serialize to JSON.
    pub fn try_snapshot(&self) -> Result<Snapshot, fsm_runtime::SnapshotError>
    where
        C: serde::Serialize,
    {
        let current = self.lock();
        let definition = &*self.definition;
        let mut snapshot = match definition.configured.is_some() {
            true => self.configured_snapshot(&current),
            false => self.leaf_snapshot(&current),
        };
        if definition.has_context() {
            snapshot = snapshot.with_context_of(&current.context)?;
        }
        if let Some(history) = &current.history {
            snapshot = snapshot.with_history(history);
        }
        if let Some(outbox) = &current.outbox {
            snapshot = snapshot.with_pending(outbox.iter().map(|p| Pending {
                key: p.key,
                output: definition.output_name(p.output).to_owned(),
            }));
        }
        Ok(snapshot)
    }

    /// The snapshot of a machine whose state is one leaf: the leaf, its
    /// armed timers and the history memory.
    fn leaf_snapshot(&self, current: &Current<C>) -> Snapshot {
        let definition = &*self.definition;
        let mut snapshot = definition.snapshot_in(current.state);
        let tables = &definition.tables;
        let slots = tables.armed_slots(current.state);
        if slots
            .iter()
            .any(|slot| current.armed[slot.group as usize].is_some())
        {
            snapshot = snapshot.with_timers(slots.iter().filter_map(|slot| {
                let due = current.armed[slot.group as usize]?;
                let state = definition.state_name(slot.state).to_owned();
                Some(ArmedTimer::new(state, slot.timer, due))
            }));
        }
        if current.memory.iter().any(Option::is_some) {
            snapshot =
                snapshot.with_last_active(tables.history_slots().iter().zip(&current.memory).filter_map(
                    |(slot, leaf)| {
                        let leaf = definition.state_name((*leaf)?).to_owned();
                        Some((definition.state_name(slot.composite).to_owned(), leaf))
                    },
                ));
        }
        snapshot
    }

    /// [`try_snapshot`](Self::try_snapshot), for a context that always
    /// serializes (as a JSON value does).
    ///
    /// # Panics
    ///
    /// When the context does not serialize to JSON: a map with keys that
    /// are not strings, or a `Serialize` impl that fails.
    pub fn snapshot(&self) -> Snapshot
    where
        C: serde::Serialize,
    {
        self.try_snapshot().unwrap_or_else(|e| {
            panic!(
                "cannot snapshot the engine of machine `{}`: {e}",
                self.definition.name()
            )
        })
    }

    /// Move to the state of `snapshot`, with its context and its armed
    /// timers (at their original deadlines, so a timeout armed before a
    /// crash fires when first promised); the snapshot must come from this
    /// machine and this exact definition ([`FingerprintPolicy::Strict`]).
    /// Returns the state. On error the engine is unchanged.
    ///
    /// Restoring is not a transition: [`fired_count`](Self::fired_count)
    /// keeps counting from where it was, and no effect runs. An engine
    /// that records a history takes the snapshot's entries in place of its
    /// own (see [`History::resumed_from`]), and refuses a snapshot whose
    /// history it could not go on numbering ([`RestoreError::SeqOutOfRange`]).
    ///
    /// For a machine with a context, fails with
    /// [`RestoreError::MissingContext`] when the snapshot carries none and
    /// [`RestoreError::InvalidContext`], naming the field, when it does not
    /// read back as a `C`; with [`RestoreError::UnknownTimer`] for a timer
    /// that is not one of the snapshot's leaf or of a state holding it, and
    /// [`RestoreError::DuplicateTimer`] for one armed twice; and
    /// with [`RestoreError::InvalidLastActive`] for history memory that does
    /// not name a composite entered through its history and a leaf inside it
    /// (each composite once).
    pub fn restore(&self, snapshot: &Snapshot) -> Result<StateId, RestoreError>
    where
        C: serde::de::DeserializeOwned,
    {
        self.restore_with(snapshot, FingerprintPolicy::Strict)
    }

    /// [`restore`](Self::restore), with `policy` deciding whether a snapshot
    /// taken from a different definition is accepted (a
    /// [`FingerprintPolicy`]), and what becomes of a timer the snapshot
    /// lost (a [`RestorePolicy`] says both).
    ///
    /// A timer group that is armed whenever its state is active (see
    /// [`MissingTimerPolicy`]), of a state active in the snapshot, of which
    /// the snapshot arms no timer, is refused with
    /// [`RestoreError::MissingTimer`], or under
    /// [`MissingTimerPolicy::Rearm`] armed at the clock's time plus its
    /// delay (a named delay read from the restored context).
    pub fn restore_with(
        &self,
        snapshot: &Snapshot,
        policy: impl Into<RestorePolicy>,
    ) -> Result<StateId, RestoreError>
    where
        C: serde::de::DeserializeOwned,
    {
        let RestorePolicy {
            fingerprint: policy,
            missing_timers,
        } = policy.into();
        let definition = &*self.definition;
        let context = |definition: &Definition| match definition.has_context() {
            true => snapshot.context_as::<C>().map(Some),
            false => Ok(None),
        };
        let (state, configured, context, armed, memory) = match definition.configured.is_some() {
            true => {
                definition.check_identity(snapshot, policy)?;
                let (configured, armed) = self.configured_restore(snapshot, policy)?;
                let context = context(definition)?;
                let state = configured::summary(definition.machine(), &configured.config);
                let armed = armed.into_iter().map(|(g, due)| (g as u32, due)).collect();
                (state, Some(Box::new(configured)), context, armed, Vec::new())
            }
            false => {
                let state = definition.state_of(snapshot, policy)?;
                let context = context(definition)?;
                let (armed, memory) = self.leaf_restore(snapshot, state)?;
                (state, None, context, armed, memory)
            }
        };
        let mut armed = armed;
        self.arm_missing(
            snapshot,
            missing_timers,
            configured.as_deref(),
            state,
            context.as_ref(),
            &mut armed,
        )?;
        let outbox: Option<Vec<Pending<OutputId>>> = snapshot
            .checked_pending(|name| definition.output_id(name).is_some())?
            .map(|pending| {
                pending
                    .filter_map(|p| {
                        Some(Pending {
                            key: p.key,
                            output: definition.output_id(p.output)?,
                        })
                    })
                    .collect()
            });
        let mut current = self.lock();
        if current.history.is_some() || outbox.is_some() {
            // Checked before anything changes.
            let next_seq = next_seq_after(snapshot)?;
            // A snapshot with an outbox turns it on: what it holds is the
            // caller's, and it needs a history to number the steps after it.
            let history = current
                .history
                .take()
                .unwrap_or_else(|| last_entry_history(&self.clock));
            current.history = Some(history.resumed_at(snapshot, next_seq));
        }
        current.outbox = match outbox {
            Some(outbox) => Some(outbox),
            // An engine that keeps an outbox keeps it, empty.
            None => current.outbox.as_ref().map(|_| Vec::new()),
        };
        current.state = state;
        if let Some(context) = context {
            current.context = context;
        }
        current.armed.fill(None);
        for (group, due) in armed {
            current.armed[group as usize] = Some(due);
        }
        current.memory = memory;
        current.configured = configured;
        Ok(state)
    }

    /// Check that `armed`, the timer groups `snapshot` arms, holds each
    /// group armed whenever its state is active of the active states (those
    /// of `configured`, or `state` and the states holding it), by the
    /// runtime's one rule (`Snapshot::missing_timer`): refused, or under
    /// [`MissingTimerPolicy::Rearm`] armed at the clock's time plus the
    /// delay, read from `context` (the restored one, or the engine's).
    fn arm_missing(
        &self,
        snapshot: &Snapshot,
        policy: MissingTimerPolicy,
        configured: Option<&configured::Configured>,
        state: StateId,
        context: Option<&C>,
        armed: &mut Vec<(u32, Timestamp)>,
    ) -> Result<(), RestoreError> {
        let definition = &*self.definition;
        let tables = &definition.tables;
        let active = |s: StateId| match configured {
            Some(configured) => configured::contains(&configured.config, configured::theirs(s)),
            None => s == state || definition.ancestors(state).contains(&s),
        };
        let mut now = None;
        for g in 0..tables.timer_group_count() as u32 {
            let group = tables.timer_group(g);
            if !group.always_armed || !active(group.state) || armed.iter().any(|&(a, _)| a == g) {
                continue;
            }
            let name = definition.state_name(group.state);
            let due = snapshot.missing_timer(policy, name, &group.label, || {
                let now = *now.get_or_insert_with(|| self.clock.now());
                let delay = match group.delay {
                    TimerDelay::Literal(delay) => delay,
                    TimerDelay::Named(delay) => match context {
                        Some(context) => (self.bound.delays[delay as usize])(context),
                        None => (self.bound.delays[delay as usize])(&self.lock().context),
                    },
                };
                deadline(now, delay)
            })?;
            armed.push((g, due));
        }
        Ok(())
    }

    /// The armed timers (group, deadline) and history memory of `snapshot`
    /// for a machine whose state is one leaf, `state`.
    #[allow(clippy::type_complexity)]
    fn leaf_restore(
        &self,
        snapshot: &Snapshot,
        state: StateId,
    ) -> Result<(Vec<(u32, Timestamp)>, Vec<Option<StateId>>), RestoreError> {
        let definition = &*self.definition;
        let tables = &definition.tables;
        let slots = tables.armed_slots(state);
        // Per group of the leaf (in `leaf_groups` order): its deadline.
        let mut armed: Vec<(u32, Timestamp)> = Vec::new();
        for timer in snapshot.checked_timers()? {
            let slot = slots.iter().find(|slot| {
                definition.state_name(slot.state) == timer.state() && slot.timer == timer.timer()
            });
            let Some(slot) = slot else {
                // The named state's timers can be armed when it is the
                // current leaf or holds it.
                let named = definition.state_id(timer.state());
                let armable = named.filter(|&s| s == state || definition.ancestors(state).contains(&s));
                return Err(snapshot.unknown_timer(timer, armable.map(|s| tables.timer_count(s))));
            };
            match armed.iter_mut().find(|(group, _)| *group == slot.group) {
                Some((_, due)) => *due = (*due).min(timer.due()),
                None => armed.push((slot.group, timer.due())),
            }
        }
        Ok((armed, definition.memory_of(snapshot)?))
    }

    /// Run `effects` on `context` in order.
    #[inline]
    fn run_effects(&self, context: &mut C, effects: &[EffectCall], payload: &Value) {
        for call in effects {
            let payload = if call.payload { payload } else { &NULL };
            (self.bound.effects[call.effect as usize])(context, payload);
        }
    }

    /// Finish taking `step` along `mv` from the current leaf to `to`, once
    /// its effects ran: record the leaf in the history of the composites it
    /// exits, move, and arm the timers of the states it enters (at `now`,
    /// or the clock's time, read only when there are some).
    #[inline]
    fn enter(&self, current: &mut Current<C>, step: &Step, mv: &Move, to: StateId, now: Option<Timestamp>) {
        if step.uses_history() {
            self.record(current, step);
        }
        current.state = to;
        if mv.arms_timers() {
            self.arm_entered(current, mv, now);
        }
    }

    /// Take `step` (whose effects ran) along `mv`, then the `always` and
    /// `done` steps after it, each the first candidate whose guard holds
    /// where the step before left the machine (`Plan::settle_candidates`,
    /// laid out in the tables; their guards and effects get no payload),
    /// until none is taken or [`MAX_MICROSTEPS`] were: for a machine
    /// without parallel states, which has one active leaf throughout.
    ///
    /// [`MAX_MICROSTEPS`]: fsm_grammar::model::MAX_MICROSTEPS
    #[inline(never)]
    fn chain(
        &self,
        current: &mut Current<C>,
        step: &Step,
        mv: &Move,
        first: Taken,
        now: Option<Timestamp>,
    ) -> Chain {
        let tables = &self.definition.tables;
        let m = self.definition.machine();
        let guards = &self.bound.guards;
        let mut chain = Chain {
            outputs: tables.outputs(mv).to_vec(),
            taken: vec![first],
            effects: tables.effects(mv).len(),
            moved: mv.to.is_some(),
            ran_away: false,
        };
        // One time for every timer the chain arms.
        let mut now = now;
        let mut enter = |current: &mut Current<C>, step: &Step, mv: &Move| {
            if mv.arms_timers() && now.is_none() {
                now = Some(self.clock.now());
            }
            let to = mv.to.unwrap_or(current.state);
            self.enter(current, step, mv, to, now);
        };
        enter(current, step, mv);
        let mut entered = mv.to.is_some();
        let mut steps = 0;
        loop {
            let at = current.state;
            let context = &current.context;
            let Some(next) = tables.select_settle(at, entered, |g| (guards[g.index()])(context, &NULL))
            else {
                break;
            };
            if steps == fsm_grammar::model::MAX_MICROSTEPS {
                chain.ran_away = true;
                break;
            }
            let mv = tables.resolve(&next.step, &current.memory);
            self.run_effects(&mut current.context, tables.effects(mv), &NULL);
            chain.effects += tables.effects(mv).len();
            chain.outputs.extend_from_slice(tables.outputs(mv));
            chain
                .taken
                .push(configured::taken(m, Chosen::Eventless(next.eventless as usize)));
            chain.moved |= mv.to.is_some();
            entered = mv.to.is_some();
            enter(current, &next.step, mv);
            steps += 1;
        }
        chain
    }

    /// Arm the timers of the states `mv` entered, at `now` or the clock's
    /// time.
    #[inline(never)]
    fn arm_entered(&self, current: &mut Current<C>, mv: &Move, now: Option<Timestamp>) {
        let now = now.unwrap_or_else(|| self.clock.now());
        self.arm(current, self.definition.tables.arms(mv), now);
    }

    /// Remember the current leaf in the history of the composites `step`
    /// exits.
    #[inline(never)]
    fn record(&self, current: &mut Current<C>, step: &Step) {
        for &slot in self.definition.tables.records(step) {
            current.memory[slot as usize] = Some(current.state);
        }
    }

    /// Arm the timer groups `groups` at `now`, reading named delays from
    /// the context as it is now.
    #[inline(never)]
    fn arm(&self, current: &mut Current<C>, groups: &[u32], now: Timestamp) {
        for &group in groups {
            let delay = match self.definition.tables.timer_group(group).delay {
                TimerDelay::Literal(delay) => delay,
                TimerDelay::Named(delay) => (self.bound.delays[delay as usize])(&current.context),
            };
            current.armed[group as usize] = Some(deadline(now, delay));
        }
    }

    /// The lock on the current state. A guard that panicked poisoned it, but
    /// the state is only written after the guards ran, so it is consistent.
    #[inline]
    fn lock(&self) -> MutexGuard<'_, Current<C>> {
        self.current.lock().unwrap_or_else(PoisonError::into_inner)
    }

    #[inline]
    fn assert_action(&self, action: ActionId) {
        let count = self.definition.tables.action_count();
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

impl<C> fmt::Debug for Engine<C> {
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
